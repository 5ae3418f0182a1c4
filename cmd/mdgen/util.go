package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/mdgen/mdgen/gen"
	"github.com/mdgen/mdgen/stager"
	"github.com/mdgen/mdgen/stager/poly"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mdgen/mdgen/mdops"
)

// reorderFlags moves flags after positional arguments to the front, so that
// `mdgen eval system.txt -prec 8` works as well as `mdgen eval -prec 8 system.txt`.
func reorderFlags(fs *flag.FlagSet, args []string) []string {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			pos = append(pos, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		f := fs.Lookup(name)
		if f == nil {
			continue
		}
		if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && bf.IsBoolFlag() {
			continue
		}
		if i+1 < len(args) {
			flags = append(flags, args[i+1])
			i++
		}
	}
	return append(flags, pos...)
}

// newFlagSet returns the flag set of the command name, writing its
// messages to stderr; -h prints usage, then the flags.
func newFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	return fs
}

// writeJSON writes v to w as indented JSON (every command's -json).
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func minOf(xs []float64) float64 { return slices.Min(xs) }

func round1(x float64) float64 { return math.Round(x*10) / 10 }

// usageError is a mistake on the command line (a bad flag, a flag value
// out of range, a missing argument): main prints it and exits with status
// 2, where other errors exit with 1.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usagef returns a usageError with the message fmt.Sprintf(format, a...).
func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// isUsageError reports whether err (or an error it wraps) is a usageError.
func isUsageError(err error) bool {
	var u usageError
	return errors.As(err, &u)
}

// parseFlags parses args into fs, flags also after the positional
// arguments (reorderFlags). -h, -help and --help print fs.Usage to help
// (stdout: the usage was asked for) and return flag.ErrHelp, which main
// turns into exit status 0; a bad flag prints the usage to fs.Output()
// (stderr unless set) and returns a usageError (exit status 2). fs must be
// made with flag.ContinueOnError.
func parseFlags(fs *flag.FlagSet, args []string, help io.Writer) error {
	out := fs.Output()
	fs.SetOutput(io.Discard) // the flag package would print the usage itself
	err := fs.Parse(reorderFlags(fs, args))
	fs.SetOutput(out)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		fs.SetOutput(help)
		fs.Usage()
		fs.SetOutput(out)
		return flag.ErrHelp
	default:
		fs.Usage()
		return usageError{fmt.Errorf("%s: %w", fs.Name(), err)}
	}
}

// flagGiven reports whether the flag name was set on the command line.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// Limits of the validators.
const (
	maxWorkers = 1024    // worker goroutines
	maxRepeat  = 1000000 // timed repetitions
)

// checkPrec returns a usageError unless p has generated arithmetic in
// this build (mdops.Prec.Check: its message lists the generated precisions
// and says how to add one the generator can make). flagName is the flag as
// written, "-prec".
func checkPrec(flagName string, p mdops.Prec) error {
	if err := p.Check(); err != nil {
		return usageError{fmt.Errorf("%s %d: %w", flagName, p.N, err)}
	}
	return nil
}

// precFlags are the flags of one precision: -prec (doubles per number)
// and -complex (complex data), the command line's spelling of mdops.Prec.
type precFlags struct {
	fs      *flag.FlagSet
	n       *int
	complex *bool
}

// addPrecFlags registers -prec (default def) and -complex on fs, with
// their usage lines.
func addPrecFlags(fs *flag.FlagSet, def int, precUsage, complexUsage string) *precFlags {
	return &precFlags{fs: fs, n: fs.Int("prec", def, precUsage), complex: fs.Bool("complex", false, complexUsage)}
}

// prec returns the precision of the flags, checked (checkPrec).
func (f *precFlags) prec() (mdops.Prec, error) {
	p := mdops.Prec{N: *f.n, Complex: *f.complex}
	return p, checkPrec("-prec", p)
}

// needComplex switches p to complex data because of why (what needs it:
// "x.txt has complex coefficients"), saying so on stderr with verb (what
// the command does: "using", "sizing"), unless -complex was given: then
// real data was asked for, and the error says that it cannot hold why.
func (f *precFlags) needComplex(p *mdops.Prec, why, verb string, stderr io.Writer) error {
	if p.Complex {
		return nil
	}
	if flagGiven(f.fs, "complex") {
		return fmt.Errorf("%s: %s, which real data (-complex=false) cannot hold", f.fs.Name(), why)
	}
	p.Complex = true
	fmt.Fprintf(stderr, "mdgen: %s: %s complex data (as with -complex)\n", why, verb)
	return nil
}

// stageSystem loads the system arg names (loadSystem), switches p to
// complex data when the system has complex coefficients (needComplex;
// verb says what the command does with them) and stages it at degree.
func (f *precFlags) stageSystem(p *mdops.Prec, arg, param string, seed int64, degree int, verb string, stderr io.Writer) (*poly.System, *stager.Plan, error) {
	sys, err := loadSystem(arg, param, seed, p.Complex)
	if err != nil {
		return nil, nil, err
	}
	if gen.HasComplexCoefficients(sys) {
		if err := f.needComplex(p, arg+" has complex coefficients", verb, stderr); err != nil {
			return nil, nil, usageError{err}
		}
	}
	plan, err := stager.Stage(sys, degree)
	if err != nil {
		return nil, nil, err
	}
	return sys, plan, nil
}

// sweepFlags are the lists that bench, bench -newton and tune sweep:
// -prec (precisions), -degrees and -complex (real, complex or both).
type sweepFlags struct {
	precs, degrees, data *string
}

// addSweepFlags registers the lists with their defaults.
func addSweepFlags(fs *flag.FlagSet, precs, degrees, degreesUsage, data string) sweepFlags {
	return sweepFlags{
		precs:   fs.String("prec", precs, "precisions (doubles per number)"),
		degrees: fs.String("degrees", degrees, degreesUsage),
		data:    fs.String("complex", data, "data: both, real or complex"),
	}
}

// parse returns the precisions, the degrees and the kinds of data (the
// values of mdops.Prec.Complex); a bad -complex is a usage error of cmd.
func (f sweepFlags) parse(cmd string) (precs, degrees []int, complexes []bool, err error) {
	if precs, err = parseIntList(*f.precs, "precision"); err != nil {
		return nil, nil, nil, usagef("%s: -prec: %w", cmd, err)
	}
	if degrees, err = parseIntList(*f.degrees, "degree"); err != nil {
		return nil, nil, nil, usagef("%s: -degrees: %w", cmd, err)
	}
	var ok bool
	if complexes, ok = dataKinds(*f.data); !ok {
		return nil, nil, nil, usagef("%s: -complex %q: want both, real or complex", cmd, *f.data)
	}
	return precs, degrees, complexes, nil
}

// dataKinds parses the kinds of data of a sweep (bench, tune: -complex
// real, complex or both) into the values of mdops.Prec.Complex; ok is
// false for anything else.
func dataKinds(s string) (kinds []bool, ok bool) {
	switch s {
	case "real":
		return []bool{false}, true
	case "complex":
		return []bool{true}, true
	case "both":
		return []bool{false, true}, true
	}
	return nil, false
}

// checkWorkers returns a usageError unless n is 0 (one worker per CPU) or
// 1..maxWorkers.
func checkWorkers(flagName string, n int) error {
	if n < 0 || n > maxWorkers {
		return usagef("%s %d: want 0 (one per CPU) or 1..%d worker goroutines", flagName, n, maxWorkers)
	}
	return nil
}

// checkRepeat returns a usageError unless n is in 1..maxRepeat.
func checkRepeat(flagName string, n int) error {
	if n < 1 || n > maxRepeat {
		return usagef("%s %d: want 1..%d runs", flagName, n, maxRepeat)
	}
	return nil
}

// checkDegree returns a usageError unless d >= 0 (the memory a degree
// needs is checked by the plan, stager.Plan.CheckMemory).
func checkDegree(flagName string, d int) error {
	if d < 0 {
		return usagef("%s %d: want a truncation degree d >= 0", flagName, d)
	}
	return nil
}

// checkRange returns a usageError unless lo <= n <= hi; what says what n
// counts ("cases per operation").
func checkRange(flagName string, n, lo, hi int, what string) error {
	if n < lo || n > hi {
		return usagef("%s %d: want %d..%d %s", flagName, n, lo, hi, what)
	}
	return nil
}

// checkArgs returns a usageError (after printing fs's usage to its output)
// unless there are exactly want positional arguments; what describes them.
func checkArgs(fs *flag.FlagSet, want int, what string) error {
	if fs.NArg() == want {
		return nil
	}
	fs.Usage()
	if fs.NArg() < want {
		return usagef("%s: want %s", fs.Name(), what)
	}
	return usagef("%s: want %s, got %s", fs.Name(), what, strconv.Quote(strings.Join(fs.Args(), " ")))
}
