package track

import (
	"fmt"
	"math"
	"math/big"
	"math/cmplx"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/mdgen/mdgen/runtime/ref"
	"github.com/mdgen/mdgen/stager/families"
	"github.com/mdgen/mdgen/stager/poly"
)

// gammaTest is the gamma of the tests (any unit complex number away from
// the real line works; the tests also vary it).
var gammaTest = cmplx.Rect(1, 0.7)

func parse(t testing.TB, src string) *poly.System {
	t.Helper()
	sys, err := poly.Parse("test", []byte(src), poly.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return sys
}

func family(t testing.TB, name string, n int) *poly.System {
	t.Helper()
	in, err := families.Build(name, families.Options{N: n})
	if err != nil {
		t.Fatal(err)
	}
	return in.System
}

// dense returns a system of len(degrees) equations in as many unknowns,
// equation i with every monomial of degree <= degrees[i] and random
// complex coefficients: its solutions are isolated and regular, as many
// as the product of the degrees (Bezout), for all but a measure-zero set of
// coefficients.
func dense(degrees []int, seed uint64) *poly.System {
	n := len(degrees)
	rng := rand.New(rand.NewPCG(seed, 7))
	var b strings.Builder
	fmt.Fprintf(&b, "%d\n", n)
	var exps func(v, left int, cur []int, out *[][]int)
	exps = func(v, left int, cur []int, out *[][]int) {
		if v == n {
			*out = append(*out, slices.Clone(cur))
			return
		}
		for e := 0; e <= left; e++ {
			cur[v] = e
			exps(v+1, left-e, cur, out)
		}
		cur[v] = 0
	}
	for _, d := range degrees {
		var all [][]int
		exps(0, d, make([]int, n), &all)
		for k, ex := range all {
			re, im := rng.Float64()*2-1, rng.Float64()*2-1
			if k > 0 {
				b.WriteString(" + ")
			}
			fmt.Fprintf(&b, "(%.6f%+.6f*i)", re, im)
			for v, e := range ex {
				if e > 0 {
					fmt.Fprintf(&b, "*x%d^%d", v+1, e)
				}
			}
		}
		b.WriteString(";\n")
	}
	sys, err := poly.Parse("dense", []byte(b.String()), poly.ParseOptions{})
	if err != nil {
		panic(err)
	}
	return sys
}

func trackAll(t testing.TB, f *poly.System, opt Options) *Run {
	t.Helper()
	h, err := NewTotalDegree(f, gammaTest, true, 1)
	if err != nil {
		t.Fatal(err)
	}
	run, err := Track(h, opt, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// checkEndpoints refines every regular endpoint with the math/big Newton
// of runtime/ref (a different evaluation and factorization, 64 more bits)
// and asserts that it agrees within 2^-(53P-10) relative.
func checkEndpoints(t *testing.T, f *poly.System, run *Run) {
	t.Helper()
	for _, p := range run.Paths {
		if p.Status != Regular {
			continue
		}
		n := len(f.Vars)
		w := 2 * p.Prec
		bits := uint(53*p.Prec + 64)
		start := make([]ref.Complex, n)
		for v := range n {
			start[v] = ref.Complex{Re: limbsBig(p.X[v*w:v*w+p.Prec], bits), Im: limbsBig(p.X[v*w+p.Prec:(v+1)*w], bits)}
		}
		res, err := ref.NewtonSeries(f, start, 0, bits, 40)
		if err != nil {
			t.Errorf("path %d: the big reference fails: %v", p.Index+1, err)
			continue
		}
		scale := 1.0
		for v := range n {
			scale = max(scale, cabsBig(start[v]))
		}
		worst := 0.0
		for v := range n {
			var dr, di big.Float
			dr.SetPrec(bits).Sub(start[v].Re, res.Series[v][0].Re)
			di.SetPrec(bits).Sub(start[v].Im, res.Series[v][0].Im)
			a, _ := dr.Float64()
			b, _ := di.Float64()
			worst = max(worst, math.Hypot(a, b)/scale)
		}
		if tol := math.Ldexp(1, -(53*p.Prec - 10)); worst > tol {
			t.Errorf("path %d (%d doubles, cond %.3g): endpoint %.3g from the reference, above %.3g", p.Index+1, p.Prec, p.Cond, worst, tol)
		}
	}
}

func limbsBig(l []float64, bits uint) *big.Float {
	s := new(big.Float).SetPrec(bits)
	for _, x := range l {
		s.Add(s, new(big.Float).SetFloat64(x))
	}
	return s
}

func cabsBig(z ref.Complex) float64 {
	a, _ := z.Re.Float64()
	b, _ := z.Im.Float64()
	return math.Hypot(a, b)
}

// TestRootCounts: every solution of families whose counts are known, no
// failed path, no path jump (as many distinct solutions as regular
// endpoints), every endpoint checked against the big reference.
func TestRootCounts(t *testing.T) {
	cases := []struct {
		name              string
		sys               func(testing.TB) *poly.System
		regular, infinite int
		long              bool
	}{
		{"katsura3", func(t testing.TB) *poly.System { return family(t, "katsura", 3) }, 8, 0, false},
		{"katsura5", func(t testing.TB) *poly.System { return family(t, "katsura", 5) }, 32, 0, false},
		{"noon3", func(t testing.TB) *poly.System { return family(t, "noon", 3) }, 21, 6, false},
		{"noon4", func(t testing.TB) *poly.System { return family(t, "noon", 4) }, 73, 8, true},
		{"cyclic5", func(t testing.TB) *poly.System { return family(t, "cyclic", 5) }, 70, 50, true},
		// Paths to infinity with x_0 ~ tau^(5/2) and cond ~ x_0^-4: the
		// early test at infinity's second rule and the acceptance test on
		// Newton's rounding floor (see the package documentation).
		{"cyclic6", func(t testing.TB) *poly.System { return family(t, "cyclic", 6) }, 156, 564, true},
		{"dense3,2", func(testing.TB) *poly.System { return dense([]int{3, 2}, 1) }, 6, 0, false},
		{"dense2,2,3", func(testing.TB) *poly.System { return dense([]int{2, 2, 3}, 2) }, 12, 0, false},
	}
	for _, c := range cases {
		for _, prec := range []int{2, 0} {
			name := fmt.Sprintf("%s/prec%d", c.name, prec)
			t.Run(name, func(t *testing.T) {
				if c.long && testing.Short() {
					t.Skip("long")
				}
				f := c.sys(t)
				run := trackAll(t, f, Options{Prec: prec, Workers: 2})
				s := run.Summary
				if s.Regular != c.regular || s.Infinite != c.infinite || s.Failed != 0 || s.Singular != 0 {
					t.Errorf("%+v, want %d regular and %d at infinity", s, c.regular, c.infinite)
					for _, p := range run.Paths {
						if p.Status == Failed {
							t.Logf("path %d failed: %s", p.Index+1, p.Reason)
						}
					}
				}
				if s.Distinct != s.Regular {
					t.Errorf("%d distinct solutions among %d regular endpoints: a path jumped", s.Distinct, s.Regular)
				}
				checkEndpoints(t, f, run)
			})
		}
	}
}

// TestDoubleRoot: (x-1)^2 (x+2) = 0, y^2 = x + 3: the double root x = 1
// (with y = +-2) is reached by two paths each, reported singular with
// multiplicity 2; x = -2 (y = +-1) is regular. At 2 doubles and more: in
// double precision the two paths of a double root end about 1e-8 apart
// with condition numbers near 1e7, which a double cannot tell from two
// close regular roots (as for PHCpack in double precision).
func TestDoubleRoot(t *testing.T) {
	f := parse(t, "2\n x^3 - 3*x + 2;\n y^2 - x - 3;\n")
	for _, prec := range []int{2, 4, 0} {
		run := trackAll(t, f, Options{Prec: prec, Workers: 2})
		s := run.Summary
		if s.Regular != 2 || s.Singular != 4 || s.Distinct != 4 || s.Failed != 0 || s.Infinite != 0 {
			t.Errorf("prec %d: %+v, want 2 regular, 4 singular (2 double roots), 4 distinct", prec, s)
		}
		for _, p := range run.Paths {
			if p.Status == Singular {
				x := p.X[0]
				if p.Multiplicity != 2 || math.Abs(x-1) > 1e-4 {
					t.Errorf("prec %d: path %d singular at x = %g with multiplicity %d, want 1 and 2", prec, p.Index+1, x, p.Multiplicity)
				}
			}
		}
	}
}

// TestInfinity: x y = 1, x^2 = 2 has total degree 4 and 2 finite
// solutions: the other 2 paths go to infinity (y -> infinity as x -> 0 in
// the homogenization's x0 = 0), reported as such in projective
// coordinates.
func TestInfinity(t *testing.T) {
	f := parse(t, "2\n x*y - 1;\n x^2 - 2;\n")
	run := trackAll(t, f, Options{Prec: 2, Workers: 1})
	if s := run.Summary; s.Regular != 2 || s.Infinite != 2 || s.Failed != 0 {
		t.Errorf("%+v, want 2 regular and 2 at infinity", s)
	}
	checkEndpoints(t, f, run)
}

// TestWorkersBitIdentity: the paths do not depend on the worker count,
// to the last bit.
func TestWorkersBitIdentity(t *testing.T) {
	f := family(t, "noon", 3)
	a := trackAll(t, f, Options{Prec: 2, Workers: 1})
	b := trackAll(t, f, Options{Prec: 2, Workers: 3})
	for k := range a.Paths {
		p, q := a.Paths[k], b.Paths[k]
		p.Seconds, q.Seconds = 0, 0
		if !slices.Equal(p.X, q.X) || p.Status != q.Status || p.Steps != q.Steps || p.Cond != q.Cond || p.Residual != q.Residual && !(math.IsNaN(p.Residual) && math.IsNaN(q.Residual)) {
			t.Fatalf("path %d differs between 1 and 3 workers:\n%+v\n%+v", k+1, p, q)
		}
	}
}

// TestCorrectEveryPoint: where the series precision gives the
// corrector's accuracy the tracker leaves out the corrector at the
// tracking precision (fewer Newton steps per path); with
// Options.CorrectEveryPoint it runs it everywhere; both find every
// solution of katsura 5 to the accuracy of the precision.
func TestCorrectEveryPoint(t *testing.T) {
	f := family(t, "katsura", 5)
	for _, prec := range []int{2, 4} {
		newton := map[bool]int{}
		for _, every := range []bool{false, true} {
			run := trackAll(t, f, Options{Prec: prec, Workers: 2, CorrectEveryPoint: every})
			if s := run.Summary; s.Regular != 32 || s.Distinct != 32 {
				t.Errorf("%d doubles, CorrectEveryPoint %v: %+v, want 32 regular solutions", prec, every, s)
			}
			checkEndpoints(t, f, run)
			for _, p := range run.Paths {
				newton[every] += p.Newton
			}
		}
		if newton[false] >= newton[true] {
			t.Errorf("%d doubles: %d Newton steps, %d with a corrector at every point: no corrector left out", prec, newton[false], newton[true])
		}
	}
}

// TestAutoEscalates: on cyclic 5-roots some paths to infinity need more
// than double precision near their end (double precision fails or cannot
// tell them from singular solutions); the automatic rule from 1 double
// raises the precision of those paths only and finds 70 regular
// solutions and 50 paths to infinity.
func TestAutoEscalates(t *testing.T) {
	if testing.Short() {
		t.Skip("long")
	}
	f := family(t, "cyclic", 5)
	double := trackAll(t, f, Options{Prec: 1, Workers: 2})
	if s := double.Summary; s.Failed+s.Singular == 0 {
		t.Logf("double precision alone: %+v (the test expects it to fall short)", s)
	}
	run := trackAll(t, f, Options{MinPrec: 1, Workers: 2})
	raised := 0
	for _, p := range run.Paths {
		if p.Prec > 1 {
			raised++
		}
	}
	if s := run.Summary; s.Regular != 70 || s.Infinite != 50 || raised == 0 || raised == len(run.Paths) {
		t.Errorf("auto: %+v, %d paths raised, want 70 regular, 50 infinite, some raised, not all", s, raised)
	}
	t.Logf("double alone: %+v; auto: %d of 120 paths raised above double", double.Summary, raised)
}

// TestNearCrossing: with gamma close to 1 the paths of katsura4 come close
// to each other (at gamma = 1 they meet); the tracker must still find
// each solution once.
func TestNearCrossing(t *testing.T) {
	f := family(t, "katsura", 4)
	for _, angle := range []float64{1e-2, 1e-3} {
		h, err := NewTotalDegree(f, cmplx.Rect(1, angle), true, 1)
		if err != nil {
			t.Fatal(err)
		}
		run, err := Track(h, Options{Prec: 2, Workers: 2}, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if s := run.Summary; s.Regular != 16 || s.Distinct != 16 {
			t.Errorf("gamma angle %g: %+v, want 16 distinct regular solutions", angle, s)
		}
	}
}

// TestGivenHomotopy tracks a Newton homotopy f(x) - (1-t) f(z) from its
// start z to a root of f.
func TestGivenHomotopy(t *testing.T) {
	in, err := families.Build("cyclic", families.Options{N: 5, Newton: true, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	var starts [][]poly.Rational
	for _, s := range in.Start {
		starts = append(starts, s.Values)
	}
	h, err := NewGiven(in.System, starts)
	if err != nil {
		t.Fatal(err)
	}
	run, err := Track(h, Options{Prec: 2, Workers: 1}, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if s := run.Summary; s.Regular+s.Singular+s.Infinite != len(starts) || s.Failed != 0 {
		t.Errorf("%+v", s)
	}
	for _, p := range run.Paths {
		if p.Status == Regular && !(p.Residual < 1e-20) {
			t.Errorf("path %d: residual %g", p.Index+1, p.Residual)
		}
	}
}

// TestBadInput: clear errors.
func TestBadInput(t *testing.T) {
	cases := []struct {
		name string
		run  func() error
		want string
	}{
		{"non-square", func() error {
			_, err := NewTotalDegree(parse(t, "3\n x + y;\n x - y;\n x*y - 1;\n"), gammaTest, true, 1)
			return err
		}, "square"},
		{"constant equation", func() error {
			_, err := NewTotalDegree(parse(t, "2\n x + y;\n 3;\n"), gammaTest, true, 1)
			return err
		}, "equation 2 of the target is a nonzero constant"},
		{"zero equation", func() error {
			_, err := NewTotalDegree(parse(t, "2\n x + y;\n x*y - y*x;\n"), gammaTest, true, 1)
			return err
		}, "equation 2 of the target is zero"},
		{"gamma not of modulus 1", func() error {
			_, err := NewTotalDegree(family(t, "katsura", 3), 2, true, 1)
			return err
		}, "modulus"},
		{"gamma NaN", func() error {
			_, err := NewTotalDegree(family(t, "katsura", 3), cmplx.NaN(), true, 1)
			return err
		}, "modulus"},
		{"no parameter", func() error {
			_, err := NewGiven(family(t, "katsura", 3), [][]poly.Rational{make([]poly.Rational, 4)})
			return err
		}, "parameter"},
		{"bad pade", func() error {
			h, _ := NewTotalDegree(family(t, "katsura", 3), gammaTest, true, 1)
			_, err := Track(h, Options{PadeL: -1, PadeM: 1}, 0, 0)
			return err
		}, "Padé"},
		{"total degree of thousands of equations, in a short message", func() error {
			var b strings.Builder
			fmt.Fprintf(&b, "2000\n x0^3 - 1;\n")
			for i := 1; i < 2000; i++ {
				fmt.Fprintf(&b, " x%d^2 - 1;\n", i)
			}
			_, err := NewTotalDegree(parse(t, b.String()), gammaTest, true, 1)
			if err != nil && len(err.Error()) > 200 {
				return fmt.Errorf("%d bytes: %.200s", len(err.Error()), err)
			}
			return err
		}, "total degree (3*2^1999) is above"},
		{"path out of range", func() error {
			h, _ := NewTotalDegree(family(t, "katsura", 3), gammaTest, true, 1)
			_, err := Track(h, Options{}, 8, 0)
			return err
		}, "out of range"},
	}
	for _, c := range cases {
		err := c.run()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one that says %q", c.name, err, c.want)
		}
	}
}

// TestNearBranchPoint: path 855 of katsura15's total-degree homotopy with
// mdgen track's default gamma (seed 1) passes within 8.5e-7 of a branch
// point at t = 0.136 (every component's Padé pole at that distance); its
// steps there are below 2^-20 tau, and it failed ("step below the
// minimum") before the smaller minimum before the end zone (minStep).
// It must end regular at every precision, with the same endpoint.
func TestNearBranchPoint(t *testing.T) {
	f := family(t, "katsura", 15)
	h, err := NewTotalDegree(f, complex(-0.26663418029230684, 0.9637978075819895), true, 1)
	if err != nil {
		t.Fatal(err)
	}
	var ends [][]complex128
	for _, prec := range []int{1, 2, 4} {
		run, err := Track(h, Options{Prec: prec, Workers: 1}, 854, 1)
		if err != nil {
			t.Fatal(err)
		}
		p := run.Paths[0]
		if p.Status != Regular {
			t.Fatalf("prec %d: path 855 %v (%s) at t = %v", prec, p.Status, p.Reason, p.T)
		}
		end := make([]complex128, len(f.Vars))
		w := 2 * p.Prec
		for v := range end {
			end[v] = complex(p.X[v*w], p.X[v*w+p.Prec])
		}
		ends = append(ends, end)
	}
	for k := 1; k < len(ends); k++ {
		for v := range ends[0] {
			if d := cmplx.Abs(ends[k][v] - ends[0][v]); d > 1e-12*(1+cmplx.Abs(ends[0][v])) {
				t.Errorf("the endpoint at precision %d differs from 1 double's in %s by %.3g", []int{1, 2, 4}[k], f.Vars[v], d)
			}
		}
	}
}

// TestHighDegree: total-degree homotopies of high degree in projective
// coordinates. With one random chart for every path (before the aligned
// charts of Homotopy.Chart) a start point sat at 1/|sum_j c_j s_j| times
// the scale of the roots of unity and the Jacobian's rows of an equation
// of degree d at that to the power d - 1: x^20 - 2, y^2 - 1 ended 2 paths
// singular with condition numbers of 1e8 at simple roots (161 steps, 79
// rejected), x^40 - 2 36 of 80, and the dense system of degrees 8, 8 2 of
// 64.
// Every path must end regular, at distinct solutions, in 4 steps a path
// for x^d - 2 (as in affine coordinates).
func TestHighDegree(t *testing.T) {
	cases := []struct {
		name  string
		sys   *poly.System
		paths int
		steps int // the most steps of the run (0: not checked)
	}{
		{"x^20", parse(t, "2\n x^20 - 2;\n y^2 - 1;\n"), 40, 4 * 40},
		{"x^40", parse(t, "2\n x^40 - 2;\n y^2 - 1;\n"), 80, 4 * 80},
		{"dense8,8", dense([]int{8, 8}, 1), 64, 0},
	}
	for _, c := range cases {
		for _, prec := range []int{2, 0} {
			t.Run(fmt.Sprintf("%s/prec%d", c.name, prec), func(t *testing.T) {
				run := trackAll(t, c.sys, Options{Prec: prec, Workers: 2})
				s := run.Summary
				if s.Regular != c.paths || s.Distinct != c.paths {
					t.Errorf("%+v, want %d regular and distinct", s, c.paths)
				}
				steps := 0
				for _, p := range run.Paths {
					steps += p.Steps
					if p.Status != Regular {
						t.Logf("path %d %v (cond %.3g, %d steps, %s)", p.Index+1, p.Status, p.Cond, p.Steps, p.Reason)
					}
				}
				if c.steps > 0 && steps > c.steps {
					t.Errorf("%d steps, want at most %d", steps, c.steps)
				}
				checkEndpoints(t, c.sys, run)
			})
		}
	}
}

// TestChart: each path's chart holds its start point, within 45 degrees
// of its normal, and is a function of the seed and the path alone.
func TestChart(t *testing.T) {
	f := family(t, "cyclic", 5)
	h, err := NewTotalDegree(f, gammaTest, true, 7)
	if err != nil {
		t.Fatal(err)
	}
	n1 := float64(len(f.Vars) + 1)
	for _, i := range []int64{0, 1, 17, 119} {
		a, rhs := h.Chart(i)
		s := h.Start(i)
		var dot complex128
		for j := range a {
			dot += a[j] * s[j]
			if math.Abs(cmplx.Abs(a[j])-1) > 1e-15 || math.Abs(cmplx.Abs(s[j])-1) > 1e-15 {
				t.Errorf("path %d: |a_%d| = %v, |s_%d| = %v, want 1", i+1, j, cmplx.Abs(a[j]), j, cmplx.Abs(s[j]))
			}
		}
		if cmplx.Abs(dot-rhs) > 1e-14 || cmplx.Abs(rhs) < n1/math.Sqrt2 {
			t.Errorf("path %d: a.s = %v, rhs %v (|rhs| at least %g)", i+1, dot, rhs, n1/math.Sqrt2)
		}
		b, rhs2 := h.Chart(i)
		if !slices.Equal(a, b) || rhs != rhs2 {
			t.Errorf("path %d: two charts", i+1)
		}
	}
	a0, _ := h.Chart(3)
	h2, _ := NewTotalDegree(f, gammaTest, true, 8)
	a1, _ := h2.Chart(3)
	if slices.Equal(a0, a1) || h.Hash() == h2.Hash() {
		t.Error("the chart does not depend on the seed, or the hash does not")
	}
}

// TestPrecisions: the precisions a run may make solvers of, for fixed and
// automatic precisions (SeriesPrec below, the Ladder between).
func TestPrecisions(t *testing.T) {
	for _, c := range []struct {
		o    Options
		want []int
	}{
		{Options{Prec: 1}, []int{1}},
		{Options{Prec: 2}, []int{1, 2}},
		{Options{Prec: 4}, []int{1, 2, 4}},
		{Options{Prec: 8}, []int{2, 4, 8}},
		{Options{Prec: 16}, []int{4, 8, 16}},
		{Options{}, []int{1, 2, 4, 8}},
		{Options{MinPrec: 4, MaxPrec: 16}, []int{1, 2, 4, 8, 16}},
	} {
		got, err := c.o.Precisions()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%+v: %v, want %v", c.o, got, c.want)
		}
	}
	if _, err := (Options{Prec: 7}).Precisions(); err == nil {
		t.Error("7 doubles: no error")
	}
}
