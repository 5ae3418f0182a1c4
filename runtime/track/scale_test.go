package track

import (
	"fmt"
	"math"
	"math/big"
	"math/cmplx"
	"testing"

	"github.com/mdgen/mdgen/stager/poly"
)

// TestBadlyScaled: systems whose coefficients or solutions are many orders
// of magnitude from 1 are tracked in scaled unknowns (poly.FindScaling)
// and every finite solution is found regular, in the user's unknowns, in
// projective and affine coordinates; unscaled, the tracker lost them (x =
// 1e8 called at infinity, paths of the degree-6 system joining and ending
// singular with condition numbers of 1e8).
func TestBadlyScaled(t *testing.T) {
	for _, c := range []struct {
		name, src string
		regular   int
		x0        []float64 // |x_0| of the regular solutions, each within 1e-20
	}{
		{"x-1e8", "2\n x - 1e8;\n y^2 - 3;\n", 2, []float64{1e8}},
		{"x^2-1e12", "2\n x^2 - 1e12;\n x*y - 1e-6;\n", 2, []float64{1e6}},
		// u = 1e-4 x solves u = (1 - u^2)^3: six regular roots of size 1e4.
		{"degree 6", "2\n 1e-8*x^2 + y - 1;\n x - 1e4*y^3;\n", 6, nil},
	} {
		for _, projective := range []bool{true, false} {
			h, err := NewTotalDegree(parse(t, c.src), gammaTest, projective, 1)
			if err != nil {
				t.Fatal(err)
			}
			if h.Scaling == nil {
				t.Fatalf("%s: not scaled", c.name)
			}
			run, err := Track(h, Options{Prec: 2, Workers: 2}, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			if s := run.Summary; s.Regular != c.regular || s.Distinct != c.regular || s.Failed != 0 || s.Singular != 0 {
				t.Errorf("%s (projective %v): %+v, want %d regular and distinct", c.name, projective, s, c.regular)
			}
			for _, p := range run.Paths {
				if p.Status != Regular {
					continue
				}
				if c.x0 != nil {
					if got := math.Hypot(p.X[0], p.X[2]); math.Abs(got-c.x0[0]) > 1e-20*c.x0[0] {
						t.Errorf("%s: path %d: |x_0| = %v, want %v", c.name, p.Index+1, got, c.x0[0])
					}
				}
				// The residual of the user's equations at X, in float64 from
				// the leading limbs, relative to the size of their terms.
				x, y := complex(p.X[0], p.X[2]), complex(p.X[4], p.X[6])
				var r1, r2 complex128
				switch c.name {
				case "x-1e8":
					r1, r2 = (x-1e8)/1e8, (y*y-3)/3
				case "x^2-1e12":
					r1, r2 = (x*x-1e12)/1e12, (x*y-1e-6)/1e-6
				default:
					r1, r2 = 1e-8*x*x+y-1, (x-1e4*y*y*y)/1e4
				}
				if math.Hypot(real(r1), imag(r1)) > 1e-14 || math.Hypot(real(r2), imag(r2)) > 1e-14 {
					t.Errorf("%s: path %d: X = %v, %v does not solve the system (%v, %v)", c.name, p.Index+1, x, y, r1, r2)
				}
			}
		}
	}
	// Well-scaled systems are tracked as they are.
	if h, err := NewTotalDegree(family(t, "katsura", 5), gammaTest, true, 1); err != nil || h.Scaling != nil {
		t.Errorf("katsura5 scaled: %v, %v", h.Scaling, err)
	}
}

// TestRestartWithoutCheckpoint: a path that fails at its first precision
// before any point kept half its digits starts over at the next precision
// from tau = 1 (its series of the lower precision was kept and crashed the
// next precision's tracker, whose levels do not have it). Wilkinson's
// polynomial prod (x - k), k = 1..30, expanded (coefficients up to 30!),
// tracked unscaled: its paths leave the start at a speed of 1e30 and fail
// there at every precision.
func TestRestartWithoutCheckpoint(t *testing.T) {
	st := &pathState{tau: 0.5, steps: 7, rejected: 2, haveSeries: true, sn: 1, series: []float64{1}, started: true, x: []float64{9, 9, 9, 9}, xn: 2}
	st.restore([]complex128{complex(0.6, 0.8)}, 2)
	if st.tau != 1 || st.haveSeries || st.series != nil || st.started || st.steps != 7 || st.rejected != 2 || st.xn != 2 ||
		len(st.x) != 4 || st.x[0] != 0.6 || st.x[1] != 0 || st.x[2] != 0.8 || st.x[3] != 0 {
		t.Errorf("restore without a checkpoint: %+v", st)
	}
	const deg = 30
	c := []*big.Int{big.NewInt(1)}
	for k := int64(1); k <= deg; k++ {
		n := make([]*big.Int, len(c)+1)
		for i := range n {
			n[i] = new(big.Int)
		}
		for i, a := range c {
			n[i].Add(n[i], a)
			n[i+1].Sub(n[i+1], new(big.Int).Mul(big.NewInt(k), a))
		}
		c = n
	}
	src := "1\n"
	for i, a := range c {
		src += fmt.Sprintf(" %+d*x^%d", a, deg-i)
	}
	// Unscaled: poly.FindScaling now scales the equation alone (its
	// second choice), and the paths leave their start.
	defer func(f func(*poly.System) (poly.Scaling, bool)) { findScaling = f }(findScaling)
	findScaling = func(*poly.System) (poly.Scaling, bool) { return poly.Scaling{}, false }
	h, err := NewTotalDegree(parse(t, src+";\n"), gammaTest, true, 1)
	if err != nil {
		t.Fatal(err)
	}
	if h.Scaling != nil {
		t.Fatalf("scaled: %+v", h.Scaling)
	}
	run, err := Track(h, Options{Workers: 2, MaxPrec: 4}, 0, 4)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range run.Paths {
		if p.Prec != 4 || (p.Status == Failed && p.Reason == "") {
			t.Errorf("path %d: %v at %d doubles (%q)", p.Index+1, p.Status, p.Prec, p.Reason)
		}
	}
}

// TestLargeFiniteSolutions: finite regular solutions whose coordinates are
// hundreds to thousands (z = 590 and 8,300 here; PHCpack's chemequ,
// chandra5 and 6, ipp) are found, in projective coordinates with any
// seed's charts: x_0 falls like a power of tau long before it settles at
// its small limit, and goesToInfinity's first rule ended these paths at
// infinity (all 12 paths of the second system, 2 of the first with the
// charts of seed 1). The tiny constant keeps them unscaled.
func TestLargeFiniteSolutions(t *testing.T) {
	for _, c := range []string{"1e5", "1e7"} {
		src := "3\n x^2 - 2*y + 1e-10;\n y^2 - z;\n x*y*z - " + c + ";\n"
		for seed := uint64(1); seed <= 3; seed++ {
			h, err := NewTotalDegree(parse(t, src), gammaTest, true, seed)
			if err != nil {
				t.Fatal(err)
			}
			if h.Scaling != nil {
				t.Fatalf("%s: scaled", c)
			}
			run, err := Track(h, Options{Prec: 2, Workers: 2}, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			if s := run.Summary; s.Regular != 7 || s.Distinct != 7 || s.Infinite != 5 || s.Failed != 0 {
				t.Errorf("xyz = %s, seed %d: %+v, want 7 regular and distinct, 5 at infinity", c, seed, s)
			}
		}
	}
}

// TestOriginRegular: a regular solution at the origin is regular (Newton's
// relative update, over max|x| -> 0, never met its tolerance there, and the
// end was called singular: PHCpack's rediff3, virasoro, cpdm5).
func TestOriginRegular(t *testing.T) {
	for _, c := range []struct {
		src     string
		regular int
	}{
		{"2\n x^2 + x + y;\n y^2 - 2*y;\n", 4},
		{"3\n x^2 + y - 3*z;\n y^2 + z + x;\n z^2 - x*y + 2*x;\n", 8},
	} {
		for _, prec := range []int{1, 2, 0} {
			h, err := NewTotalDegree(parse(t, c.src), gammaTest, true, 1)
			if err != nil {
				t.Fatal(err)
			}
			run, err := Track(h, Options{Prec: prec, Workers: 2}, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			origin := 0
			for _, p := range run.Paths {
				if p.Status == Regular && maxMag(p.X, 2*p.Prec) < 1e-10 {
					origin++
				}
			}
			if s := run.Summary; s.Regular != c.regular || s.Distinct != c.regular || origin != 1 {
				t.Errorf("%q at prec %d: %+v, %d regular at the origin; want %d regular, 1 at the origin", c.src, prec, s, origin, c.regular)
			}
		}
	}
}

// TestMidPathInfinity: PHCpack's eco6 (the economics problem: 16 finite
// solutions of 162 total-degree paths) has a path, whatever the gamma and
// the charts (the seeds), that heads to infinity in the middle of the
// homotopy (x_0 below 1e-12 of the other coordinates at t = 0.6 to 0.7)
// and stops there at every precision: at infinity (midPathInfX0), not
// failed; every finite solution is still found.
func TestMidPathInfinity(t *testing.T) {
	src := `6
 (x1 + x1*x2 + x2*x3 + x3*x4 + x4*x5)*x6 - 1;
 (x2 + x1*x3 + x2*x4 + x3*x5)*x6 - 2;
 (x3 + x1*x4 + x2*x5)*x6 - 3;
 (x4 + x1*x5)*x6 - 4;
 x5*x6 - 5;
 x1 + x2 + x3 + x4 + x5 + 1;
`
	seeds := []uint64{1, 2}
	if testing.Short() {
		seeds = seeds[:1]
	}
	for _, seed := range seeds {
		h, err := NewTotalDegree(parse(t, src), gammaTest, true, seed)
		if err != nil {
			t.Fatal(err)
		}
		run, err := Track(h, Options{Workers: 2}, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if s := run.Summary; s.Regular != 16 || s.Distinct != 16 || s.Infinite != 146 || s.Failed != 0 {
			t.Errorf("seed %d: %+v, want 16 regular and distinct, 146 at infinity, none failed", seed, s)
		}
	}
}

// TestExpandedPower: (x + y + 1)^20 = 1 with x = y, expanded (coefficients
// up to 1.3e8, that no diagonal scaling brings near 1): its 20 regular
// solutions x = (w - 1)/2, w^20 = 1, two of them real. Tracked unscaled,
// every path left its start at a speed of about 1e8 and 10 of the 20
// ended as 5 false double roots; the equation is now scaled alone
// (poly.FindScaling's second choice).
func TestExpandedPower(t *testing.T) {
	h, err := NewTotalDegree(parse(t, "2\n(x + y + 1)^20 - 1;\n x - y;\n"), gammaTest, true, 1)
	if err != nil {
		t.Fatal(err)
	}
	if h.Scaling == nil || h.Scaling.Eq[0] == 0 {
		t.Fatalf("the first equation is not scaled: %+v", h.Scaling)
	}
	run, err := Track(h, Options{Workers: 2}, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if s := run.Summary; s.Regular != 20 || s.Distinct != 20 || s.Real != 2 || s.Failed != 0 || s.Singular != 0 {
		t.Fatalf("%+v, want 20 regular, distinct, 2 real", s)
	}
	for _, p := range run.Paths {
		w := 2 * p.Prec
		x, y := complex(p.X[0], p.X[p.Prec]), complex(p.X[w], p.X[w+p.Prec])
		if d := cmplx.Abs(2*x + 1); math.Abs(d-1) > 1e-14 || cmplx.Abs(x-y) > 1e-14 {
			t.Errorf("path %d: x = %v, y = %v: |2x + 1| = %v", p.Index+1, x, y, d)
		}
	}
}
