package tune

// The Newton entries of a profile: the launch shapes of the linear-algebra
// kernels of runtime/gpu's Newton back end (gpuabi.LAShape: the teams per
// block of qr, packrh, qh, backsub, mulsub and norm1), keyed like the
// evaluation entries by the GPU, the precision and the kind of data, and
// by the size class of the system (its unknowns n, NewtonSizeClass). A
// shape never changes the bits (gpuabi.LAShape); mdgen tune -newton still
// checks every candidate's series against the model's and the model's
// against the CPU Newton.

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/internal/stats"
	"github.com/mdgen/mdgen/mdops"
)

// The size classes of the Newton entries, by the unknowns n of the system:
// below 128 the launches hold a few blocks and their latency rules; from
// 2048 on a QR step fills the GPU many times over.
const (
	NewtonTiny   = "n<128"
	NewtonSmall  = "n<512"
	NewtonMedium = "n<2048"
	NewtonLarge  = "n>=2048"
)

// NewtonSizeClass returns the size class of a system of n unknowns.
func NewtonSizeClass(n int) string {
	switch {
	case n < 128:
		return NewtonTiny
	case n < 512:
		return NewtonSmall
	case n < 2048:
		return NewtonMedium
	}
	return NewtonLarge
}

func validNewtonSize(s string) bool {
	return s == NewtonTiny || s == NewtonSmall || s == NewtonMedium || s == NewtonLarge
}

// NewtonEntry is the tuned shape of the Newton back end's linear algebra
// for one key and what was measured.
type NewtonEntry struct {
	Prec   int            `json:"prec"`   // doubles per number
	Data   string         `json:"data"`   // "real" or "complex"
	Size   string         `json:"size"`   // NewtonSizeClass
	Shape  gpuabi.LAShape `json:"shape"`  // the tuned teams per block (0: the model's)
	Model  gpuabi.LAShape `json:"model"`  // gpuabi.LAModelShape when it was tuned
	N      int            `json:"n"`      // the unknowns of the system it was measured on
	Degree int            `json:"degree"` // the degree of the series
	// Ms is the time of the linear-algebra stages of one solve with Shape
	// (QR, Q^H b, back substitution, update, residual: CUDA events,
	// median), ModelMs with Model.
	Ms      float64 `json:"ms"`
	ModelMs float64 `json:"model_ms"`
	Tried   int     `json:"tried"` // shapes timed, the model included
	// Check says what the series of every candidate timed were compared
	// with, bit for bit: "cpu", the model's (and the one chosen) also
	// with the CPU Newton's at a small size; "model", the model shape's
	// solve only.
	Check string `json:"check"`
}

// NewtonKey is what a Newton entry applies to.
type NewtonKey struct {
	Prec    int
	Complex bool
	Size    string // NewtonSizeClass
}

func (k NewtonKey) String() string {
	return fmt.Sprintf("Newton %dd %s %s", k.Prec, dataName(k.Complex), k.Size)
}

// Key returns the entry's key.
func (e NewtonEntry) Key() NewtonKey {
	return NewtonKey{Prec: e.Prec, Complex: e.Data == "complex", Size: e.Size}
}

// validateNewton checks the Newton entries of g.
func (g *GPU) validateNewton() error {
	keys := map[NewtonKey]bool{}
	for i, e := range g.Newton {
		at := fmt.Sprintf("%s, Newton entry %d", g.Device, i+1)
		if err := checkPrecData(at, e.Prec, e.Data); err != nil {
			return err
		}
		if !validNewtonSize(e.Size) {
			return fmt.Errorf("%w: %s: size %q, want %s, %s, %s or %s", ErrCorrupt, at, e.Size, NewtonTiny, NewtonSmall, NewtonMedium, NewtonLarge)
		}
		k := e.Key()
		if keys[k] {
			return fmt.Errorf("%w: %s: %s listed twice", ErrCorrupt, at, k)
		}
		keys[k] = true
		if err := e.Shape.Check(); err != nil {
			return fmt.Errorf("%w: %s (%s): shape: %v", ErrCorrupt, at, k, err)
		}
		if err := e.Model.Check(); err != nil {
			return fmt.Errorf("%w: %s (%s): model: %v", ErrCorrupt, at, k, err)
		}
		if NewtonSizeClass(e.N) != e.Size || e.N < 1 {
			return fmt.Errorf("%w: %s (%s): measured at n = %d, outside its size class", ErrCorrupt, at, k, e.N)
		}
		if e.Degree < 0 {
			return fmt.Errorf("%w: %s (%s): degree %d", ErrCorrupt, at, k, e.Degree)
		}
	}
	return nil
}

func sortNewton(es []NewtonEntry) {
	order := map[string]int{NewtonTiny: 0, NewtonSmall: 1, NewtonMedium: 2, NewtonLarge: 3}
	slices.SortFunc(es, func(a, b NewtonEntry) int {
		if c := a.Prec - b.Prec; c != 0 {
			return c
		}
		if c := strings.Compare(a.Data, b.Data); c != 0 {
			return c
		}
		return order[a.Size] - order[b.Size]
	})
}

// PutNewton adds the Newton entry e of device d, replacing the entry of
// the same key (maxShared and tuned as for Put).
func (p *Profile) PutNewton(d Device, maxShared int, tuned string, e NewtonEntry) {
	putKeyed(&p.tunedGPU(d, maxShared, tuned).Newton, e)
}

// LookupNewton returns the Newton entry of key k, if any.
func (g *GPU) LookupNewton(k NewtonKey) (NewtonEntry, bool) {
	if g == nil {
		return NewtonEntry{}, false
	}
	return lookupKeyed(g.Newton, k)
}

// NewtonShape returns the shape of the Newton back end's linear algebra
// at precision p and a system of vars unknowns on this GPU: a copy of the
// entry's shape for the key, nil (the model's) without one or on a nil GPU.
func (g *GPU) NewtonShape(p mdops.Prec, vars int) *gpuabi.LAShape {
	e, ok := g.LookupNewton(NewtonKey{Prec: p.N, Complex: p.Complex, Size: NewtonSizeClass(vars)})
	if !ok || e.Shape.Check() != nil {
		return nil
	}
	s := e.Shape
	return &s
}

// NewtonEntries counts the Newton entries of the profile.
func (p *Profile) NewtonEntries() int {
	n := 0
	if p != nil {
		for _, g := range p.GPUs {
			n += len(g.Newton)
		}
	}
	return n
}

// NewtonMeasure times the Newton back end's linear algebra with shape s
// (every count filled in): the median ms of its stages per solve, and
// whether the solve's results are bit-identical to the model shape's (the
// first shape NewtonSearch measures, the reference of the others). With
// screen > 0 a shape whose first solve is slower than screen ms may be
// returned after that solve alone.
type NewtonMeasure func(s gpuabi.LAShape, screen float64) (ms float64, same bool, err error)

// NewtonFound is what NewtonSearch found for one case.
type NewtonFound struct {
	Model, Best     gpuabi.LAShape
	ModelMs, BestMs float64
	Tried           int              // shapes timed, the model included
	Differs         []gpuabi.LAShape // shapes whose results differ from the model's
	Failed          []gpuabi.LAShape // shapes whose solve failed (not counted in Tried)
	Errs            []error          // Failed's errors
}

// Gain is the time the best shape saves against the model's, in percent.
func (f NewtonFound) Gain() float64 { return 100 * (f.ModelMs - f.BestMs) / f.ModelMs }

// NewtonSearchOps is the order in which NewtonSearch tunes the kernels:
// the QR and the update (mulsub) first, most of the time, then the
// others. Not norm1: the Newton back end no longer launches it (its
// norms are leadnorm1's, one thread per vector), so a shape keeps the
// model's count for it.
var NewtonSearchOps = []gpuabi.LAOp{gpuabi.LAQRStep, gpuabi.LAMulSub, gpuabi.LAQH, gpuabi.LABackSub, gpuabi.LAPackRH}

// NewtonTeams lists the teams per block NewtonSearch tries for op: the
// powers of two up to gpuabi.LAMaxTeams(op), and the model's.
func NewtonTeams(op gpuabi.LAOp) []int {
	var ts []int
	for t := 1; t <= gpuabi.LAMaxTeams(op); t *= 2 {
		ts = append(ts, t)
	}
	if m := gpuabi.LAModelTeams(op); !slices.Contains(ts, m) {
		ts = append(ts, m)
		slices.Sort(ts)
	}
	return ts
}

// NewtonSearch finds the fastest shape of the Newton back end's linear
// algebra, one kernel at a time (coordinate descent): the model's shape
// (gpuabi.LAModelShape) first, then for each op of NewtonSearchOps every
// count of NewtonTeams(op) with the other ops at the best shape so far.
// When the fastest is not the model's, both are measured again,
// alternately (NewtonFound.confirm), and compared on the medians of all
// their measurements. As Search: a shape replaces the model only when it
// is at least minGain percent faster; shapes whose results differ from the model's are never
// chosen; failed solves are skipped; an error of the model's own
// measurement is returned.
func NewtonSearch(minGain float64, measure NewtonMeasure) (NewtonFound, error) {
	f := NewtonFound{Model: gpuabi.LAModelShape()}
	ms, _, err := measure(f.Model, 0)
	if err != nil {
		return f, err
	}
	f.ModelMs, f.Best, f.BestMs, f.Tried = ms, f.Model, ms, 1
	seen := map[gpuabi.LAShape]bool{f.Model: true}
	for _, op := range NewtonSearchOps {
		base := f.Best
		for _, t := range NewtonTeams(op) {
			s := base
			s.Set(op, t)
			if seen[s] || s.Check() != nil {
				continue
			}
			seen[s] = true
			ms, same, err := measure(s, 1.5*f.BestMs)
			switch {
			case err != nil:
				f.Failed, f.Errs = append(f.Failed, s), append(f.Errs, err)
				continue
			case !same:
				f.Differs = append(f.Differs, s)
			case ms < f.BestMs:
				f.Best, f.BestMs = s, ms
			}
			f.Tried++
		}
	}
	if f.Best != f.Model {
		f.confirm(measure)
	}
	if !(f.BestMs <= f.ModelMs*(1-minGain/100)) || math.IsNaN(f.BestMs) {
		f.Best, f.BestMs = f.Model, f.ModelMs
	}
	return f, nil
}

// NewtonConfirmRounds is the number of times NewtonSearch measures the
// model and the best shape again, alternately, before it compares them.
const NewtonConfirmRounds = 3

// confirm measures the model and the best shape again, alternately,
// NewtonConfirmRounds times each, and keeps the medians of all their
// measurements as ModelMs and BestMs. Why: the time of a solve's
// linear-algebra stages varies by several percent from solve to solve
// (the stages include the host's decisions between launches), so the
// fastest of some twenty candidates is usually one that was lucky (on
// the H200, 5 to 18% "gains" at n = 256 that mdgen bench -newton did not
// see); and the model, measured first, ran on a GPU that was still
// raising its clocks. A measurement that fails, or whose results differ,
// keeps the model.
func (f *NewtonFound) confirm(measure NewtonMeasure) {
	ms, bs := []float64{f.ModelMs}, []float64{f.BestMs}
	for range NewtonConfirmRounds {
		m, same, err := measure(f.Model, 0)
		if err != nil || !same {
			f.Best, f.BestMs = f.Model, f.ModelMs
			return
		}
		b, same, err := measure(f.Best, 0)
		if err != nil || !same {
			f.Best, f.BestMs = f.Model, f.ModelMs
			return
		}
		ms, bs = append(ms, m), append(bs, b)
	}
	f.ModelMs, f.BestMs = stats.Median(ms), stats.Median(bs)
}
