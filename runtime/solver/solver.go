// Package solver is what the packages that `mdgen emit` writes call at run
// time: the Solver type they export, its options, the choice between the
// GPU and the CPU executor with the reason for a fallback, and the checks
// that the package still matches this mdgen (the plan's fingerprint,
// stager.Plan.Hash; the fatbin's source, SourceHash). An emitted package
// holds only what is specific to its system (constants, the system text,
// the embedded fatbin, a compile-time guard on gpuabi.LayoutVersion) and
// calls New here; keeping the logic in one package keeps the emitted code
// small and lets it change with the emitter.
//
// Emitted packages use it like this (see generated/p1):
//
//	s, err := p1.New()            // GPU when it can, else the CPU
//	if r := s.FallbackReason(); r != nil {
//		log.Printf("on the CPU: %v", r)
//	}
//	s.SetInput(v, series)         // for every variable v
//	err = s.Run()                 // values and Jacobian at the inputs
//	y := s.Value(0)               // series of polynomial 0
//
// and they solve (newton.go): Solve and SolveAll run runtime/newton, the
// driver of `mdgen solve`, with the Solver's own executor at the emitted
// degree, so that the series, residual and condition number are the bits
// of `mdgen solve` on the same system, precision, degree and start:
//
//	starts, err := spec.Starts()   // the start list of the system file
//	res, err := s.Solve(starts[0]) // *Result: the series, Residual, Cond, Times
//
// and, for a square system without a parameter, they track (track.go):
// Spec.Track runs runtime/track on the total-degree homotopy of the system
// and returns every path's endpoint, every isolated solution among them:
//
//	res, err := spec.Track()       // *TrackResult: Solutions, Summary
//
// GPUNewton is the seam where the GPU build (newton_cuda.go) plugs in
// runtime/gpu's Newton back end, which keeps the linear algebra on the
// device with the kernels of the package's fatbin (the emitted .cu carries
// them); the CPU path never calls it.
package solver

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/cpu"
	"github.com/mdgen/mdgen/runtime/gpu"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
	"github.com/mdgen/mdgen/stager"
	"github.com/mdgen/mdgen/stager/families"
	"github.com/mdgen/mdgen/stager/poly"
)

// Spec is what an emitted package knows about itself: the system, the
// precision and degree it was emitted for, the fingerprint of the plan, and
// its kernels. Exactly one of Benchmark and Text gives the system.
type Spec struct {
	Name   string     // file base name, e.g. "p1"
	Prec   mdops.Prec // doubles per number, real or complex data
	Degree int        // series truncated after t^Degree

	PlanHash      uint64 // stager.Plan.Hash of the plan at emit time
	LayoutVersion int64  // gpuabi.LayoutVersion at emit time

	Benchmark string // "p1", "p2" or "p3": families.BenchmarkSystem(Benchmark, Seed)
	Seed      int64
	Text      string // the system file, read with poly.Parse
	Param     string // poly.ParseOptions.Param

	// Homotopy is the homotopy Track follows, chosen when the package was
	// emitted: track.TotalDegree (a square system without a parameter), or
	// "" (no Track: track.go).
	Homotopy string

	// Fatbins holds the embedded fatbin directory; FatbinName is the file
	// in it (absent when nvcc did not run).
	Fatbins    fs.FS
	FatbinName string
	// NVCC is the command that builds the fatbin, run in the package's
	// directory; it is quoted in the fallback reason.
	NVCC string
	// SourceHash is the hex SHA-256 of the package's .cu. mdgen emit
	// writes it next to a fatbin it builds (fatbin/<FatbinName>.sha256,
	// sha256sum's format); an embedded fatbin whose stamp holds another
	// hash was built from another source and is not loaded. A fatbin
	// without a stamp (built by hand) is loaded.
	SourceHash string

	// GPU builds the GPU executor; nil means NewGPU.
	GPU func(plan *stager.Plan, fatbin []byte, cfg GPUConfig) (backend.Executor, error)

	once sync.Once
	plan *stager.Plan
	err  error

	// gpuTest replaces the GPU back end entirely in tests (no build tag
	// check).
	gpuTest func(plan *stager.Plan, fatbin []byte, cfg GPUConfig) (backend.Executor, error)
}

// System rebuilds the system the package was emitted for.
func (s *Spec) System() (*poly.System, error) {
	if s.Benchmark != "" {
		if s.Prec.Complex {
			return families.BenchmarkSystemComplex(s.Benchmark, s.Seed)
		}
		return families.BenchmarkSystem(s.Benchmark, s.Seed)
	}
	return poly.Parse(s.Name, []byte(s.Text), poly.ParseOptions{Param: s.Param})
}

// Plan stages the system at the package's degree (once) and checks the
// result against the fingerprint taken when the package was emitted.
func (s *Spec) Plan() (*stager.Plan, error) {
	s.once.Do(func() {
		sys, err := s.System()
		if err != nil {
			s.err = fmt.Errorf("%s: rebuilding the system: %w", s.Name, err)
			return
		}
		plan, err := stager.Stage(sys, s.Degree)
		if err != nil {
			s.err = fmt.Errorf("%s: staging the system: %w", s.Name, err)
			return
		}
		if h := plan.Hash(); h != s.PlanHash {
			s.err = fmt.Errorf("%s: %w: the plan staged now has hash %#016x, the package was emitted for %#016x "+
				"(the stager changed since mdgen emit ran: regenerate the package)", s.Name, ErrStalePlan, h, s.PlanHash)
			return
		}
		s.plan = plan
	})
	return s.plan, s.err
}

// ErrStalePlan is wrapped by the error of a package whose plan no longer
// matches what this mdgen stages.
var ErrStalePlan = errors.New("stale emitted package")

// Layout returns the layout of one series: Degree+1 coefficients of
// Prec.Width() doubles.
func (s *Spec) Layout() backend.Layout {
	return backend.Layout{Prec: s.Prec, Degree: s.Degree}
}

// GPUConfig is what the GPU executor needs beyond the plan and the kernels.
type GPUConfig struct {
	Prec         mdops.Prec
	Device       int  // CUDA device ordinal
	ModuleTables bool // use the job tables baked into the fatbin
}

// NewGPU opens the CUDA device and prepares the GPU executor (package
// runtime/gpu) with the kernels of the fatbin; closing the executor closes
// the device.
func NewGPU(plan *stager.Plan, fatbin []byte, cfg GPUConfig) (backend.Executor, error) {
	if !gpu.Enabled {
		return nil, fmt.Errorf("this program was built without the GPU executor: %w", cudadev.ErrNoCUDA)
	}
	dev, err := cudadev.Open(cfg.Device)
	if err != nil {
		return nil, err
	}
	g, err := gpu.NewWithOptions(plan, cfg.Prec, fatbin, dev, gpu.Options{ModuleTables: cfg.ModuleTables})
	if err != nil {
		return nil, errors.Join(err, dev.Close())
	}
	return &gpuExecutor{g, dev}, nil
}

type gpuExecutor struct {
	*gpu.Executor
	dev *cudadev.Device
}

func (g *gpuExecutor) Close() error { return errors.Join(g.Executor.Close(), g.dev.Close()) }

// Option configures New.
type Option func(*options)

type options struct {
	fatbin       string
	cpu          bool
	requireGPU   bool
	workers      int
	device       int
	moduleTables *bool // nil: the default
}

// WithFatbin loads the kernels from the fatbin at path instead of the
// embedded one.
func WithFatbin(path string) Option { return func(o *options) { o.fatbin = path } }

// WithCPU runs on the CPU without trying the GPU.
func WithCPU() Option { return func(o *options) { o.cpu = true } }

// RequireGPU makes New fail, with the reason, when the GPU cannot be used,
// instead of falling back to the CPU.
func RequireGPU() Option { return func(o *options) { o.requireGPU = true } }

// WithWorkers sets the worker goroutines of the CPU executor (default: one
// per CPU).
func WithWorkers(n int) Option { return func(o *options) { o.workers = n } }

// WithDevice picks the CUDA device (default 0).
func WithDevice(ordinal int) Option { return func(o *options) { o.device = ordinal } }

// WithModuleTables says whether the GPU executor uses the job tables baked
// into the fatbin (checked word for word against the plan, so a fatbin of
// another plan is refused) or uploads the plan's. The default is true for
// the embedded fatbin and false for WithFatbin, which may name a fatbin of
// kernels only (gen.KernelsCU).
func WithModuleTables(use bool) Option { return func(o *options) { o.moduleTables = &use } }

// Backend names the executor a Solver runs on.
type Backend string

const (
	GPU Backend = "gpu"
	CPU Backend = "cpu"
)

// Solver evaluates and differentiates the package's system at power series
// inputs on one back end, and solves it: Solve and SolveAll run Newton's
// method on Taylor series (runtime/newton) from start points (see Solve). Series are in the CPU layout of backend.Layout on
// both back ends: coefficient k of a series is at [k·W, (k+1)·W), W =
// Spec.Prec.Width() doubles (complex data: real limbs, then imaginary ones).
type Solver struct {
	spec    *Spec
	exec    backend.Executor
	backend Backend
	reason  error
	opts    options
	fatbin  []byte // the kernels the GPU executor was made with (nil on the CPU)
	// moduleTables: the GPU executor runs on the fatbin's baked job tables
	moduleTables bool

	newtons map[newtonKey]*newtonSolver // Newton solvers made by Solve, by options
}

// New prepares a solver: on the GPU when this program has the GPU executor
// (build tag cuda), a fatbin (embedded, or WithFatbin) and a CUDA device,
// and on the CPU otherwise; FallbackReason says why the GPU was not used.
func New(spec *Spec, opts ...Option) (*Solver, error) {
	var o options
	for _, f := range opts {
		f(&o)
	}
	plan, err := spec.Plan()
	if err != nil {
		return nil, err
	}
	s := &Solver{spec: spec, opts: o}
	if !o.cpu {
		exec, fatbin, tables, err := spec.tryGPU(plan, &o)
		if err == nil {
			s.exec, s.backend, s.fatbin, s.moduleTables = exec, GPU, fatbin, tables
			return s, nil
		}
		if o.requireGPU {
			return nil, fmt.Errorf("%s: the GPU is required but cannot be used: %w", spec.Name, err)
		}
		s.reason = err
	}
	cpu, err := cpu.New(plan, spec.Prec, o.workers)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", spec.Name, err)
	}
	s.exec, s.backend = cpu, CPU
	return s, nil
}

// tryGPU returns the GPU executor, its fatbin and whether it uses the
// fatbin's job tables, or the reason there is none.
func (s *Spec) tryGPU(plan *stager.Plan, o *options) (backend.Executor, []byte, bool, error) {
	if !gpu.Enabled && s.gpuTest == nil {
		return nil, nil, false, fmt.Errorf("built without the GPU executor (build with -tags cuda; see runtime/gpu/cudadev): %w", cudadev.ErrNoCUDA)
	}
	var fatbin []byte
	if o.fatbin != "" {
		b, err := os.ReadFile(o.fatbin)
		if err != nil {
			return nil, nil, false, fmt.Errorf("reading the fatbin: %w", err)
		}
		fatbin = b
	} else {
		b, err := s.embeddedFatbin()
		if err != nil {
			return nil, nil, false, err
		}
		fatbin = b
	}
	newGPU := s.GPU
	if s.gpuTest != nil {
		newGPU = s.gpuTest
	}
	if newGPU == nil {
		newGPU = NewGPU
	}
	tables := o.fatbin == ""
	if o.moduleTables != nil {
		tables = *o.moduleTables
	}
	exec, err := newGPU(plan, fatbin, GPUConfig{Prec: s.Prec, Device: o.device, ModuleTables: tables})
	return exec, fatbin, tables, err
}

// ErrNoFatbin is wrapped by the fallback reason of a package that was
// built without its fatbin.
var ErrNoFatbin = errors.New("no fatbin embedded")

// ErrStaleFatbin is wrapped by the fallback reason of a package whose
// embedded fatbin was built from another .cu than the package's.
var ErrStaleFatbin = errors.New("stale fatbin")

func (s *Spec) embeddedFatbin() ([]byte, error) {
	if s.Fatbins != nil {
		b, err := fs.ReadFile(s.Fatbins, "fatbin/"+s.FatbinName)
		if err == nil && len(b) > 0 {
			if stamp, err := fs.ReadFile(s.Fatbins, "fatbin/"+s.FatbinName+".sha256"); err == nil && s.SourceHash != "" {
				if f := strings.Fields(string(stamp)); len(f) == 0 || f[0] != s.SourceHash {
					return nil, fmt.Errorf("%w: fatbin/%s was built from another %s.cu (rebuild it, or run mdgen emit again)",
						ErrStaleFatbin, s.FatbinName, s.Name)
				}
			}
			return b, nil
		}
	}
	how := "run mdgen emit where nvcc is found"
	if s.NVCC != "" {
		how = "build it in the package directory with `" + s.NVCC + "`"
	}
	return nil, fmt.Errorf("%w: fatbin/%s was not built when the package was compiled (%s, then rebuild; or pass WithFatbin(path))",
		ErrNoFatbin, s.FatbinName, how)
}

// Backend returns GPU or CPU.
func (s *Solver) Backend() Backend { return s.backend }

// FallbackReason returns why the solver runs on the CPU although the GPU
// was not ruled out by WithCPU; nil on the GPU or with WithCPU.
func (s *Solver) FallbackReason() error { return s.reason }

// Executor returns the executor underneath (a *cpu.Executor or the GPU one).
func (s *Solver) Executor() backend.Executor { return s.exec }

// Plan returns the staged plan.
func (s *Solver) Plan() *stager.Plan { return s.exec.Plan() }

// Layout returns the layout of one series.
func (s *Solver) Layout() backend.Layout { return s.spec.Layout() }

// NumVars and NumPolys return the sizes of the system.
func (s *Solver) NumVars() int  { return s.exec.Plan().NumVars }
func (s *Solver) NumPolys() int { return s.exec.Plan().NumPolys }

// SetInput sets the series of input variable v (Layout().SlotLen() doubles).
func (s *Solver) SetInput(v int, series []float64) { s.exec.SetInput(v, series) }

// SetInputs sets every input series.
func (s *Solver) SetInputs(in [][]float64) error {
	if len(in) != s.NumVars() {
		return fmt.Errorf("%s: %d input series for %d variables", s.spec.Name, len(in), s.NumVars())
	}
	n := s.Layout().SlotLen()
	for v, x := range in {
		if len(x) != n {
			return fmt.Errorf("%s: input series %d has %d doubles, want %d", s.spec.Name, v, len(x), n)
		}
		s.exec.SetInput(v, x)
	}
	return nil
}

// Run evaluates the system and its Jacobian at the inputs.
func (s *Solver) Run() error { return s.exec.Run() }

// Value returns the series of polynomial p after Run (owned by the solver,
// valid until the next Run).
func (s *Solver) Value(p int) []float64 { return s.exec.Value(p) }

// Deriv returns the series of ∂p/∂z[v] after Run.
func (s *Solver) Deriv(p, v int) []float64 { return s.exec.Deriv(p, v) }

// Checksum hashes the bits of every output of the last Run
// (backend.Checksum): equal on every back end.
func (s *Solver) Checksum() string { return backend.Checksum(s.exec, s.NumPolys(), s.NumVars()) }

// Close releases the executor (and the CUDA device) and what Solve made.
func (s *Solver) Close() error { return errors.Join(s.closeNewton(), s.exec.Close()) }
