// Command testreport reads `go test -json` from standard input and prints
// what a person needs from a long test run: one line per package, the whole
// output of every failed test, and, loudly at the end, every skipped test
// with its reason (tests skip when the PHCpack demo files or a GPU are
// missing, and a quiet skip would hide that they did not run). It exits 1
// when a test or a package failed.
//
//	go test -json ./... | go run ./internal/testreport
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// event is one line of test2json output.
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
	// ImportPath names the package of build-output and build-fail events.
	ImportPath string
}

func main() {
	os.Exit(report(os.Stdin, os.Stdout))
}

func report(in io.Reader, out io.Writer) int {
	output := map[string]*strings.Builder{} // package/test -> its output
	var skipped, failed []string
	failedPkg := false
	dec := json.NewDecoder(bufio.NewReader(in))
	for {
		var e event
		if err := dec.Decode(&e); err == io.EOF {
			break
		} else if err != nil {
			fmt.Fprintf(out, "testreport: reading go test -json: %v\n", err)
			return 1
		}
		key := e.Package + " " + e.Test
		switch e.Action {
		case "output":
			b := output[key]
			if b == nil {
				b = &strings.Builder{}
				output[key] = b
			}
			b.WriteString(e.Output)
		case "build-output":
			b := output["build "+e.ImportPath]
			if b == nil {
				b = &strings.Builder{}
				output["build "+e.ImportPath] = b
			}
			b.WriteString(e.Output)
		case "build-fail":
			failedPkg = true
			fmt.Fprintf(out, "BUILD FAILED\t%s\n%s", e.ImportPath, text(output["build "+e.ImportPath]))
		case "skip":
			if e.Test != "" {
				skipped = append(skipped, fmt.Sprintf("%s %s: %s", e.Package, e.Test, skipReason(output[key])))
			}
		case "fail":
			if e.Test != "" {
				failed = append(failed, key)
				fmt.Fprintf(out, "--- FAIL %s\n%s", key, text(output[key]))
				continue
			}
			failedPkg = true
			fmt.Fprintf(out, "FAIL\t%s\t%.1fs\n%s", e.Package, e.Elapsed, pkgOutput(output[key]))
		case "pass":
			if e.Test == "" {
				fmt.Fprintf(out, "ok\t%s\t%.1fs\n", e.Package, e.Elapsed)
			}
		}
	}
	if len(skipped) > 0 {
		sort.Strings(skipped)
		fmt.Fprintf(out, "\n%d tests SKIPPED (they did not run here):\n", len(skipped))
		for _, s := range skipped {
			fmt.Fprintf(out, "  SKIP %s\n", s)
		}
	}
	if len(failed) > 0 || failedPkg {
		fmt.Fprintf(out, "\n%d tests FAILED\n", len(failed))
		return 1
	}
	return 0
}

func text(b *strings.Builder) string {
	if b == nil {
		return ""
	}
	return b.String()
}

// pkgOutput is a failed package's own output (build errors, panics outside
// tests), without the summary lines.
func pkgOutput(b *strings.Builder) string {
	var keep []string
	for _, line := range strings.SplitAfter(text(b), "\n") {
		if t := strings.TrimSpace(line); t == "" || t == "FAIL" || strings.HasPrefix(t, "FAIL\t") || strings.HasPrefix(t, "ok ") {
			continue
		}
		keep = append(keep, line)
	}
	return strings.Join(keep, "")
}

// skipReason is the message a test gave t.Skip: the output lines after
// its "--- SKIP" header, or the last line before it.
func skipReason(b *strings.Builder) string {
	var lines []string
	for _, l := range strings.Split(text(b), "\n") {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "=== ") && !strings.HasPrefix(t, "--- SKIP") {
			lines = append(lines, t)
		}
	}
	if len(lines) == 0 {
		return "(no reason given)"
	}
	return strings.Join(lines, "; ")
}
