package track

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// classifyAllPairs is the specification of classify, testing every pair:
// the clusters are the connected components of agree, a cluster is real
// when its path of the lowest index is.
func classifyAllPairs(run *Run) {
	var pts []int
	tols := map[int]float64{}
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
		pts = append(pts, k)
		tols[k] = min(tol, 1e-3)
	}
	parent := map[int]int{}
	for _, k := range pts {
		parent[k] = k
	}
	var find func(int) int
	find = func(k int) int {
		for parent[k] != k {
			k = parent[k]
		}
		return k
	}
	for x, i := range pts {
		for _, j := range pts[x+1:] {
			if run.agree(&run.Paths[i], &run.Paths[j], max(tols[i], tols[j])) {
				ri, rj := find(i), find(j)
				if ri != rj {
					parent[max(ri, rj)] = min(ri, rj) // the root is the lowest path index
				}
			}
		}
	}
	size := map[int]int{}
	for _, k := range pts {
		size[find(k)]++
	}
	s := Summary{}
	for _, k := range pts {
		p := &run.Paths[k]
		p.Multiplicity = size[find(k)]
		if p.Multiplicity > 1 {
			p.Status = Singular
		}
		if find(k) == k {
			s.Distinct++
			if p.Real {
				s.Real++
			}
		}
	}
	s.countStatuses(run.Paths)
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
			centers[c][v] = []float64{0, 1, -1, 1e6, -3.5, 1e3}[rng.IntN(6)] * rng.Float64()
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
// multiplicity, and the run the summary, that testing every pair gives,
// on random runs with clusters (coordinates with a large imaginary part
// and a small real part among them: a window on the real part of the
// first coordinate, scaled by its own size, missed pairs there).
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

// TestClassifyLargeClusters: 200,000 paths at one singular root (a merge
// of forged shards, or a deficient system) make one cluster; 2^16
// distinct solutions of which half share their first coordinate (x_i^2 =
// 1, x_i = +-1) make 2^16. BenchmarkClassify times both (testing every
// pair of the cluster took minutes; a key of the first coordinate alone
// took minutes for the second).
func TestClassifyLargeClusters(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	run := oneRootRun(200000)
	classify(run)
	if run.Summary.Distinct != 1 || run.Paths[0].Multiplicity != len(run.Paths) {
		t.Errorf("one root: summary %+v, multiplicity %d", run.Summary, run.Paths[0].Multiplicity)
	}
	run = signsRun(16)
	classify(run)
	if run.Summary.Distinct != len(run.Paths) || run.Summary.Regular != len(run.Paths) {
		t.Errorf("the solutions of x_i^2 = 1: summary %+v", run.Summary)
	}
}

// oneRootRun is n paths at one singular root, spread by 1e-12.
func oneRootRun(n int) *Run {
	run := &Run{Paths: make([]Path, n)}
	for k := range run.Paths {
		p := &run.Paths[k]
		p.Index, p.Prec, p.Status, p.Cond, p.Err = int64(k), 2, Singular, 1e20, 1e-9
		p.X = []float64{1 + 1e-12*float64(k%7), 0, 0, 0, 0.5, 0, 0, 0}
	}
	return run
}

// signsRun is the 2^vars regular solutions of x_i^2 = 1 (every x_i = +-1).
func signsRun(vars int) *Run {
	n := 1 << vars
	run := &Run{Paths: make([]Path, n)}
	for k := range run.Paths {
		p := &run.Paths[k]
		p.Index, p.Prec, p.Status, p.Cond, p.Real = int64(k), 2, Regular, 1, true
		p.X = make([]float64, 4*vars)
		for v := range vars {
			p.X[4*v] = float64(1 - 2*(k>>v&1))
		}
	}
	return run
}

// BenchmarkClassify: 200,000 paths at one root; the 2^16 solutions of
// x_i^2 = 1.
func BenchmarkClassify(b *testing.B) {
	for _, c := range []struct {
		name string
		run  func() *Run
	}{{"oneroot200000", func() *Run { return oneRootRun(200000) }}, {"signs16", func() *Run { return signsRun(16) }}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				run := c.run()
				b.StartTimer()
				classify(run)
			}
		})
	}
}

// TestClassifyLargeImaginary: two singular endpoints 0.05 apart at x_0 =
// 0.01 + 100i agree (tolerance 1e-3 of |x_0| = 100), so they are one
// root of multiplicity 2; a window on Re(x_0) scaled by |Re(x_0)| put
// them 50 widths apart.
func TestClassifyLargeImaginary(t *testing.T) {
	run := &Run{Paths: make([]Path, 2)}
	for k := range run.Paths {
		p := &run.Paths[k]
		p.Index, p.Prec, p.Status, p.Cond, p.Err = int64(k), 1, Singular, 1e12, 1e-3
		p.X = []float64{0.01 + 0.05*float64(k), 100, 1, 0}
	}
	classify(run)
	if run.Summary.Distinct != 1 || run.Paths[0].Multiplicity != 2 {
		t.Errorf("summary %+v, multiplicities %d %d, want one root of multiplicity 2", run.Summary, run.Paths[0].Multiplicity, run.Paths[1].Multiplicity)
	}
}
