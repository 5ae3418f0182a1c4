package track

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// classifyAllPairs is classify as it was, testing every pair within the
// window of the sort key: the reference that classify's clusters must
// equal.
func classifyAllPairs(run *Run) {
	type pt struct {
		k   int
		key float64
		tol float64
	}
	var pts []pt
	for k := range run.Paths {
		p := &run.Paths[k]
		p.Tracked = p.Status
		if p.X == nil || (p.Status != Regular && p.Status != Singular) {
			continue
		}
		u := math.Ldexp(1, -53*p.Prec)
		tol := math.Ldexp(u, 10) * max(1, p.Cond)
		if p.Status == Singular {
			tol = max(math.Sqrt(math.Sqrt(u)), 2*p.Err)
		}
		pts = append(pts, pt{k: k, key: p.X[0], tol: min(tol, 1e-3)})
	}
	slices.SortStableFunc(pts, func(a, b pt) int {
		switch {
		case a.key < b.key:
			return -1
		case a.key > b.key:
			return 1
		}
		return a.k - b.k
	})
	// Union-find over pairs within the window of the sort key.
	parent := make([]int, len(pts))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	maxTol := 0.0
	for _, q := range pts {
		maxTol = max(maxTol, q.tol)
	}
	for i := range pts {
		for j := i + 1; j < len(pts); j++ {
			a, b := &run.Paths[pts[i].k], &run.Paths[pts[j].k]
			scale := max(1, math.Abs(pts[i].key), math.Abs(pts[j].key))
			if pts[j].key-pts[i].key > maxTol*scale {
				break
			}
			if agree(a, b, max(pts[i].tol, pts[j].tol)) {
				ri, rj := find(i), find(j)
				if ri != rj {
					parent[max(ri, rj)] = min(ri, rj)
				}
			}
		}
	}
	size := map[int]int{}
	for i := range pts {
		size[find(i)]++
	}
	s := Summary{}
	for i, q := range pts {
		p := &run.Paths[q.k]
		p.Multiplicity = size[find(i)]
		if p.Multiplicity > 1 {
			p.Status = Singular
		}
		if find(i) == i {
			s.Distinct++
			if p.Real {
				s.Real++
			}
		}
	}
	for k := range run.Paths {
		switch run.Paths[k].Status {
		case Regular:
			s.Regular++
		case Singular:
			s.Singular++
		case Infinite:
			s.Infinite++
		case Failed:
			s.Failed++
		}
	}
	run.Summary = s
}

// randomRun is a run of n paths whose finite endpoints fall in clusters
// (many paths at one point, spread within or around the tolerances), with
// keys that repeat, negative and large values, both statuses, two
// precisions, and paths at infinity and failed ones among them.
func randomRun(rng *rand.Rand, n, vars int) *Run {
	run := &Run{Paths: make([]Path, n)}
	centers := make([][]float64, 1+rng.IntN(8))
	for c := range centers {
		centers[c] = make([]float64, 2*vars)
		for v := range centers[c] {
			centers[c][v] = []float64{0, 1, -1, 1e6, -3.5}[rng.IntN(5)] * rng.Float64()
			if rng.IntN(3) == 0 {
				centers[c][v] = float64(rng.IntN(3) - 1)
			}
		}
	}
	for k := range run.Paths {
		p := &run.Paths[k]
		p.Index = int64(k)
		p.Prec = 1 + rng.IntN(2)
		p.Status = []Status{Regular, Regular, Singular, Singular, Infinite, Failed}[rng.IntN(6)]
		p.Tracked = p.Status
		p.Cond = math.Pow(10, 20*rng.Float64())
		p.Err = math.Pow(10, -12*rng.Float64()-1)
		p.Real = rng.IntN(2) == 0
		if p.Status == Infinite {
			continue
		}
		c := centers[rng.IntN(len(centers))]
		spread := math.Pow(10, -16*rng.Float64()-1)
		if rng.IntN(4) == 0 {
			spread = 0
		}
		p.X = make([]float64, 2*p.Prec*vars)
		for v := range vars {
			p.X[2*p.Prec*v] = c[2*v] + spread*rng.NormFloat64()
			p.X[2*p.Prec*v+p.Prec] = c[2*v+1] + spread*rng.NormFloat64()
		}
	}
	return run
}

// TestClassifyEqualsAllPairs: classify gives every path the status and
// multiplicity, and the run the summary, that testing every pair within
// the window gives, on random runs with clusters.
func TestClassifyEqualsAllPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 3000 {
		n := 1 + rng.IntN(60)
		if trial%100 == 0 {
			n = 2000
		}
		run := randomRun(rng, n, 1+rng.IntN(3))
		ref := &Run{Paths: slices.Clone(run.Paths)}
		classify(run)
		classifyAllPairs(ref)
		if run.Summary != ref.Summary {
			t.Fatalf("trial %d: summary %+v, want %+v", trial, run.Summary, ref.Summary)
		}
		for k := range run.Paths {
			g, w := &run.Paths[k], &ref.Paths[k]
			if g.Status != w.Status || g.Multiplicity != w.Multiplicity || g.Tracked != w.Tracked {
				t.Fatalf("trial %d, path %d: %s x%d, want %s x%d", trial, k+1, g.Status, g.Multiplicity, w.Status, w.Multiplicity)
			}
		}
	}
}

// TestClassifyClusterLinear: 200,000 paths at one singular root (a merge
// of forged shards, or a deficient system) classify in well under a
// second; testing every pair of the cluster took minutes (20,000 paths:
// 4 s, 300,000: over 10 minutes).
func TestClassifyClusterLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	const n = 200000
	run := &Run{Paths: make([]Path, n)}
	for k := range run.Paths {
		p := &run.Paths[k]
		p.Index, p.Prec, p.Status, p.Cond, p.Err = int64(k), 2, Singular, 1e20, 1e-9
		p.X = []float64{1 + 1e-12*float64(k%7), 0, 0.5, 0}
	}
	start := time.Now()
	classify(run)
	if d := time.Since(start); d > 5*time.Second || run.Summary.Distinct != 1 || run.Paths[0].Multiplicity != n {
		t.Errorf("%v, summary %+v, multiplicity %d", d, run.Summary, run.Paths[0].Multiplicity)
	}
}
