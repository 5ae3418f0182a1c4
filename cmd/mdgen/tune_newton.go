package main

// mdgen tune -newton: searches the launch shapes of the Newton back end's
// linear-algebra kernels (gpuabi.LAShape) on the GPU at hand and writes
// them to the tuning profile's Newton entries (runtime/tune).

import (
	"errors"
	"fmt"
	"github.com/mdgen/mdgen/internal/stats"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/internal/bench"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/gpu"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
	"github.com/mdgen/mdgen/runtime/newton"
	"github.com/mdgen/mdgen/runtime/solver"
	"github.com/mdgen/mdgen/runtime/tune"
	"github.com/mdgen/mdgen/stager/families"
)

const tuneNewtonUsage = `
With -newton it tunes the Newton back end's linear algebra instead (the
other flags of the evaluation's search, -systems, -prec, -degrees and
-complex, do not apply): for each case of -newton-cases (PREC, r or c for
real or complex data, the unknowns n: 8r1024 is 8 doubles, real, n = 1024)
it solves problem -1 (the monomial homotopy of mdgen bench -newton, seed 1,
from x(0) = 1, at -newton-degree) on the GPU, one solver per case, and times
the linear-algebra stages of a solve (QR, Q^H b, back substitution, update,
residual: CUDA events; the median of -repeat solves, a candidate whose first
solve is 1.5 times the best so far not repeated) for the teams per block of
the kernels qr, mulsub, qh, backsub and packrh, one kernel at a time
(each over the powers of two up to its bound, the others at the best so
far); the fastest, when not the model's, is measured again with the model,
alternately, 3 times each, and kept only when the medians say it gains
-min-gain (these times vary by several percent from solve to solve). Every solve of every candidate must give the model shape's results bit
for bit (series, residual, condition, steps); the model's and the chosen
shape's solves at n = -newton-check-n must give the CPU Newton's. The
entries are keyed by the size class of n (n<128, n<512, n<2048, n>=2048).

`

// newtonTuneCase is one case of mdgen tune -newton and what it found.
type newtonTuneCase struct {
	prec    int
	complex bool
	vars    int

	found    tune.NewtonFound
	steps    int
	skipped  string
	check    string // "cpu", "model", or why not
	chkModel *newton.Result
	chkBest  *newton.Result
	chkErr   error
}

func (c *newtonTuneCase) name() string {
	return fmt.Sprintf("Newton %dd %s n=%d", c.prec, tune.DataName(c.complex), c.vars)
}

// parseNewtonCases reads -newton-cases: PREC r|c N, comma-separated.
func parseNewtonCases(s string) ([]*newtonTuneCase, error) {
	var cs []*newtonTuneCase
	seen := map[string]bool{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		i := strings.IndexAny(f, "rc")
		if i < 1 {
			return nil, fmt.Errorf("tune: -newton-cases %q: want PREC, r or c, n (e.g. 8r1024)", f)
		}
		prec, err1 := strconv.Atoi(f[:i])
		n, err2 := strconv.Atoi(f[i+1:])
		if err1 != nil || err2 != nil || n < 1 {
			return nil, fmt.Errorf("tune: -newton-cases %q: want PREC, r or c, n >= 1 (e.g. 8r1024)", f)
		}
		if err := checkPrec("-newton-cases", mdops.Prec{N: prec, Complex: f[i] == 'c'}); err != nil {
			return nil, err
		}
		if seen[f] {
			continue
		}
		seen[f] = true
		cs = append(cs, &newtonTuneCase{prec: prec, complex: f[i] == 'c', vars: n})
	}
	if len(cs) == 0 {
		return nil, fmt.Errorf("tune: no -newton-cases given")
	}
	return cs, nil
}

type precKind struct {
	prec    int
	complex bool
}

// laMs is the time of the linear-algebra stages of a solve, in ms.
func laMs(t newton.Times) float64 {
	return float64(t.QR+t.QHB+t.BackSub+t.Update+t.Residual) / float64(time.Millisecond)
}

var errPastDeadline = errors.New("past the -deadline")

// runNewton tunes the cases of cfg.newtonCases and writes their entries
// into p.
func (t *tuner) runNewton(p *tune.Profile, stdout io.Writer) error {
	cfg := t.cfg
	cases := cfg.newtonCases
	var kinds []precKind
	for _, c := range cases {
		if k := (precKind{c.prec, c.complex}); !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	kernels, err := t.buildNewtonKernels(kinds)
	if err != nil {
		return err
	}
	defer func() {
		for _, k := range kernels {
			_ = k.Close()
		}
	}()
	// The CPU Newton at -newton-check-n, per precision and kind, beside
	// the GPU's work (the cheapest first).
	cpu := map[precKind]*newton.Result{}
	cpuErr := map[precKind]error{}
	var cpuMu sync.Mutex
	cpuDone := make(chan struct{})
	go func() {
		defer close(cpuDone)
		order := slices.Clone(kinds)
		slices.SortFunc(order, func(a, b precKind) int {
			wa, wb := a.prec, b.prec
			if a.complex {
				wa *= 4
			}
			if b.complex {
				wb *= 4
			}
			return wa - wb
		})
		for _, k := range order {
			if t.pastDeadline() {
				return
			}
			t0 := time.Now()
			r, err := t.newtonSolveCPU(k)
			cpuMu.Lock()
			cpu[k], cpuErr[k] = r, err
			cpuMu.Unlock()
			t.logf("check: the CPU Newton %dd %s n=%d done in %.1f s", k.prec, tune.DataName(k.complex), cfg.newtonCheckN, time.Since(t0).Seconds())
		}
	}()
	defer func() { gpu.NewtonShape = nil }()
	for i, c := range cases {
		if t.pastDeadline() {
			c.skipped = fmt.Sprintf("not run: past the -deadline of %s", cfg.deadline)
			t.logf("[%d/%d %s] %s: %s", i+1, len(cases), time.Since(t.start).Round(time.Second), c.name(), c.skipped)
			continue
		}
		t.newtonCase(c, kernels[precKind{c.prec, c.complex}])
		head := fmt.Sprintf("[%d/%d %s] %s:", i+1, len(cases), time.Since(t.start).Round(time.Second), c.name())
		if c.skipped != "" {
			t.logf("%s %s", head, c.skipped)
			continue
		}
		f := c.found
		t.logf("%s model %.3f ms, best {%v} %.3f ms (%+.1f%%), %d shapes, %d steps", head, f.ModelMs, f.Best, f.BestMs, f.Gain(), f.Tried, c.steps)
	}
	t.waitChecks(cpuDone)
	cpuMu.Lock()
	defer cpuMu.Unlock()
	for _, c := range cases {
		if c.skipped != "" {
			continue
		}
		k := precKind{c.prec, c.complex}
		ref, done := cpu[k]
		switch {
		case len(c.found.Differs) > 0:
			c.check = "DIFFERS from the model's solve"
		case c.chkErr != nil:
			c.check = "error: " + c.chkErr.Error()
		case !done:
			c.check = "model"
		case cpuErr[k] != nil:
			c.check = "error: the CPU Newton: " + cpuErr[k].Error()
		default:
			c.check = "cpu"
			for what, r := range map[string]*newton.Result{"the model's": c.chkModel, "the chosen shape's": c.chkBest} {
				if err := solver.DiffResults(r, ref); err != nil {
					c.check = fmt.Sprintf("DIFFERS: %s solve at n=%d from the CPU's: %v", what, cfg.newtonCheckN, err)
				}
			}
		}
	}
	return t.finishNewton(cases, p, stdout)
}

func (t *tuner) buildNewtonKernels(kinds []precKind) (map[precKind]*gpu.NewtonKernels, error) {
	b, err := t.builder()
	if err != nil {
		return nil, err
	}
	want := make([]mdops.Prec, len(kinds))
	for i, k := range kinds {
		want[i] = mdops.Prec{N: k.prec, Complex: k.complex}
	}
	t0 := time.Now()
	loaded, err := b.Newton(want...)
	if err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	ks := map[precKind]*gpu.NewtonKernels{}
	for i, k := range kinds {
		ks[k] = loaded[i]
	}
	t.logf("tune: Newton kernels for %d precisions and kinds built in %.1f s (cache %s)", len(kinds), time.Since(t0).Seconds(), t.cfg.kernels)
	return ks, nil
}

func (t *tuner) newtonInstance(vars int, complex bool) (*families.Instance, error) {
	return families.Build("monomial", families.Options{N: vars, Degree: t.cfg.newtonDegree, Seed: bench.NewtonSeed, Complex: complex})
}

func (t *tuner) newtonOptions(k precKind, workers int) newton.Options {
	return newton.Options{Prec: mdops.Prec{N: k.prec, Complex: k.complex}, Degree: t.cfg.newtonDegree, MaxSteps: t.cfg.newtonSteps, Workers: workers}
}

// newtonSolveCPU solves the check instance on the CPU.
func (t *tuner) newtonSolveCPU(k precKind) (*newton.Result, error) {
	inst, err := t.newtonInstance(t.cfg.newtonCheckN, k.complex)
	if err != nil {
		return nil, err
	}
	sv, err := newton.New(inst.System, t.newtonOptions(k, t.cfg.checkWorkers))
	if err != nil {
		return nil, err
	}
	defer sv.Close()
	return sv.Solve(inst.Start[0].Values)
}

// newtonCase searches the shapes of one case, then solves the check
// instance on the GPU with the model's shape and the chosen one.
func (t *tuner) newtonCase(c *newtonTuneCase, k *gpu.NewtonKernels) {
	cfg := t.cfg
	pk := precKind{c.prec, c.complex}
	inst, err := t.newtonInstance(c.vars, c.complex)
	if err != nil {
		c.skipped = "error: " + err.Error()
		return
	}
	// The back end keeps this pointer and reads it at every launch: the
	// search changes *cur between the solves of one solver.
	cur := gpuabi.LAModelShape()
	gpu.NewtonShape = func(cudadev.Info, mdops.Prec, int) *gpuabi.LAShape { return &cur }
	sv, err := newton.New(inst.System, gpu.NewtonOptions(k, t.newtonOptions(pk, 0)))
	if err != nil {
		c.skipped = "error: " + err.Error()
		return
	}
	defer sv.Close()
	start := inst.Start[0].Values
	if _, err := sv.Solve(start); err != nil { // warm-up: staging, allocation, first launches
		c.skipped = "error: " + err.Error()
		if errors.Is(err, gpu.ErrMemory) {
			c.skipped = "too big for the GPU: " + err.Error()
		}
		return
	}
	var ref *newton.Result
	solve := func() (float64, bool, error) {
		r, err := sv.Solve(start)
		if err != nil {
			return 0, false, err
		}
		if ref == nil {
			ref = r
			c.steps = r.Steps
		}
		return laMs(r.Times), solver.DiffResults(r, ref) == nil, nil
	}
	f, err := tune.NewtonSearch(cfg.minGain, func(s gpuabi.LAShape, screen float64) (float64, bool, error) {
		if ref != nil && t.pastDeadline() {
			return 0, false, errPastDeadline
		}
		cur = s
		ms, same, err := solve()
		if err != nil {
			return 0, false, err
		}
		ks := []float64{ms}
		if !(screen > 0 && ms > screen) {
			for len(ks) < cfg.repeat {
				m, sm, err := solve()
				if err != nil {
					return 0, false, err
				}
				ks, same = append(ks, m), same && sm
			}
		}
		mark := ""
		if !same {
			mark = " RESULTS DIFFER from the model's"
		}
		t.logf("  %s {%v}: %.3f ms (%d solves)%s", c.name(), s, stats.Median(ks), len(ks), mark)
		return stats.Median(ks), same, nil
	})
	if err != nil {
		c.skipped = "error: " + err.Error()
		return
	}
	late := 0
	for i, s := range f.Failed {
		if errors.Is(f.Errs[i], errPastDeadline) {
			late++
			continue
		}
		t.logf("  %s {%v}: %v", c.name(), s, f.Errs[i])
	}
	if late > 0 {
		t.logf("  %s: %d shapes not tried: past the -deadline", c.name(), late)
	}
	c.found = f
	// The check instance on the GPU, model and chosen shape.
	chk, err := t.newtonInstance(cfg.newtonCheckN, c.complex)
	if err == nil {
		for _, s := range []struct {
			shape gpuabi.LAShape
			out   **newton.Result
		}{{f.Model, &c.chkModel}, {f.Best, &c.chkBest}} {
			cur = s.shape
			var sc *newton.Solver
			if sc, err = newton.New(chk.System, gpu.NewtonOptions(k, t.newtonOptions(pk, 0))); err != nil {
				break
			}
			*s.out, err = sc.Solve(chk.Start[0].Values)
			_ = sc.Close()
			if err != nil {
				break
			}
		}
	}
	c.chkErr = err
}

// finishNewton writes the Newton entries and prints the table.
func (t *tuner) finishNewton(cases []*newtonTuneCase, p *tune.Profile, stdout io.Writer) error {
	dev := tune.DeviceOf(t.info)
	stamp := time.Now().UTC().Format(time.RFC3339)
	fmt.Fprintf(stdout, "mdgen tune -newton on %s: problem -1, degree %d; ms: the linear-algebra stages of one solve (QR, Q^H b, back substitution, update, residual; CUDA events, median)\n",
		t.info, t.cfg.newtonDegree)
	fmt.Fprintf(stdout, "shape: teams per block of %s; check: every candidate's solve against the model's, the model's and the best's at n=%d against the CPU Newton\n\n",
		strings.Join(func() []string {
			var s []string
			for _, op := range gpuabi.LAShapeOps {
				s = append(s, string(op))
			}
			return s
		}(), "/"), t.cfg.newtonCheckN)
	fmt.Fprintf(stdout, "%-4s %-7s %5s  %-7s %5s  %-16s %9s  %-16s %9s  %6s  %5s  %s\n", "prec", "data", "n", "size", "steps", "model", "ms", "best", "ms", "gain", "tried", "check")
	short := func(s gpuabi.LAShape) string {
		var parts []string
		for _, op := range gpuabi.LAShapeOps {
			parts = append(parts, strconv.Itoa(s.Get(op)))
		}
		return strings.Join(parts, "/")
	}
	var bad []string
	written := 0
	for _, c := range cases {
		if c.skipped != "" {
			fmt.Fprintf(stdout, "%-4s %-7s %5d  %s\n", fmt.Sprintf("%dd", c.prec), tune.DataName(c.complex), c.vars, c.skipped)
			continue
		}
		f := c.found
		fmt.Fprintf(stdout, "%-4s %-7s %5d  %-7s %5d  %-16s %9.3f  %-16s %9.3f  %+5.1f%%  %5d  %s\n", fmt.Sprintf("%dd", c.prec), tune.DataName(c.complex),
			c.vars, tune.NewtonSizeClass(c.vars), c.steps, short(f.Model), f.ModelMs, short(f.Best), f.BestMs, f.Gain(), f.Tried, c.check)
		if c.check != "cpu" && c.check != "model" {
			bad = append(bad, c.name())
			continue
		}
		p.PutNewton(dev, t.info.MaxSharedPerBlockOptin, stamp, tune.NewtonEntry{Prec: c.prec, Data: tune.DataName(c.complex),
			Size: tune.NewtonSizeClass(c.vars), Shape: f.Best, Model: f.Model, N: c.vars, Degree: t.cfg.newtonDegree,
			Ms: round3(f.BestMs), ModelMs: round3(f.ModelMs), Tried: f.Tried, Check: c.check})
		written++
	}
	return writeProfile(p, t.cfg.profile, "Newton entries", written, bad, stdout)
}
