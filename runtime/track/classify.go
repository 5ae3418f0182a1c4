package track

import (
	"math"
	"slices"
)

// classify groups the finite endpoints into clusters of points that agree
// within their accuracy, sets multiplicities (several paths at one
// solution make it singular: a double root is reached by two paths), and
// counts the summary. Two endpoints agree when every coordinate differs
// by at most tol * max(1, |x|), tol the larger of their accuracies: 2^10
// u max(1, cond) for a regular endpoint, the larger of u^(1/4) and twice
// Path.Err for a singular one (u the unit roundoff of its precision), at
// most 1e-3. The search sorts by the real part of
// the first coordinate, so it is near-linear in the number of paths.
func classify(run *Run) {
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

// agree reports whether the endpoints of a and b agree within tol
// (relative to max(1, |x|), coordinate by coordinate, leading limbs).
func agree(a, b *Path, tol float64) bool {
	wa, wb := 2*a.Prec, 2*b.Prec
	n := len(a.X) / wa
	if len(b.X)/wb != n {
		return false
	}
	for v := range n {
		ar, ai := a.X[v*wa], a.X[v*wa+a.Prec]
		br, bi := b.X[v*wb], b.X[v*wb+b.Prec]
		scale := max(1, math.Hypot(ar, ai), math.Hypot(br, bi))
		if math.Hypot(ar-br, ai-bi) > tol*scale {
			return false
		}
	}
	return true
}
