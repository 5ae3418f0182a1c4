package track

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/cmplx"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/mdgen/mdgen/mdops/fp"
	"github.com/mdgen/mdgen/stager"
	"github.com/mdgen/mdgen/stager/poly"
)

// findScaling is poly.FindScaling, a variable so that a test can track a
// target unscaled (TestRestartWithoutCheckpoint: paths that fail at their
// start at every precision).
var findScaling = poly.FindScaling

// MaxPaths is the most paths a homotopy may have (a total degree above it
// is refused with its value: no run could finish it).
const MaxPaths = 1 << 40

// Kind names the homotopies.
const (
	TotalDegree = "total-degree"
	Given       = "given"
)

// Homotopy is H(x, tau) = 0 in the tracked unknowns, with tau = 1 - t
// running from 1 (the start system, t = 0) to 0 (the target, t = 1). The
// tracker works in tau so that the end t = 1 is tau = 0, where a double
// keeps its full relative precision: a path that ends at a singular
// solution can be followed to tau = 1e-30 and beyond, where t = 1 - tau
// would have rounded to 1 at 1e-16.
type Homotopy struct {
	Kind string
	// Target is f(x) = 0, the system at t = 1 in the user's unknowns (no
	// parameter), as given.
	Target *poly.System
	// Scaling, when not nil, is the scaling of the target that the
	// total-degree homotopy tracks (poly.FindScaling: a badly scaled
	// system, coefficients or solutions many orders of magnitude from 1):
	// the paths run in the scaled unknowns y_j = 2^-Var[j] x_j of the
	// scaled equations, where the tracker's tolerances and condition
	// numbers see them at about unit size, and the endpoints are refined
	// on the scaled system and scaled back (exactly) to x.
	Scaling *poly.Scaling
	// Gamma is the random complex number of modulus 1 of the total-degree
	// homotopy gamma (1 - t) g(x) + t f(x) (0 for a given homotopy).
	Gamma complex128
	// Degrees are the degrees d_i of the target's equations (total degree).
	Degrees []int
	// Projective: the unknowns are homogeneous coordinates (x_1..x_n, x_0),
	// x_0 last, each path on its own affine chart (Chart), random from
	// ChartSeed and aligned with the path's start point; a solution at
	// infinity has x_0 = 0.
	Projective bool
	ChartSeed  uint64

	// sys is H with the parameter tau: the coefficient of each term is a
	// polynomial in tau (exact), as Newton's solver reads a system.
	sys *poly.System
	// template is sys with every coefficient replaced by ones to its
	// degree in tau: the solver stages it once (a slot for every
	// coefficient of the shifted series) and the tracker fills the slots
	// at every step.
	template *poly.System
	// plans stage template once at each degree for every worker's
	// solvers (the GPU tracker has a worker per path).
	plans *stager.Plans
	// tracked is the target the paths end on and are refined on: Target,
	// or Target scaled by Scaling.
	tracked *poly.System
	// trackedPlans stage tracked once for every worker's refiner of
	// endpoints (TrackedPlans).
	trackedOnce  sync.Once
	trackedPlans *stager.Plans
	paths        int64
	starts       [][]poly.Rational // given homotopy: the start solutions
}

// Paths returns the number of paths (the total degree, or the number of
// start solutions).
func (h *Homotopy) Paths() int64 { return h.paths }

// TrackedPlans returns the plans of the target that the endpoints are
// refined on, made once (each worker's refiner stages it through them:
// the GPU tracker has a worker per path).
func (h *Homotopy) TrackedPlans() *stager.Plans {
	h.trackedOnce.Do(func() { h.trackedPlans = stager.NewPlans(h.tracked) })
	return h.trackedPlans
}

// Unknowns returns the number of tracked unknowns (n, or n+1 in projective
// coordinates).
func (h *Homotopy) Unknowns() int { return len(h.sys.Vars) }

// System returns H with its parameter tau = 1 - t (exact coefficients;
// in projective coordinates with path 0's chart, Chart).
func (h *Homotopy) System() *poly.System { return h.sys }

// DefaultGamma is the gamma of the total-degree homotopy for seed when the
// user gives none (`mdgen track -seed`, an emitted package's Track):
// exp(2 pi i u), u the first number of a PCG stream of seed, its sine and
// cosine fp.Sincos's (the same bits on every build).
func DefaultGamma(seed uint64) complex128 {
	u := rand.New(rand.NewPCG(seed, 0x67616d6d61)).Float64()
	s, c := fp.Sincos(2 * math.Pi * u)
	return complex(c, s)
}

// NewTotalDegree makes the total-degree homotopy of the square system f
// (no parameter): H = gamma (1 - t) g(x) + t f(x) with g_i = x_i^(d_i) - 1,
// in projective coordinates (g_i = x_i^(d_i) - x_0^(d_i), f homogenized,
// each path on its own chart, from seed: Chart) when projective is set.
// gamma must have modulus 1 (rounding aside).
func NewTotalDegree(f *poly.System, gamma complex128, projective bool, seed uint64) (*Homotopy, error) {
	if err := checkSquare(f); err != nil {
		return nil, err
	}
	if f.Param != "" && f.MaxCoefDegree() > 0 {
		return nil, fmt.Errorf("track: the system has a parameter %s: a total-degree homotopy needs a target without one (track a given homotopy with start solutions instead)", f.Param)
	}
	if !(math.Abs(cmplx.Abs(gamma)-1) <= 1e-12) { // NaN too
		return nil, fmt.Errorf("track: gamma %v has modulus %g: it must be 1", gamma, cmplx.Abs(gamma))
	}
	n := len(f.Vars)
	h := &Homotopy{Kind: TotalDegree, Target: f, Gamma: gamma, Projective: projective, tracked: f}
	if projective {
		h.ChartSeed = seed
	}
	total := int64(1)
	for i := range f.Polys {
		d := f.Polys[i].Degree()
		if d == 0 && len(f.Polys[i].Const.Trim()) == 0 {
			return nil, f.PolyError(i, fmt.Sprintf("equation %d of the target is zero: the system has fewer equations than unknowns (its solutions are not isolated); no total-degree homotopy", i+1))
		}
		if d == 0 {
			return nil, f.PolyError(i, fmt.Sprintf("equation %d of the target is a nonzero constant: the system has no solution; no total-degree homotopy", i+1))
		}
		h.Degrees = append(h.Degrees, d)
		if total > MaxPaths/int64(d) {
			return nil, fmt.Errorf("track: the total degree (%s) is above %d paths", degreeProduct(h.Degrees, f.Polys[i+1:]), int64(MaxPaths))
		}
		total *= int64(d)
	}
	h.paths = total
	if sc, ok := findScaling(f); ok {
		h.Scaling, h.tracked = &sc, sc.Apply(f)
		f = h.tracked
	}
	vars := append([]string(nil), f.Vars...)
	x0 := n
	if projective {
		vars = append(vars, freshName("h", f.Vars))
	}
	gRat := complexRat(gamma)
	sys := &poly.System{Vars: vars, Param: freshName("tau", vars), Source: f.Source}
	for i := range f.Polys {
		b := newPolyBuilder(len(vars))
		d := h.Degrees[i]
		// t f(x) = (1 - tau) f(x): coefficient a - a tau.
		addScaled := func(a *poly.Rational, vs, ps []int) {
			exps := make([]int, len(vars))
			deg := 0
			for k, v := range vs {
				exps[v] = ps[k]
				deg += ps[k]
			}
			if projective {
				exps[x0] = d - deg
			}
			var na poly.Rational
			na.Re.Neg(&a.Re)
			na.Im.Neg(&a.Im)
			b.add(exps, 0, a)
			b.add(exps, 1, &na)
		}
		p := &f.Polys[i]
		if len(p.Const) > 0 {
			addScaled(&p.Const[0], nil, nil)
		}
		for j := range p.Terms {
			if len(p.Terms[j].Coef) > 0 {
				addScaled(&p.Terms[j].Coef[0], p.Terms[j].Vars, p.Terms[j].Pows)
			}
		}
		// gamma (1 - t) g(x) = gamma tau (x_i^d - 1) (or - x_0^d).
		exps := make([]int, len(vars))
		exps[i] = d
		b.add(exps, 1, &gRat)
		exps = make([]int, len(vars))
		if projective {
			exps[x0] = d
		}
		var ng poly.Rational
		ng.Re.Neg(&gRat.Re)
		ng.Im.Neg(&gRat.Im)
		b.add(exps, 1, &ng)
		sys.Polys = append(sys.Polys, b.polynomial())
	}
	h.sys = sys
	if projective {
		// The chart of path 0: the tracker sets each path's own (Chart)
		// in the same slots.
		a, rhs := h.Chart(0)
		b := newPolyBuilder(len(vars))
		for j, c := range a {
			exps := make([]int, len(vars))
			exps[j] = 1
			cr := complexRat(c)
			b.add(exps, 0, &cr)
		}
		mr := complexRat(-rhs)
		b.add(make([]int, len(vars)), 0, &mr)
		sys.Polys = append(sys.Polys, b.polynomial())
	}
	h.template = templateOf(sys)
	h.plans = stager.NewPlans(h.template)
	return h, nil
}

// NewGiven makes the homotopy of a system with a parameter t (PHCpack's
// convention, as `mdgen solve` reads it) and its start solutions at t = 0,
// tracked to t = 1.
func NewGiven(hsys *poly.System, starts [][]poly.Rational) (*Homotopy, error) {
	if err := checkSquare(hsys); err != nil {
		return nil, err
	}
	if hsys.Param == "" {
		return nil, errors.New("track: the system has no parameter t: give a homotopy (a system in the unknowns and t) or track the target with the total-degree homotopy")
	}
	if len(starts) == 0 {
		return nil, errors.New("track: no start solutions")
	}
	for k, s := range starts {
		if len(s) != len(hsys.Vars) {
			return nil, fmt.Errorf("track: start solution %d has %d values for %d unknowns", k+1, len(s), len(hsys.Vars))
		}
	}
	sys := &poly.System{Vars: hsys.Vars, Param: freshName("tau", hsys.Vars), Source: hsys.Source}
	target := &poly.System{Vars: hsys.Vars, Source: hsys.Source}
	for i := range hsys.Polys {
		p := &hsys.Polys[i]
		var q, tq poly.Polynomial
		q.Const = reflect(p.Const)
		tq.Const = atOne(p.Const)
		for j := range p.Terms {
			m := p.Terms[j]
			q.Terms = append(q.Terms, poly.Monomial{Coef: reflect(m.Coef), Vars: m.Vars, Pows: m.Pows})
			if c := atOne(m.Coef); c != nil {
				tq.Terms = append(tq.Terms, poly.Monomial{Coef: c, Vars: m.Vars, Pows: m.Pows})
			}
		}
		sys.Polys = append(sys.Polys, q)
		target.Polys = append(target.Polys, tq)
	}
	h := &Homotopy{Kind: Given, Target: target, sys: sys, template: templateOf(sys),
		paths: int64(len(starts)), starts: starts, tracked: target}
	h.plans = stager.NewPlans(h.template)
	return h, nil
}

// unscale multiplies the unknowns of x (n complex numbers of w float64s
// each) by the units of h's scaling, 2^Var[j], limb by limb: exact (but
// for limbs that leave the double range).
func (h *Homotopy) unscale(x []float64, w int) {
	if h.Scaling == nil {
		return
	}
	for j, e := range h.Scaling.Var {
		for k := j * w; k < (j+1)*w && k < len(x); k++ {
			x[k] = math.Ldexp(x[k], e)
		}
	}
}

// Start returns the start solution of path i (0-based) in the tracked
// coordinates, in double precision: the tracker's first Newton solve
// refines it to the working precision at t = 0. For the total-degree
// homotopy path i is the mixed-radix number (k_1, ..., k_n), k_1 the
// fastest digit, and x_j = exp(2 pi i k_j / d_j) (and x_0 = 1 in
// projective coordinates, on the path's chart): nothing is listed.
func (h *Homotopy) Start(i int64) []complex128 {
	if h.Kind == Given {
		s := h.starts[i]
		out := make([]complex128, len(s))
		for j := range s {
			re, _ := s[j].Re.Float64()
			im, _ := s[j].Im.Float64()
			out[j] = complex(re, im)
		}
		return out
	}
	n := len(h.Degrees)
	out := make([]complex128, len(h.sys.Vars))
	for j, d := range h.Degrees {
		k := i % int64(d)
		i /= int64(d)
		s, c := fp.Sincos(2 * math.Pi * float64(k) / float64(d))
		out[j] = complex(c, s)
	}
	if h.Projective {
		out[n] = 1
	}
	return out
}

// Chart returns the affine chart of path i in projective coordinates: the
// coefficients a of its equation sum_j a_j x_j = rhs (x_0 last), a_j =
// conj(s_j) exp(i phi_j) for the path's start point s (Start, every
// coordinate of modulus 1) and phases phi_j uniform in [-pi/4, pi/4] from
// the chart seed and i, and rhs = sum_j a_j s_j (rounded): the start point
// lies on it at modulus 1, at most 45 degrees from its normal (|rhs| >=
// (n + 1)/sqrt 2). One random chart sum_j c_j x_j = 1 (|c_j| = 1) for
// every path scaled the start point by 1/|sum_j c_j s_j|, large where the
// phases nearly cancel and at least 1/(n + 1), and the rows of an
// equation of degree d as that to the power d - 1: x^20 - 2, y^2 - 1 ended
// 2 of its 40 paths singular (condition number 1e8 at simple roots),
// x^100 - 2 158 of 200 singular or failed, x^1000 - 2 1,962 of 2,000
// (1,837 failed at t = 0).
// The phases keep the chart random: sum_j conj(s_j) x_j, the chart
// exactly orthogonal to the start point, can vanish at an endpoint whose
// coordinates are roots of unity, as the start point's are (cyclic
// n-roots), since sums of roots of unity cancel exactly. The chart
// changes only the representative of a path in projective space, not
// the path.
func (h *Homotopy) Chart(i int64) (a []complex128, rhs complex128) {
	a = h.Start(i)
	// A stream of its own for each path (i < 2^40), none of them gamma's.
	rng := rand.New(rand.NewPCG(h.ChartSeed, 0x6d64<<40|uint64(i)))
	for j, s := range a {
		sin, cos := fp.Sincos(math.Pi / 4 * (float64(2*rng.Float64()) - 1))
		a[j] = fp.Mul(cmplx.Conj(s), complex(cos, sin))
		rhs += fp.Mul(a[j], s)
	}
	return a, rhs
}

func checkSquare(s *poly.System) error {
	n, m := len(s.Vars), len(s.Polys)
	if n == 0 {
		return errors.New("track: the system has no unknowns")
	}
	if m != n {
		return fmt.Errorf("track: %d equations in %d unknowns (%s): path tracking needs a square system (as many equations as unknowns; for an overdetermined system, square it up with random combinations of its equations first)", m, n, poly.NameList(s.Vars))
	}
	return nil
}

// degreeProduct writes the total degree as the product of the degrees ds
// and those of the equations rest.
func degreeProduct(ds []int, rest []poly.Polynomial) string {
	all := slices.Clone(ds)
	for i := range rest {
		all = append(all, rest[i].Degree())
	}
	// Runs of one degree as d^k: the message stays short for thousands of
	// equations.
	var b strings.Builder
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j] == all[i] {
			j++
		}
		if i > 0 {
			b.WriteString("*")
		}
		b.WriteString(strconv.Itoa(all[i]))
		if j-i > 3 {
			fmt.Fprintf(&b, "^%d", j-i)
		} else {
			b.WriteString(strings.Repeat("*"+strconv.Itoa(all[i]), j-i-1))
		}
		i = j
	}
	return b.String()
}

// freshName returns base, or base with a number, not among names.
func freshName(base string, names []string) string {
	taken := map[string]bool{}
	for _, n := range names {
		taken[n] = true
	}
	name := base
	for k := 0; taken[name]; k++ {
		name = base + strconv.Itoa(k)
	}
	return name
}

func complexRat(z complex128) poly.Rational {
	var r poly.Rational
	r.Re.SetFloat64(real(z))
	r.Im.SetFloat64(imag(z))
	return r
}

// reflect returns c(1 - tau) as a polynomial in tau: sum_k c_k (1 - tau)^k,
// exact.
func reflect(c poly.Series) poly.Series {
	if len(c) == 0 {
		return nil
	}
	out := make(poly.Series, len(c))
	var binom, term big.Rat
	for k := range c {
		// (1 - tau)^k = sum_i C(k, i) (-1)^i tau^i
		b := big.NewInt(1)
		for i := 0; i <= k; i++ {
			if i > 0 {
				b.Mul(b, big.NewInt(int64(k-i+1)))
				b.Quo(b, big.NewInt(int64(i)))
			}
			binom.SetInt(b)
			if i%2 == 1 {
				binom.Neg(&binom)
			}
			term.Mul(&c[k].Re, &binom)
			out[i].Re.Add(&out[i].Re, &term)
			term.Mul(&c[k].Im, &binom)
			out[i].Im.Add(&out[i].Im, &term)
		}
	}
	return out.Trim()
}

// atOne returns the constant series c(1) (nil when zero).
func atOne(c poly.Series) poly.Series {
	var z poly.Rational
	for k := range c {
		z.Add(&z, &c[k])
	}
	if z.IsZero() {
		return nil
	}
	return poly.Series{z}
}

// templateOf returns sys with every nonzero coefficient series replaced by
// ones to its degree: the staged system of the tracker's solvers.
func templateOf(sys *poly.System) *poly.System {
	ones := func(c poly.Series) poly.Series {
		if len(c) == 0 {
			return nil
		}
		s := make(poly.Series, len(c))
		for k := range s {
			s[k].Re.SetInt64(1)
		}
		return s
	}
	t := &poly.System{Vars: sys.Vars, Param: sys.Param, Source: sys.Source}
	for i := range sys.Polys {
		p := &sys.Polys[i]
		q := poly.Polynomial{Const: ones(p.Const)}
		for j := range p.Terms {
			m := p.Terms[j]
			q.Terms = append(q.Terms, poly.Monomial{Coef: ones(m.Coef), Vars: m.Vars, Pows: m.Pows})
		}
		t.Polys = append(t.Polys, q)
	}
	return t
}

// polyBuilder collects terms by exponent vector, in order of first
// appearance, each coefficient a polynomial in tau.
type polyBuilder struct {
	nvars int
	index map[string]int
	exps  [][]int
	coefs []poly.Series
}

func newPolyBuilder(nvars int) *polyBuilder {
	return &polyBuilder{nvars: nvars, index: map[string]int{}}
}

// add adds c tau^k to the coefficient of x^exps.
func (b *polyBuilder) add(exps []int, k int, c *poly.Rational) {
	key := fmt.Sprint(exps)
	i, ok := b.index[key]
	if !ok {
		i = len(b.exps)
		b.index[key] = i
		b.exps = append(b.exps, exps)
		b.coefs = append(b.coefs, nil)
	}
	for len(b.coefs[i]) <= k {
		b.coefs[i] = append(b.coefs[i], poly.Rational{})
	}
	b.coefs[i][k].Add(&b.coefs[i][k], c)
}

func (b *polyBuilder) polynomial() poly.Polynomial {
	var p poly.Polynomial
	for i, exps := range b.exps {
		c := b.coefs[i].Trim()
		if c == nil {
			continue
		}
		var vs, ps []int
		for v, e := range exps {
			if e > 0 {
				vs = append(vs, v)
				ps = append(ps, e)
			}
		}
		if len(vs) == 0 {
			p.Const = c
			continue
		}
		p.Terms = append(p.Terms, poly.Monomial{Coef: c, Vars: vs, Pows: ps})
	}
	return p
}
