package main

// mdgen bench: the seed paper's table (p1, p2, p3 × precisions × degrees,
// real and complex data) on the GPU, side by side with PHCpack's numbers on
// the same H200 (ANCHORS.md section 1), every result checked bit for bit
// against the CPU executor on fresh random inputs. One command builds the
// kernels (nvcc, one fatbin per precision, in parallel, cached by content),
// runs the table and writes the logs, CSV and SVG.

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mdgen/mdgen/gen"
	"github.com/mdgen/mdgen/mdops/alg"
	mdrt "github.com/mdgen/mdgen/runtime"
	"github.com/mdgen/mdgen/runtime/cudadev"
	"github.com/mdgen/mdgen/stager"
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

`

// benchConfig is the parsed command line.
type benchConfig struct {
	systems      []string
	precs        []int
	degrees      []int
	complexes    []bool
	repeat       int
	kernels      string
	kernelsSrc   string
	nvcc         string
	arch         string
	check        string
	checkWorkers int
	overlap      bool
	csv, plot    string
	outDir       string
	asJSON       bool
	cpu          bool
	workers      int
	seed         uint64
	maxBytes     int64
	deadline     time.Duration
	merge        []string
	// Tuning overrides of the convolution kernel's launch shape (0 / -1:
	// runtime.GPULaunchShape's) and extra nvcc flags.
	convBlock int
	convSets  int
	nvccFlags []string
}

func parseIntList(s, what string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		v, err := strconv.Atoi(f)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("bench: bad %s %q in %q", what, f, s)
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("bench: no %s given", what)
	}
	return out, nil
}

func parseBenchFlags(args []string, stderr io.Writer) (*benchConfig, error) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), benchUsage)
		fs.PrintDefaults()
	}
	systems := fs.String("systems", "p1,p2,p3", "benchmark systems")
	precs := fs.String("prec", "1,2,3,4,5,8,10", "precisions (doubles per number)")
	degrees := fs.String("degrees", "0,8,15,31,63,95,127,152,159,191", "truncation degrees (255 and 511 too, say at -prec 10)")
	complexity := fs.String("complex", "both", "data: both, real or complex")
	repeat := fs.Int("repeat", 5, "timed runs per case after one warm-up (the median is reported)")
	kernels := fs.String("kernels", filepath.Join("build", "kernels"), "folder of the fatbin cache (and of the kernel sources nvcc compiled)")
	kernelsSrc := fs.String("kernels-src", "gen", "kernels: gen (mdgen's generated kernels) or ref (the plain reference kernels of runtime.GPUReferenceKernelsCU)")
	nvcc := fs.String("nvcc", "", "path of nvcc (default: on PATH, $CUDA_PATH/bin, /usr/local/cuda/bin)")
	arch := fs.String("arch", "auto", "GPU architectures to compile for, e.g. sm_90 (auto: the GPU's)")
	check := fs.String("check", "low", "compare with the CPU executor: all, low (degree <= 63 and the 10d d=152 cases) or none")
	checkWorkers := fs.Int("check-workers", max(1, goruntime.NumCPU()-2), "CPU workers of the checks")
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
	convBlock := fs.Int("conv-block", 0, "tuning: threads per block of the convolution kernel (0: runtime.GPULaunchShape's)")
	convSets := fs.Int("conv-sets", -1, "tuning: dynamic shared memory of the convolution kernel, in real series of n*(degree+1) doubles (-1: runtime.GPULaunchShape's)")
	nvccFlags := fs.String("nvcc-flags", "", "tuning: extra nvcc flags, space-separated (e.g. -DMDGEN_CONV_MIN_BLOCKS_r4=2)")
	deadline := fs.Duration("deadline", 0, "stop starting cases and checks after this long and report what is done (0: no limit), e.g. 9m under a 10-minute device limit")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return nil, fmt.Errorf("bench: unexpected arguments %q", fs.Args())
	}
	c := &benchConfig{repeat: *repeat, kernels: *kernels, kernelsSrc: *kernelsSrc, nvcc: *nvcc, arch: *arch,
		check: *check, checkWorkers: *checkWorkers, overlap: *overlap, csv: *csvPath, plot: *plot, outDir: *outDir,
		asJSON: *asJSON, cpu: *cpu, workers: *workers, seed: *seed, maxBytes: int64(*maxGiB * (1 << 30)),
		deadline: *deadline, convBlock: *convBlock, convSets: *convSets, nvccFlags: strings.Fields(*nvccFlags)}
	if c.convBlock < 0 || c.convBlock > 1024 || c.convSets < -1 {
		return nil, fmt.Errorf("bench: -conv-block %d -conv-sets %d: want 0..1024 threads (0: the default) and -1 (the default) or more sets", c.convBlock, c.convSets)
	}
	for _, f := range strings.Split(*merge, ",") {
		if f = strings.TrimSpace(f); f != "" {
			c.merge = append(c.merge, f)
		}
	}
	for _, s := range strings.Split(*systems, ",") {
		s = strings.TrimSpace(s)
		if !stager.IsBenchmarkName(s) {
			return nil, fmt.Errorf("bench: unknown system %q (want p1, p2, p3)", s)
		}
		if !slices.Contains(c.systems, s) {
			c.systems = append(c.systems, s)
		}
	}
	var err error
	if c.precs, err = parseIntList(*precs, "precision"); err != nil {
		return nil, err
	}
	for _, n := range c.precs {
		if !slices.Contains(gen.DefaultNs, n) {
			return nil, fmt.Errorf("bench: no generated arithmetic for %d doubles (have %v)", n, gen.DefaultNs)
		}
	}
	if c.degrees, err = parseIntList(*degrees, "degree"); err != nil {
		return nil, err
	}
	switch *complexity {
	case "both":
		c.complexes = []bool{false, true}
	case "real":
		c.complexes = []bool{false}
	case "complex":
		c.complexes = []bool{true}
	default:
		return nil, fmt.Errorf("bench: -complex %q: want both, real or complex", *complexity)
	}
	switch c.check {
	case "all", "low", "none":
	default:
		return nil, fmt.Errorf("bench: -check %q: want all, low or none", c.check)
	}
	switch c.kernelsSrc {
	case "gen", "ref":
	default:
		return nil, fmt.Errorf("bench: -kernels-src %q: want gen or ref", c.kernelsSrc)
	}
	if c.repeat < 1 {
		c.repeat = 1
	}
	if c.checkWorkers < 1 {
		c.checkWorkers = 1
	}
	if c.seed == 0 {
		c.seed = uint64(time.Now().UnixNano())
	}
	if c.outDir != "" {
		if c.csv == "" {
			c.csv = filepath.Join(c.outDir, "bench.csv")
		}
		if c.plot == "" {
			c.plot = filepath.Join(c.outDir, "bench.svg")
		}
	}
	return c, nil
}

// checked reports whether -check asks for a CPU comparison of the case.
func (c *benchConfig) checked(prec, degree int) bool {
	switch c.check {
	case "all":
		return true
	case "low":
		return degree <= 63 || prec == 10 && degree == 152
	}
	return false
}

func (c *benchConfig) checkRule() string {
	switch c.check {
	case "all":
		return "every case"
	case "low":
		return "cases of degree <= 63 and the 10d d=152 cases"
	}
	return "none"
}

// caseSeed derives the seed of one case's inputs.
func caseSeed(base uint64, sys string, prec, degree int, complex bool) uint64 {
	h := base ^ 0x9e3779b97f4a7c15
	for _, b := range []byte(fmt.Sprintf("%s/%d/%d/%v", sys, prec, degree, complex)) {
		h = (h ^ uint64(b)) * 0x100000001b3
	}
	if h == 0 {
		h = 1
	}
	return h
}

// benchErrNoGPU explains how to get a GPU run.
func benchErrNoGPU(cause error) error {
	how := "build the GPU binary with `make gpu` (or: CGO_CFLAGS=\"-I$PWD/build/cudacompat -I$CUDA_PATH/include\" " +
		"CGO_LDFLAGS=\"-L$CUDA_PATH/lib64/stubs\" go build -tags cuda -o .gpu/mdgen ./cmd/mdgen) and run it on a machine " +
		"with an NVIDIA GPU (scripts/gpu-bench.sh does both), or run `mdgen bench -cpu` for the same table with the CPU executor"
	return fmt.Errorf("bench: the GPU is unavailable: %v\n%s", cause, how)
}

// benchSession is one run of the table.
type benchSession struct {
	cfg     *benchConfig
	log     io.Writer // progress: stderr, and bench.log with -out
	dev     *cudadev.Device
	kernels map[int]*mdrt.GPUKernels
	notes   []string // header lines of the report

	mu      sync.Mutex
	results []benchResult
	checks  chan benchCheck
	checkWG sync.WaitGroup
	nCheck  int
	start   time.Time
	closed  bool // report has taken the results: the checker writes no more
}

// pastDeadline reports whether -deadline has passed.
func (s *benchSession) pastDeadline() bool {
	return s.cfg.deadline > 0 && time.Since(s.start) > s.cfg.deadline
}

type benchCheck struct {
	idx     int
	plan    *stager.Plan
	n       int
	complex bool
	seed    uint64
	sum     string
	out     []float64 // the GPU's outputs, benchOutputs' order
}

func runBench(args []string, out io.Writer) error {
	cfg, err := parseBenchFlags(args, os.Stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	return benchMain(cfg, out, os.Stderr)
}

func benchMain(cfg *benchConfig, out, stderr io.Writer) error {
	s := &benchSession{cfg: cfg, log: stderr, kernels: map[int]*mdrt.GPUKernels{}, start: time.Now()}
	if len(cfg.merge) > 0 {
		return s.mergeReports(out)
	}
	if !cfg.cpu && !mdrt.GPUEnabled {
		return benchErrNoGPU(errors.New("this mdgen was built without CUDA support"))
	}
	if cfg.outDir != "" {
		if err := os.MkdirAll(cfg.outDir, 0o755); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
		f, err := os.Create(filepath.Join(cfg.outDir, "bench.log"))
		if err != nil {
			return fmt.Errorf("bench: %w", err)
		}
		defer f.Close()
		s.log = io.MultiWriter(stderr, f)
	}
	s.notef("mdgen bench: %s, seed %d, %d repeats after a warm-up, check: %s", time.Now().Format(time.RFC3339), cfg.seed, cfg.repeat, cfg.checkRule())
	if cfg.cpu {
		s.notef("backend: CPU executor, %d workers on %d CPUs (%s)", cpuWorkers(cfg.workers), goruntime.NumCPU(), goruntime.GOARCH)
	} else {
		if err := s.openGPU(); err != nil {
			return err
		}
		defer s.dev.Close()
		if err := s.buildKernels(); err != nil {
			return err
		}
	}
	if err := s.runAll(); err != nil {
		return err
	}
	return s.report(out)
}

func cpuWorkers(w int) int {
	if w <= 0 {
		return goruntime.GOMAXPROCS(0)
	}
	return w
}

func (s *benchSession) logf(format string, a ...any) { fmt.Fprintf(s.log, format+"\n", a...) }

func (s *benchSession) notef(format string, a ...any) {
	line := fmt.Sprintf(format, a...)
	s.notes = append(s.notes, line)
	s.logf("%s", line)
}

func (s *benchSession) openGPU() error {
	dev, err := cudadev.Open(0)
	if err != nil {
		return benchErrNoGPU(err)
	}
	s.dev = dev
	free, _ := dev.FreeMemory()
	s.notef("device: %s, %s free", dev.Info(), stager.FormatBytes(free))
	return nil
}

// benchKernelSource returns the CUDA source of precision n's kernels (real
// and complex) and the headers it includes.
func benchKernelSource(src string, n int) (mdrt.FatbinSource, error) {
	l := alg.Build(n)
	h, err := gen.CUDAHeader(l, alg.BuildComplex(l))
	if err != nil {
		return mdrt.FatbinSource{}, err
	}
	base, err := gen.CUDABase()
	if err != nil {
		return mdrt.FatbinSource{}, err
	}
	idx, err := gen.CUDAIndex([]int{n})
	if err != nil {
		return mdrt.FatbinSource{}, err
	}
	fs := mdrt.FatbinSource{Name: fmt.Sprintf("md%d-%s", n, src),
		Headers: map[string][]byte{"mdbase.cuh": base, fmt.Sprintf("md%d.cuh", n): h, "mdgen.cuh": idx}}
	switch src {
	case "ref":
		fs.Source = mdrt.GPUReferenceKernelsCU(n)
	default:
		fs.Source = gen.KernelsCU([]int{n}, []bool{false, true})
	}
	return fs, nil
}

func (s *benchSession) buildKernels() error {
	cfg := s.cfg
	archs := []string{s.dev.Info().Arch()}
	if cfg.arch != "auto" {
		archs = strings.Split(cfg.arch, ",")
	}
	var srcs []mdrt.FatbinSource
	for _, n := range cfg.precs {
		src, err := benchKernelSource(cfg.kernelsSrc, n)
		if err != nil {
			return err
		}
		srcs = append(srcs, src)
	}
	comp := &mdrt.FatbinCompiler{NVCC: cfg.nvcc, Dir: cfg.kernels, Archs: archs, Log: s.log}
	if len(cfg.nvccFlags) > 0 {
		comp.Flags = append(slices.Clone(mdrt.DefaultNVCCFlags), cfg.nvccFlags...)
	}
	s.logf("nvcc: compiling %d kernel files for %s in parallel (cache %s)", len(srcs), strings.Join(archs, ","), cfg.kernels)
	t0 := time.Now()
	res, err := comp.Build(srcs)
	if err != nil {
		return fmt.Errorf("bench: building the kernels: %w", err)
	}
	s.notef("kernels: %s, built in %.1f s (%s)", cfg.kernelsSrc, time.Since(t0).Seconds(), cfg.kernels)
	for i, n := range cfg.precs {
		r := res[i]
		s.logf("--- nvcc report for %s (%s) ---\n%s", r.Name, r.Path, strings.TrimSpace(r.Report))
		k, err := mdrt.LoadGPUKernels(s.dev, r.Fatbin, n, cfg.complexes...)
		if err != nil {
			return fmt.Errorf("bench: %w", err)
		}
		s.kernels[n] = k
		var attrs []string
		for _, c := range cfg.complexes {
			for _, kind := range []string{"conv", "add"} {
				if a, ok := k.Attributes(kind, c); ok {
					attrs = append(attrs, fmt.Sprintf("%s %d regs, %d B spill/stack, %d B static shared",
						mdrt.GPUKernelName(kind, n, c), a.NumRegs, a.LocalBytes, a.SharedBytes))
				}
			}
		}
		s.notef("%dd: layout version %d; %s", n, k.LayoutVersion(), strings.Join(attrs, "; "))
	}
	return nil
}

func (s *benchSession) gpuOptions() mdrt.GPUOptions {
	if s.cfg.kernelsSrc == "ref" {
		return mdrt.GPUOptions{Shape: mdrt.GPUReferenceShape}
	}
	if s.cfg.convBlock <= 0 && s.cfg.convSets < 0 {
		return mdrt.GPUOptions{}
	}
	block, sets := s.cfg.convBlock, s.cfg.convSets
	return mdrt.GPUOptions{Shape: func(kind string, n int, complex bool, degree int) (int, int) {
		t, sh := mdrt.GPULaunchShape(kind, n, complex, degree)
		if kind != "conv" {
			return t, sh
		}
		if block > 0 {
			t = block
		}
		if sets >= 0 {
			sh = sets * mdrt.GPUSetBytes(n, degree)
		}
		return t, sh
	}}
}

func benchSystem(name string, complex bool) (*stager.System, error) {
	if complex {
		return stager.BenchmarkSystemComplex(name, 1)
	}
	return stager.BenchmarkSystem(name, 1)
}

func (s *benchSession) runAll() error {
	cfg := s.cfg
	total := len(cfg.systems) * len(cfg.complexes) * len(cfg.degrees) * len(cfg.precs)
	s.checks = make(chan benchCheck, total)
	if cfg.overlap {
		s.startChecker()
	}
	i := 0
	for _, name := range cfg.systems {
		for _, complex := range cfg.complexes {
			sys, err := benchSystem(name, complex)
			if err != nil {
				return err
			}
			for _, d := range cfg.degrees {
				plan, err := stager.Stage(sys, d)
				if err != nil {
					return fmt.Errorf("bench: staging %s at degree %d: %w", name, d, err)
				}
				for _, n := range cfg.precs {
					i++
					var r benchResult
					var outs []float64
					if s.pastDeadline() {
						r = s.newResult(plan, name, n, d, complex)
						r.Skipped = fmt.Sprintf("not run: past the -deadline of %s", cfg.deadline)
					} else {
						r, outs = s.runCase(plan, name, n, d, complex, cfg.checked(n, d))
					}
					s.mu.Lock()
					s.results = append(s.results, r)
					idx := len(s.results) - 1
					s.mu.Unlock()
					s.progress(i, total, &r)
					s.writePartial()
					if r.ran() && cfg.checked(n, d) && r.Backend == "gpu" {
						s.nCheck++
						s.mu.Lock()
						s.results[idx].Check = "queued"
						s.mu.Unlock()
						s.checks <- benchCheck{idx: idx, plan: plan, n: n, complex: complex, seed: r.Seed, sum: r.Checksum, out: outs}
					}
				}
			}
		}
	}
	close(s.checks)
	if !cfg.overlap && s.nCheck > 0 {
		s.startChecker()
	}
	if s.nCheck > 0 {
		s.logf("checks: waiting for the CPU comparisons (%d cases)...", s.nCheck)
	}
	done := make(chan struct{})
	go func() { s.checkWG.Wait(); close(done) }()
	var timeout <-chan time.Time
	if cfg.deadline > 0 {
		timeout = time.After(max(cfg.deadline-time.Since(s.start), 0))
	}
	select {
	case <-done:
	case <-timeout:
		s.logf("checks: the -deadline of %s has passed; reporting without the unfinished checks", cfg.deadline)
	}
	s.mu.Lock()
	s.closed = true
	for i := range s.results {
		if s.results[i].Check == "queued" {
			s.results[i].Check = "unfinished (deadline)"
		}
	}
	s.mu.Unlock()
	return nil
}

// writePartial rewrites the CSV file after every case, so that a run cut
// short (a device time limit) still leaves its numbers; report writes the
// final one, with the checks.
func (s *benchSession) writePartial() {
	if s.cfg.csv == "" {
		return
	}
	s.mu.Lock()
	rs := slices.Clone(s.results)
	s.mu.Unlock()
	sortResults(rs)
	if err := os.MkdirAll(filepath.Dir(s.cfg.csv), 0o755); err != nil {
		return
	}
	tmp := s.cfg.csv + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return
	}
	if writeCSV(f, rs) != nil || f.Close() != nil {
		os.Remove(tmp)
		return
	}
	os.Rename(tmp, s.cfg.csv)
}

func (s *benchSession) progress(i, total int, r *benchResult) {
	el := time.Since(s.start).Round(time.Second)
	head := fmt.Sprintf("[%d/%d %s] %s %dd %s d=%d:", i, total, el, r.System, r.Prec, r.dataName(), r.Degree)
	if !r.ran() {
		s.logf("%s skipped: %s", head, r.Skipped)
		return
	}
	phc := ""
	if !isNaN(r.PHCWallMs) {
		phc = fmt.Sprintf(" (PHCpack %s/%s, wall %s)", fmtMs(r.PHCKernelMs), fmtMs(r.PHCWallMs), fmtX(r.SpeedUp()))
	}
	if r.Backend == "cpu" {
		s.logf("%s wall %s ms%s", head, fmtMs(r.WallMs), phc)
		return
	}
	s.logf("%s kern %s ms, wall %s ms%s, %.0f Gop/s", head, fmtMs(r.KernelMs), fmtMs(r.WallMs), phc, r.OpRate()/1e9)
}

func (s *benchSession) newResult(plan *stager.Plan, name string, n, d int, complex bool) benchResult {
	r := benchResult{System: name, Prec: n, Degree: d, Complex: complex, Backend: "gpu", Repeat: s.cfg.repeat,
		KernelMs: math.NaN(), WallMs: math.NaN(), KernelMsLo: math.NaN(), WallMsLo: math.NaN(),
		ConvJobs: plan.ConvJobs(), AddJobs: plan.AddJobs(), Check: "-",
		Seed: caseSeed(s.cfg.seed, name, n, d, complex)}
	if s.cfg.cpu {
		r.Backend = "cpu"
		r.Check = "reference"
	}
	r.setPHC()
	r.DoubleOps = mdrt.CountOps(plan, n, complex).DoubleOps
	r.DeviceBytes = mdrt.GPUMemory(plan, n, complex).Total()
	return r
}

// runCase times one case; with keep it also returns the outputs for the
// CPU check.
func (s *benchSession) runCase(plan *stager.Plan, name string, n, d int, complex bool, keep bool) (r benchResult, out []float64) {
	r = s.newResult(plan, name, n, d, complex)
	if s.cfg.maxBytes > 0 && r.DeviceBytes > s.cfg.maxBytes {
		r.Skipped = fmt.Sprintf("needs %s, more than -max-gib", stager.FormatBytes(r.DeviceBytes))
		return r, nil
	}
	var exec mdrt.Executor
	var timed func() (k, w float64, err error)
	if s.cfg.cpu {
		c, err := mdrt.NewCPU(plan, n, complex, s.cfg.workers)
		if err != nil {
			r.Skipped = err.Error()
			return r, nil
		}
		exec = c
		timed = func() (float64, float64, error) {
			t0 := time.Now()
			err := c.Run()
			return math.NaN(), float64(time.Since(t0).Nanoseconds()) / 1e6, err
		}
	} else {
		g, err := mdrt.NewGPUFromKernels(plan, complex, s.kernels[n], s.gpuOptions())
		if err != nil {
			if errors.Is(err, mdrt.ErrGPUMemory) {
				r.Skipped = "too big for the GPU: " + err.Error()
			} else {
				r.Skipped = "error: " + err.Error()
			}
			return r, nil
		}
		defer g.Close()
		r.Launches = g.Launches()
		for _, sh := range g.Shapes() {
			s.logf("shape %dd d=%d complex=%v: %v", n, d, complex, sh)
		}
		exec = g
		timed = g.RunTimed
	}
	l := mdrt.Layout{N: n, Degree: d, Complex: complex}
	for v, in := range mdrt.RandomInputs(plan.NumVars, l, r.Seed) {
		exec.SetInput(v, in)
	}
	if _, _, err := timed(); err != nil { // warm-up (uploads the inputs)
		r.Skipped = "error: " + err.Error()
		return r, nil
	}
	ks := make([]float64, s.cfg.repeat)
	ws := make([]float64, s.cfg.repeat)
	for i := range ks {
		k, w, err := timed()
		if err != nil {
			r.Skipped = "error: " + err.Error()
			return r, nil
		}
		ks[i], ws[i] = k, w
	}
	r.KernelMs, r.WallMs = median(ks), median(ws)
	r.KernelMsLo, r.WallMsLo = slices.Min(ks), slices.Min(ws)
	if g, ok := exec.(*mdrt.GPU); ok {
		if err := g.Download(); err != nil {
			r.Skipped = "error: " + err.Error()
			return r, nil
		}
	}
	r.Checksum = mdrt.Checksum(exec, plan.NumPolys, plan.NumVars)
	if keep {
		out = benchOutputs(exec, plan)
	}
	return r, out
}

// benchOutputs copies every output series, values then the Jacobian row
// by row (Checksum's order).
func benchOutputs(o mdrt.Outputs, plan *stager.Plan) []float64 {
	var out []float64
	for p := 0; p < plan.NumPolys; p++ {
		out = append(out, o.Value(p)...)
	}
	for p := 0; p < plan.NumPolys; p++ {
		for v := 0; v < plan.NumVars; v++ {
			out = append(out, o.Deriv(p, v)...)
		}
	}
	return out
}

// describeDiff says how the GPU's outputs differ from the CPU's: how many
// doubles, where the first is, and the largest difference relative to the
// magnitude of its coefficient.
func describeDiff(got, want []float64, plan *stager.Plan, l mdrt.Layout) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d doubles, CPU %d", len(got), len(want))
	}
	slot := l.SlotLen()
	name := func(i int) string {
		s, off := i/slot, i%slot
		k, rest := off/l.W(), off%l.W()
		part := "re"
		if rest >= l.N {
			part, rest = "im", rest-l.N
		}
		what := ""
		if s < plan.NumPolys {
			what = fmt.Sprintf("p%d", s)
		} else {
			s -= plan.NumPolys
			what = fmt.Sprintf("d p%d/d x%d", s/plan.NumVars, s%plan.NumVars+1)
		}
		return fmt.Sprintf("%s t^%d %s limb %d", what, k, part, rest)
	}
	n, first, worst := 0, -1, 0.0
	for i := range got {
		if math.Float64bits(got[i]) == math.Float64bits(want[i]) {
			continue
		}
		n++
		if first < 0 {
			first = i
		}
		lead := want[i-(i%slot)%l.N] // the leading limb of this number
		rel := math.Abs(got[i]-want[i]) / math.Max(math.Abs(lead), math.SmallestNonzeroFloat64)
		if rel > worst || math.IsNaN(rel) {
			worst = rel
		}
	}
	return fmt.Sprintf("%d of %d doubles, first at %s (GPU %g, CPU %g), largest difference %.2g of its number",
		n, len(got), name(first), got[first], want[first], worst)
}

// startChecker runs the CPU comparisons, one case at a time, each on
// -check-workers goroutines.
func (s *benchSession) startChecker() {
	s.checkWG.Add(1)
	go func() {
		defer s.checkWG.Done()
		done := 0
		for c := range s.checks {
			if s.pastDeadline() {
				continue // reported as unfinished
			}
			t0 := time.Now()
			verdict, sum := s.cpuCheck(c)
			done++
			s.mu.Lock()
			if s.closed {
				s.mu.Unlock()
				return
			}
			r := &s.results[c.idx]
			r.Check, r.CPUChecksum = verdict, sum
			line := fmt.Sprintf("check %d: %s %dd %s d=%d: %s (CPU %.1f s)", done, r.System, r.Prec, r.dataName(), r.Degree, verdict, time.Since(t0).Seconds())
			s.mu.Unlock()
			s.logf("%s", line)
		}
	}()
}

func (s *benchSession) cpuCheck(c benchCheck) (verdict, sum string) {
	e, err := mdrt.NewCPU(c.plan, c.n, c.complex, s.cfg.checkWorkers)
	if err != nil {
		return "error: " + err.Error(), ""
	}
	l := mdrt.Layout{N: c.n, Degree: c.plan.Degree, Complex: c.complex}
	for v, in := range mdrt.RandomInputs(c.plan.NumVars, l, c.seed) {
		e.SetInput(v, in)
	}
	if err := e.Run(); err != nil {
		return "error: " + err.Error(), ""
	}
	sum = mdrt.Checksum(e, c.plan.NumPolys, c.plan.NumVars)
	if sum == c.sum {
		return "identical", sum
	}
	if c.out != nil {
		s.logf("check: %dd d=%d: the GPU differs in %s", c.n, c.plan.Degree, describeDiff(c.out, benchOutputs(e, c.plan), c.plan, l))
	}
	return "DIFFERS", sum
}

// report prints the tables and writes the files.
func (s *benchSession) report(out io.Writer) error {
	cfg := s.cfg
	rs := s.results
	sortResults(rs)
	checked, same, differ, unfinished := 0, 0, 0, 0
	for _, r := range rs {
		switch r.Check {
		case "unfinished (deadline)":
			unfinished++
		case "identical":
			checked++
			same++
		case "DIFFERS":
			checked++
			differ++
		default:
			if strings.HasPrefix(r.Check, "error") {
				checked++
			}
		}
	}
	var summary string
	if len(rs) > 0 && rs[0].Backend == "gpu" {
		rule := cfg.checkRule()
		if len(cfg.merge) > 0 {
			rule = "as each merged run asked"
		}
		summary = fmt.Sprintf("checked against the CPU executor (%s): %d of %d cases, %d bit-identical, %d differ",
			rule, checked, len(rs), same, differ)
		if unfinished > 0 {
			summary += fmt.Sprintf(", %d unfinished at the deadline", unfinished)
		}
	}
	var text strings.Builder
	for _, n := range s.notes {
		fmt.Fprintln(&text, n)
	}
	fmt.Fprintln(&text, "PHCpack: ANCHORS.md section 1 (PHCpack src/GPU at 18c6b6c8 on the same H200; n/a where it has no number).")
	fmt.Fprintln(&text, "kern: CUDA events around all launches; wall: host clock from the first launch to the result ready on the device;")
	fmt.Fprintln(&text, "both exclude input/output transfers. Gop/s: double operations (runtime.CountOps, FMA = 1) over kern;", "%peak: its fraction of 15.7e12/s.")
	fmt.Fprintln(&text)
	writeTable(&text, rs)
	writeMatrices(&text, rs)
	if summary != "" {
		fmt.Fprintln(&text)
		fmt.Fprintln(&text, summary)
	}
	if cfg.asJSON {
		if err := writeBenchJSON(out, s.notes, rs); err != nil {
			return err
		}
	} else if _, err := io.WriteString(out, text.String()); err != nil {
		return err
	}
	write := func(path string, f func(io.Writer) error) error {
		if path == "" {
			return nil
		}
		if dir := filepath.Dir(path); dir != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
		}
		file, err := os.Create(path)
		if err != nil {
			return fmt.Errorf("bench: %w", err)
		}
		if err := f(file); err != nil {
			file.Close()
			return fmt.Errorf("bench: writing %s: %w", path, err)
		}
		s.logf("bench: wrote %s", path)
		return file.Close()
	}
	if err := write(cfg.csv, func(w io.Writer) error { return writeCSV(w, rs) }); err != nil {
		return err
	}
	title := "mdgen GPU (solid) vs PHCpack (dashed) on the H200, real data: log2 of the wall clock in ms"
	if len(rs) > 0 && rs[0].Backend == "cpu" {
		title = "mdgen CPU executor (solid) vs PHCpack GPU (dashed), real data: log2 of the wall clock in ms"
	}
	if err := write(cfg.plot, func(w io.Writer) error { return writeSVG(w, rs, title) }); err != nil {
		return err
	}
	if cfg.outDir != "" {
		if err := write(filepath.Join(cfg.outDir, "bench.txt"), func(w io.Writer) error {
			_, err := io.WriteString(w, text.String())
			return err
		}); err != nil {
			return err
		}
		if err := write(filepath.Join(cfg.outDir, "bench.json"), func(w io.Writer) error { return writeBenchJSON(w, s.notes, rs) }); err != nil {
			return err
		}
	}
	if differ > 0 {
		return fmt.Errorf("bench: %d cases differ from the CPU executor", differ)
	}
	return nil
}

// mergeReports reads the bench.json files of earlier runs and reports them
// as one run.
func (s *benchSession) mergeReports(out io.Writer) error {
	type key struct {
		sys          string
		prec, degree int
		complex      bool
		backend      string
	}
	at := map[key]int{}
	for _, path := range s.cfg.merge {
		notes, rs, err := readBenchJSON(path)
		if err != nil {
			return err
		}
		for _, n := range notes {
			s.notes = append(s.notes, filepath.Base(filepath.Dir(path))+"/"+filepath.Base(path)+": "+n)
		}
		for _, r := range rs {
			k := key{r.System, r.Prec, r.Degree, r.Complex, r.Backend}
			if i, ok := at[k]; ok && r.ran() {
				s.results[i] = r
				continue
			} else if ok {
				continue // keep a case that ran over one that did not
			}
			at[k] = len(s.results)
			s.results = append(s.results, r)
		}
	}
	s.logf("bench: merged %d cases from %d files", len(s.results), len(s.cfg.merge))
	return s.report(out)
}

// readBenchJSON reads what writeBenchJSON wrote.
func readBenchJSON(path string) (notes []string, rs []benchResult, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("bench: %w", err)
	}
	var doc struct {
		Notes   []string
		Results []struct {
			System, Backend, Skipped, Checksum, Check string
			CPUChecksum                               string `json:"cpu_checksum"`
			Prec, Degree, Repeat, Launches            int
			Complex                                   bool
			KernelMs                                  *float64 `json:"kernel_ms"`
			WallMs                                    *float64 `json:"wall_ms"`
			KernelMsLo                                *float64 `json:"kernel_ms_min"`
			WallMsLo                                  *float64 `json:"wall_ms_min"`
			DoubleOps                                 *float64 `json:"double_ops"`
			ConvJobs                                  int      `json:"convolution_jobs"`
			AddJobs                                   int      `json:"addition_jobs"`
			DeviceBytes                               int64    `json:"device_bytes"`
			Seed                                      uint64
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, nil, fmt.Errorf("bench: reading %s: %w", path, err)
	}
	f := func(p *float64) float64 {
		if p == nil {
			return math.NaN()
		}
		return *p
	}
	for _, x := range doc.Results {
		r := benchResult{System: x.System, Prec: x.Prec, Degree: x.Degree, Complex: x.Complex, Backend: x.Backend,
			Skipped: x.Skipped, Repeat: x.Repeat, KernelMs: f(x.KernelMs), WallMs: f(x.WallMs),
			KernelMsLo: f(x.KernelMsLo), WallMsLo: f(x.WallMsLo), ConvJobs: x.ConvJobs, AddJobs: x.AddJobs,
			Launches: x.Launches, DeviceBytes: x.DeviceBytes, DoubleOps: f(x.DoubleOps), Seed: x.Seed,
			Checksum: x.Checksum, Check: x.Check, CPUChecksum: x.CPUChecksum}
		r.setPHC() // PHCpack's numbers come from this binary's table
		rs = append(rs, r)
	}
	return doc.Notes, rs, nil
}

// writeBenchJSON writes the notes and the results; NaN becomes null.
func writeBenchJSON(w io.Writer, notes []string, rs []benchResult) error {
	type row map[string]any
	var rows []row
	num := func(x float64) any {
		if isNaN(x) || math.IsInf(x, 0) {
			return nil
		}
		return x
	}
	for i := range rs {
		r := &rs[i]
		rows = append(rows, row{
			"system": r.System, "prec": r.Prec, "degree": r.Degree, "complex": r.Complex, "backend": r.Backend,
			"skipped": r.Skipped, "repeat": r.Repeat,
			"kernel_ms": num(r.KernelMs), "wall_ms": num(r.WallMs), "kernel_ms_min": num(r.KernelMsLo), "wall_ms_min": num(r.WallMsLo),
			"phcpack_kernel_ms": num(r.PHCKernelMs), "phcpack_wall_ms": num(r.PHCWallMs), "wall_speedup": num(r.SpeedUp()),
			"double_ops": num(r.DoubleOps), "double_ops_per_s": num(r.OpRate()), "fraction_of_peak": num(r.PeakFraction()),
			"convolution_jobs": r.ConvJobs, "addition_jobs": r.AddJobs, "launches": r.Launches, "device_bytes": r.DeviceBytes,
			"seed": r.Seed, "checksum": r.Checksum, "check": r.Check, "cpu_checksum": r.CPUChecksum,
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{"notes": notes, "peak_double_ops_per_s": benchPeakOps, "results": rows})
}
