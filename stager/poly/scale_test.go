package poly

import (
	"math"
	"slices"
	"testing"
)

// TestFindScaling: badly scaled systems get the exponents that bring their
// coefficients to about 1, their scaled forms have the scaled solutions,
// and well-scaled systems are left alone.
func TestFindScaling(t *testing.T) {
	for _, c := range []struct {
		src   string
		scale bool
		x     []float64 // a solution of the original system (real), when checked
	}{
		{"2\n x - 1e8;\n y^2 - 3;\n", true, []float64{1e8, math.Sqrt(3)}},
		{"2\n x^2 - 1e12;\n x*y - 1e-6;\n", true, []float64{1e6, 1e-12}},
		{"2\n 1e-8*x^2 + y - 1;\n x - 1e4*y^3;\n", true, nil},
		{"2\n x^2 + 2*y - 1;\n x*y - 3;\n", false, nil},
		{"3\n x + 2*y + 2*z - 1;\n x^2 + 2*y^2 + 2*z^2 - x;\n 2*x*y + 2*y*z - y;\n", false, nil},
		{"2\n 1e-30*x^2 + 1e30*y^2;\n x*y + 1e-30;\n", true, nil},
		// An equation of large coefficients only: scaled as a whole.
		{"1\n 1.0E+8*x**2 - 4.0E+8;\n", true, []float64{2}},
		// A tiny perturbation that no units reconcile with the rest.
		{"3\n x^2 - 2*y + 1e-10;\n y^2 - z;\n x*y*z - 1e5;\n", false, nil},
	} {
		s, err := Parse("s.txt", []byte(c.src), ParseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		sc, ok := FindScaling(s)
		if ok != c.scale {
			t.Errorf("%q: scale %v (%+v), want %v", c.src, ok, sc, c.scale)
			continue
		}
		if !ok {
			continue
		}
		y := sc.Apply(s)
		if err := y.CheckDoubleRange(); err != nil {
			t.Errorf("%q: %v", c.src, err)
		}
		// Every scaled coefficient within 2^12 of 1 for these systems.
		for i := range y.Polys {
			p := &y.Polys[i]
			check := func(ser Series) {
				if len(ser) > 0 {
					if e := log2Mag(&ser[0]); math.Abs(e) > 12 {
						t.Errorf("%q: scaled coefficient %s (2^%.1f)", c.src, ser[0].Text(), e)
					}
				}
			}
			check(p.Const)
			for _, m := range p.Terms {
				check(m.Coef)
			}
		}
		if c.x == nil {
			continue
		}
		// y_j = 2^-Var[j] x_j solves the scaled system.
		for i := range y.Polys {
			p := &y.Polys[i]
			v := 0.0
			if len(p.Const) > 0 {
				v, _ = p.Const[0].Re.Float64()
			}
			size := math.Abs(v)
			for _, m := range p.Terms {
				f, _ := m.Coef[0].Re.Float64()
				for k, j := range m.Vars {
					f *= math.Pow(math.Ldexp(c.x[j], -sc.Var[j]), float64(m.Pows[k]))
				}
				v += f
				size = max(size, math.Abs(f))
			}
			if math.Abs(v) > 1e-12*size {
				t.Errorf("%q: scaled equation %d at the scaled solution: %g (terms up to %g)", c.src, i+1, v, size)
			}
		}
	}
}

// TestEquationScaling: an equation whose largest coefficient no diagonal
// scaling brings near 1 (the spread of an expanded power) is scaled alone,
// its largest coefficient into [1, 2), the unknowns left as they are;
// below 2^26, or where a coefficient would leave the double range, or with
// a series parameter, nothing is.
func TestEquationScaling(t *testing.T) {
	for _, c := range []struct {
		src string
		eq  []int // nil: no scaling
	}{
		// 20!/(7! 7! 6!) = 133,024,320, 2^26.99.
		{"2\n(x + y + 1)^20 - 1;\n x - y;\n", []int{-26, 0}},
		{"2\n x - y;\n(x + y + 1)^30 - 1;\n", []int{0, -42}},
		// 10!/(4! 3! 3!) = 4,200: within 2^26.
		{"2\n(x + y + 1)^10 - 1;\n x - y;\n", nil},
		// Scaled down by 2^-996, the 1e-300 would leave the double range:
		// that equation is left alone, the other scaled.
		{"1\n 1e300*x^2 + 1e-300;\n", nil},
		{"2\n 1e300*x^2 + 1e-300*y;\n(x + y + 1)^20 - 1;\n", []int{0, -26}},
		{"2\n x^2 - 1;\n y - 1;\n", nil},
	} {
		s, err := Parse("s.txt", []byte(c.src), ParseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		sc, ok := equationScaling(s)
		if ok != (c.eq != nil) || ok && !slices.Equal(sc.Eq, c.eq) {
			t.Errorf("%q: %v %+v, want %v", c.src, ok, sc, c.eq)
			continue
		}
		if !ok {
			continue
		}
		if slices.ContainsFunc(sc.Var, func(e int) bool { return e != 0 }) {
			t.Errorf("%q: unknowns scaled: %v", c.src, sc.Var)
		}
		if _, fit := fitScaling(s); fit {
			t.Errorf("%q: the fit scales it too: not a case of the second choice", c.src)
		}
		if got, _ := FindScaling(s); !slices.Equal(got.Eq, sc.Eq) {
			t.Errorf("%q: FindScaling %+v, want the equations' %+v", c.src, got, sc)
		}
		y := sc.Apply(s)
		for i := range y.Polys {
			hi := math.Inf(-1)
			for _, m := range y.Polys[i].Terms {
				hi = max(hi, log2Mag(&m.Coef[0]))
			}
			if sc.Eq[i] != 0 && !(hi >= 0 && hi < 1) {
				t.Errorf("%q: equation %d's largest coefficient is 2^%.2f after scaling", c.src, i+1, hi)
			}
		}
	}
	p, err := Parse("p.txt", []byte("2\n(x + y + 1)^20 - t;\n x - y;\n"), ParseOptions{Param: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := equationScaling(p); ok {
		t.Error("a system with a series parameter was scaled")
	}
}
