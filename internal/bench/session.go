package bench

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"sync"
	"time"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/internal/stats"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/cpu"
	"github.com/mdgen/mdgen/runtime/gpu"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
	"github.com/mdgen/mdgen/stager"
	"github.com/mdgen/mdgen/stager/families"
	"github.com/mdgen/mdgen/stager/poly"
)

// session is one run of the table.
type session struct {
	cfg     *Config
	log     io.Writer // progress: stderr, and bench.log with -out
	dev     *cudadev.Device
	kernels map[int]*gpu.Kernels
	notes   []string // header lines of the report

	mu      sync.Mutex
	results []Result
	checks  chan checkJob
	checkWG sync.WaitGroup
	nCheck  int
	start   time.Time
	closed  bool // report has taken the results: the checker writes no more
}

// pastDeadline reports whether -deadline has passed.
func (s *session) pastDeadline() bool {
	return s.cfg.Deadline > 0 && time.Since(s.start) > s.cfg.Deadline
}

// Run runs the table of cfg and writes the report to out (the tables, or
// JSON) and progress to stderr; with cfg.Merge it combines earlier runs'
// bench.json files instead. It returns an error when a case differs from
// the CPU executor.
func Run(cfg *Config, out, stderr io.Writer) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	s := &session{cfg: cfg, log: stderr, kernels: map[int]*gpu.Kernels{}, start: time.Now()}
	if len(cfg.Merge) > 0 {
		return s.merge(out)
	}
	if !cfg.CPU && !gpu.Enabled {
		return errNoGPU(errors.New("this mdgen was built without CUDA support"))
	}
	log, closeLog, err := openLog(stderr, cfg.OutDir, "bench.log")
	if err != nil {
		return err
	}
	defer closeLog()
	s.log = log
	s.notef("mdgen bench: %s, seed %d, %d repeats after a warm-up, check: %s", time.Now().Format(time.RFC3339), cfg.Seed, cfg.Repeat, cfg.CheckRule())
	if cfg.CPU {
		s.notef("backend: CPU executor, %d workers on %d CPUs (%s)", cpuWorkers(cfg.Workers), goruntime.NumCPU(), goruntime.GOARCH)
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

func (s *session) logf(format string, a ...any) { fmt.Fprintf(s.log, format+"\n", a...) }

func (s *session) notef(format string, a ...any) {
	line := fmt.Sprintf(format, a...)
	s.notes = append(s.notes, line)
	s.logf("%s", line)
}

func system(name string, complex bool) (*poly.System, error) {
	if complex {
		return families.BenchmarkSystemComplex(name, 1)
	}
	return families.BenchmarkSystem(name, 1)
}

func (s *session) runAll() error {
	cfg := s.cfg
	total := len(cfg.Systems) * len(cfg.Complexes) * len(cfg.Degrees) * len(cfg.Precs)
	s.checks = make(chan checkJob, total)
	if cfg.Overlap {
		s.startChecker()
	}
	i := 0
	for _, name := range cfg.Systems {
		for _, complex := range cfg.Complexes {
			sys, err := system(name, complex)
			if err != nil {
				return err
			}
			for _, d := range cfg.Degrees {
				plan, err := stager.Stage(sys, d)
				if err != nil {
					return fmt.Errorf("bench: staging %s at degree %d: %w", name, d, err)
				}
				for _, n := range cfg.Precs {
					i++
					var r Result
					var outs []float64
					if s.pastDeadline() {
						r = s.newResult(plan, name, n, d, complex)
						r.Skipped = fmt.Sprintf("not run: past the -deadline of %s", cfg.Deadline)
					} else {
						r, outs = s.runCase(plan, name, n, d, complex, cfg.Checked(n, d))
					}
					s.mu.Lock()
					s.results = append(s.results, r)
					idx := len(s.results) - 1
					s.mu.Unlock()
					s.progress(i, total, &r)
					s.writePartial()
					if r.ran() && cfg.Checked(n, d) && r.Backend == "gpu" {
						s.nCheck++
						s.mu.Lock()
						s.results[idx].Check = "queued"
						s.mu.Unlock()
						s.checks <- checkJob{idx: idx, plan: plan, n: n, complex: complex, seed: r.Seed, sum: r.Checksum, out: outs}
					}
				}
			}
		}
	}
	close(s.checks)
	if !cfg.Overlap && s.nCheck > 0 {
		s.startChecker()
	}
	if s.nCheck > 0 {
		s.logf("checks: waiting for the CPU comparisons (%d cases)...", s.nCheck)
	}
	done := make(chan struct{})
	go func() { s.checkWG.Wait(); close(done) }()
	var timeout <-chan time.Time
	if cfg.Deadline > 0 {
		timeout = time.After(max(cfg.Deadline-time.Since(s.start), 0))
	}
	select {
	case <-done:
	case <-timeout:
		s.logf("checks: the -deadline of %s has passed; reporting without the unfinished checks", cfg.Deadline)
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

func (s *session) progress(i, total int, r *Result) {
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

func (s *session) newResult(plan *stager.Plan, name string, n, d int, complex bool) Result {
	r := Result{System: name, Prec: n, Degree: d, Complex: complex, Backend: "gpu", Repeat: s.cfg.Repeat,
		KernelMs: math.NaN(), WallMs: math.NaN(), KernelMsLo: math.NaN(), WallMsLo: math.NaN(),
		ConvJobs: plan.ConvJobs(), AddJobs: plan.AddJobs(), Check: "-",
		Seed: caseSeed(s.cfg.Seed, name, n, d, complex)}
	if s.cfg.CPU {
		r.Backend = "cpu"
		r.Check = "reference"
	}
	r.setPHC()
	r.DoubleOps = backend.CountOps(plan, mdops.Prec{N: n, Complex: complex}).DoubleOps
	r.DeviceBytes = gpuabi.Memory(plan, mdops.Prec{N: n, Complex: complex}).Total()
	return r
}

// runCase times one case; with keep it also returns the outputs for the
// CPU check.
func (s *session) runCase(plan *stager.Plan, name string, n, d int, complex bool, keep bool) (r Result, out []float64) {
	r = s.newResult(plan, name, n, d, complex)
	if s.cfg.MaxBytes > 0 && r.DeviceBytes > s.cfg.MaxBytes {
		r.Skipped = fmt.Sprintf("needs %s, more than -max-gib", stager.FormatBytes(r.DeviceBytes))
		return r, nil
	}
	var exec backend.Executor
	var timed func() (k, w float64, err error)
	if s.cfg.CPU {
		c, err := cpu.New(plan, mdops.Prec{N: n, Complex: complex}, s.cfg.Workers)
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
		g, err := gpu.NewFromKernels(plan, complex, s.kernels[n], s.gpuOptions())
		if err != nil {
			if errors.Is(err, gpu.ErrMemory) {
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
	l := backend.Layout{Prec: mdops.Prec{N: n, Complex: complex}, Degree: d}
	for v, in := range backend.RandomInputs(plan.NumVars, l, r.Seed) {
		exec.SetInput(v, in)
	}
	if _, _, err := timed(); err != nil { // warm-up (uploads the inputs)
		r.Skipped = "error: " + err.Error()
		return r, nil
	}
	ks := make([]float64, s.cfg.Repeat)
	ws := make([]float64, s.cfg.Repeat)
	for i := range ks {
		k, w, err := timed()
		if err != nil {
			r.Skipped = "error: " + err.Error()
			return r, nil
		}
		ks[i], ws[i] = k, w
	}
	r.KernelMs, r.WallMs = stats.Median(ks), stats.Median(ws)
	r.KernelMsLo, r.WallMsLo = slices.Min(ks), slices.Min(ws)
	if g, ok := exec.(*gpu.Executor); ok {
		if err := g.Download(); err != nil {
			r.Skipped = "error: " + err.Error()
			return r, nil
		}
	}
	r.Checksum = backend.Checksum(exec, plan.NumPolys, plan.NumVars)
	if keep {
		out = outputs(exec, plan)
	}
	return r, out
}

// openLog returns where a run's progress goes: stderr and, with outDir
// (made when missing), the file name in it too; and what closes that file.
func openLog(stderr io.Writer, outDir, name string) (io.Writer, func(), error) {
	if outDir == "" {
		return stderr, func() {}, nil
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("bench: %w", err)
	}
	f, err := os.Create(filepath.Join(outDir, name))
	if err != nil {
		return nil, nil, fmt.Errorf("bench: %w", err)
	}
	return io.MultiWriter(stderr, f), func() { f.Close() }, nil
}
