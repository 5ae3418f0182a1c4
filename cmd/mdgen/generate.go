package main

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/mdgen/mdgen/gen"
	"github.com/mdgen/mdgen/mdops/alg"
)

// parseNs parses a comma-separated list of precisions in 1..alg.MaxN.
func parseNs(s string) ([]int, error) {
	var ns []int
	seen := map[int]bool{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 || n > alg.MaxN {
			return nil, fmt.Errorf("-n: %q is not a precision in 1..%d", f, alg.MaxN)
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

func runGenerate(args []string) error {
	fs := flag.NewFlagSet("generate", flag.ContinueOnError)
	root := fs.String("root", ".", "repository root to write into")
	nlist := fs.String("n", joinInts(gen.DefaultNs), "comma-separated precisions to generate (1..16)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ns, err := parseNs(*nlist)
	if err != nil {
		return err
	}
	files, err := gen.ArithmeticFiles(ns)
	if err != nil {
		return err
	}
	if err := gen.WriteFiles(*root, files); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "mdgen: wrote %d files for N = %s\n", len(files), joinInts(ns))
	return nil
}
