package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	mdrt "github.com/mdgen/mdgen/runtime"
	"github.com/mdgen/mdgen/stager"
)

// evalReport is the JSON output of `mdgen eval`.
type evalReport struct {
	System            string  `json:"system"`
	Prec              int     `json:"prec"`
	Degree            int     `json:"degree"`
	Complex           bool    `json:"complex"`
	Workers           int     `json:"workers"`
	Repeat            int     `json:"repeat"`
	Seconds           float64 `json:"seconds"` // median over repeats, one evaluation and differentiation
	MinSeconds        float64 `json:"min_seconds"`
	ConvolutionJobs   int     `json:"convolution_jobs"`
	AdditionJobs      int     `json:"addition_jobs"`
	MulAdds           float64 `json:"md_multiply_adds"`
	MulAddsPerSecond  float64 `json:"md_multiply_adds_per_second"`
	DoubleOps         float64 `json:"double_ops"`
	DoubleOpsPerSec   float64 `json:"double_ops_per_second"`
	Checksum          string  `json:"checksum"`
	WorstAccurateBits float64 `json:"worst_accurate_bits,omitempty"`
	WorstAt           string  `json:"worst_at,omitempty"`
	Verified          int     `json:"verified_numbers,omitempty"`
}

func runEval(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: mdgen eval system.txt|p1|p2|p3 [flags]\n\nEvaluates a system and its Jacobian at random (or given) power series on the CPU.")
		fs.PrintDefaults()
	}
	prec := fs.Int("prec", 4, "doubles per number (a generated precision: 1,2,3,4,5,8,10,16)")
	degree := fs.Int("degree", 32, "truncation degree d of the series (d+1 coefficients)")
	complex := fs.Bool("complex", false, "complex data")
	seed := fs.Uint64("seed", 1, "seed of the random inputs (and of generated benchmark systems)")
	input := fs.String("input", "", "read the input series from this file (lines `var k re [im]`) instead of random ones")
	workers := fs.Int("workers", 0, "worker goroutines (0: one per CPU)")
	verify := fs.Bool("verify", false, "compare every output coefficient with a math/big.Float evaluation")
	repeat := fs.Int("repeat", 1, "evaluations to time (the median is reported)")
	param := fs.String("param", "", "name of the series parameter (default: t when there is one more variable than equations)")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := fs.Parse(reorderFlags(fs, args)); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return fmt.Errorf("eval: want one system file (or p1, p2, p3)")
	}
	if *degree < 0 {
		return fmt.Errorf("eval: negative degree %d", *degree)
	}
	if *repeat < 1 {
		*repeat = 1
	}
	sys, err := loadSystem(fs.Arg(0), *param, int64(*seed), *complex)
	if err != nil {
		return err
	}
	plan, err := stager.Stage(sys, *degree)
	if err != nil {
		return err
	}
	exec, err := mdrt.NewCPU(plan, *prec, *complex, *workers)
	if err != nil {
		return err
	}
	layout := mdrt.Layout{N: *prec, Degree: *degree, Complex: *complex}
	var inputs [][]float64
	if *input != "" {
		if inputs, err = mdrt.ReadInputs(*input, sys.Vars, layout); err != nil {
			return err
		}
	} else {
		inputs = mdrt.RandomInputs(len(sys.Vars), layout, *seed)
	}
	for v, s := range inputs {
		exec.SetInput(v, s)
	}
	times := make([]float64, *repeat)
	progress := newProgress(os.Stderr, "eval", *repeat)
	for r := range times {
		start := time.Now()
		if err := exec.Run(); err != nil {
			return err
		}
		times[r] = time.Since(start).Seconds()
		progress.step(r + 1)
	}
	progress.done()
	rep := evalReport{System: fs.Arg(0), Prec: *prec, Degree: *degree, Complex: *complex,
		Workers: exec.Workers(), Repeat: *repeat, Seconds: median(times), MinSeconds: minOf(times),
		ConvolutionJobs: plan.ConvJobs(), AdditionJobs: plan.AddJobs(),
		Checksum: mdrt.Checksum(exec, plan.NumPolys, plan.NumVars)}
	ops := mdrt.CountOps(plan, *prec, *complex)
	rep.MulAdds, rep.DoubleOps = ops.MulAdds, ops.DoubleOps
	rep.MulAddsPerSecond = ops.MulAdds / rep.Seconds
	rep.DoubleOpsPerSec = ops.DoubleOps / rep.Seconds
	if *verify {
		fmt.Fprintf(os.Stderr, "mdgen: verifying against math/big.Float at %d bits...\n", 64**prec+200)
		ref := mdrt.EvaluateProgress(sys, mdrt.InputsToBig(inputs, layout), *degree, *complex, uint(64**prec+200),
			func(done, total int) { progress.fraction("verify", done, total) })
		progress.done()
		v := mdrt.Verify(exec, ref, layout)
		rep.WorstAccurateBits, rep.WorstAt, rep.Verified = round1(v.WorstBits), v.Where, v.Checked
	}
	if *asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	kind := "real"
	if *complex {
		kind = "complex"
	}
	fmt.Fprintf(out, "%s: %d polynomials in %d variables, %d-double %s, degree %d, %d workers\n",
		rep.System, plan.NumPolys, plan.NumVars, *prec, kind, *degree, rep.Workers)
	fmt.Fprintf(out, "jobs:      %d convolution, %d addition\n", rep.ConvolutionJobs, rep.AdditionJobs)
	fmt.Fprintf(out, "time:      %.6f s (median of %d; min %.6f s)\n", rep.Seconds, rep.Repeat, rep.MinSeconds)
	fmt.Fprintf(out, "rate:      %.3g multiply-adds/s, %.3g double ops/s\n", rep.MulAddsPerSecond, rep.DoubleOpsPerSec)
	fmt.Fprintf(out, "checksum:  %s\n", rep.Checksum)
	if *verify {
		fmt.Fprintf(out, "verified:  %d numbers, worst %.1f accurate bits (at %s; 53N = %d)\n",
			rep.Verified, rep.WorstAccurateBits, rep.WorstAt, 53**prec)
	}
	return nil
}
