package main

// mdgen bench: the flags. The benchmark itself (sessions, kernels, the CPU
// checks, tables, CSV, SVG, PHCpack's numbers) is package internal/bench.

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mdgen/mdgen/internal/atomicfile"
	"github.com/mdgen/mdgen/internal/bench"
)

const benchUsage = `usage: mdgen bench [flags]

Evaluates and differentiates the benchmark systems p1, p2, p3 at random
power series on the GPU, for every precision, degree and kind of data asked
for, and prints the table beside PHCpack's numbers on the same H200: kernel
and wall-clock ms (median of -repeat runs after a warm-up), the wall-clock
speed-up, the FP64 operation rate and its fraction of the card's 15.7e12/s,
and whether the result was bit-identical to the CPU executor.

The kernels are compiled first with nvcc (one fatbin per precision, in
parallel), cached by content hash in the -kernels folder. With -out, the
tables, the log (nvcc's resource reports included), CSV, SVG and JSON go
there. Without a GPU build, -cpu gives the same table with the CPU executor.

With -newton it runs Newton's method on Taylor series on PHCpack's problem -1
instead (see mdgen bench -newton -h); with -newton-step it times one Newton
step on small systems against the bare multiply-add loop (see mdgen bench
-newton-step -h); with -track it times the path tracker of mdgen track beside
PHCpack's trackers (see mdgen bench -track -h).

`

const benchNewtonUsage = `usage: mdgen bench -newton [flags]

Newton's method on Taylor series on PHCpack's problem -1 (the monomial
homotopy x_1···x_i = b_i(t), one column of monomials, x_i(t) = exp(c_i t),
seed 1, start x(0) = 1) for every precision, dimension, degree and kind of
data asked for, beside PHCpack's GPU Newton on the same H200
(internal/bench/phcpack_newton_h200.csv): steps, the wall clock of the whole
Newton run to convergence, the six stage times, the largest error against
the exact series (absolute and in bits below the largest coefficient),
PHCpack's steps, wall, kernel time and printed error, and the speed-up.

It runs on the GPU (runtime/gpu's device-resident Newton; nvcc builds the
kernels, cached under -kernels) when this binary has it (build tag cuda) and
a device is there, else on the CPU (runtime/newton), and says which. With
-check it also runs the CPU Newton on every case and compares the series,
residual and steps bit for bit. Progress goes to stderr: a CPU run at
n = 256, d = 64 takes minutes.

`

func parseIntList(s, what string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		v, err := strconv.Atoi(f)
		if err != nil || v < 0 {
			return nil, usagef("bad %s %q in %q", what, f, s)
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return nil, usagef("no %s given", what)
	}
	return out, nil
}

func parseBenchFlags(args []string, stderr io.Writer) (*bench.Config, error) {
	fs := newFlagSet("bench", benchUsage, stderr)
	fs.Bool("newton", false, "Newton on Taylor series on PHCpack's problem -1 instead (mdgen bench -newton -h)")
	systems := fs.String("systems", "p1,p2,p3", "benchmark systems")
	sweep := addSweepFlags(fs, "1,2,3,4,5,8,10", "0,8,15,31,63,95,127,152,159,191",
		"truncation degrees (255 and 511 too, say at -prec 10)", "both")
	repeat := fs.Int("repeat", 5, "timed runs per case after one warm-up (the median is reported)")
	kernels, nvcc := kernelFlags(fs, "")
	kernelsSrc := fs.String("kernels-src", "gen", "kernels: gen (mdgen's generated kernels) or ref (the plain reference kernels of gpuabi.ReferenceKernelsCU)")
	arch := fs.String("arch", "auto", "GPU architectures to compile for, e.g. sm_90 (auto: the GPU's)")
	check := fs.String("check", "low", "compare with the CPU executor: all, low (degree <= 63 and the 10d d=152 cases) or none")
	checkWorkersN := fs.Int("check-workers", max(1, goruntime.NumCPU()-2), "CPU workers of the checks")
	overlap := fs.Bool("overlap", true, "run the CPU checks while the GPU times the next cases (one CPU core stays free for the launches)")
	csvPath := fs.String("csv", "", "write every column to this CSV file")
	plot := fs.String("plot", "", "draw log2(wall ms) against the degree to this SVG file")
	outDir := fs.String("out", "", "write bench.txt, bench.log, bench.csv, bench.svg and bench.json to this folder")
	asJSON := fs.Bool("json", false, "print JSON instead of the tables")
	cpu := fs.Bool("cpu", false, "run the CPU executor instead of the GPU (no CUDA needed)")
	workers := fs.Int("workers", 0, "CPU workers with -cpu (0: one per CPU)")
	seed := fs.Uint64("seed", 0, "seed of the random inputs (0: from the clock)")
	maxGiB := fs.Float64("max-gib", 0, "skip cases whose data array needs more than this many GiB (0: what the device has free)")
	merge := fs.String("merge", "", "no run: combine the bench.json files of earlier runs (comma-separated; a later file wins a case) into one report")
	convBlock := fs.Int("conv-block", 0, "tuning: threads per block of the convolution kernel (0: gpuabi.LaunchShape's)")
	convSets := fs.Int("conv-sets", -1, "tuning: dynamic shared memory of the convolution kernel, in real series of n*(degree+1) doubles (-1: gpuabi.LaunchShape's)")
	nvccFlags := fs.String("nvcc-flags", "", "tuning: extra nvcc flags, space-separated (e.g. -DMDGEN_CONV_MIN_BLOCKS_r4=2)")
	deadline := fs.Duration("deadline", 0, "stop starting cases and checks after this long and report what is done (0: no limit), e.g. 9m under a 10-minute device limit")
	profileName := profileFlag(fs) // cmd/mdgen/profile.go
	if err := parseFlags(fs, args, stderr); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, usagef("bench: unexpected arguments %q", fs.Args())
	}
	for _, err := range []error{checkRepeat("-repeat", *repeat), checkWorkers("-workers", *workers), checkWorkers("-check-workers", *checkWorkersN),
		checkOutputs("bench", *outDir, *merge, *profileName, map[string]string{"-csv": *csvPath, "-plot": *plot})} {
		if err != nil {
			return nil, err
		}
	}
	// int64(GiB * 2^30) of a huge or NaN float is undefined: bound it first.
	if !(*maxGiB >= 0 && *maxGiB <= 1<<32) {
		return nil, usagef("bench: -max-gib %g: want 0 (what the device has free) .. %d GiB", *maxGiB, 1<<32)
	}
	c := &bench.Config{Repeat: *repeat, KernelDir: *kernels, KernelSrc: *kernelsSrc, NVCC: *nvcc, Arch: *arch,
		Check: *check, CheckWorkers: *checkWorkersN, Overlap: *overlap, CSV: *csvPath, Plot: *plot, OutDir: *outDir,
		JSON: *asJSON, CPU: *cpu, Workers: *workers, Seed: *seed, MaxBytes: int64(*maxGiB * (1 << 30)),
		Deadline: *deadline, ConvBlock: *convBlock, ConvSets: *convSets, NVCCFlags: strings.Fields(*nvccFlags), Profile: *profileName}
	for _, f := range strings.Split(*merge, ",") {
		if f = strings.TrimSpace(f); f != "" {
			c.Merge = append(c.Merge, f)
		}
	}
	for _, s := range strings.Split(*systems, ",") {
		if s = strings.TrimSpace(s); !slices.Contains(c.Systems, s) {
			c.Systems = append(c.Systems, s)
		}
	}
	var err error
	if c.Precs, c.Degrees, c.Complexes, err = sweep.parse("bench"); err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// isNewtonBench reports whether args ask for mdgen bench -newton.
func isNewtonBench(args []string) bool { return hasBoolFlag(args, "newton") }

// hasBoolFlag reports whether args set the boolean flag name (before a
// "--").
func hasBoolFlag(args []string, name string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		switch strings.TrimLeft(a, "-") {
		case name, name + "=true", name + "=1", name + "=t", name + "=T", name + "=TRUE", name + "=True":
			return strings.HasPrefix(a, "-")
		}
	}
	return false
}

const benchNewtonStepUsage = `usage: mdgen bench -newton-step [flags]

One Newton step of root refinement (degree 0, complex data, one worker) on
the small systems a path tracker lives on (the Newton homotopies of the
families, from a start near the root; the stage clock off, as in the path
tracker): the time of one step, its counted double operations (the IR's op
counts of the evaluation; LAWN 41's counts of the QR, Q^H b, back
substitution, residual and update, as LAPACK's timing programs count them,
each pair of a multiplication and an addition as one multiply-add of the
element type; and the float64 1-norms), their rate, and its percentage of
the rate of the bare multiply-add loop acc = acc.MulAdd(x_i, y_i) of the
same precision on one core.

`

func runBenchNewtonStep(args []string, out, stderr io.Writer) error {
	fs := newFlagSet("bench -newton-step", benchNewtonStepUsage, stderr)
	fs.Bool("newton-step", true, "one Newton step on small systems (this table)")
	systems := fs.String("systems", "cyclic7,katsura6,noon5", "families (comma-separated), each as its Newton homotopy")
	precs := fs.String("prec", "1,2,4,8", "doubles per number (comma-separated)")
	dur := fs.Duration("time", time.Second, "time per case")
	if err := parseFlags(fs, args, stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return usagef("bench -newton-step: unexpected arguments %q", fs.Args())
	}
	ps, err := parseIntList(*precs, "precision")
	if err != nil {
		return usagef("bench -newton-step: -prec: %w", err)
	}
	var names []string
	for _, f := range strings.Split(*systems, ",") {
		if f = strings.TrimSpace(f); f != "" {
			names = append(names, f)
		}
	}
	rows, err := bench.NewtonSteps(names, ps, *dur)
	if err != nil {
		return fmt.Errorf("bench -newton-step: %w", err)
	}
	bench.WriteNewtonSteps(out, rows)
	return nil
}

// checkOutputs applies the rules of an output path (atomicfile.Resolve) to
// bench's -out folder and files (flag -> path, "" when not given) before any
// case runs: no folder where a file is meant, no input (the -merge files,
// the profile) overwritten.
func checkOutputs(cmd, outDir, merge, profile string, files map[string]string) error {
	inputs := append(strings.Split(merge, ","), profile)
	if outDir != "" {
		if err := atomicfile.ResolveDir(outDir, []string{"bench.txt", "bench.csv", "bench.svg", "bench.json", "newton.txt", "newton.csv", "newton.svg"}, inputs...); err != nil {
			return usagef("%s: -out: %w", cmd, err)
		}
	}
	for _, flag := range slices.Sorted(maps.Keys(files)) {
		if p := files[flag]; p != "" {
			if err := atomicfile.Resolve(p, inputs...); err != nil {
				return usagef("%s: %s: %w", cmd, flag, err)
			}
		}
	}
	return nil
}

func parseBenchNewtonFlags(args []string, stderr io.Writer) (*bench.NewtonConfig, error) {
	fs := newFlagSet("bench -newton", benchNewtonUsage, stderr)
	fs.Bool("newton", true, "Newton on Taylor series on PHCpack's problem -1 (this table)")
	sweep := addSweepFlags(fs, "2,4,8", "64", "truncation degrees d (1..1024)", "real")
	sizes := fs.String("sizes", "256", "dimensions n")
	realOnly := fs.Bool("real", false, "real data only (the same as -complex real)")
	repeat := fs.Int("repeat", 1, "solves per case on one solver (the median one is reported; the first includes making the back end, on the GPU its buffers)")
	maxSteps := fs.Int("max-steps", 0, "Newton's step limit (0: runtime/newton's default for the precision and degree)")
	check := fs.Bool("check", false, "also run the CPU Newton on every case and compare bit for bit (on the CPU: again with another worker count)")
	cpu := fs.Bool("cpu", false, "run on the CPU even when the GPU is there")
	workers := fs.Int("workers", 0, "CPU workers (0: one per CPU)")
	kernels, nvcc := kernelFlags(fs, "")
	csvPath := fs.String("csv", "", "write every column to this CSV file")
	plot := fs.String("plot", "", "draw the wall clocks and errors beside PHCpack's to this SVG file")
	outDir := fs.String("out", "", "write newton.txt, newton.log, newton.csv and newton.svg to this folder")
	deadline := fs.Duration("deadline", 0, "start no case after this long and report what is done (0: no limit)")
	profileName := profileFlag(fs) // cmd/mdgen/profile.go: the Newton entries give the GPU's linear-algebra shapes
	if err := parseFlags(fs, args, stderr); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, usagef("bench -newton: unexpected arguments %q", fs.Args())
	}
	for _, err := range []error{checkRepeat("-repeat", *repeat), checkWorkers("-workers", *workers),
		checkOutputs("bench -newton", *outDir, "", *profileName, map[string]string{"-csv": *csvPath, "-plot": *plot})} {
		if err != nil {
			return nil, err
		}
	}
	c := &bench.NewtonConfig{Repeat: *repeat, MaxSteps: *maxSteps, Check: *check, CPU: *cpu, Workers: *workers,
		KernelDir: *kernels, NVCC: *nvcc, CSV: *csvPath, Plot: *plot, OutDir: *outDir, Deadline: *deadline, Profile: *profileName}
	var err error
	if c.Sizes, err = parseIntList(*sizes, "size"); err != nil {
		return nil, usagef("bench -newton: -sizes: %w", err)
	}
	if c.Precs, c.Degrees, c.Complexes, err = sweep.parse("bench -newton"); err != nil {
		return nil, err
	}
	if *realOnly && *sweep.data != "real" {
		return nil, fmt.Errorf("bench -newton: -real with -complex %q", *sweep.data)
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

func runBench(args []string, out io.Writer) error {
	if isTrackBench(args) {
		return runBenchTrackArgs(args, out, os.Stderr)
	}
	if hasBoolFlag(args, "newton-step") {
		return runBenchNewtonStep(args, out, os.Stderr)
	}
	if isNewtonBench(args) {
		cfg, err := parseBenchNewtonFlags(args, os.Stderr)
		if err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil
			}
			return err
		}
		if !cfg.CPU {
			if err := installProfile(cfg.Profile, "bench", os.Stderr); err != nil {
				return err
			}
		}
		return bench.RunNewton(cfg, out, os.Stderr)
	}
	cfg, err := parseBenchFlags(args, os.Stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	// The tuning profile: for the GPU runs of mdgen's kernels without
	// -conv-block/-conv-sets (which override every shape).
	if !cfg.CPU && len(cfg.Merge) == 0 && cfg.KernelSrc == "gen" && cfg.ConvBlock == 0 && cfg.ConvSets < 0 {
		if err := installProfile(cfg.Profile, "bench", os.Stderr); err != nil {
			return err
		}
	}
	return bench.Run(cfg, out, os.Stderr)
}
