package track

import (
	"math"
	goreflect "reflect"
	"slices"
	"sync"
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

// TestTrackCrossed: x^200 + 3x - 1 with mdgen track's gamma of seed 1,
// whose paths 48 and 49 (1-based) end at one root in the first pass. Its
// paths tracked as two parts with FirstPass, split between the two
// crossed paths, put together (Classify) and given to TrackCrossed equal
// one Track of every path, bit for bit; each part alone, without
// FirstPass, does not (neither part holds both paths, so neither tracks
// them again).
// x200 is the total-degree homotopy of x^200 + 3x - 1 whose paths 48
// and 49 cross in the first pass.
func x200(t *testing.T) *Homotopy {
	t.Helper()
	h, err := NewTotalDegree(parse(t, "1\nx^200 + 3*x - 1;\n"), complex(-0.26663418029230684, 0.9637978075819895), true, 1)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestTrackCrossed(t *testing.T) {
	h := x200(t)
	whole, err := Track(h, Options{Workers: 2}, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(whole.Crossed) == 0 || !slices.Contains(whole.Crossed[0], 47) || !slices.Contains(whole.Crossed[0], 48) {
		t.Fatalf("crossed %v: want paths 48 and 49 (indices 47 and 48) in the first round; find another case", whole.Crossed)
	}
	if s := whole.Summary; s.Regular != 200 || s.Distinct != 200 {
		t.Fatalf("one run: %+v", s)
	}
	parts := func(o Options) *Run {
		run := &Run{}
		for _, r := range [][2]int64{{0, 48}, {48, 152}} {
			part, err := Track(h, o, r[0], r[1])
			if err != nil {
				t.Fatal(err)
			}
			run.Paths = append(run.Paths, part.Paths...)
		}
		Classify(run)
		return run
	}
	if s := parts(Options{Workers: 2}).Summary; s.Regular == 200 {
		t.Errorf("the parts tracked without FirstPass give %+v: they should lose the crossed pair", s)
	}
	run := parts(Options{Workers: 2, FirstPass: true})
	if err := TrackCrossed(h, Options{Workers: 2}, run); err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(run.Crossed, whole.Crossed, slices.Equal) {
		t.Errorf("rounds %v, want %v", run.Crossed, whole.Crossed)
	}
	if run.Summary != whole.Summary {
		t.Errorf("summary %+v, want %+v", run.Summary, whole.Summary)
	}
	for k := range whole.Paths {
		w, g := whole.Paths[k], run.Paths[k]
		w.Seconds, g.Seconds = 0, 0
		if !goreflect.DeepEqual(bitsOf(w), bitsOf(g)) {
			t.Errorf("path %d: %+v, want %+v", k+1, g, w)
		}
	}
}

// bitsOf is p with its float64 fields as their bits (NaN equal to NaN).
func bitsOf(p Path) any {
	x := make([]uint64, len(p.X))
	for i, v := range p.X {
		x[i] = math.Float64bits(v)
	}
	f := []uint64{math.Float64bits(p.T), math.Float64bits(p.Cond), math.Float64bits(p.Residual), math.Float64bits(p.Err)}
	p.X, p.T, p.Cond, p.Residual, p.Err = nil, 0, 0, 0, 0
	return []any{p, x, f}
}

// TestCrossingRounds: the rounds find the crossed paths anew after each
// round (a path tracked again may cross another one), track them with the
// options of their round, stop after crossingRounds, and stop when a
// round did not track every path; run holds its classification only when
// a round found nothing crossed.
func TestCrossingRounds(t *testing.T) {
	at := func(k int, re float64) Path {
		return Path{Index: int64(k), Status: Regular, Prec: 1, T: 1, Cond: 2, Err: 1e-20, Multiplicity: 1, X: []float64{re, 0, 1, 0}}
	}
	opt, err := Options{}.Filled()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name       string
		moves      [][2]float64 // round r moves path moves[r-1][0] to moves[r-1][1]
		all        bool
		crossed    [][]int64
		classified bool
		regular    int
	}{
		{"settled in round 1", [][2]float64{{1, 3}}, true, [][]int64{{0, 1}}, true, 3},
		{"round 1 crosses another pair", [][2]float64{{1, 2}, {1, 3}}, true, [][]int64{{0, 1}, {1, 2}}, false, 3},
		{"still crossed after the rounds", [][2]float64{{1, 2}, {1, 2}}, true, [][]int64{{0, 1}, {1, 2}}, false, 1},
		{"a device failed", [][2]float64{{1, 1}}, false, [][]int64{{0, 1}}, false, 1},
	} {
		run := &Run{Paths: []Path{at(0, 1), at(1, 1), at(2, 2)}}
		round := 0
		classified, err := crossingRoundsOf(run, opt, func(ks []int64, o Options) (bool, error) {
			round++
			if o.MaxStep != opt.stricter(round).MaxStep {
				t.Errorf("%s: round %d with max step %v", c.name, round, o.MaxStep)
			}
			if round <= len(c.moves) {
				m := c.moves[round-1]
				run.Paths[int(m[0])] = at(int(m[0]), m[1])
			}
			return c.all, nil
		})
		if err != nil || classified != c.classified || !slices.EqualFunc(run.Crossed, c.crossed, slices.Equal) {
			t.Errorf("%s: classified %v, crossed %v (%v); want %v, %v", c.name, classified, run.Crossed, err, c.classified, c.crossed)
		}
		if !classified {
			classify(run)
		}
		if run.Summary.Regular != c.regular {
			t.Errorf("%s: %+v, want %d regular", c.name, run.Summary, c.regular)
		}
	}
}

// TestTrackSource: two runs of x^200 + 3x - 1 fed from Sources (the
// process per GPU of mdgen track), the even paths to one and the odd ones
// to the other a few at a time, put together and finished by
// TrackCrossed, equal one Track bit for bit; PathDone sees each path
// handed out once. A Source run that is not a first pass is refused.
func TestTrackSource(t *testing.T) {
	h := x200(t)
	whole, err := Track(h, Options{Workers: 2}, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	run := &Run{Paths: make([]Path, h.Paths())}
	var mu sync.Mutex
	seen := map[int64]int{}
	for part := range int64(2) {
		src := make(chan int64)
		go func() {
			for k := part; k < h.Paths(); k += 2 {
				src <- k
			}
			close(src)
		}()
		got, err := Track(h, Options{Workers: 3, FirstPass: true, Source: src, PathDone: func(k int64, p *Path) {
			mu.Lock()
			defer mu.Unlock()
			seen[k]++
			if p.Index != k {
				t.Errorf("PathDone(%d) with path %d", k, p.Index)
			}
		}}, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		for k := part; k < h.Paths(); k += 2 {
			run.Paths[k] = got.Paths[k]
		}
		for k := 1 - part; k < h.Paths(); k += 2 {
			if got.Paths[k].Status != 0 {
				t.Errorf("part %d tracked path %d, which its Source did not hand out", part, k+1)
			}
		}
	}
	for k := range h.Paths() {
		if seen[k] != 1 {
			t.Errorf("PathDone saw path %d %d times", k+1, seen[k])
		}
	}
	Classify(run)
	if err := TrackCrossed(h, Options{Workers: 2}, run); err != nil {
		t.Fatal(err)
	}
	if run.Summary != whole.Summary || !slices.EqualFunc(run.Crossed, whole.Crossed, slices.Equal) {
		t.Errorf("summary %+v, rounds %v; want %+v, %v", run.Summary, run.Crossed, whole.Summary, whole.Crossed)
	}
	for k := range whole.Paths {
		w, g := whole.Paths[k], run.Paths[k]
		w.Seconds, g.Seconds = 0, 0
		if !goreflect.DeepEqual(bitsOf(w), bitsOf(g)) {
			t.Errorf("path %d: %+v, want %+v", k+1, g, w)
		}
	}
	if _, err := Track(h, Options{Source: make(chan int64)}, 0, 0); err == nil {
		t.Error("a Source run without FirstPass accepted")
	}
}
