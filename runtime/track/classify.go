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
// most 1e-3. The search sorts by the real part of the first coordinate
// and tests a point against each cluster within the window of that key
// (not against each of its points), so it is near-linear in the number
// of paths, clusters of many paths included.
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
	// Union-find over the pairs within the window of the sort key: i < j
	// (in the sorted order) with key_j - key_i <= maxTol max(1, |key_i|,
	// |key_j|), joined when they agree. The root of a cluster is its
	// first point. The window of j is the points lo..j-1 (it only slides
	// forward as j grows: the condition is monotone in both keys), and j
	// is tested against each cluster with points in its window, point by
	// point until one agrees: a cluster of m endpoints that agree (the
	// paths to a singular root) costs m tests, not m^2 / 2. The clusters
	// are those of testing every pair, which joins the same components.
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
	inWindow := func(i, j int) bool {
		scale := max(1, math.Abs(pts[i].key), math.Abs(pts[j].key))
		return !(pts[j].key-pts[i].key > maxTol*scale)
	}
	members := make([][]int, len(pts)) // root -> its points, some of which may have left the window
	var active []int                   // the roots in members
	lo := 0
	for j := range pts {
		for lo < j && !inWindow(lo, j) {
			lo++
		}
		a := &run.Paths[pts[j].k]
		var join []int
		kept := active[:0]
		for _, r := range active {
			// The newest points first: in a cluster, the last point
			// added is in the window and most often agrees. Only when
			// none agrees is the whole list read, and then the points
			// that left the window are dropped, each once.
			m, found := members[r], false
			for x := len(m) - 1; x >= 0 && !found; x-- {
				i := m[x]
				found = i >= lo && agree(&run.Paths[pts[i].k], a, max(pts[i].tol, pts[j].tol))
			}
			if found {
				join = append(join, r)
				kept = append(kept, r)
				continue
			}
			live := m[:0]
			for _, i := range m {
				if i >= lo {
					live = append(live, i)
				}
			}
			if len(live) == 0 {
				members[r] = nil
				continue
			}
			members[r] = live
			kept = append(kept, r)
		}
		active = kept
		// j joins every cluster it agrees with; the first point is the
		// root, as the union of each pair (parent[max] = min) leaves it.
		root := j
		for _, r := range join {
			root = min(root, r)
		}
		if root == j {
			active = append(active, j)
		}
		for _, r := range join {
			if r != root {
				parent[r] = root
				big, small := members[root], members[r]
				if len(big) < len(small) {
					big, small = small, big
				}
				members[root] = append(big, small...)
				members[r] = nil
			}
		}
		parent[j] = root
		members[root] = append(members[root], j)
		if len(join) > 1 {
			kept := active[:0]
			for _, r := range active {
				if members[r] != nil {
					kept = append(kept, r)
				}
			}
			active = kept
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
