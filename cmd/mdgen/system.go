package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/mdgen/mdgen/stager"
)

// runSystem writes a benchmark system in PHCpack's plain format:
//
//	mdgen system p1|p2|p3 [-seed s] [-complex]
func runSystem(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("system", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: mdgen system p1|p2|p3 [-seed s] [-complex]\n\n"+
			"Writes a benchmark system (random series coefficients in t) in PHCpack's format to stdout.")
		fs.PrintDefaults()
	}
	seed := fs.Int64("seed", 1, "seed of the random coefficients")
	complex := fs.Bool("complex", false, "complex coefficients")
	if err := fs.Parse(reorderFlags(fs, args)); err != nil {
		return err
	}
	if fs.NArg() != 1 || !stager.IsBenchmarkName(fs.Arg(0)) {
		fs.Usage()
		return fmt.Errorf("system: want one of p1, p2, p3")
	}
	sys, err := benchmarkSystem(fs.Arg(0), *seed, *complex)
	if err != nil {
		return err
	}
	_, err = out.Write(stager.Format(sys))
	return err
}

func benchmarkSystem(name string, seed int64, complex bool) (*stager.System, error) {
	if complex {
		return stager.BenchmarkSystemComplex(name, seed)
	}
	return stager.BenchmarkSystem(name, seed)
}

// loadSystem returns the benchmark system p1, p2 or p3 (random coefficients
// from seed, complex or real) or the system read from the file arg, with the
// series parameter param ("" for PHCpack's convention). A file wins over a
// benchmark name only when the name is not p1, p2 or p3.
func loadSystem(arg, param string, seed int64, complex bool) (*stager.System, error) {
	if stager.IsBenchmarkName(arg) {
		if _, err := os.Stat(arg); err == nil {
			fmt.Fprintf(os.Stderr, "mdgen: %s is the benchmark system, not the file of that name (use ./%s)\n", arg, arg)
		}
		return benchmarkSystem(arg, seed, complex)
	}
	return stager.ParseFile(arg, stager.ParseOptions{Param: param})
}
