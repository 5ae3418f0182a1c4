package bench

// mdgen bench -newton: Newton's method on Taylor series on PHCpack's
// problem -1 (the monomial homotopy x_1···x_i = b_i(t), one column of
// monomials, x_i(t) = exp(c_i t), start x(0) = 1) beside PHCpack's GPU
// Newton on the same H200 (phcpack_newton_h200.csv).

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	goruntime "runtime"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/mdgen/mdgen/gen"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/mdops/la"
	"github.com/mdgen/mdgen/runtime/gpu"
	"github.com/mdgen/mdgen/runtime/newton"
	"github.com/mdgen/mdgen/runtime/solver"
	"github.com/mdgen/mdgen/stager"
	"github.com/mdgen/mdgen/stager/families"
	"github.com/mdgen/mdgen/stager/poly"
)

// NewtonConfig describes one run of `mdgen bench -newton`.
type NewtonConfig struct {
	Precs     []int  // doubles per number
	Sizes     []int  // dimensions n
	Degrees   []int  // truncation degrees d (1..1024)
	Complexes []bool // kinds of data: false real, true complex
	Repeat    int    // solves per case (the median one is reported)
	MaxSteps  int    // Newton's step limit (0: newton.DefaultMaxSteps)

	Check   bool // also run the CPU Newton and compare bit for bit
	CPU     bool // the CPU even when the GPU is there
	Workers int  // CPU workers (0: one per CPU)

	KernelDir string // folder of the fatbin cache
	NVCC      string // path of nvcc ("": nvcc.Find)

	CSV, Plot string        // files to write ("": none)
	OutDir    string        // folder of newton.txt, newton.log, newton.csv, newton.svg ("": none)
	Deadline  time.Duration // start no case after this long (0: no limit)
	// Profile names the tuning profile whose Newton entries give the GPU
	// back end its linear-algebra shapes (-profile; mdgen bench installs
	// it, runtime/tune; "": the default location when it exists).
	Profile string
}

// NewtonSeed is the seed of the monomial homotopy's rates (PHCpack's
// problem -1 as stager builds it).
const NewtonSeed = 1

// Validate checks the configuration and fills in the defaults.
func (c *NewtonConfig) Validate() error {
	if len(c.Precs) == 0 || len(c.Sizes) == 0 || len(c.Degrees) == 0 || len(c.Complexes) == 0 {
		return fmt.Errorf("bench -newton: no precisions, sizes, degrees or kinds of data given")
	}
	for _, p := range c.Precs {
		if !slices.Contains(gen.DefaultNs, p) {
			return fmt.Errorf("bench -newton: no generated arithmetic for %d doubles (have %v)", p, gen.DefaultNs)
		}
		if _, ok := la.KernelsFor(p); !ok {
			return fmt.Errorf("bench -newton: no linear algebra for %d doubles", p)
		}
	}
	for _, n := range c.Sizes {
		if n < 1 {
			return fmt.Errorf("bench -newton: dimension %d: want at least 1", n)
		}
	}
	for _, d := range c.Degrees {
		if d < 1 || d > 1024 {
			return fmt.Errorf("bench -newton: degree %d out of range 1..1024 (the monomial homotopy's)", d)
		}
	}
	if c.MaxSteps < 0 {
		return fmt.Errorf("bench -newton: negative step limit %d", c.MaxSteps)
	}
	c.Repeat = max(c.Repeat, 1)
	defaultOutFiles(c.OutDir, "newton", &c.CSV, &c.Plot)
	return nil
}

// NewtonResult is one case of the Newton table. Times are in seconds; NaN
// marks a number that does not exist.
type NewtonResult struct {
	Prec    int
	N       int // dimension
	Degree  int
	Complex bool
	Backend string // "gpu" or "cpu"
	Device  string // the GPU's name, or the CPU's workers

	Skipped string // why the case did not run

	Converged   bool
	Failure     string // why Newton did not converge
	Steps       int
	RefineSteps int
	Repeat      int
	Wall        float64 // wall clock of the reported (median) solve
	WallMin     float64 // the fastest solve
	Setup       float64 // staging the plans and making the executors (before the solves)
	Stages      [6]float64
	AbsErr      float64 // largest |coefficient - exact| over the series (max over the real and imaginary parts)
	Bits        float64 // worst log2(largest exact coefficient of the variable / error)
	WorstAt     string  // where Bits is attained
	Residual    float64
	Cond        float64

	PHC    PHCNewton
	HasPHC bool // PHCpack was run on the case (with a result or not)

	Check     string  // identical, DIFFERS: ..., "-" (not asked), error: ...
	CheckWall float64 // wall clock of the CPU solve of the check

	Work      newton.Work // the linear algebra of the reported solve
	QROps     float64     // its double operations in the QR stage (newtonStageOps)
	UpdateOps float64     // and in the update stage
}

// StageNames are the six stages, in the order of NewtonResult.Stages.
var StageNames = [6]string{"evaluate", "qr", "qhb", "backsub", "update", "residual"}

func stageSeconds(t newton.Times) [6]float64 {
	return [6]float64{t.Evaluate.Seconds(), t.QR.Seconds(), t.QHB.Seconds(), t.BackSub.Seconds(),
		t.Update.Seconds(), t.Residual.Seconds()}
}

// StageSum returns the sum of the six stage times.
func (r *NewtonResult) StageSum() float64 {
	s := 0.0
	for _, x := range r.Stages {
		s += x
	}
	return s
}

func (r *NewtonResult) ran() bool { return r.Skipped == "" }

func (r *NewtonResult) dataName() string { return dataName(r.Complex) }

// SpeedUp is PHCpack's wall clock over ours (NaN where either is missing).
func (r *NewtonResult) SpeedUp() float64 {
	if !r.ran() || isNaN(r.PHC.Wall) || isNaN(r.Wall) || r.Wall <= 0 {
		return math.NaN()
	}
	return r.PHC.Wall / r.Wall
}

// ErrRatio is PHCpack's printed error over our largest error (NaN where
// either is missing; +Inf when ours is zero).
func (r *NewtonResult) ErrRatio() float64 {
	if !r.ran() || isNaN(r.PHC.Err) || isNaN(r.AbsErr) {
		return math.NaN()
	}
	return r.PHC.Err / r.AbsErr
}

// newNewtonResult is a case before it runs, with PHCpack's numbers.
func newNewtonResult(prec, n, d int, complex bool, repeat int) NewtonResult {
	nan := math.NaN()
	r := NewtonResult{Prec: prec, N: n, Degree: d, Complex: complex, Repeat: repeat, Check: "-",
		Wall: nan, WallMin: nan, Setup: nan, AbsErr: nan, Bits: nan, Residual: nan, Cond: nan, CheckWall: nan}
	for i := range r.Stages {
		r.Stages[i] = nan
	}
	r.PHC, r.HasPHC = phcNewtonFor(prec, n, d, complex)
	return r
}

// newtonSession is one run of the Newton table.
type newtonSession struct {
	cfg     *NewtonConfig
	log     io.Writer
	notes   []string
	gpu     *newtonGPU // nil: the CPU
	results []NewtonResult
	start   time.Time
}

func (s *newtonSession) logf(format string, a ...any) { fmt.Fprintf(s.log, format+"\n", a...) }

// noteOnce adds a note unless it is there already.
func (s *newtonSession) noteOnce(line string) {
	if !slices.Contains(s.notes, line) {
		s.notef("%s", line)
	}
}

func (s *newtonSession) notef(format string, a ...any) {
	line := fmt.Sprintf(format, a...)
	s.notes = append(s.notes, line)
	s.logf("%s", line)
}

// RunNewton runs the Newton table of cfg and writes the report to out and
// progress to stderr. The GPU runs the cases when this binary has it and a
// device and nvcc are there (unless cfg.CPU), else the CPU; the report
// says which and why. It returns an error when a check differs.
func RunNewton(cfg *NewtonConfig, out, stderr io.Writer) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	s := &newtonSession{cfg: cfg, log: stderr, start: time.Now()}
	log, closeLog, err := openLog(stderr, cfg.OutDir, "newton.log")
	if err != nil {
		return err
	}
	defer closeLog()
	s.log = log
	s.notef("mdgen bench -newton: %s; problem -1 (the monomial homotopy, one column, seed %d, start x(0) = 1), %d solve(s) per case",
		time.Now().Format(time.RFC3339), NewtonSeed, cfg.Repeat)
	if cfg.CPU {
		s.notef("backend: CPU (runtime/newton), %d workers on %d CPUs (-cpu)", cpuWorkers(cfg.Workers), goruntime.NumCPU())
	} else if g, err := openNewtonGPU(cfg.NVCC, cfg.KernelDir, s.logf); err != nil {
		s.notef("backend: CPU (runtime/newton), %d workers on %d CPUs: no GPU run: %v", cpuWorkers(cfg.Workers), goruntime.NumCPU(), err)
	} else {
		s.gpu = g
		defer g.Close()
		free, _ := g.dev.FreeMemory()
		s.notef("backend: GPU (runtime/gpu's device-resident Newton), %s, %s free", g.dev.Info(), stager.FormatBytes(free))
	}
	if cfg.Check {
		if s.gpu != nil {
			s.notef("check: the CPU Newton (runtime/newton, %d workers) on every case, bit for bit (series, residual, condition, update, steps)", cpuWorkers(cfg.Workers))
		} else {
			s.notef("check: the CPU Newton again with %d worker(s), bit for bit (series, residual, condition, update, steps)", checkWorkers(cfg.Workers))
		}
	}
	s.runAll()
	return s.report(out)
}

// checkWorkers is the worker count of a CPU run's check: another one than
// the run's (the results do not depend on it).
func checkWorkers(w int) int {
	if cpuWorkers(w) == 1 {
		return 2
	}
	return 1
}

func (s *newtonSession) runAll() {
	cfg := s.cfg
	total := len(cfg.Complexes) * len(cfg.Sizes) * len(cfg.Degrees) * len(cfg.Precs)
	i := 0
	for _, complex := range cfg.Complexes {
		for _, n := range cfg.Sizes {
			for _, d := range cfg.Degrees {
				var inst *families.Instance
				var instErr error
				for _, prec := range cfg.Precs {
					i++
					r := newNewtonResult(prec, n, d, complex, cfg.Repeat)
					head := fmt.Sprintf("[%d/%d %s] %dd %s n=%d d=%d", i, total, time.Since(s.start).Round(time.Second), prec, dataName(complex), n, d)
					switch {
					case cfg.Deadline > 0 && time.Since(s.start) > cfg.Deadline:
						r.Skipped = fmt.Sprintf("not run: past the -deadline of %s", cfg.Deadline)
					default:
						if inst == nil && instErr == nil {
							inst, instErr = families.Build("monomial", families.Options{N: n, Degree: d, Seed: NewtonSeed, Complex: complex})
						}
						if instErr != nil {
							r.Skipped = "error: " + instErr.Error()
						} else {
							s.runCase(&r, inst, head)
						}
					}
					s.results = append(s.results, r)
					s.logf("%s: %s", head, progressLine(&r))
					s.writePartial()
				}
			}
		}
	}
}

func progressLine(r *NewtonResult) string {
	if !r.ran() {
		return "skipped: " + r.Skipped
	}
	conv := "converged"
	if !r.Converged {
		conv = "NOT converged (" + r.Failure + ")"
	}
	line := fmt.Sprintf("%s, %s, %d steps, wall %s s, max abs error %s, %s bits", r.Backend, conv, r.Steps, fmtS(r.Wall), fmtE(r.AbsErr), fmtBits(r.Bits))
	if r.HasPHC {
		if r.PHC.HasResult() {
			line += fmt.Sprintf(" (PHCpack %d steps, wall %s s, error %s: %s)", r.PHC.Steps, fmtS(r.PHC.Wall), fmtE(r.PHC.Err), fmtRatio(r.SpeedUp()))
		} else {
			line += " (PHCpack: " + r.PHC.Note + ")"
		}
	}
	if r.Check != "-" {
		line += ", check: " + r.Check
	}
	return line
}

// options returns the Newton options of a case on the CPU.
func (s *newtonSession) options(prec, d int, complex bool, workers int, head string) newton.Options {
	last := time.Now()
	return newton.Options{Prec: mdops.Prec{N: prec, Complex: complex}, Degree: d, MaxSteps: s.cfg.MaxSteps, Workers: workers,
		Progress: func(si newton.StepInfo) {
			// At most a line a second: a GPU solve prints none.
			if time.Since(last) < time.Second {
				return
			}
			last = time.Now()
			s.logf("%s:   step %d, degree %d, update %.3g, skipped %d/%d, %.1f s", head, si.Step, si.Degree, si.Update,
				si.Skipped, si.Blocks, si.Elapsed.Seconds())
		}}
}

// solveTimed makes a solver, stages it (timed as setup) and solves repeat
// times; it returns every result and wall clock.
func solveTimed(inst *families.Instance, opt newton.Options, repeat int) (res []*newton.Result, walls []float64, setup float64, err error) {
	sv, err := newton.New(inst.System, opt)
	if err != nil {
		return nil, nil, 0, err
	}
	defer sv.Close()
	t0 := time.Now()
	if err := sv.Prepare(); err != nil {
		return nil, nil, 0, err
	}
	setup = time.Since(t0).Seconds()
	for range repeat {
		t0 := time.Now()
		r, err := sv.Solve(inst.Start[0].Values)
		if err != nil {
			return nil, nil, setup, err
		}
		walls = append(walls, time.Since(t0).Seconds())
		res = append(res, r)
	}
	return res, walls, setup, nil
}

// runCase runs one case on the session's back end, measures the error
// against the exact series and runs the check.
func (s *newtonSession) runCase(r *NewtonResult, inst *families.Instance, head string) {
	cfg := s.cfg
	opt := s.options(r.Prec, r.Degree, r.Complex, cfg.Workers, head)
	r.Backend, r.Device = "cpu", fmt.Sprintf("%d workers", cpuWorkers(cfg.Workers))
	if s.gpu != nil {
		k, err := s.gpu.kernelsFor(r.Prec, r.Complex)
		if err != nil {
			s.noteOnce(fmt.Sprintf("%dd %s: no GPU kernels, these cases run on the CPU: %v", r.Prec, r.dataName(), err))
		} else {
			opt = s.gpu.options(k, opt)
			r.Backend, r.Device = "gpu", s.gpu.name()
		}
	}
	res, walls, setup, err := solveTimed(inst, opt, cfg.Repeat)
	if err != nil {
		r.Skipped = "error: " + err.Error()
		if errors.Is(err, gpu.ErrMemory) {
			r.Skipped = "too big for the GPU: " + err.Error()
		}
		return
	}
	// The median solve (the lower one of an even count) is reported.
	idx := make([]int, len(walls))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return walls[idx[a]] < walls[idx[b]] })
	med := res[idx[(len(idx)-1)/2]]
	r.Wall, r.WallMin, r.Setup = walls[idx[(len(idx)-1)/2]], walls[idx[0]], setup
	r.Converged, r.Steps, r.RefineSteps = med.Converged, med.Steps, med.RefineSteps
	if med.Err != nil {
		r.Failure = med.Err.Error()
	}
	r.Stages = stageSeconds(med.Times)
	r.stageRates(med.Work)
	r.Residual, r.Cond = med.Residual, med.Cond
	r.AbsErr, r.Bits, r.WorstAt = SeriesError(med, inst.Exact, cpuWorkers(cfg.Workers))
	for i, o := range res {
		if err := solver.DiffResults(o, res[0]); err != nil {
			r.Check = fmt.Sprintf("DIFFERS between solves 1 and %d: %v", i+1, err)
			return
		}
	}
	if !cfg.Check {
		return
	}
	workers := cfg.Workers
	if r.Backend == "cpu" {
		workers = checkWorkers(cfg.Workers)
	}
	s.logf("%s: check: the CPU Newton (%d worker(s))...", head, cpuWorkers(workers))
	ref, cw, _, err := solveTimed(inst, s.options(r.Prec, r.Degree, r.Complex, workers, head+" check"), 1)
	if err != nil {
		r.Check = "error: " + err.Error()
		return
	}
	r.CheckWall = cw[0]
	if err := solver.DiffResults(med, ref[0]); err != nil {
		r.Check = "DIFFERS: " + err.Error()
		return
	}
	r.Check = "identical"
}

// SeriesError returns the largest error of res's series against exact
// (exact[v][k], the coefficient of t^k of variable v): absolute (the max
// over every coefficient of |Re(got - exact)| and |Im(got - exact)|, what
// PHCpack prints) and in bits below the largest exact coefficient of the
// variable (the worst over the variables: log2(max_k |exact_k| / max_k
// |got_k - exact_k|), |z| = max(|Re z|, |Im z|)), with where the worst bits
// are (x3 t^17). The differences are computed in 64N+128-bit floats. A
// non-finite limb gives +Inf and NaN bits; an exact result +Inf bits.
func SeriesError(res *newton.Result, exact [][]poly.Rational, workers int) (abs, bits float64, where string) {
	prec := uint(64*res.N + 128)
	type varErr struct {
		abs, bits float64
		k         int
	}
	out := make([]varErr, len(res.Vars))
	var wg sync.WaitGroup
	next := make(chan int)
	for range max(workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for v := range next {
				out[v] = varError(res, exact[v], v, prec)
			}
		}()
	}
	for v := range res.Vars {
		next <- v
	}
	close(next)
	wg.Wait()
	abs, bits = 0, math.Inf(1)
	for v, e := range out {
		if isNaN(e.abs) || e.abs > abs {
			abs = e.abs
		}
		if isNaN(e.bits) {
			bits, where = math.NaN(), fmt.Sprintf("%s t^%d", res.Vars[v], e.k)
		} else if !isNaN(bits) && e.bits < bits {
			bits, where = e.bits, fmt.Sprintf("%s t^%d", res.Vars[v], e.k)
		}
	}
	return abs, bits, where
}

// varError is SeriesError for variable v.
func varError(res *newton.Result, exact []poly.Rational, v int, prec uint) (e struct {
	abs, bits float64
	k         int
}) {
	newF := func() *big.Float { return new(big.Float).SetPrec(prec) }
	maxC, maxD := newF(), newF()
	tmp := newF()
	part := func(limbs []float64, x *big.Rat) (*big.Float, bool) {
		sum := newF()
		for _, l := range limbs {
			if math.IsInf(l, 0) || math.IsNaN(l) {
				return nil, false
			}
			sum.Add(sum, tmp.SetFloat64(l))
		}
		want := newF().SetRat(x)
		if a := newF().Abs(want); a.Cmp(maxC) > 0 {
			maxC = a
		}
		return sum.Sub(sum, want).Abs(sum), true
	}
	for k := 0; k <= res.Degree; k++ {
		c := res.Coef(v, k)
		diffs := make([]*big.Float, 0, 2)
		dre, ok := part(c[:res.N], &exact[k].Re)
		if !ok {
			e.abs, e.bits, e.k = math.Inf(1), math.NaN(), k
			return e
		}
		diffs = append(diffs, dre)
		if res.Complex {
			dim, ok := part(c[res.N:], &exact[k].Im)
			if !ok {
				e.abs, e.bits, e.k = math.Inf(1), math.NaN(), k
				return e
			}
			diffs = append(diffs, dim)
		}
		for _, dd := range diffs {
			if dd.Cmp(maxD) > 0 {
				maxD, e.k = dd, k
			}
		}
	}
	e.abs, _ = maxD.Float64()
	e.bits = log2F(maxC) - log2F(maxD)
	return e
}

// log2F returns log2 |x| (-Inf for 0).
func log2F(x *big.Float) float64 {
	if x.Sign() == 0 {
		return math.Inf(-1)
	}
	m := new(big.Float)
	exp := x.MantExp(m)
	f, _ := m.Float64()
	return float64(exp) + math.Log2(math.Abs(f))
}
