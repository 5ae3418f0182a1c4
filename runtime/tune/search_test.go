package tune

import (
	"errors"
	"math"
	"testing"

	"github.com/mdgen/mdgen/gen/gpuabi"
)

// fake is a GPU for Search: a time per shape, and shapes whose outputs
// differ or whose launch fails.
type fake struct {
	t        *testing.T
	n        int
	complex  bool
	degree   int
	shared   int
	cost     func(Shape) float64
	differs  map[Shape]bool
	fails    map[Shape]bool
	measured []Shape
}

func (f *fake) measure(s Shape, screen float64) (float64, bool, error) {
	f.t.Helper()
	if len(f.measured) == 0 && (s != ModelShape(f.n, f.complex, f.degree) || screen != 0) {
		f.t.Fatalf("first shape %v (screen %g), want the model's %v unscreened", s, screen, ModelShape(f.n, f.complex, f.degree))
	}
	if err := s.Check(f.n, f.complex); err != nil || s.Sets*gpuabi.SetBytes(f.n, f.degree) > f.shared {
		f.t.Fatalf("measured a shape the kernel or the GPU cannot take: %v (%v)", s, err)
	}
	for _, m := range f.measured {
		if m == s {
			f.t.Fatalf("%v measured twice", s)
		}
	}
	f.measured = append(f.measured, s)
	if f.fails[s] {
		return 0, false, errors.New("launch failed")
	}
	return f.cost(s), !f.differs[s], nil
}

func TestSearch(t *testing.T) {
	const n, complex, d = 10, true, 191
	model := ModelShape(n, complex, d)
	bowl := func(block, sets int) func(Shape) float64 {
		return func(s Shape) float64 {
			return 100 + math.Abs(float64(s.Block-block)) + 10*math.Abs(float64(s.Sets-sets))
		}
	}
	for _, c := range []struct {
		name    string
		cost    func(Shape) float64
		minGain float64
		differs map[Shape]bool
		fails   map[Shape]bool
		want    Shape
	}{
		{"the model is fastest", bowl(model.Block, model.Sets), 1, nil, nil, model},
		{"another block and staging", bowl(224, 7), 1, nil, nil, MakeShape(n, complex, 224, 7)},
		{"another block, same staging", bowl(64, model.Sets), 0, nil, nil, MakeShape(n, complex, 64, model.Sets)},
		// 224/7 is 0.5% faster than the model: under -min-gain 1.
		{"a gain under min-gain", func(s Shape) float64 {
			if s == MakeShape(n, complex, 224, 7) {
				return 99.5
			}
			return 100 + float64(s.Block)/1000
		}, 1, nil, nil, model},
		// The fastest shape's outputs differ: never chosen (the block
		// sweep at 7 sets then finds 192 and 256 at 132 ms, the first
		// kept).
		{"the fastest differs", bowl(224, 7), 1, map[Shape]bool{MakeShape(n, complex, 224, 7): true}, nil, MakeShape(n, complex, 192, 7)},
		// 7 sets fail at the model's block: the block sweep runs at the
		// model's 4 sets, finds 224, and the staging sweep there finds 7.
		{"a failed launch", bowl(224, 7), 1, nil, map[Shape]bool{MakeShape(n, complex, model.Block, 7): true}, MakeShape(n, complex, 224, 7)},
	} {
		f := &fake{t: t, n: n, complex: complex, degree: d, shared: 232448, cost: c.cost, differs: c.differs, fails: c.fails}
		got, err := Search(n, complex, d, f.shared, c.minGain, f.measure)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got.Best != c.want || got.Model != model || got.BestMs > got.ModelMs {
			t.Errorf("%s: best %v %.2f ms (model %v %.2f ms), want %v", c.name, got.Best, got.BestMs, got.Model, got.ModelMs, c.want)
		}
		if got.Tried+len(got.Failed) != len(f.measured) || len(got.Differs) != len(c.differs) || len(got.Failed) != len(c.fails) {
			t.Errorf("%s: tried %d, failed %d, differs %d; measured %d", c.name, got.Tried, len(got.Failed), len(got.Differs), len(f.measured))
		}
		// Every block at the chosen staging was measured (when no launch failed).
		if len(c.fails) == 0 {
			for _, b := range Blocks(n, complex) {
				found := false
				for _, m := range f.measured {
					found = found || m.Block == b
				}
				if !found {
					t.Errorf("%s: block %d never measured", c.name, b)
				}
			}
		}
	}
	// The GPU's shared memory bounds the staging: in 48 KiB, 10d complex
	// at d = 191 can stage 1 set, not 4 (the model's).
	f := &fake{t: t, n: n, complex: complex, degree: d, shared: 48 << 10, cost: bowl(256, 0)}
	f.shared = max(f.shared, model.Sets*gpuabi.SetBytes(n, d)) // the model itself is always measured
	if _, err := Search(n, complex, d, 48<<10, 1, func(s Shape, screen float64) (float64, bool, error) {
		if s != model && s.Sets*gpuabi.SetBytes(n, d) > 48<<10 {
			t.Fatalf("measured %v beyond 48 KiB", s)
		}
		return f.measure(s, screen)
	}); err != nil {
		t.Fatal(err)
	}
	// An error of the model's own launch is Search's.
	if _, err := Search(n, complex, d, 232448, 1, func(Shape, float64) (float64, bool, error) { return 0, false, errors.New("no device") }); err == nil {
		t.Fatal("no error from a failed model launch")
	}
}
