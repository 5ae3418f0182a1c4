package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mdgen/mdgen/gen"
)

// runCLI runs the command line in-process and returns the exit status,
// stdout and stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// writeFile writes text to name in a temporary folder and returns its path.
func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const twoBytwo = "2\nx1^2 + x2 - 1;\nx1*x2 - 3;\n"

// TestEvalInputOutOfRange: a value outside the float64 range in -input is
// refused at its file:line:col (it used to become +Inf, then panic in the
// math/big reference with -verify, or pass with "worst 0.0 accurate bits").
func TestEvalInputOutOfRange(t *testing.T) {
	sys := writeFile(t, "sys.txt", twoBytwo)
	in := writeFile(t, "in.txt", "x1 0 1\nx2 0   1e400\n")
	for _, args := range [][]string{
		{"eval", sys, "-prec", "2", "-degree", "4", "-verify", "-input", in},
		{"eval", sys, "-prec", "2", "-degree", "4", "-input", in, "-json"},
	} {
		code, stdout, stderr := runCLI(t, args...)
		if code != 1 || stdout != "" || !strings.Contains(stderr, in+":2:8: 1e400 is outside the float64 range") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
}

// TestEvalJSONWorstZero: -json -verify prints worst_accurate_bits even
// when it is 0 (omitempty dropped it); without -verify there is none.
func TestEvalJSONWorstZero(t *testing.T) {
	sys := writeFile(t, "sys.txt", twoBytwo)
	// x1^2 = 1e400 overflows in double arithmetic: 0 accurate bits.
	in := writeFile(t, "in.txt", "x1 0 1e200\nx2 0 1\n")
	code, stdout, stderr := runCLI(t, "eval", sys, "-prec", "1", "-degree", "1", "-verify", "-input", in, "-json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if bits, ok := rep["worst_accurate_bits"].(float64); !ok || bits != 0 {
		t.Errorf("worst_accurate_bits = %v (present %v), want 0:\n%s", rep["worst_accurate_bits"], ok, stdout)
	}
	if nf, _ := rep["non_finite_numbers"].(float64); nf == 0 || !strings.Contains(stderr, "not finite") {
		t.Errorf("non_finite_numbers = %v, stderr %q", rep["non_finite_numbers"], stderr)
	}
	code, stdout, _ = runCLI(t, "eval", sys, "-prec", "1", "-degree", "1", "-json")
	if code != 0 || strings.Contains(stdout, "worst_accurate_bits") {
		t.Errorf("without -verify: exit %d\n%s", code, stdout)
	}
}

// TestEvalInputLongLine: an -input line over bufio.Scanner's 64 KiB limit
// is read ("token too long" before).
func TestEvalInputLongLine(t *testing.T) {
	sys := writeFile(t, "sys.txt", twoBytwo)
	long := "0." + strings.Repeat("0", 80000) + "5e80000" // 0.5
	in := writeFile(t, "in.txt", "x1 0 "+long+"\nx2 0 1\n")
	code, stdout, stderr := runCLI(t, "eval", sys, "-prec", "2", "-degree", "2", "-input", in, "-verify")
	if code != 0 || !strings.Contains(stdout, "verified:") {
		t.Errorf("exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// TestEvalWorstAtNames: the accuracy location uses the file's variable names
// and polynomials numbered from 1, not "d p0/d z1".
func TestEvalWorstAtNames(t *testing.T) {
	sys := writeFile(t, "sys.txt", "2\nalpha^2 + beta - 1/3;\nalpha*beta - 3;\n")
	code, stdout, stderr := runCLI(t, "eval", sys, "-prec", "2", "-degree", "3", "-verify", "-json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		WorstAt string `json:"worst_at"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^(f[12]|d f[12]/d (alpha|beta)) coefficient t\^[0-3] \(re\)$`).MatchString(rep.WorstAt) {
		t.Errorf("worst_at = %q", rep.WorstAt)
	}
}

// TestEvalComplexAutomatically: a system with complex coefficients gets
// complex data without -complex, and says so.
func TestEvalComplexAutomatically(t *testing.T) {
	sys := writeFile(t, "sys.txt", "2\nx1^2 + x2 - 1*i;\nx1*x2 - 3;\n")
	code, stdout, stderr := runCLI(t, "eval", sys, "-prec", "2", "-degree", "2", "-verify", "-json")
	if code != 0 || !strings.Contains(stdout, `"complex": true`) || !strings.Contains(stderr, "complex coefficients: using complex data") {
		t.Errorf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	code, _, stderr = runCLI(t, "eval", sys, "-prec", "2", "-degree", "2", "-complex=false")
	if code != 2 || !strings.Contains(stderr, "complex coefficients") {
		t.Errorf("-complex=false: exit %d, %s", code, stderr)
	}
	code, stdout, stderr = runCLI(t, "plan", sys, "-degree", "2", "-json")
	if code != 0 || !strings.Contains(stdout, `"complex": true`) {
		t.Errorf("plan: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// TestFlagValidation: out-of-range flag values are usage errors (exit
// status 2) with a clear message.
func TestFlagValidation(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string // in stderr
		not  string // not in stderr
	}{
		{[]string{"eval", "p1", "-degree", "1", "-workers", "-3"}, "-workers -3: want 0 (one per CPU) or 1..1024", ""},
		{[]string{"eval", "p1", "-degree", "1", "-workers", "100000"}, "-workers 100000: want", ""},
		{[]string{"eval", "p1", "-degree", "1", "-repeat", "-5"}, "-repeat -5: want 1..", ""},
		{[]string{"eval", "p1", "-degree", "1", "-repeat", "0"}, "-repeat 0: want 1..", ""},
		{[]string{"eval", "p1", "-degree", "-1"}, "-degree -1: want", ""},
		{[]string{"eval", "p1", "-degree", "1", "-prec", "0"}, "-prec 0: not a precision: 0 doubles (generated: 1,2,3,4,5,8,10,16)", "mdgen generate"},
		{[]string{"eval", "p1", "-degree", "1", "-prec", "17"}, "-prec 17: not a precision", "mdgen generate"},
		{[]string{"eval", "p1", "-degree", "1", "-prec", "7"}, "no generated arithmetic for 7 doubles (generated: 1,2,3,4,5,8,10,16); add it with `mdgen generate -n 7`", ""},
		{[]string{"plan", "p1", "-degree", "1", "-prec", "7"}, "-prec 7: no generated arithmetic", ""},
		{[]string{"plan", "p1", "-degree", "1", "-prec", "0"}, "-prec 0: not a precision", "mdgen generate"},
		{[]string{"plan", "p1"}, "-degree d >= 0 is required", ""},
		{[]string{"eval"}, "eval: want one system file", ""},
		{[]string{"eval", "p1", "p2"}, "eval: want one system file", ""},
		{[]string{"eval", "p1", "-nosuchflag"}, "flag provided but not defined: -nosuchflag", ""},
		{[]string{"ops", "-samples", "0"}, "-samples 0: want 1..", ""},
		{[]string{"ops", "-n", "0"}, "-n: \"0\" is not a precision in 1..16", ""},
		{[]string{"generate", "extra"}, "generate: want no arguments", ""},
		{[]string{"nosuchcommand"}, `unknown command "nosuchcommand"`, ""},
		{nil, "usage: mdgen <command>", ""},
	} {
		code, _, stderr := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || c.not != "" && strings.Contains(stderr, c.not) {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// TestHelpExitsZero: -h on every command prints its usage and exits 0 (it
// exited 1 with "flag: help requested").
func TestHelpExitsZero(t *testing.T) {
	for _, c := range commands {
		cmd := c.name
		code, stdout, stderr := runCLI(t, cmd, "-h")
		if code != 0 || strings.Contains(stderr, "help requested") {
			t.Errorf("%s -h: exit %d, stderr %q", cmd, code, stderr)
		}
		mine := !slices.Contains([]string{"system", "emit", "bench"}, cmd) // these print their usage to stderr
		if mine && !strings.Contains(stdout, "usage: mdgen "+cmd) {
			t.Errorf("%s -h: stdout %q", cmd, stdout)
		}
	}
	for _, args := range [][]string{{"-h"}, {"help"}, {"--help"}} {
		if code, stdout, _ := runCLI(t, args...); code != 0 || stdout != usage {
			t.Errorf("%v: exit %d, %q", args, code, stdout)
		}
	}
	if code, stdout, _ := runCLI(t, "help", "eval"); code != 0 || !strings.Contains(stdout, "usage: mdgen eval") {
		t.Errorf("help eval: exit %d, %q", code, stdout)
	}
}

// TestUsageListsEveryCommand: the top-level usage names every command
// (bench was missing), and run knows each.
func TestUsageListsEveryCommand(t *testing.T) {
	for _, c := range commands {
		cmd := c.name
		if !regexp.MustCompile(`(?m)^  ` + cmd + ` +\S`).MatchString(usage) {
			t.Errorf("usage does not list %s", cmd)
		}
		if _, _, stderr := runCLI(t, cmd, "-h"); strings.Contains(stderr, "unknown command") {
			t.Errorf("run does not know %s", cmd)
		}
	}
	for _, cmd := range []string{"solve", "eval", "plan", "system", "emit", "bench", "ops", "generate", "version"} {
		if _, ok := lookupCommand(cmd); !ok {
			t.Errorf("commands lacks %s", cmd)
		}
	}
}

// TestVersion: mdgen version and mdgen -version print the module and Go
// versions.
func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"-version"}} {
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 || !strings.HasPrefix(stdout, "mdgen ") || !strings.Contains(stdout, goruntime.Version()) ||
			!strings.Contains(stdout, "github.com/mdgen/mdgen") {
			t.Errorf("%v: exit %d, %q %q", args, code, stdout, stderr)
		}
	}
	code, stdout, _ := runCLI(t, "version", "-json")
	var v versionInfo
	if err := json.Unmarshal([]byte(stdout), &v); code != 0 || err != nil || v.Go != goruntime.Version() {
		t.Errorf("version -json: exit %d, %v, %q", code, err, stdout)
	}
	if s := (versionInfo{Module: "m", Version: "v1.2.3", Go: "go1", Platform: "p/q", Revision: "abc", Modified: true}).String(); s != "mdgen v1.2.3 m, go1 p/q, vcs abc (modified)" {
		t.Errorf("String: %q", s)
	}
}

// fakeClock is a settable clock for the progress printer.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time      { return c.t }
func (c *fakeClock) add(d time.Duration) { c.t = c.t.Add(d) }
func newTestProgress(tty bool) (*progress, *bytes.Buffer, *fakeClock) {
	var b bytes.Buffer
	c := &fakeClock{t: time.Unix(1000, 0)}
	p := newProgress(&b)
	p.now, p.tty, p.delay = c.now, tty, time.Second
	p.interval = 10 * time.Second
	if tty {
		p.interval = 250 * time.Millisecond
	}
	p.start = c.now()
	return p, &b, c
}

// TestProgressNotTerminal: off a terminal, progress writes whole lines (no
// \r) at most every 10 seconds, nothing in the first second.
func TestProgressNotTerminal(t *testing.T) {
	if isTerminal(&bytes.Buffer{}) {
		t.Fatal("a buffer is not a terminal")
	}
	p, b, c := newTestProgress(false)
	p.count("verify", 1, 100) // quiet first second
	for i := 2; i <= 100; i++ {
		c.add(time.Second)
		p.count("verify", i, 100)
	}
	p.done()
	got := b.String()
	if strings.Contains(got, "\r") || strings.Count(got, "\n") != 10 ||
		!strings.HasPrefix(got, "mdgen: verify 2/100 (2%, 1s)\nmdgen: verify 12/100 (12%, 11s)\n") {
		t.Errorf("progress output:\n%s", got)
	}
}

// TestProgressTerminal: on a terminal one line is rewritten with \r and
// ended by done.
func TestProgressTerminal(t *testing.T) {
	p, b, c := newTestProgress(true)
	c.add(2 * time.Second)
	p.fraction("eval layer 1/3", 0.25)
	p.fraction("eval layer 2/3", 0.5) // too soon
	c.add(time.Second)
	p.fraction("eval layer 3/3", 1)
	p.done()
	got := b.String()
	if strings.Count(got, "\r") != 2 || !strings.HasSuffix(got, "\n") || strings.Count(got, "\n") != 1 ||
		!strings.Contains(got, "\rmdgen: eval layer 1/3 (25%, 2s)") || !strings.Contains(got, "\rmdgen: eval layer 3/3 (100%, 3s)") {
		t.Errorf("progress output %q", got)
	}
}

// TestEvalLayerProgress: a long evaluation reports its layers (it showed
// nothing during one evaluation); off a terminal, as lines without \r.
func TestEvalLayerProgress(t *testing.T) {
	defer func(ops float64, quiet time.Duration) { longRunOps, progressQuiet = ops, quiet }(longRunOps, progressQuiet)
	longRunOps, progressQuiet = 0, 0 // every evaluation is long, no quiet second
	code, _, stderr := runCLI(t, "eval", "p1", "-prec", "1", "-degree", "2")
	if code != 0 || !regexp.MustCompile(`(?m)^mdgen: eval layer \d+/15 \(\d+%, 0s\)$`).MatchString(stderr) || strings.Contains(stderr, "\r") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// TestGenerateRefusesOutsideRepository: generate writes into the mdgen
// module only (it wrote into any working directory).
func TestGenerateRefusesOutsideRepository(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	code, _, stderr := runCLI(t, "generate")
	if code != 1 || !strings.Contains(stderr, "is not in the mdgen repository") {
		t.Errorf("exit %d, %s", code, stderr)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/other\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCLI(t, "generate")
	if code != 1 || !strings.Contains(stderr, "is in module example.com/other") {
		t.Errorf("exit %d, %s", code, stderr)
	}
	code, _, stderr = runCLI(t, "generate", "-root", dir)
	if code != 2 || !strings.Contains(stderr, "is module example.com/other, not github.com/mdgen/mdgen") {
		t.Errorf("-root: exit %d, %s", code, stderr)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("generate wrote into %s: %v", dir, ents)
	}
}

// TestGenerateNAdds: -n adds precisions to the default set and never
// changes the shared files, so -n 2,4 (which replaced the set and broke
// the repository's tests) writes exactly the default files, and -n 7 adds
// f7_gen.go and md7.cuh; a later run keeps regenerating them.
func TestGenerateNAdds(t *testing.T) {
	if testing.Short() {
		t.Skip("generates every default precision")
	}
	want, err := gen.ArithmeticFiles(gen.DefaultNs)
	if err != nil {
		t.Fatal(err)
	}
	repo := t.TempDir()
	t.Chdir(repo)
	if err := os.WriteFile(filepath.Join(repo, "go.mod"), []byte("module github.com/mdgen/mdgen // fake\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(repo, "mdops", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join(repo, "mdops", "sub")) // found from below
	if code, _, stderr := runCLI(t, "generate", "-n", "2,4"); code != 0 {
		t.Fatalf("generate -n 2,4: exit %d: %s", code, stderr)
	}
	check := func(extra ...string) {
		t.Helper()
		for p, b := range want {
			if got, err := os.ReadFile(filepath.Join(repo, p)); err != nil || !bytes.Equal(got, b) {
				t.Errorf("%s differs from the default set's (%v)", p, err)
			}
		}
		ents, _ := os.ReadDir(filepath.Join(repo, "mdops"))
		var names []string
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), "_gen.go") {
				names = append(names, e.Name())
			}
		}
		wantNames := append([]string{"f10_gen.go", "f16_gen.go", "f1_gen.go", "f2_gen.go", "f3_gen.go", "f4_gen.go", "f5_gen.go"}, extra...)
		wantNames = append(wantNames, "f8_gen.go")
		slices.Sort(wantNames)
		if !slices.Equal(names, wantNames) {
			t.Errorf("mdops: %v, want %v", names, wantNames)
		}
	}
	check()
	code, _, stderr := runCLI(t, "generate", "-n", "7")
	if code != 0 || !strings.Contains(stderr, "N = 7 (local") {
		t.Fatalf("generate -n 7: exit %d: %s", code, stderr)
	}
	check("f7_gen.go")
	if _, err := os.Stat(filepath.Join(repo, "generated", "cuda", "md7.cuh")); err != nil {
		t.Error(err)
	}
	os.Remove(filepath.Join(repo, "generated", "cuda", "md7.cuh"))
	if code, _, stderr := runCLI(t, "generate"); code != 0 || !strings.Contains(stderr, "N = 7") {
		t.Errorf("generate after -n 7: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(repo, "generated", "cuda", "md7.cuh")); err != nil {
		t.Errorf("the extra precision was not regenerated: %v", err)
	}
}
