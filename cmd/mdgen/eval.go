package main

import (
	"fmt"
	"github.com/mdgen/mdgen/internal/stats"
	"io"
	"time"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/cpu"
	"github.com/mdgen/mdgen/runtime/ref"
)

// evalReport is the JSON output of `mdgen eval`. The verification fields
// are present exactly when -verify was given (a worst of 0 bits included).
type evalReport struct {
	System            string   `json:"system"`
	Prec              int      `json:"prec"`
	Degree            int      `json:"degree"`
	Complex           bool     `json:"complex"`
	Workers           int      `json:"workers"`
	Repeat            int      `json:"repeat"`
	Seconds           float64  `json:"seconds"` // median over repeats, one evaluation and differentiation
	MinSeconds        float64  `json:"min_seconds"`
	ConvolutionJobs   int      `json:"convolution_jobs"`
	AdditionJobs      int      `json:"addition_jobs"`
	MulAdds           float64  `json:"md_multiply_adds"`
	MulAddsPerSecond  float64  `json:"md_multiply_adds_per_second"`
	DoubleOps         float64  `json:"double_ops"`
	DoubleOpsPerSec   float64  `json:"double_ops_per_second"`
	Checksum          string   `json:"checksum"`
	WorstAccurateBits *float64 `json:"worst_accurate_bits,omitempty"`
	WorstAt           *string  `json:"worst_at,omitempty"`
	Verified          *int     `json:"verified_numbers,omitempty"`
	NonFinite         *int     `json:"non_finite_numbers,omitempty"`
}

// longRunOps is the double-precision operations of one evaluation above
// which eval reports its progress layer by layer (a few tenths of a second
// or more; the progress printer is quiet for the first second anyway).
var longRunOps = 5e8 // a variable for the tests

func runEval(args []string, out, stderr io.Writer) error {
	fs := newFlagSet("eval", "usage: mdgen eval system.txt|p1|p2|p3|family [flags]\n\n"+
		"Evaluates a system and its Jacobian at random (or given) power series on the CPU.\n"+
		"A system with complex coefficients gets complex data without -complex.\n\nflags:"+"\n", stderr)
	pf := addPrecFlags(fs, 4, "doubles per number (a generated precision: "+joinInts(mdops.Precisions())+")",
		"complex data (chosen for a system with complex coefficients)")
	degree := fs.Int("degree", 32, "truncation degree d of the series (d+1 coefficients)")
	seed := fs.Uint64("seed", 1, "seed of the random inputs (and of generated benchmark systems)")
	input := fs.String("input", "", "read the input series from this `file` (lines: var k re [im]) instead of random ones")
	workers := fs.Int("workers", 0, fmt.Sprintf("worker goroutines, 0..%d (0: one per CPU)", maxWorkers))
	verify := fs.Bool("verify", false, "compare every output coefficient with a math/big.Float evaluation")
	repeat := fs.Int("repeat", 1, "evaluations to time (the median is reported)")
	param := fs.String("param", "", "name of the series parameter (default: t when there is one more variable than equations)")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := parseFlags(fs, args, out); err != nil {
		return err
	}
	if err := checkArgs(fs, 1, "one system file (or p1, p2, p3, a family)"); err != nil {
		return err
	}
	prec, err := pf.prec()
	for _, err := range []error{err, checkDegree("-degree", *degree),
		checkWorkers("-workers", *workers), checkRepeat("-repeat", *repeat)} {
		if err != nil {
			return err
		}
	}
	sys, plan, err := pf.stageSystem(&prec, fs.Arg(0), *param, int64(*seed), *degree, "using", stderr)
	if err != nil {
		return err
	}
	exec, err := cpu.New(plan, prec, *workers)
	if err != nil {
		return err
	}
	layout := backend.Layout{Prec: prec, Degree: *degree}
	var inputs [][]float64
	if *input != "" {
		if inputs, err = backend.ReadInputs(*input, sys.Vars, layout); err != nil {
			return err
		}
	} else {
		inputs = backend.RandomInputs(len(sys.Vars), layout, *seed)
	}
	for v, s := range inputs {
		exec.SetInput(v, s)
	}
	// Progress: per run, and, when one run is long (estimated from its
	// double-precision operations), per layer. The hook stays off for short
	// runs so that it costs their timing nothing.
	ops := backend.CountOps(plan, prec)
	layerProgress := ops.DoubleOps > longRunOps
	times := make([]float64, *repeat)
	progress := newProgress(stderr)
	for r := range times {
		if layerProgress {
			run := ""
			if *repeat > 1 {
				run = fmt.Sprintf(" run %d/%d,", r+1, *repeat)
			}
			exec.SetProgress(func(layer, layers int, work float64) {
				progress.fraction(fmt.Sprintf("eval%s layer %d/%d", run, layer, layers), (float64(r)+work)/float64(*repeat))
			})
		}
		start := time.Now()
		if err := exec.Run(); err != nil {
			return err
		}
		times[r] = time.Since(start).Seconds()
		if !layerProgress && *repeat > 1 {
			progress.count("eval run", r+1, *repeat)
		}
	}
	exec.SetProgress(nil)
	progress.done()
	rep := evalReport{System: fs.Arg(0), Prec: prec.N, Degree: *degree, Complex: prec.Complex,
		Workers: exec.Workers(), Repeat: *repeat, Seconds: stats.Median(times), MinSeconds: minOf(times),
		ConvolutionJobs: plan.ConvJobs(), AdditionJobs: plan.AddJobs(),
		Checksum: backend.Checksum(exec, plan.NumPolys, plan.NumVars)}
	rep.MulAdds, rep.DoubleOps = ops.MulAdds, ops.DoubleOps
	rep.MulAddsPerSecond = ops.MulAdds / rep.Seconds
	rep.DoubleOpsPerSec = ops.DoubleOps / rep.Seconds
	if *verify {
		refLayout := ref.Layout{Prec: prec, Degree: *degree}
		bits := uint(64*prec.N + 200)
		fmt.Fprintf(stderr, "mdgen: verifying against math/big.Float at %d bits...\n", bits)
		bigIn, err := ref.SeriesFromLimbs(inputs, refLayout)
		if err != nil {
			return err
		}
		want, err := ref.EvaluateProgress(sys, bigIn, *degree, prec.Complex, bits,
			func(done, total int) { progress.count("verify", done, total) })
		progress.done()
		if err != nil {
			return err
		}
		v := ref.Verify(exec, want, refLayout)
		worst := round1(v.WorstBits)
		rep.WorstAccurateBits, rep.WorstAt, rep.Verified, rep.NonFinite = &worst, &v.Where, &v.Checked, &v.NonFinite
		if v.NonFinite > 0 {
			fmt.Fprintf(stderr, "mdgen: %d of %d output numbers are not finite (overflow in %d-double arithmetic)\n",
				v.NonFinite, v.Checked, prec.N)
		}
	}
	if *asJSON {
		return writeJSON(out, rep)
	}
	kind := prec.Kind()
	fmt.Fprintf(out, "%s: %d polynomials in %d variables, %d-double %s, degree %d, %d workers\n",
		rep.System, plan.NumPolys, plan.NumVars, prec.N, kind, *degree, rep.Workers)
	fmt.Fprintf(out, "jobs:      %d convolution, %d addition\n", rep.ConvolutionJobs, rep.AdditionJobs)
	fmt.Fprintf(out, "time:      %.6f s (median of %d; min %.6f s)\n", rep.Seconds, rep.Repeat, rep.MinSeconds)
	fmt.Fprintf(out, "rate:      %.3g multiply-adds/s, %.3g double ops/s\n", rep.MulAddsPerSecond, rep.DoubleOpsPerSec)
	fmt.Fprintf(out, "checksum:  %s\n", rep.Checksum)
	if *verify {
		fmt.Fprintf(out, "verified:  %d numbers, worst %.1f accurate bits (at %s; 53N = %d)\n",
			*rep.Verified, *rep.WorstAccurateBits, *rep.WorstAt, 53*prec.N)
	}
	return nil
}
