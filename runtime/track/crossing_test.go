package track

import (
	"slices"
	"testing"
)

// TestCrossedPaths: two Regular paths at one point crossed (one jumped);
// two Singular paths at one point are a multiple root, left alone; so is
// a Regular path that reached a point alone, and a path at infinity.
// crossedPaths leaves every path as the tracker left it.
func TestCrossedPaths(t *testing.T) {
	at := func(k int, s Status, re, im float64) Path {
		p := Path{Index: int64(k), Status: s, Prec: 1, T: 1, Cond: 2, Err: 1e-20, Multiplicity: 1}
		if s != Infinite {
			p.X = []float64{re, im, 1, 0}
		}
		return p
	}
	run := &Run{Paths: []Path{
		at(0, Regular, 0.5, 0.25),
		at(1, Singular, -1, 0),
		at(2, Regular, 0.5, 0.25), // crossed path 0
		at(3, Singular, -1, 0),
		at(4, Regular, 3, -1),
		at(5, Infinite, 0, 0),
	}}
	before := slices.Clone(run.Paths)
	if ks := crossedPaths(run); !slices.Equal(ks, []int64{0, 2}) {
		t.Errorf("crossed paths %v, want [0 2]", ks)
	}
	for k := range run.Paths {
		p, q := run.Paths[k], before[k]
		if p.Status != q.Status || p.Multiplicity != 1 {
			t.Errorf("path %d: status %v multiplicity %d after crossedPaths, want %v and 1", k, p.Status, p.Multiplicity, q.Status)
		}
	}
	// Nothing crossed: nothing to track again.
	run.Paths[2] = at(2, Regular, 0.5, -0.25)
	if ks := crossedPaths(run); len(ks) != 0 {
		t.Errorf("crossed paths %v, want none", ks)
	}
	// Then run keeps the classification, which Track does not repeat.
	if s := run.Summary; s.Regular != 3 || s.Singular != 2 || s.Infinite != 1 || s.Distinct != 4 || run.Paths[1].Multiplicity != 2 {
		t.Errorf("summary %+v, multiplicity %d: want the classification", s, run.Paths[1].Multiplicity)
	}
}

// TestStricter: each round divides every bound of the step by 4.
func TestStricter(t *testing.T) {
	o, err := Options{}.Filled()
	if err != nil {
		t.Fatal(err)
	}
	for r := 1; r <= crossingRounds; r++ {
		s := o.stricter(r)
		f := 1 / float64(int(1)<<(2*r))
		if s.MaxStep != o.MaxStep*f || s.Beta1 != o.Beta1*f || s.Beta2 != o.Beta2*f || s.PredTol != o.PredTol*f {
			t.Errorf("round %d: %+v from %+v", r, s, o)
		}
		s.MaxStep, s.Beta1, s.Beta2, s.PredTol = o.MaxStep, o.Beta1, o.Beta2, o.PredTol
		if s.Prec != o.Prec || s.MaxSteps != o.MaxSteps || s.PadeL != o.PadeL || s.PadeM != o.PadeM {
			t.Errorf("round %d changed more than the step's bounds", r)
		}
	}
}
