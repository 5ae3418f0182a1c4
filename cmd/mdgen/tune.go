package main

// mdgen tune: searches the launch shapes of the evaluation kernels on the
// GPU at hand and writes a tuning profile (package runtime/tune).

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"

	"fmt"
	"io"
	"math"
	"os"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mdgen/mdgen/internal/atomicfile"
	"github.com/mdgen/mdgen/internal/stats"

	"github.com/mdgen/mdgen/gen"
	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/gen/nvcc"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/cpu"
	"github.com/mdgen/mdgen/runtime/gpu"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
	"github.com/mdgen/mdgen/runtime/gpu/kernels"
	"github.com/mdgen/mdgen/runtime/tune"
	"github.com/mdgen/mdgen/stager"
	"github.com/mdgen/mdgen/stager/families"
	"github.com/mdgen/mdgen/stager/poly"
)

const tuneUsage = `usage: mdgen tune [flags]

Searches the launch shape of the convolution kernel (threads per block and
the shared-memory staging sets, which also turn the split schedule of
complex data at N >= 5 on or off) on the GPU at hand for every system,
precision, degree and kind of data asked for, and writes the fastest shapes
to a tuning profile that mdgen emit, solve and bench then use.

Per case it times the fitted model's shape (gpuabi.LaunchShape) and its
neighbours: every staging choice that fits the GPU's shared memory at the
model's block, then every block size (multiples of 32 up to the kernel's
bound) at the best staging, then the staging again at the best block.
Times are the kernel times of CUDA events, the median of -repeat runs (more
for fast cases) after a warm-up; a candidate whose warm-up is 1.5 times the
best so far is not repeated. Every candidate's outputs must be bit-identical
to the model's on the same inputs, and the model's to the CPU executor's
(run once per case, on fresh random inputs, while the GPU times the next
cases). A shape replaces the model only when it is at least 1% faster.

The profile (default: os.UserConfigDir()/mdgen/tune.json, that is
$XDG_CONFIG_HOME/mdgen/tune.json or ~/.config/mdgen/tune.json on Linux) is
keyed by the GPU's name and compute capability, the precision, real or
complex data, the degree band of 32 and the jobs-per-layer class (narrow,
medium, wide; see runtime/tune); entries of other keys already in the file
are kept. It prints per case the model's shape and time, the best shape,
its time and the gain.

`

// tuneConfig is mdgen tune's flags.
type tuneConfig struct {
	systems      []string
	precs        []int
	degrees      []int
	complexes    []bool
	profile      string
	repeat       int
	kernels      string
	nvcc         string
	arch         string
	checkWorkers int
	deadline     time.Duration
	seed         uint64
	minGain      float64

	newton       bool              // -newton: the Newton back end's linear algebra
	newtonCases  []*newtonTuneCase // -newton-cases
	newtonDegree int
	newtonCheckN int
	newtonSteps  int
}

func parseTuneFlags(args []string, stdout, stderr io.Writer) (*tuneConfig, error) {
	fs := newFlagSet("tune", tuneUsage+tuneNewtonUsage, stderr)
	systems := fs.String("systems", "p1,p2,p3", "benchmark systems")
	sweep := addSweepFlags(fs, "4,8,10", "63,152,191", "truncation degrees", "both")
	profile := fs.String("profile", "", "the tuning profile to write (and to add to when it exists); default os.UserConfigDir()/mdgen/tune.json")
	repeat := fs.Int("repeat", 3, "timed runs per candidate after a warm-up, at least (fast cases get more, up to 20)")
	kernelDir, nvccPath := kernelFlags(fs, "")
	arch := fs.String("arch", "auto", "GPU architecture to compile for, e.g. sm_90 (auto: the GPU's)")
	checkWorkersN := fs.Int("check-workers", max(1, goruntime.NumCPU()-2), "CPU workers of the checks")
	deadline := fs.Duration("deadline", 0, "start no case after this long, wait for the CPU checks no longer, and write what is done (0: no limit), e.g. 9m under a 10-minute limit")
	seed := fs.Uint64("seed", 0, "seed of the random inputs (0: from the clock)")
	minGain := fs.Float64("min-gain", 1, "percent a shape must gain over the model's to replace it")
	newtonFlag := fs.Bool("newton", false, "tune the Newton back end's linear-algebra kernels (see above) instead of the evaluation")
	newtonCases := fs.String("newton-cases", "2r256,2c256,4r256,4c256,8r256,8c256,8r1024", "with -newton: the cases, PREC r|c N (8r1024: 8 doubles, real, n = 1024)")
	newtonDegree := fs.Int("newton-degree", 64, "with -newton: the degree of the series")
	newtonCheckN := fs.Int("newton-check-n", 64, "with -newton: the size n at which the GPU's solves are compared with the CPU Newton's")
	newtonSteps := fs.Int("newton-steps", 0, "with -newton: the most Newton steps of a solve (0: runtime/newton's default)")
	if err := parseFlags(fs, args, stdout); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, usagef("tune: unexpected arguments %q", fs.Args())
	}
	c := &tuneConfig{profile: *profile, repeat: *repeat, kernels: *kernelDir, nvcc: *nvccPath, arch: *arch,
		checkWorkers: *checkWorkersN, deadline: *deadline, seed: *seed, minGain: *minGain,
		newton: *newtonFlag, newtonDegree: *newtonDegree, newtonCheckN: *newtonCheckN, newtonSteps: *newtonSteps}
	if c.newton {
		var err error
		if c.newtonCases, err = parseNewtonCases(*newtonCases); err != nil {
			return nil, usageError{err}
		}
		if *newtonDegree < 1 {
			return nil, usagef("tune: -newton-degree %d: want >= 1", *newtonDegree)
		}
		if *newtonCheckN < 1 {
			return nil, usagef("tune: -newton-check-n %d: want >= 1", *newtonCheckN)
		}
		if *newtonSteps < 0 {
			return nil, usagef("tune: -newton-steps %d: want >= 0", *newtonSteps)
		}
	}
	for _, err := range []error{checkRepeat("-repeat", *repeat), checkWorkers("-check-workers", *checkWorkersN)} {
		if err != nil {
			return nil, err
		}
	}
	if *minGain < 0 || *minGain >= 100 || math.IsNaN(*minGain) {
		return nil, usagef("tune: -min-gain %g: want 0 <= percent < 100", *minGain)
	}
	if *deadline < 0 {
		return nil, usagef("tune: -deadline %v: want a duration >= 0", *deadline)
	}
	for _, s := range strings.Split(*systems, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if !families.IsBenchmarkName(s) {
			return nil, usagef("tune: unknown system %q (want p1, p2, p3)", s)
		}
		if !slices.Contains(c.systems, s) {
			c.systems = append(c.systems, s)
		}
	}
	if len(c.systems) == 0 {
		return nil, usagef("tune: no systems given")
	}
	var err error
	if c.precs, c.degrees, c.complexes, err = sweep.parse("tune"); err != nil {
		return nil, usageError{err}
	}
	for _, n := range c.precs {
		if err := checkPrec("-prec", mdops.Prec{N: n}); err != nil {
			return nil, err
		}
	}
	if c.profile == "" {
		if c.profile, err = tune.DefaultPath(); err != nil {
			return nil, fmt.Errorf("tune: no default profile location (%v): name one with -profile", err)
		}
	}
	if err := atomicfile.Resolve(c.profile); err != nil { // the profile is read and added to: it may be an input
		return nil, usagef("tune: -profile: %w", err)
	}
	if c.seed == 0 {
		c.seed = uint64(time.Now().UnixNano()) | 1
	}
	return c, nil
}

// tuneCase is one case of mdgen tune and what it found.
type tuneCase struct {
	system  string
	n, d    int
	complex bool
	plan    *stager.Plan
	seed    uint64

	model, best     tune.Shape
	modelMs, bestMs float64
	tried           int
	sum             [32]byte // the model's outputs (SHA-256 of their bits)
	skipped         string   // why it has no result
	differs         []string // candidates whose outputs differ from the model's
	check           string   // "cpu", "model" (unfinished), "DIFFERS", "error: ..."
}

func (c *tuneCase) name() string {
	return fmt.Sprintf("%s %dd %s d=%d", c.system, c.n, tune.DataName(c.complex), c.d)
}

// tuner is one run of mdgen tune.
type tuner struct {
	cfg     *tuneConfig
	log     io.Writer
	dev     *cudadev.Device
	info    cudadev.Info
	kernels map[int]*gpu.Kernels
	start   time.Time

	mu      sync.Mutex
	pending []*tuneCase // cases waiting for the CPU check
	more    *sync.Cond  // signalled when a case is queued or the last one is
	closed  bool        // no more cases come
	wg      sync.WaitGroup
}

func (t *tuner) pastDeadline() bool {
	return t.cfg.deadline > 0 && time.Since(t.start) > t.cfg.deadline
}

func (t *tuner) logf(format string, a ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(t.log, format+"\n", a...)
}

func runTune(args []string, stdout, stderr io.Writer) error {
	cfg, err := parseTuneFlags(args, stdout, stderr)
	if err != nil {
		return err
	}
	if !gpu.Enabled {
		return errors.New("tune: no GPU: this mdgen was built without CUDA support (build tag cuda: `make gpu` builds .gpu/mdgen); mdgen tune times the kernels on the GPU it runs on")
	}
	dev, err := cudadev.Open(0)
	if err != nil {
		return fmt.Errorf("tune: no GPU: %w", err)
	}
	defer dev.Close()
	t := &tuner{cfg: cfg, log: stderr, dev: dev, info: dev.Info(), kernels: map[int]*gpu.Kernels{}, start: time.Now()}
	t.logf("mdgen tune: %s, seed %d, device %s", time.Now().UTC().Format(time.RFC3339), cfg.seed, t.info)
	old, err := tune.Read(cfg.profile)
	switch {
	case errors.Is(err, os.ErrNotExist):
		old = tune.New()
	case err != nil:
		t.logf("mdgen: warning: %v; writing a new profile in its place", err)
		old = tune.New()
	default:
		t.logf("tune: adding to %s (%d entries)", cfg.profile, old.Entries())
	}
	if cfg.newton {
		return t.runNewton(old, stdout)
	}
	if err := t.buildKernels(); err != nil {
		return err
	}
	cases, err := t.run()
	if err != nil {
		return err
	}
	return t.finish(cases, old, stdout)
}

// builder returns the kernel builder of -kernels, -nvcc and -arch ("auto":
// the device's).
func (t *tuner) builder() (*kernels.Builder, error) {
	b, err := kernels.New(t.dev, t.cfg.nvcc, t.cfg.kernels)
	if err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	if t.cfg.arch != "auto" {
		if b.Archs, err = nvcc.ParseArchs(t.cfg.arch); err != nil {
			return nil, fmt.Errorf("tune: -arch: %w", err)
		}
	}
	return b, nil
}

func (t *tuner) buildKernels() error {
	b, err := t.builder()
	if err != nil {
		return err
	}
	t0 := time.Now()
	ks, _, err := b.Eval(gen.EvalCUSource, t.cfg.precs, t.cfg.complexes...)
	if err != nil {
		return fmt.Errorf("tune: %w", err)
	}
	for i, n := range t.cfg.precs {
		t.kernels[n] = ks[i]
	}
	t.logf("tune: kernels for %v doubles built in %.1f s (cache %s)", t.cfg.precs, time.Since(t0).Seconds(), t.cfg.kernels)
	return nil
}

// run tunes every case; the CPU checks run beside, on cfg.checkWorkers.
func (t *tuner) run() ([]*tuneCase, error) {
	cfg := t.cfg
	var cases []*tuneCase
	for _, name := range cfg.systems {
		for _, complex := range cfg.complexes {
			for _, d := range cfg.degrees {
				for _, n := range cfg.precs {
					cases = append(cases, &tuneCase{system: name, n: n, d: d, complex: complex})
				}
			}
		}
	}
	t.more = sync.NewCond(&t.mu)
	t.wg.Add(1)
	go t.checker()
	plans := map[string]*stager.Plan{}
	for i, c := range cases {
		c.seed = caseSeedTune(cfg.seed, c)
		if t.pastDeadline() {
			c.skipped = fmt.Sprintf("not run: past the -deadline of %s", cfg.deadline)
			t.logf("[%d/%d %s] %s: %s", i+1, len(cases), time.Since(t.start).Round(time.Second), c.name(), c.skipped)
			continue
		}
		key := fmt.Sprintf("%s/%v/%d", c.system, c.complex, c.d)
		plan := plans[key]
		if plan == nil {
			sys, err := benchSystem(c.system, c.complex)
			if err != nil {
				return nil, err
			}
			if plan, err = stager.Stage(sys, c.d); err != nil {
				return nil, fmt.Errorf("tune: staging %s at degree %d: %w", c.system, c.d, err)
			}
			plans[key] = plan
		}
		c.plan = plan
		t.tuneCase(c)
		head := fmt.Sprintf("[%d/%d %s] %s:", i+1, len(cases), time.Since(t.start).Round(time.Second), c.name())
		if c.skipped != "" {
			t.logf("%s %s", head, c.skipped)
			continue
		}
		t.logf("%s model %v %.3f ms, best %v %.3f ms (%+.1f%%), %d shapes", head, c.model, c.modelMs, c.best, c.bestMs, gainPct(c), c.tried)
		t.queue(c)
	}
	t.mu.Lock()
	t.closed = true
	t.more.Broadcast()
	t.mu.Unlock()
	done := make(chan struct{})
	go func() { t.wg.Wait(); close(done) }()
	t.waitChecks(done)
	return cases, nil
}

// waitChecks waits until done is closed (the CPU checks are over) or the
// -deadline has passed, whichever comes first.
func (t *tuner) waitChecks(done <-chan struct{}) {
	var timeout <-chan time.Time
	if t.cfg.deadline > 0 {
		timeout = time.After(max(t.cfg.deadline-time.Since(t.start), 0))
	}
	t.logf("tune: waiting for the CPU checks...")
	select {
	case <-done:
	case <-timeout:
		t.logf("tune: the -deadline of %s has passed; the unfinished CPU checks are reported as such", t.cfg.deadline)
	}
}

func benchSystem(name string, complex bool) (*poly.System, error) {
	if complex {
		return families.BenchmarkSystemComplex(name, 1)
	}
	return families.BenchmarkSystem(name, 1)
}

func caseSeedTune(base uint64, c *tuneCase) uint64 {
	h := base ^ 0x9e3779b97f4a7c15
	for _, b := range []byte(c.name()) {
		h = (h ^ uint64(b)) * 0x100000001b3
	}
	return max(h, 1)
}

// gainPct is the time the best shape saves against the model, in percent.
func gainPct(c *tuneCase) float64 { return 100 * (c.modelMs - c.bestMs) / c.modelMs }

// queue queues case c for the CPU check.
func (t *tuner) queue(c *tuneCase) {
	t.mu.Lock()
	t.pending = append(t.pending, c)
	t.more.Broadcast()
	t.mu.Unlock()
}

// next returns the queued case of the fewest operations (so that the
// most cases are checked before a deadline), or nil when none will come.
func (t *tuner) next() *tuneCase {
	t.mu.Lock()
	defer t.mu.Unlock()
	for len(t.pending) == 0 && !t.closed {
		t.more.Wait()
	}
	if len(t.pending) == 0 {
		return nil
	}
	ops := func(c *tuneCase) float64 {
		return backend.CountOps(c.plan, mdops.Prec{N: c.n, Complex: c.complex}).DoubleOps
	}
	i := 0
	for j := range t.pending {
		if ops(t.pending[j]) < ops(t.pending[i]) {
			i = j
		}
	}
	c := t.pending[i]
	t.pending = slices.Delete(t.pending, i, i+1)
	return c
}

// checker compares the model's outputs of each case with the CPU
// executor's on the same inputs, the cheapest case first.
func (t *tuner) checker() {
	defer t.wg.Done()
	for c := t.next(); c != nil; c = t.next() {
		if t.pastDeadline() {
			continue
		}
		t0 := time.Now()
		e, err := cpu.New(c.plan, mdops.Prec{N: c.n, Complex: c.complex}, t.cfg.checkWorkers)
		var verdict string
		if err == nil {
			l := backend.Layout{Prec: mdops.Prec{N: c.n, Complex: c.complex}, Degree: c.d}
			for v, in := range backend.RandomInputs(c.plan.NumVars, l, c.seed) {
				e.SetInput(v, in)
			}
			err = e.Run()
		}
		switch {
		case err != nil:
			verdict = "error: " + err.Error()
		case outputsSum(e, c.plan) == c.sum:
			verdict = "cpu"
		default:
			verdict = "DIFFERS"
		}
		t.mu.Lock()
		c.check = verdict
		t.mu.Unlock()
		say := verdict
		if verdict == "cpu" {
			say = "identical to the CPU"
		}
		t.logf("check: %s: %s (CPU %.1f s)", c.name(), say, time.Since(t0).Seconds())
	}
}

// outputsSum is the SHA-256 of the bits of every output (values, then
// the Jacobian row by row).
func outputsSum(o backend.Outputs, plan *stager.Plan) [32]byte {
	h := sha256.New()
	var b [8]byte
	put := func(s []float64) {
		for _, x := range s {
			binary.LittleEndian.PutUint64(b[:], math.Float64bits(x))
			h.Write(b[:])
		}
	}
	for p := 0; p < plan.NumPolys; p++ {
		put(o.Value(p))
	}
	for p := 0; p < plan.NumPolys; p++ {
		for v := 0; v < plan.NumVars; v++ {
			put(o.Deriv(p, v))
		}
	}
	var s [32]byte
	copy(s[:], h.Sum(nil))
	return s
}

// fixedShape launches the convolution kernel with s and the addition
// kernel with the model's shape.
func fixedShape(s tune.Shape) gpuabi.ShapeFunc {
	return func(kind gpuabi.Kind, n int, complex bool, degree int) (int, int) {
		if kind == gpuabi.Conv {
			return s.Block, s.Sets * gpuabi.SetBytes(n, degree)
		}
		return gpuabi.LaunchShape(kind, n, complex, degree)
	}
}

// measure times shape s on case c: the median kernel ms, and the SHA-256
// of the outputs. With screen > 0 a warm-up slower than screen ms is not
// repeated (its time is returned).
func (t *tuner) measure(c *tuneCase, s tune.Shape, inputs [][]float64, screen float64) (ms float64, sum [32]byte, err error) {
	g, err := gpu.NewFromKernels(c.plan, c.complex, t.kernels[c.n], gpu.Options{Shape: fixedShape(s)})
	if err != nil {
		return 0, sum, err
	}
	defer g.Close()
	for v, in := range inputs {
		g.SetInput(v, in)
	}
	warm, _, err := g.RunTimed() // uploads the inputs
	if err != nil {
		return 0, sum, err
	}
	if err := g.Download(); err != nil {
		return 0, sum, err
	}
	sum = outputsSum(g, c.plan)
	if screen > 0 && warm > screen {
		return warm, sum, nil
	}
	// At least -repeat runs, and about 100 ms of them for fast cases.
	reps := min(max(t.cfg.repeat, int(100/max(warm, 1e-3))), 20)
	ks := make([]float64, reps)
	for i := range ks {
		if ks[i], _, err = g.RunTimed(); err != nil {
			return 0, sum, err
		}
	}
	return stats.Median(ks), sum, nil
}

// tuneCase searches the shapes of one case.
func (t *tuner) tuneCase(c *tuneCase) {
	n, complex, d := c.n, c.complex, c.d
	mem := gpuabi.Memory(c.plan, mdops.Prec{N: n, Complex: complex}).Total()
	if free, err := t.dev.FreeMemory(); err == nil && mem > free-(512<<20) {
		c.skipped = fmt.Sprintf("skipped: needs %s of device memory, %s free", stager.FormatBytes(mem), stager.FormatBytes(free))
		return
	}
	inputs := backend.RandomInputs(c.plan.NumVars, backend.Layout{Prec: mdops.Prec{N: n, Complex: complex}, Degree: d}, c.seed)
	first := true
	f, err := tune.Search(n, complex, d, t.info.MaxSharedPerBlockOptin, t.cfg.minGain, func(s tune.Shape, screen float64) (float64, bool, error) {
		ms, sum, err := t.measure(c, s, inputs, screen)
		if err != nil {
			return 0, false, err
		}
		if first { // the model's: the reference of the others and of the CPU check
			c.sum, first = sum, false
		}
		return ms, sum == c.sum, nil
	})
	if err != nil {
		c.skipped = "error: " + err.Error()
		return
	}
	for i, s := range f.Failed {
		t.logf("  %s: %v: %v", c.name(), s, f.Errs[i])
	}
	for _, s := range f.Differs {
		c.differs = append(c.differs, s.String())
		t.logf("  %s: %v: OUTPUTS DIFFER from the model shape's", c.name(), s)
	}
	c.model, c.best, c.modelMs, c.bestMs, c.tried = f.Model, f.Best, f.ModelMs, f.BestMs, f.Tried
}

// finish writes the profile and prints the table.
func (t *tuner) finish(cases []*tuneCase, p *tune.Profile, stdout io.Writer) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	dev := tune.DeviceOf(t.info)
	stamp := time.Now().UTC().Format(time.RFC3339)
	var bad []string
	written := 0
	fmt.Fprintf(stdout, "mdgen tune on %s: kernel ms (CUDA events, median) of the fitted model's shape and of the best shape found\n", t.info)
	fmt.Fprintf(stdout, "shape: threads per block / shared-memory sets (s: the split schedule); check: the outputs of every shape timed against the CPU executor's\n\n")
	fmt.Fprintf(stdout, "%-3s %-4s %-7s %4s  %-7s  %-12s %9s  %-12s %9s  %6s  %5s  %s\n", "sys", "prec", "data", "deg", "jobs", "model", "ms", "best", "ms", "gain", "tried", "check")
	shape := func(s tune.Shape) string {
		sp := ""
		if s.Split {
			sp = " s"
		}
		return fmt.Sprintf("%d/%d%s", s.Block, s.Sets, sp)
	}
	for _, c := range cases {
		if c.skipped != "" {
			fmt.Fprintf(stdout, "%-3s %-4s %-7s %4d  %s\n", c.system, fmt.Sprintf("%dd", c.n), tune.DataName(c.complex), c.d, c.skipped)
			continue
		}
		check := c.check
		switch {
		case len(c.differs) > 0:
			check = "DIFFERS (" + strings.Join(c.differs, "; ") + ")"
		case check == "":
			check = "model (CPU check unfinished)"
			c.check = "model"
		}
		key := tune.PlanKey(c.plan, mdops.Prec{N: c.n, Complex: c.complex})
		fmt.Fprintf(stdout, "%-3s %-4s %-7s %4d  %-7s  %-12s %9.3f  %-12s %9.3f  %+5.1f%%  %5d  %s\n", c.system, fmt.Sprintf("%dd", c.n),
			tune.DataName(c.complex), c.d, key.Jobs, shape(c.model), c.modelMs, shape(c.best), c.bestMs, gainPct(c), c.tried, check)
		if len(c.differs) > 0 || (c.check != "cpu" && c.check != "model") {
			bad = append(bad, c.name())
			continue
		}
		p.Put(dev, t.info.MaxSharedPerBlockOptin, stamp, tune.Entry{Prec: c.n, Data: tune.DataName(c.complex),
			Degrees: key.Degrees, Jobs: key.Jobs, Shape: c.best, Model: c.model, System: c.system, Degree: c.d,
			Ms: round3(c.bestMs), ModelMs: round3(c.modelMs), Tried: c.tried, Check: c.check})
		written++
	}
	return writeProfile(p, t.cfg.profile, "entries", written, bad, stdout)
}

// writeProfile ends a tune run: it writes p to path when the run gave
// entries (written of them, what they are) and says so, then reports the
// cases it left out (bad) or that nothing finished.
func writeProfile(p *tune.Profile, path, what string, written int, bad []string, stdout io.Writer) error {
	if written > 0 {
		if err := p.Write(path); err != nil {
			return fmt.Errorf("tune: writing the profile: %w", err)
		}
		fmt.Fprintf(stdout, "\nwrote %s: %d %s of this run, %d entries in all\n", path, written, what, p.Entries())
	}
	if len(bad) > 0 {
		return fmt.Errorf("tune: %d cases not written: results that differ from the CPU's or the model's, or a failed check: %s", len(bad), strings.Join(bad, ", "))
	}
	if written == 0 {
		return errors.New("tune: no case finished; nothing written")
	}
	return nil
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }
