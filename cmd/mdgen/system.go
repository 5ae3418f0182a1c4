package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/stager/families"
	"github.com/mdgen/mdgen/stager/poly"
	"github.com/mdgen/mdgen/stager/solutions"
)

// runSystem writes a system of a family in PHCpack's plain format, then a
// TITLE line and, when the family knows its start solutions, PHCpack's
// solution list:
//
//	mdgen system NAME[N][:options] [-n N] [-seed s] [-complex] [-c c] [-degree d] [-columns 1|2] [-newton] [-sols=false] [-series]
//	mdgen system -list
func runSystem(args []string, out io.Writer) error {
	// The flag package writes to the process's stderr by default.
	fs := newFlagSet("system", "usage: mdgen system NAME [-n N] [flags]   (mdgen system -list: the families)\n\n"+
		"Writes a system of a family (exact rational coefficients) in PHCpack's format to stdout,\n"+
		"then a TITLE line and, when the start solutions are known, PHCpack's solution list.\n"+
		"NAME is a family (cyclic, katsura, chandra, noon, eco, monomial, p1, p2, p3), optionally\n"+
		"with its size and options as every command reads them: cyclic7, chandra64:c=t,\n"+
		"monomial64:degree=32,columns=2, cyclic7:newton,seed=3,complex."+"\n", os.Stderr)
	n := fs.Int("n", 0, "size n (0: the family's default)")
	seed := fs.Int64("seed", 1, "seed of the random data (p1..p3 coefficients, Newton start points, monomial rates)")
	complex := fs.Bool("complex", false, "complex random data")
	c := fs.String("c", "", "chandra: the constant c, a rational (default 33/64) or t (a series in c = t, H = 1 at t = 0); noon: c (default 11/10)")
	degree := fs.Int("degree", 8, "monomial: truncation degree d >= 1 of the right-hand sides b(t)")
	columns := fs.Int("columns", 1, "monomial: 1 or 2 columns of monomials")
	newton := fs.Bool("newton", false, "the Newton homotopy f(x) - (1-t) f(z) with a random exact z, x(0) = z (cyclic, katsura, chandra, noon, eco)")
	sols := fs.Bool("sols", true, "append the known start solutions (t = 0) as a PHCpack solution list")
	series := fs.Bool("series", false, "monomial: give the start solution its exact series x_i(t) = exp(c_i t) to degree d (MDGEN EXACT SOLUTIONS block)")
	list := fs.Bool("list", false, "list the families and exit")
	decimal := fs.Bool("decimal", false, fmt.Sprintf("write the coefficients that PHCpack would misread (integers of more than 15 digits, rationals) as decimals of %d significant digits, every digit of its quad double (phc 2.4.86 misreads integers longer than about 18 digits)", phcDecimalDigits))
	if err := fs.Parse(reorderFlags(fs, args)); err != nil {
		return err
	}
	if *list {
		return listFamilies(out)
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return fmt.Errorf("system: want one family name (mdgen system -list)")
	}
	if *degree < 1 {
		return fmt.Errorf("system: -degree %d: want a degree >= 1", *degree)
	}
	base := families.Options{N: *n, Seed: *seed, Complex: *complex, C: *c, Degree: *degree, Columns: *columns, Newton: *newton}
	name, opt, err := families.ApplySpec(fs.Arg(0), base)
	if err != nil {
		return fmt.Errorf("system: %w", err)
	}
	// A flag given on the command line and an option of the spec must agree.
	var conflict error
	agrees := map[string]bool{ // by flag name: the spec left the flag's value as it was
		"n": opt.N == base.N, "seed": opt.Seed == base.Seed, "complex": opt.Complex == base.Complex,
		"c": opt.C == base.C, "degree": opt.Degree == base.Degree, "columns": opt.Columns == base.Columns,
		"newton": opt.Newton == base.Newton,
	}
	fs.Visit(func(f *flag.Flag) {
		same, known := agrees[f.Name]
		same = same || !known
		if !same && conflict == nil {
			conflict = fmt.Errorf("system: -%s %s disagrees with %s", f.Name, f.Value, fs.Arg(0))
		}
	})
	if conflict != nil {
		return conflict
	}
	fam, _ := families.Lookup(name)
	if err := checkFamilyFlags(fam, fs); err != nil {
		return err
	}
	stop := busy("building "+name+" (exact coefficients)", os.Stderr)
	inst, err := families.Build(name, opt)
	stop()
	if err != nil {
		return err
	}
	if *series {
		if inst.Exact == nil {
			return fmt.Errorf("system: -series: %s has no exact solution series (only monomial has)", name)
		}
		if len(inst.Start) == 1 {
			inst.Start[0].Series = inst.Exact
		}
	}
	// Written as it goes (poly.WriteTo): chandra at n = 4096 is 431 MB of
	// text, which took 6.5 GB as one []byte; progress after a second.
	progress := newProgress(os.Stderr)
	defer progress.done()
	show := func(done, total int) { progress.count("writing "+inst.Spec+": polynomial", done, total) }
	write := func(w io.Writer, s *poly.System, progress func(done, total int)) error {
		return poly.WriteTo(w, s, progress)
	}
	if *decimal {
		write = func(w io.Writer, s *poly.System, progress func(done, total int)) error {
			return poly.WriteDecimalTo(w, s, phcDecimalDigits, progress)
		}
	}
	if err := write(out, inst.System, show); err != nil {
		return err
	}
	tail := "\nTITLE : " + inst.Title + "\n\nNOTE : written by mdgen system " + inst.Spec + "\n"
	if *sols && len(inst.Start) > 0 {
		tail += "\n" + string(solutions.Format(inst.Start, solutions.FormatOptions{}))
	}
	_, err = io.WriteString(out, tail)
	return err
}

// phcDecimalDigits is what mdgen system -decimal writes: the significant
// digits of a quad double (PHCpack's highest precision, phc -b4, -p4).
var phcDecimalDigits = mdops.Prec{N: 4}.Digits()

// busy says on stderr, after the first second, that the work what is
// still running, until the returned stop is called: building a large
// family member (cyclic256:newton, with its exact products) or staging
// its plans takes minutes, which were silent.
func busy(what string, stderr io.Writer) (stop func()) {
	quit := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(max(progressQuiet, time.Millisecond))
		defer tick.Stop()
		p := newProgress(stderr)
		defer p.done()
		for {
			select {
			case <-quit:
				return
			case <-tick.C:
				p.fraction(what, -1) // how far is not known
			}
		}
	}()
	return func() { close(quit); <-finished }
}

// checkFamilyFlags rejects flags the family does not take (given on the
// command line).
func checkFamilyFlags(fam families.Family, fs *flag.FlagSet) error {
	var err error
	takes := map[string]bool{"n": true, "sols": true, "list": true, "series": true, "decimal": true}
	for _, o := range fam.Options {
		takes[o] = true
	}
	fs.Visit(func(f *flag.Flag) {
		if !takes[f.Name] && err == nil {
			err = fmt.Errorf("system: %s takes no -%s (it takes -n, %s)", fam.Name, f.Name, "-"+strings.Join(fam.Options, ", -"))
		}
	})
	return err
}

func listFamilies(out io.Writer) error {
	tw := tabwriter.NewWriter(out, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tN\tOPTIONS\tSYSTEM")
	for _, f := range families.All() {
		size := fmt.Sprintf("%d (%d..%d)", f.DefaultN, f.MinN, f.MaxN)
		if f.MinN == f.MaxN {
			size = fmt.Sprintf("%d", f.MinN)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", f.Name, size, strings.Join(f.Options, ","), f.Summary)
	}
	return tw.Flush()
}

// loadSystem returns the system named by arg: a benchmark system p1, p2 or
// p3 (random coefficients from seed, complex or real), a family spec such as
// cyclic7, chandra64:c=t or cyclic7:newton (families.ApplySpec; seed and
// complex fill in what the spec leaves out), or else the system read from
// the file arg, with the series parameter param ("" for PHCpack's
// convention). A name wins over a file of that name (use ./cyclic5 for the
// file); a note on stderr says so when both exist.
func loadSystem(arg, param string, seed int64, complex bool) (*poly.System, error) {
	if families.IsBenchmarkName(arg) || families.IsSpec(arg) {
		if _, err := os.Stat(arg); err == nil {
			fmt.Fprintf(os.Stderr, "mdgen: %s is the generated system, not the file of that name (use ./%s)\n", arg, arg)
		}
		stop := busy("building "+arg+" (exact coefficients)", os.Stderr)
		inst, err := families.System(arg, families.Options{Seed: seed, Complex: complex})
		stop()
		if err != nil {
			return nil, err
		}
		if !families.IsBenchmarkName(arg) && param != "" && param != inst.System.Param {
			return nil, fmt.Errorf("%s: -param %s, but its parameter is %q", arg, param, inst.System.Param)
		}
		return inst.System, nil
	}
	sys, err := poly.ParseFile(arg, poly.ParseOptions{Param: param})
	if err != nil {
		return nil, err
	}
	for _, w := range sys.Warnings {
		fmt.Fprintf(os.Stderr, "mdgen: warning: %v\n", w)
	}
	return sys, nil
}
