package main

import (
	"bufio"
	"errors"

	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mdgen/mdgen/internal/atomicfile"
	"github.com/mdgen/mdgen/internal/boundedread"

	"github.com/mdgen/mdgen/gen"
	"github.com/mdgen/mdgen/mdops/alg"
)

// modulePath is the module `mdgen generate` writes into.
const modulePath = "github.com/mdgen/mdgen"

// parseNs parses a comma-separated list of precisions in 1..alg.MaxN.
func parseNs(s string) ([]int, error) {
	var ns []int
	seen := map[int]bool{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 || n > alg.MaxN {
			return nil, usagef("-n: %q is not a precision in 1..%d", f, alg.MaxN)
		}
		if !seen[n] {
			seen[n] = true
			ns = append(ns, n)
		}
	}
	sort.Ints(ns)
	return ns, nil
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

const generateUsage = `usage: mdgen generate [-n list] [-root dir | -o dir]

Writes the generated arithmetic into the mdgen repository: mdops/f<N>_gen.go
and generated/cuda/md<N>.cuh for the default precisions %s, the shared
generated/cuda/mdbase.cuh and mdgen.cuh, and mdops/ops_bench_gen_test.go.

The repository is the module root (go.mod of %s) found from
the working directory upward, or -root; anywhere else generate refuses to
run. -o writes the same files under any folder instead (to look at them).

-n adds precisions (any of 1..16) to the default set; it never removes one,
so the repository stays whole. An extra N gets mdops/f<N>_gen.go and
generated/cuda/md<N>.cuh of its own (include md<N>.cuh directly); the shared
mdgen.cuh and benchmarks keep to the default set, so the tests still pass.
Extras found in mdops/ are regenerated on every run. They are local:
'make check-generated' reports them as untracked files; to keep one, add it
to gen.DefaultNs. Rebuild mdgen to use a new one (eval -prec N).

flags:
`

func runGenerate(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("generate", fmt.Sprintf(generateUsage, joinInts(gen.DefaultNs), modulePath), stderr)
	root := fs.String("root", "", "the repository root (default: found from the working directory upward)")
	outDir := fs.String("o", "", "write the files under this folder instead of the repository (no checks)")
	nlist := fs.String("n", "", "comma-separated precisions (1..16) to generate besides the default set "+joinInts(gen.DefaultNs))
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if err := checkArgs(fs, 0, "no arguments (flags only)"); err != nil {
		return err
	}
	var extra []int
	if *nlist != "" {
		var err error
		if extra, err = parseNs(*nlist); err != nil {
			return err
		}
	}
	dir := *outDir
	switch {
	case *outDir != "" && *root != "":
		return usagef("generate: give -root or -o, not both")
	case *outDir == "":
		var err error
		if dir, err = findRepository(*root); err != nil {
			return err
		}
		// Keep what earlier runs added.
		have, err := gen.ExtraPrecisions(dir)
		if err != nil {
			return err
		}
		for _, n := range have {
			if !slices.Contains(extra, n) {
				extra = append(extra, n)
			}
		}
		sort.Ints(extra)
	}
	files, err := gen.RepositoryFiles(extra)
	if err != nil {
		return err
	}
	if err := atomicfile.ResolveDir(dir, nil); err != nil {
		return usagef("generate: -o: %w", err)
	}
	if err := atomicfile.WriteAll(dir, files, nil); err != nil {
		return err
	}
	var added []int
	for _, n := range extra {
		if !slices.Contains(gen.DefaultNs, n) {
			added = append(added, n)
		}
	}
	fmt.Fprintf(stderr, "mdgen: wrote %d files under %s for N = %s", len(files), dir, joinInts(gen.DefaultNs))
	if len(added) > 0 {
		fmt.Fprintf(stderr, " and, standing alone, N = %s (local: add them to gen.DefaultNs to keep them)", joinInts(added))
	}
	fmt.Fprintln(stderr)
	return nil
}

// findRepository returns the root of the mdgen module: root itself when
// given (it must hold the go.mod of modulePath), else the first folder from
// the working directory upward with a go.mod, which must be modulePath's.
func findRepository(root string) (string, error) {
	if root != "" {
		mod, err := moduleOf(filepath.Join(root, "go.mod"))
		if err != nil {
			return "", usagef("generate: -root %s: %v", root, err)
		}
		if mod != modulePath {
			return "", usagef("generate: -root %s is module %s, not %s", root, mod, modulePath)
		}
		return root, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; {
		mod, err := moduleOf(filepath.Join(dir, "go.mod"))
		switch {
		case err == nil && mod == modulePath:
			return dir, nil
		case err == nil:
			return "", fmt.Errorf("generate: %s is in module %s (%s), not in %s: run it in the mdgen repository, or give -root or -o",
				wd, mod, filepath.Join(dir, "go.mod"), modulePath)
		case !errors.Is(err, fs.ErrNotExist):
			return "", fmt.Errorf("generate: %v", err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("generate: %s is not in the mdgen repository (no go.mod of %s here or above): run it there, or give -root or -o", wd, modulePath)
		}
		dir = parent
	}
}

// moduleOf returns the module path declared by the go.mod file at path.
func moduleOf(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(boundedread.Reader(f, path, "a go.mod file", 16<<20))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "//")
		fields := strings.Fields(line)
		if len(fields) == 2 && fields[0] == "module" {
			if p, err := strconv.Unquote(fields[1]); err == nil {
				return p, nil
			}
			return fields[1], nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("%s has no module line", path)
}
