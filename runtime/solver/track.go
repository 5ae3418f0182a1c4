package solver

import (
	"errors"
	"fmt"
	"math"

	"github.com/mdgen/mdgen/runtime/newton"
	"github.com/mdgen/mdgen/runtime/track"
	"github.com/mdgen/mdgen/stager/poly"
)

// Path tracking for the emitted packages: Spec.Track runs runtime/track on
// the package's system and returns every path's endpoint. The homotopy is
// fixed when the package is emitted (Spec.Homotopy): the total-degree
// homotopy of a square system without a parameter, whose paths end at
// every isolated solution; a package of any other system has no Track (a
// system with a parameter is solved along its series by Solve; `mdgen
// track` follows its start solutions). The tracker stages its own plans
// (complex data, the degree of its Padé approximants, every precision it
// runs at): the package's executor and kernels, made for Newton at the
// emitted degree, play no part, so Track does not need a Solver. Its Newton
// solves run on the CPU's cores, or with WithTrackDevices on devices such
// as the GPUs of runtime/gpu/kernels.OpenTracker (kernels built at run time
// by nvcc, as `mdgen track -gpu` does), with the same bits.

// TrackOption configures one Track call.
type TrackOption func(*trackOptions)

type trackOptions struct {
	track.Options
	devices     TrackDevices // nil: the CPU
	batch       int          // with devices: paths at once on each (0: their default)
	precSet     bool
	gamma       complex128
	gammaSet    bool
	seed        uint64
	affine      bool
	first, last int64 // 1-based, inclusive; 0: every path
}

// WithTrackPrecision tracks at n doubles per number (a generated
// precision); n = 0 is the automatic rule of runtime/track: every path
// starts at 1 double and a path that fails resumes at the next precision
// of track.Ladder, up to WithMaxPrecision. The default is the package's
// precision.
func WithTrackPrecision(n int) TrackOption {
	return func(o *trackOptions) { o.Prec, o.precSet = n, true }
}

// WithMaxPrecision sets the last precision of the automatic rule (default
// 8 doubles).
func WithMaxPrecision(n int) TrackOption { return func(o *trackOptions) { o.MaxPrec = n } }

// WithPade sets the degrees of the numerators and denominators of the
// predictor's Padé approximants (default [2/1]).
func WithPade(l, m int) TrackOption { return func(o *trackOptions) { o.PadeL, o.PadeM = l, m } }

// WithGamma fixes the gamma of the total-degree homotopy gamma (1 - t) g(x)
// + t f(x), a complex number of modulus 1 (default: Gamma(seed)).
func WithGamma(g complex128) TrackOption {
	return func(o *trackOptions) { o.gamma, o.gammaSet = g, true }
}

// WithSeed seeds the random choices of the total-degree homotopy: gamma
// (unless WithGamma) and the projective charts, one per path (default 1).
func WithSeed(seed uint64) TrackOption {
	return func(o *trackOptions) { o.seed = seed }
}

// WithAffine tracks the total-degree homotopy in the affine unknowns
// instead of projective coordinates (the default, in which paths to
// infinity stay bounded and are reported as at infinity).
func WithAffine() TrackOption { return func(o *trackOptions) { o.affine = true } }

// WithPaths tracks the paths numbered first to last only (numbered from 1,
// inclusive, as `mdgen track -paths first:last`).
func WithPaths(first, last int64) TrackOption {
	return func(o *trackOptions) { o.first, o.last = first, last }
}

// TrackDevices are devices that a Track runs its paths' Newton solvers on
// instead of the CPU's cores: the GPUs of runtime/gpu/kernels.OpenTracker
// (a binary built with -tags cuda, and nvcc to build its kernels once), or
// any runtime/track.Device set up the same way. Every path keeps the CPU
// tracker's bits.
type TrackDevices interface {
	// Batch is the paths tracked at once on each device for a run of
	// paths paths: batch, or the devices' default when batch <= 0.
	Batch(paths int64, batch int) int
	// Prepare readies the devices for a run with opt (builds kernels), so
	// that the run does not wait for it.
	Prepare(opt track.Options) error
	// Use sets opt's Devices and Workers for batch paths at once on each
	// device and returns what closes what it made, after the run.
	Use(opt *track.Options, batch int) (closeAll func() error)
}

// WithTrackDevices tracks on devs, batch paths at once on each (0: their
// default), with every path's bits the CPU's. The caller closes devs after
// Track; a device that fails during the run has its paths tracked again
// on the others (TrackResult.Run.DeviceFailures).
func WithTrackDevices(devs TrackDevices, batch int) TrackOption {
	return func(o *trackOptions) { o.devices, o.batch = devs, batch }
}

// WithTrackWorkers sets the number of paths tracked at once (default: one
// per CPU); the results do not depend on it, bit for bit.
func WithTrackWorkers(k int) TrackOption { return func(o *trackOptions) { o.Workers = k } }

// WithTrackProgress calls f after every path with the numbers of paths done
// and failed
// (from the tracker's goroutines, never two at once).
func WithTrackProgress(f func(done, failed int64)) TrackOption {
	return func(o *trackOptions) { o.Progress = f }
}

// DefaultSeed is the seed of Track without WithSeed.
const DefaultSeed = 1

// Gamma returns the gamma of the total-degree homotopy that Track takes for
// seed (without WithGamma): exp(2 pi i u), u the first number of a PCG
// stream of seed.
func Gamma(seed uint64) complex128 {
	return track.DefaultGamma(seed)
}

// ErrNoTrack is wrapped by the error of Track in a package whose system
// has no homotopy to track (see Spec.Homotopy).
var ErrNoTrack = errors.New("no homotopy to track")

// TrackResult is the outcome of Track: the tracker's run (the homotopy
// with its gamma, the options as filled, every path, the summary by
// status, the time) and every path's endpoint as a Solution.
type TrackResult struct {
	*track.Run
	// Seed is the seed of the homotopy's random choices.
	Seed uint64
	// Vars are the unknowns, in the order of a solution's coordinates.
	Vars []string
	// Solutions has one entry per path tracked, in the order of the paths
	// (Run.Paths).
	Solutions []Solution
}

// Solution is one path's outcome (the embedded track.Path: Index, Status,
// Reason, Prec, X, Cond, Residual, Multiplicity, Real, Steps, ...) with its
// endpoint's coordinates in the forms of Result: Float (complex128), Coef
// (the limbs), Text (every digit), Rat (exact).
type Solution struct {
	track.Path
	Vars []string
}

// Number returns the path's number, from 1 (as `mdgen track` prints it).
func (s *Solution) Number() int64 { return s.Index + 1 }

// Finite reports whether the path ended at a finite point: a regular or
// singular solution (a failed path may hold its last point in X too).
func (s *Solution) Finite() bool {
	return s.X != nil && (s.Status == track.Regular || s.Status == track.Singular)
}

// point views the endpoint as a Newton result of degree 0, whose Coef,
// Text and Rat are those of every Result.
func (s *Solution) point() *newton.Result {
	return &newton.Result{N: s.Prec, Complex: true, Vars: s.Vars, X: s.X}
}

// Coef returns the limbs of coordinate v of the endpoint: 2 Prec doubles,
// Prec real limbs then Prec imaginary ones; nil without an endpoint (a path
// at infinity).
func (s *Solution) Coef(v int) []float64 {
	if s.X == nil {
		return nil
	}
	return s.point().Coef(v, 0)
}

// Float returns coordinate v rounded to complex128 (the leading limbs);
// NaN without an endpoint.
func (s *Solution) Float(v int) complex128 {
	if s.X == nil {
		return complex(math.NaN(), math.NaN())
	}
	c := s.Coef(v)
	return complex(c[0], c[s.Prec])
}

// Point returns every coordinate rounded to complex128, nil without an
// endpoint.
func (s *Solution) Point() []complex128 {
	if s.X == nil {
		return nil
	}
	out := make([]complex128, len(s.Vars))
	for v := range out {
		out[v] = s.Float(v)
	}
	return out
}

// Text returns coordinate v as decimal strings with every digit of the
// precision the path ended at (as Result.Text); "" without an endpoint.
func (s *Solution) Text(v int) (re, im string) {
	if s.X == nil {
		return "", ""
	}
	return s.point().Text(v, 0)
}

// Rat returns the exact value of coordinate v (zero without an endpoint).
func (s *Solution) Rat(v int) poly.Rational {
	if s.X == nil {
		return poly.Rational{}
	}
	return s.point().Rat(v, 0)
}

// Track follows every path of the package's homotopy (Homotopy) from t = 0
// to t = 1 with runtime/track and returns every endpoint with its status
// (regular, singular, at infinity, failed), multiplicity, condition number
// and residual: with the total-degree homotopy, every isolated solution of
// the system (with Options.Prec 0, the automatic rule, each at the
// precision its path ended at). The error is for bad options, a package without a homotopy
// (wraps ErrNoTrack) or a failure to set up the tracker; a path that fails
// is a Solution with Status track.Failed (and its Reason).
func (s *Spec) Track(opts ...TrackOption) (res *TrackResult, err error) {
	o := trackOptions{seed: DefaultSeed}
	for _, f := range opts {
		f(&o)
	}
	if !o.precSet {
		o.Prec = s.Prec.N
	}
	h, err := s.homotopy(&o)
	if err != nil {
		return nil, err
	}
	first, count := int64(0), int64(0)
	if o.first != 0 || o.last != 0 {
		if o.first < 1 || o.last < o.first || o.last > h.Paths() {
			return nil, fmt.Errorf("%s: paths %d to %d: the homotopy has paths 1 to %d", s.Name, o.first, o.last, h.Paths())
		}
		first, count = o.first-1, o.last-o.first+1
	}
	if o.devices != nil {
		paths := count
		if paths == 0 {
			paths = h.Paths()
		}
		if err := o.devices.Prepare(o.Options); err != nil {
			return nil, fmt.Errorf("%s: the devices: %w", s.Name, err)
		}
		closeAll := o.devices.Use(&o.Options, o.devices.Batch(paths, o.batch))
		defer func() {
			if cerr := closeAll(); cerr != nil && err == nil {
				res, err = nil, fmt.Errorf("%s: closing the devices' executors: %w", s.Name, cerr)
			}
		}()
	}
	run, err := track.Track(h, o.Options, first, count)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name, err)
	}
	res = &TrackResult{Run: run, Seed: o.seed, Vars: h.Target.Vars, Solutions: make([]Solution, len(run.Paths))}
	for k := range run.Paths {
		res.Solutions[k] = Solution{Path: run.Paths[k], Vars: res.Vars}
	}
	return res, nil
}

// homotopy makes the package's homotopy with the options.
func (s *Spec) homotopy(o *trackOptions) (*track.Homotopy, error) {
	sys, err := s.System()
	if err != nil {
		return nil, fmt.Errorf("%s: rebuilding the system: %w", s.Name, err)
	}
	switch s.Homotopy {
	case track.TotalDegree:
		gamma := Gamma(o.seed)
		if o.gammaSet {
			gamma = o.gamma
		}
		h, err := track.NewTotalDegree(sys, gamma, !o.affine, o.seed)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Name, err)
		}
		return h, nil
	case "":
		return nil, fmt.Errorf("%s: %w: the package tracks a square system without a parameter (the total-degree homotopy)", s.Name, ErrNoTrack)
	}
	return nil, fmt.Errorf("%s: unknown homotopy %q (this mdgen knows %s): regenerate the package", s.Name, s.Homotopy, track.TotalDegree)
}

// DiffTrack returns nil when two tracker runs hold the same bits (every
// path's status, precision, endpoint, t, condition number, residual,
// multiplicity, realness and step counts, and the summary), else the first
// difference: how an emitted package's tests check Track against
// runtime/track run directly. Times are not compared.
func DiffTrack(got, want *track.Run) error {
	if len(got.Paths) != len(want.Paths) {
		return fmt.Errorf("%d paths, want %d", len(got.Paths), len(want.Paths))
	}
	bits := math.Float64bits
	for k := range want.Paths {
		g, w := &got.Paths[k], &want.Paths[k]
		diff := ""
		switch {
		case g.Index != w.Index:
			diff = fmt.Sprintf("index %d, want %d", g.Index, w.Index)
		case g.Status != w.Status || g.Reason != w.Reason:
			diff = fmt.Sprintf("status %s (%s), want %s (%s)", g.Status, g.Reason, w.Status, w.Reason)
		case g.Prec != w.Prec || len(g.X) != len(w.X):
			diff = fmt.Sprintf("%d doubles, %d in X; want %d, %d", g.Prec, len(g.X), w.Prec, len(w.X))
		case bits(g.T) != bits(w.T) || bits(g.Cond) != bits(w.Cond) || bits(g.Residual) != bits(w.Residual):
			diff = fmt.Sprintf("t %v, condition %v, residual %v; want %v, %v, %v", g.T, g.Cond, g.Residual, w.T, w.Cond, w.Residual)
		case g.Multiplicity != w.Multiplicity || g.Real != w.Real:
			diff = fmt.Sprintf("multiplicity %d, real %v; want %d, %v", g.Multiplicity, g.Real, w.Multiplicity, w.Real)
		case g.Steps != w.Steps || g.Rejected != w.Rejected:
			diff = fmt.Sprintf("%d steps (%d rejected), want %d (%d)", g.Steps, g.Rejected, w.Steps, w.Rejected)
		}
		for i := range w.X {
			if diff == "" && bits(g.X[i]) != bits(w.X[i]) {
				diff = fmt.Sprintf("double %d of the endpoint: %v, want %v", i, g.X[i], w.X[i])
			}
		}
		if diff != "" {
			return fmt.Errorf("path %d: %s", w.Index+1, diff)
		}
	}
	if got.Summary != want.Summary {
		return fmt.Errorf("summary %+v, want %+v", got.Summary, want.Summary)
	}
	return nil
}
