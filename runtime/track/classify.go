package track

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/mdgen/mdgen/mdops/fp"
)

// classify groups the finite endpoints into clusters of points that agree
// within their accuracy, sets multiplicities (several paths at one
// solution make it singular: a double root is reached by two paths), and
// counts the summary. Two endpoints agree when every coordinate differs
// by at most tol * max(1, |x|), tol the larger of their accuracies: 2^10
// u max(1, cond) for a regular endpoint, the larger of u^(1/4), 2^-27 and
// twice Path.Err for a singular one (singularTol; u the unit roundoff of
// its precision), at most 1e-3. The clusters are the connected components
// of that relation over every pair; a cluster is real when its path of
// the lowest index is.
//
// The search is near-linear in the number of paths: each endpoint gets a
// key, a fixed linear form of all its coordinates (the real and imaginary
// parts of the leading limbs, weights in [1/2, 1]), and a scale S =
// sum_v (|c_v| + |d_v|) max(1, |x_v|); two endpoints that agree have keys
// within maxTol (S_i + S_j) (plus the key's rounding) and scales within a
// factor 1.01, so the same or adjacent binary magnitude classes of S. For
// each class e, the endpoints of classes e and e+1, sorted by key, are
// searched with a window of fixed width (maxTol + the keys' rounding)
// 2^(e+3) (clusterWindow). A key of every coordinate keeps distinct solutions
// apart in the sort even where many share a coordinate (x_1 = 1 for half
// the solutions of x_i^2 = 1: a key of x_1 alone made that quadratic).
func classify(run *Run) {
	var pts []classPt
	vars := 0
	for k := range run.Paths {
		p := &run.Paths[k]
		p.Tracked = p.Status
		if p.X == nil || (p.Status != Regular && p.Status != Singular) {
			continue
		}
		u := math.Ldexp(1, -53*p.Prec)
		tol := math.Ldexp(u, 10) * max(1, p.Cond)
		if p.Status == Singular {
			tol = singularTol(u, p.Err)
		}
		vars = max(vars, len(p.X)/(2*p.Prec))
		pts = append(pts, classPt{k: k, tol: min(tol, maxSingularTol)})
	}
	c, d := keyWeights(vars)
	maxTol := 0.0
	for i := range pts {
		q := &pts[i]
		p := &run.Paths[q.k]
		w := 2 * p.Prec
		for v := 0; v < len(p.X)/w; v++ {
			re, im := run.unit(v, p.X[v*w]), run.unit(v, p.X[v*w+p.Prec])
			q.key += float64(c[v]*re) + float64(d[v]*im)
			q.scale += float64((c[v] + d[v]) * max(1, fp.Hypot(re, im)))
		}
		_, q.class = math.Frexp(q.scale)
		if !(q.key-q.key == 0) || !(q.scale-q.scale == 0) {
			q.class = math.MaxInt // not finite: a class of its own, each point alone
		}
		maxTol = max(maxTol, q.tol)
	}
	// The points by class, then key, then path: a total order (cmp.Compare
	// orders NaN keys too, whose points are each alone anyway), so the
	// sorted order is unique and an unstable sort gives it (the stable
	// sort's in-place merges took two thirds of classify on 32,768 paths).
	slices.SortFunc(pts, func(a, b classPt) int {
		if a.class != b.class {
			return cmp.Compare(a.class, b.class)
		}
		if c := cmp.Compare(a.key, b.key); c != 0 {
			return c
		}
		return a.k - b.k
	})
	parent := make([]int, len(pts))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	union := func(i, j int) {
		ri, rj := find(i), find(j)
		if ri != rj {
			parent[max(ri, rj)] = min(ri, rj)
		}
	}
	var pass []int
	for lo := 0; lo < len(pts); {
		e := pts[lo].class
		hi := lo
		for hi < len(pts) && pts[hi].class == e {
			hi++
		}
		if e == math.MaxInt {
			break
		}
		next := hi
		for next < len(pts) && pts[next].class == e+1 {
			next++
		}
		// Classes e and e+1 merged by key (each sorted by key already).
		pass = pass[:0]
		i, j := lo, hi
		for i < hi || j < next {
			if j >= next || (i < hi && pts[i].key <= pts[j].key) {
				pass = append(pass, i)
				i++
			} else {
				pass = append(pass, j)
				j++
			}
		}
		// 2^(e+3) bounds S_i + S_j twice over; the slack covers the
		// rounding of the keys (a sum of 2 vars products each).
		width := (maxTol + float64(float64(4*vars+4)*0x1p-53)) * math.Ldexp(1, e+3)
		clusterWindow(run, pts, pass, width, union)
		lo = hi
	}
	size := make([]int, len(pts))
	first := make([]int, len(pts)) // the lowest path index of each cluster, by root
	for i := range pts {
		r := find(i)
		if size[r] == 0 || pts[i].k < first[r] {
			first[r] = pts[i].k
		}
		size[r]++
	}
	s := Summary{}
	for i, q := range pts {
		p := &run.Paths[q.k]
		r := find(i)
		p.Multiplicity = size[r]
		if p.Multiplicity > 1 {
			p.Status = Singular
		}
		if r == i {
			s.Distinct++
			if run.Paths[first[r]].Real {
				s.Real++
			}
		}
	}
	s.countStatuses(run.Paths)
	run.Summary = s
}

// maxSingularTol bounds the accuracy granted to an endpoint (relative to
// max(1, |x|)): endpoints farther apart are distinct solutions, and a
// singular end that Newton moves farther is not a solution (path.go).
const maxSingularTol = 1e-3

// singularTol is the accuracy of a singular endpoint (relative to
// max(1, |x|)) at the unit roundoff u with the end game's estimate err:
// the larger of u^(1/4), never below 2 doubles' (about 1e-8: the end game
// extrapolates from a point a little before t = 1, whatever the
// precision; at 16 doubles the six ends of (x-1)^3, (y+2)^2 agreed to
// 1e-45, far from u^(1/4) = 1e-64), and twice err.
func singularTol(u, err float64) float64 {
	return max(math.Sqrt(math.Sqrt(u)), 0x1p-27, 2*err)
}

// countStatuses adds the paths of each status to s.
func (s *Summary) countStatuses(paths []Path) {
	for k := range paths {
		switch paths[k].Status {
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
}

// classPt is a finite endpoint in classify's search: its path, tolerance,
// key, scale and the binary magnitude class of the scale.
type classPt struct {
	k          int
	tol        float64
	key, scale float64
	class      int
}

// keyWeights returns classify's weights of the real and imaginary parts
// of each of n coordinates: fixed (the same clusters on every run), in
// [1/2, 1], far from any simple relation between coordinates.
func keyWeights(n int) (c, d []float64) {
	rng := rand.New(rand.NewPCG(0x636c6173, 0x73696679))
	c, d = make([]float64, n), make([]float64, n)
	for v := range n {
		c[v], d[v] = 0.5+float64(0.5*rng.Float64()), 0.5+float64(0.5*rng.Float64())
	}
	return c, d
}

// clusterWindow joins (union) the points of pass (indices into pts, in
// increasing key) that agree and whose keys differ by at most width. The
// window of point j is the points lo..j-1 of pass (it only slides
// forward as j grows), and j is tested against each cluster of this pass
// with points in its window, point by point until one agrees: a cluster
// of m endpoints that agree (the paths to a singular root) costs m tests,
// not m^2 / 2. The joins are those of testing every pair in the window,
// which joins the same components.
func clusterWindow(run *Run, pts []classPt, pass []int, width float64, union func(i, j int)) {
	members := make([][]int, len(pass)) // root -> its points, some of which may have left the window
	var active []int                    // the roots in members
	lo := 0
	for j := range pass {
		for lo < j && pts[pass[j]].key-pts[pass[lo]].key > width {
			lo++
		}
		a := &run.Paths[pts[pass[j]].k]
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
				found = i >= lo && run.agree(&run.Paths[pts[pass[i]].k], a, max(pts[pass[i]].tol, pts[pass[j]].tol))
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
		root := j
		for _, r := range join {
			root = min(root, r)
		}
		if root == j {
			active = append(active, j)
		}
		for _, r := range join {
			if r != root {
				big, small := members[root], members[r]
				if len(big) < len(small) {
					big, small = small, big
				}
				members[root] = append(big, small...)
				members[r] = nil
			}
		}
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
		for _, r := range join {
			union(pass[r], pass[j])
		}
	}
}

// agree reports whether the endpoints of a and b agree within tol
// (relative to max(1, |x|), coordinate by coordinate, leading limbs, in
// the units of run.Scale).
func (run *Run) agree(a, b *Path, tol float64) bool {
	wa, wb := 2*a.Prec, 2*b.Prec
	n := len(a.X) / wa
	if len(b.X)/wb != n {
		return false
	}
	for v := range n {
		ar, ai := run.unit(v, a.X[v*wa]), run.unit(v, a.X[v*wa+a.Prec])
		br, bi := run.unit(v, b.X[v*wb]), run.unit(v, b.X[v*wb+b.Prec])
		scale := max(1, fp.Hypot(ar, ai), fp.Hypot(br, bi))
		if fp.Hypot(ar-br, ai-bi) > tol*scale {
			return false
		}
	}
	return true
}

// unit returns x, a coordinate of unknown v, in the unit of run.Scale:
// x 2^-Scale[v] (exact).
func (run *Run) unit(v int, x float64) float64 {
	if v < len(run.Scale) {
		return math.Ldexp(x, -run.Scale[v])
	}
	return x
}
