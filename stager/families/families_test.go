package families

import (
	"fmt"
	"github.com/mdgen/mdgen/internal/phcdemo"
	"math"
	"math/big"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mdgen/mdgen/stager"
	"github.com/mdgen/mdgen/stager/poly"
	"github.com/mdgen/mdgen/stager/solutions"
)

// famCases are family members small enough to round-trip quickly.
var famCases = []string{
	"p1", "p3:complex,seed=4",
	"cyclic2", "cyclic5", "cyclic7", "cyclic5:newton", "cyclic6:newton,complex,seed=9",
	"katsura1", "katsura5", "katsura8", "katsura4:newton,complex",
	"chandra1", "chandra4", "chandra12", "chandra5:c=t", "chandra7:c=0.51234", "chandra3:newton,seed=2",
	"noon2", "noon3", "noon6:c=3/2", "noon4:newton,complex",
	"eco2", "eco3", "eco6", "eco9", "eco5:newton",
	"monomial1", "monomial8", "monomial5:degree=1", "monomial6:degree=12,complex", "monomial7:columns=2,degree=5",
	"monomial1:columns=2,degree=3,complex,seed=5", "monomial9:columns=2,complex",
	"monomial10:balanced,degree=4", "monomial6:balanced,complex,columns=2",
}

func famBuild(t *testing.T, spec string) *Instance {
	t.Helper()
	inst, err := System(spec, Options{Seed: 1})
	if err != nil {
		t.Fatalf("%s: %v", spec, err)
	}
	return inst
}

// famCheckInvariants checks the System invariants a generated system must
// keep (those Parse guarantees).
func famCheckInvariants(s *poly.System) error {
	seen := map[string]bool{}
	for _, v := range s.Vars {
		if seen[v] || v == s.Param || v == "" {
			return fmt.Errorf("variable %q repeated or the parameter", v)
		}
		seen[v] = true
	}
	trimmed := func(c poly.Series) bool { return len(c) == 0 || !c[len(c)-1].IsZero() }
	for i := range s.Polys {
		p := &s.Polys[i]
		if !trimmed(p.Const) {
			return fmt.Errorf("poly %d: constant not trimmed", i)
		}
		keys := map[string]bool{}
		for j, m := range p.Terms {
			if len(m.Coef) == 0 || !trimmed(m.Coef) {
				return fmt.Errorf("poly %d term %d: zero or untrimmed coefficient", i, j)
			}
			if len(m.Vars) == 0 || len(m.Vars) != len(m.Pows) {
				return fmt.Errorf("poly %d term %d: bad Vars/Pows", i, j)
			}
			for k := range m.Vars {
				if m.Vars[k] < 0 || m.Vars[k] >= len(s.Vars) || k > 0 && m.Vars[k] <= m.Vars[k-1] || m.Pows[k] < 1 {
					return fmt.Errorf("poly %d term %d: Vars %v Pows %v", i, j, m.Vars, m.Pows)
				}
			}
			key := fmt.Sprint(m.Vars, m.Pows)
			if keys[key] {
				return fmt.Errorf("poly %d: exponents %s twice", i, key)
			}
			keys[key] = true
		}
	}
	return nil
}

func famSeriesEqual(a, b poly.Series) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if a[k].Re.Cmp(&b[k].Re) != 0 || a[k].Im.Cmp(&b[k].Im) != 0 {
			return false
		}
	}
	return true
}

// famEqual compares two systems term by term (Source aside).
func famEqual(a, b *poly.System) error {
	if !slices.Equal(a.Vars, b.Vars) || a.Param != b.Param || len(a.Polys) != len(b.Polys) {
		return fmt.Errorf("vars %v/%q/%d polys != %v/%q/%d", a.Vars, a.Param, len(a.Polys), b.Vars, b.Param, len(b.Polys))
	}
	for i := range a.Polys {
		p, q := &a.Polys[i], &b.Polys[i]
		if !famSeriesEqual(p.Const, q.Const) || len(p.Terms) != len(q.Terms) {
			return fmt.Errorf("poly %d: constants or term counts differ (%d, %d terms)", i, len(p.Terms), len(q.Terms))
		}
		for j := range p.Terms {
			m, n := &p.Terms[j], &q.Terms[j]
			if !slices.Equal(m.Vars, n.Vars) || !slices.Equal(m.Pows, n.Pows) || !famSeriesEqual(m.Coef, n.Coef) {
				return fmt.Errorf("poly %d term %d differs", i, j)
			}
		}
	}
	return nil
}

// famEqualAsSets compares two systems polynomial by polynomial, ignoring the
// order of the terms.
func famEqualAsSets(a, b *poly.System) error {
	if !slices.Equal(a.Vars, b.Vars) || a.Param != b.Param || len(a.Polys) != len(b.Polys) {
		return fmt.Errorf("vars %v/%q/%d polys != %v/%q/%d", a.Vars, a.Param, len(a.Polys), b.Vars, b.Param, len(b.Polys))
	}
	str := func(p *poly.Polynomial) []string {
		var out []string
		for _, m := range p.Terms {
			out = append(out, fmt.Sprint(m.Vars, m.Pows, famSeriesString(m.Coef)))
		}
		out = append(out, "const "+famSeriesString(p.Const))
		slices.Sort(out)
		return out
	}
	for i := range a.Polys {
		if x, y := str(&a.Polys[i]), str(&b.Polys[i]); !slices.Equal(x, y) {
			return fmt.Errorf("poly %d: %v != %v", i, x, y)
		}
	}
	return nil
}

func famSeriesString(s poly.Series) string {
	var parts []string
	for k := range s {
		parts = append(parts, s[k].Re.RatString()+"+"+s[k].Im.RatString()+"i")
	}
	return strings.Join(parts, ",")
}

// TestFamiliesRoundTrip: every family member keeps the System invariants and
// reads back from what `mdgen system` writes (Format, TITLE, solution list):
// the same system and the same start solutions.
func solRatEq(a, b *poly.Rational) bool { return a.Re.Cmp(&b.Re) == 0 && a.Im.Cmp(&b.Im) == 0 }

// solsEqual compares solutions exactly (as package solutions' tests do) (diagnostics aside); a series of
// degree 0 counts as none.
func solsEqual(a, b []solutions.Solution) error {
	if len(a) != len(b) {
		return fmt.Errorf("%d solutions != %d", len(a), len(b))
	}
	deg := func(s *solutions.Solution) int {
		if s.Series == nil || len(s.Series) == 0 {
			return 0
		}
		return len(s.Series[0]) - 1
	}
	for k := range a {
		x, y := &a[k], &b[k]
		if !solRatEq(&x.T, &y.T) || x.M != y.M || !slices.Equal(x.Names, y.Names) || len(x.Values) != len(y.Values) {
			return fmt.Errorf("solution %d: t, m or names differ: %v %d %v / %v %d %v", k+1, x.T, x.M, x.Names, y.T, y.M, y.Names)
		}
		for c := range x.Values {
			if !solRatEq(&x.Values[c], &y.Values[c]) {
				return fmt.Errorf("solution %d: %s = %s + %s i != %s + %s i", k+1, x.Names[c],
					x.Values[c].Re.RatString(), x.Values[c].Im.RatString(), y.Values[c].Re.RatString(), y.Values[c].Im.RatString())
			}
		}
		if deg(x) != deg(y) {
			return fmt.Errorf("solution %d: series of degree %d != %d", k+1, deg(x), deg(y))
		}
		if deg(x) > 0 {
			for c := range x.Series {
				for d := range x.Series[c] {
					if !solRatEq(&x.Series[c][d], &y.Series[c][d]) {
						return fmt.Errorf("solution %d: %s t^%d differs", k+1, x.Names[c], d)
					}
				}
			}
		}
	}
	return nil
}

func TestFamiliesRoundTrip(t *testing.T) {
	for _, spec := range famCases {
		t.Run(spec, func(t *testing.T) {
			inst := famBuild(t, spec)
			s := inst.System
			if err := famCheckInvariants(s); err != nil {
				t.Fatal(err)
			}
			out := poly.Format(s)
			s2, err := poly.Parse("formatted", out, poly.ParseOptions{Param: s.Param})
			if err != nil {
				t.Fatalf("reparse: %v\n%s", err, out)
			}
			if err := famEqual(s, s2); err != nil {
				t.Fatalf("Parse(Format(s)) != s: %v\n%s", err, out)
			}
			// What mdgen system writes: the system, a title, the start list.
			file := slices.Clone(out)
			file = append(file, "\nTITLE : "+inst.Title+"\n\n"...)
			if inst.Exact != nil && len(inst.Start) == 1 {
				inst.Start[0].Series = inst.Exact
			}
			file = append(file, solutions.Format(inst.Start, solutions.FormatOptions{})...)
			s3, sols, err := solutions.ParseWithSystem("file", file, poly.ParseOptions{Param: s.Param})
			if err != nil {
				t.Fatalf("ParseWithSystem: %v\n%s", err, file)
			}
			if err := famEqual(s, s3); err != nil {
				t.Fatalf("system with solutions: %v", err)
			}
			if len(inst.Start) == 0 {
				if sols != nil {
					t.Fatalf("solutions %v from an empty list", sols)
				}
				return
			}
			if err := solsEqual(inst.Start, sols); err != nil {
				t.Fatalf("start solutions: %v\n%s", err, file)
			}
		})
	}
}

// TestFamiliesStartAreZeros: the known start solutions are exact zeros at
// t = 0.
func TestFamiliesStartAreZeros(t *testing.T) {
	withStart := 0
	for _, spec := range famCases {
		inst := famBuild(t, spec)
		for k, sol := range inst.Start {
			withStart++
			if !sol.T.IsZero() || sol.M != 1 || !slices.Equal(sol.Names, inst.System.Vars) {
				t.Errorf("%s: start %d: T %v M %d names %v", spec, k, sol.T, sol.M, sol.Names)
			}
			for i, v := range inst.System.EvalAt(sol.Values, &sol.T) {
				if !v.IsZero() {
					t.Errorf("%s: start %d: f_%d(x(0)) = %s + %s i, want 0", spec, k, i+1, v.Re.RatString(), v.Im.RatString())
				}
			}
		}
	}
	if withStart < 10 {
		t.Fatalf("only %d start solutions checked", withStart)
	}
}

// TestFamiliesNewtonHomotopy: f(x) - (1-t) f(z) is f at t = 1 and the terms
// are f's.
func TestFamiliesNewtonHomotopy(t *testing.T) {
	for _, c := range []struct {
		spec string
		f    *poly.System
	}{
		{"cyclic5:newton,complex,seed=3", Cyclic(5)},
		{"katsura4:newton,seed=3", Katsura(4)},
		{"noon3:newton,seed=3", Noon(3, big.NewRat(11, 10))},
		{"eco6:newton,complex,seed=3", Eco(6)},
		{"chandra4:newton,seed=3", Chandrasekhar(4, big.NewRat(33, 64))},
	} {
		h := famBuild(t, c.spec).System
		if h.Param != "t" || h.MaxCoefDegree() != 1 {
			t.Errorf("%s: param %q degree %d", c.spec, h.Param, h.MaxCoefDegree())
		}
		x := RandomPoint(len(c.f.Vars), 77, true)
		var one poly.Rational
		one.Re.SetInt64(1)
		got, want := h.EvalAt(x, &one), c.f.EvalAt(x, nil)
		for i := range got {
			if got[i].Re.Cmp(&want[i].Re) != 0 || got[i].Im.Cmp(&want[i].Im) != 0 {
				t.Errorf("%s: h(x, 1) != f(x) in polynomial %d", c.spec, i+1)
			}
		}
		for i := range h.Polys {
			if len(h.Polys[i].Terms) != len(c.f.Polys[i].Terms) {
				t.Errorf("%s: polynomial %d has %d terms, f has %d", c.spec, i+1, len(h.Polys[i].Terms), len(c.f.Polys[i].Terms))
			}
		}
	}
	// A variable named t: the parameter is t0.
	s := &poly.System{Vars: []string{"t"}, Polys: []poly.Polynomial{{Terms: []poly.Monomial{{Coef: famInt(1), Vars: []int{0}, Pows: []int{2}}}, Const: famInt(-2)}}}
	h, err := NewtonHomotopy(s, RandomPoint(1, 1, false))
	if err != nil || h.Param != "t0" {
		t.Fatalf("param %q, %v", h.Param, err)
	}
	if _, err := NewtonHomotopy(h, RandomPoint(1, 1, false)); err == nil {
		t.Error("Newton homotopy of a homotopy: no error")
	}
	if _, err := NewtonHomotopy(s, RandomPoint(2, 1, false)); err == nil {
		t.Error("Newton homotopy with a wrong dimension: no error")
	}
}

// TestMonomialExactSeries: x_i(t) = exp(c_i t) (c_i^k/k!) satisfies the
// monomial homotopies mod t^(d+1), exactly.
func TestMonomialExactSeries(t *testing.T) {
	for _, n := range []int{1, 2, 5, 9} {
		for _, cols := range []int{1, 2} {
			for _, complex := range []bool{false, true} {
				for _, d := range []int{1, 5, 12} {
					inst, err := Build("monomial", Options{N: n, Degree: d, Columns: cols, Complex: complex, Seed: int64(n + d)})
					if err != nil {
						t.Fatal(err)
					}
					s := inst.System
					if len(inst.Exact) != n || len(inst.Exact[0]) != d+1 {
						t.Fatalf("exact series %d x %d", len(inst.Exact), len(inst.Exact[0]))
					}
					res := s.EvalSeries(inst.Exact, d)
					for i := range res {
						for k := range res[i] {
							if !res[i][k].IsZero() {
								t.Fatalf("n=%d cols=%d complex=%v d=%d: f_%d has t^%d coefficient %s + %s i", n, cols, complex, d, i+1, k,
									res[i][k].Re.RatString(), res[i][k].Im.RatString())
							}
						}
					}
					// One order more: the truncation shows (c_i != 0).
					res = s.EvalSeries(MonomialSolution(MonomialRates(n, int64(n+d), complex), d+1), d+1)
					if res[0][d+1].IsZero() {
						t.Fatalf("n=%d d=%d: residual at t^%d is zero: b is not truncated", n, d, d+1)
					}
					// Shape: n equations, cols monomials each (one for n = 1), constant of degree d.
					for i, p := range s.Polys {
						want := cols
						if cols == 2 && n == 1 {
							want = 1 // x1 + x1 = 2 x1
						}
						if len(p.Terms) != want || len(p.Const) != d+1 || len(p.Terms[0].Vars) != i+1 {
							t.Fatalf("n=%d cols=%d: polynomial %d has %d terms, constant of %d coefficients", n, cols, i+1, len(p.Terms), len(p.Const))
						}
					}
				}
			}
		}
	}
	// The series themselves: c^k/k!, computed independently.
	rates := MonomialRates(4, 3, false)
	sol := MonomialSolution(rates, 6)
	for i := range rates {
		var want, fact big.Rat
		want.SetInt64(1)
		for k := 0; k <= 6; k++ {
			if k > 0 {
				want.Mul(&want, &rates[i].Re)
				fact.SetInt64(int64(k))
				want.Quo(&want, &fact)
			}
			if sol[i][k].Re.Cmp(&want) != 0 || !sol[i][k].IsReal() {
				t.Fatalf("x_%d t^%d = %s, want %s", i+1, k, sol[i][k].Re.RatString(), want.RatString())
			}
		}
		// |c| in [1, 2] with denominator 8
		var a big.Rat
		a.Abs(&rates[i].Re)
		if a.Cmp(big.NewRat(1, 1)) < 0 || a.Cmp(big.NewRat(2, 1)) > 0 || new(big.Int).Mod(big.NewInt(8), a.Denom()).Sign() != 0 {
			t.Errorf("rate %s", rates[i].Re.RatString())
		}
	}
	for _, c := range MonomialRates(20, 9, true) {
		var m, u big.Rat
		m.Mul(&c.Re, &c.Re)
		u.Mul(&c.Im, &c.Im)
		m.Add(&m, &u)
		if m.Cmp(big.NewRat(1, 1)) != 0 {
			t.Errorf("complex rate %s + %s i not on the unit circle", c.Re.RatString(), c.Im.RatString())
		}
	}
}

// TestFamilyCounts: equations and monomials as the literature has them.
func TestFamilyCounts(t *testing.T) {
	count := func(s *poly.System) (terms, consts int) {
		for _, p := range s.Polys {
			terms += len(p.Terms)
			if len(p.Const) > 0 {
				consts++
			}
		}
		return
	}
	for n := 2; n <= 9; n++ {
		s := Cyclic(n)
		terms, consts := count(s)
		if len(s.Polys) != n || len(s.Vars) != n || terms != n*(n-1)+1 || consts != 1 {
			t.Errorf("cyclic %d: %d equations, %d monomials, %d constants", n, len(s.Polys), terms, consts)
		}
		for k := 0; k < n-1; k++ {
			for _, m := range s.Polys[k].Terms {
				if len(m.Vars) != k+1 {
					t.Errorf("cyclic %d: equation %d has a monomial of degree %d", n, k+1, len(m.Vars))
				}
			}
		}
	}
	for n := 1; n <= 9; n++ {
		s := Chandrasekhar(n, big.NewRat(33, 64))
		terms, consts := count(s)
		if len(s.Polys) != n || terms != n*n+n || consts != n {
			t.Errorf("chandra %d: %d equations, %d monomials (want n^2+n = %d), %d constants", n, len(s.Polys), terms, n*n+n, consts)
		}
		st := Chandrasekhar(n, nil)
		if st.Param != "t" || st.MaxCoefDegree() != 1 {
			t.Errorf("chandra %d c=t: param %q degree %d", n, st.Param, st.MaxCoefDegree())
		}
	}
	for n := 1; n <= 9; n++ {
		s := Katsura(n)
		terms, _ := count(s)
		last := s.Polys[n]
		// total degree 2^n: n quadratic equations and one linear one
		quad := 0
		for _, p := range s.Polys[:n] {
			deg := 0
			for _, m := range p.Terms {
				d := 0
				for _, pw := range m.Pows {
					d += pw
				}
				deg = max(deg, d)
			}
			if deg == 2 {
				quad++
			}
		}
		if len(s.Polys) != n+1 || len(s.Vars) != n+1 || len(last.Terms) != n+1 || quad != n || terms < n+1 {
			t.Errorf("katsura %d: %d equations in %d variables, %d quadratic, linear one with %d terms", n, len(s.Polys), len(s.Vars), quad, len(last.Terms))
		}
	}
	for n := 2; n <= 9; n++ {
		s := Noon(n, big.NewRat(11, 10))
		terms, consts := count(s)
		if len(s.Polys) != n || terms != n*n || consts != n {
			t.Errorf("noon %d: %d equations, %d monomials (want n^2), %d constants", n, len(s.Polys), terms, consts)
		}
		e := Eco(n)
		terms, consts = count(e)
		// (n-k) monomials for k = 1..n-2, 1 for x_{n-1} x_n, n-1 in the linear one
		want := (n-2)*(n+1)/2 + 1 + (n - 1)
		if len(e.Polys) != n || terms != want || consts != n {
			t.Errorf("eco %d: %d equations, %d monomials (want %d), %d constants", n, len(e.Polys), terms, want, consts)
		}
	}
}

// TestFamiliesMatchDemoFiles: cyclic5, noon3 and eco6 are PHCpack's demo
// files (same names; terms in another order).
func TestFamiliesMatchDemoFiles(t *testing.T) {
	workspace := filepath.Join("..", "..", "..", "shared", "systems", "phcpack-demo")
	dir := phcdemo.Dir(workspace)
	if dir == "" {
		t.Skipf("SKIPPED: PHCpack demo files not found at %s (../shared is not part of the product) or %s", workspace, phcdemo.Debian)
	}
	for _, c := range []struct {
		file string
		s    *poly.System
	}{
		{"cyclic5", Cyclic(5)},
		{"noon3", Noon(3, big.NewRat(11, 10))},
		{"eco6", Eco(6)},
	} {
		demo, err := poly.ParseFile(filepath.Join(dir, c.file), poly.ParseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := famEqualAsSets(c.s, demo); err != nil {
			t.Errorf("%s: %v", c.file, err)
		}
	}
}

func TestFamilySpecs(t *testing.T) {
	for _, c := range []struct {
		arg string
		ok  bool
	}{
		{"cyclic5", true}, {"cyclic", true}, {"p1", true}, {"p2:seed=3", true}, {"cyclic5:newton", true},
		{"cyclic5:bogus", true}, {"monomial64:degree=32,columns=2", true},
		{"cyclic5.txt", false}, {"../cyclic5", false}, {"foo5", false}, {"", false}, {"p", false}, {"p4", false}, {"Cyclic5", false},
	} {
		if got := IsSpec(c.arg); got != c.ok {
			t.Errorf("IsSpec(%q) = %v, want %v", c.arg, got, c.ok)
		}
	}
	name, opt, err := ApplySpec("monomial64:degree=32,columns=2,complex,seed=7", Options{Seed: 1})
	if err != nil || name != "monomial" || opt != (Options{N: 64, Degree: 32, Columns: 2, Complex: true, Seed: 7}) {
		t.Errorf("monomial spec: %s %+v %v", name, opt, err)
	}
	name, opt, err = ApplySpec("chandra8:c=t", Options{Seed: 5, Complex: true})
	if err != nil || name != "chandra" || opt != (Options{N: 8, C: "t", Seed: 5, Complex: true}) {
		t.Errorf("chandra spec: %s %+v %v", name, opt, err)
	}
	name, opt, err = ApplySpec("cyclic:n=6,newton,complex=false", Options{Complex: true})
	if err != nil || name != "cyclic" || opt != (Options{N: 6, Newton: true}) {
		t.Errorf("cyclic spec: %s %+v %v", name, opt, err)
	}
	for _, bad := range []string{"cyclic5:c=1", "cyclic5:bogus", "cyclic5x", "monomial:degree=x", "cyclic5:newton=maybe", "chandra:c", "zzz", "p1:n=x"} {
		if _, _, err := ApplySpec(bad, Options{}); err == nil {
			t.Errorf("ApplySpec(%q): no error", bad)
		}
	}
	for _, bad := range []string{"cyclic1", "cyclic999", "monomial4:columns=3", "monomial4:degree=-1", "chandra4:c=t,newton", "chandra4:c=x", "noon3:c=1/0", "p1:n=3", "katsura0", "cyclic:n=0", "monomial3:degree=0", "monomial3:d=1025"} {
		if _, err := System(bad, Options{}); err == nil {
			t.Errorf("System(%q): no error", bad)
		}
	}
	if _, err := Build("monomial", Options{Newton: true}); err == nil {
		t.Error("monomial with newton: no error")
	}
	// The canonical spec names the same system.
	for _, spec := range famCases {
		inst := famBuild(t, spec)
		again, err := System(inst.Spec, Options{Seed: 99})
		if err != nil {
			t.Fatalf("%s -> %s: %v", spec, inst.Spec, err)
		}
		if again.Spec != inst.Spec {
			t.Errorf("spec %s -> %s -> %s", spec, inst.Spec, again.Spec)
		}
		if spec != "p1" && spec != "p3:complex,seed=4" {
			if err := famEqual(inst.System, again.System); err != nil {
				t.Errorf("%s -> %s: %v", spec, inst.Spec, err)
			}
		}
	}
	if got := famBuild(t, "cyclic7:newton,seed=3").Spec; got != "cyclic7:newton,seed=3" {
		t.Errorf("spec %q", got)
	}
	if got := famBuild(t, "cyclic7:seed=3").Spec; got != "cyclic7" {
		t.Errorf("spec %q", got)
	}
	// p1 from the registry is BenchmarkSystem.
	a, _ := BenchmarkSystemComplex("p2", 3)
	b, err := System("p2:complex,seed=3", Options{})
	if err != nil || famEqual(a, b.System) != nil {
		t.Errorf("p2 from the registry differs from BenchmarkSystemComplex: %v", err)
	}
	if fs := All(); len(fs) < 9 || fs[0].Name != "p1" {
		t.Errorf("Families() = %d", len(fs))
	}
}

// TestBalanceRates: balancing only flips signs, and keeps every partial sum
// of real rates in [-2, 2] (random signs do not, at n = 256, seed 1).
func TestBalanceRates(t *testing.T) {
	drawn := MonomialRates(256, 1, false)
	rates := MonomialRates(256, 1, false)
	BalanceRates(rates)
	var s, a, b big.Rat
	two := big.NewRat(2, 1)
	worstDrawn := new(big.Rat)
	for i := range rates {
		a.Abs(&rates[i].Re)
		b.Abs(&drawn[i].Re)
		if a.Cmp(&b) != 0 {
			t.Fatalf("rate %d: %s, drawn %s: not a sign flip", i+1, rates[i].Re.RatString(), drawn[i].Re.RatString())
		}
		s.Add(&s, &rates[i].Re)
		if a.Abs(&s).Cmp(two) > 0 {
			t.Fatalf("partial sum %d = %s outside [-2, 2]", i+1, s.RatString())
		}
	}
	s.SetInt64(0)
	for i := range drawn {
		s.Add(&s, &drawn[i].Re)
		if a.Abs(&s).Cmp(worstDrawn) > 0 {
			worstDrawn.Set(&a)
		}
	}
	if worstDrawn.Cmp(two) <= 0 {
		t.Errorf("random signs: partial sums within [-2, 2] (largest %s): the test no longer shows what balancing changes", worstDrawn.RatString())
	}
	inst, err := System("monomial256:balanced,degree=3", Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if inst.Spec != "monomial256:degree=3,balanced,seed=1" {
		t.Errorf("spec %q", inst.Spec)
	}
	if got := inst.Exact[5][1].Re; got.Cmp(&rates[5].Re) != 0 {
		t.Errorf("exact series of x6: t^1 coefficient %s, want the balanced rate %s", got.RatString(), rates[5].Re.RatString())
	}
}

// chandrasekharRef is Chandrasekhar as first written (one allocation per
// variable list, a Rat product per coefficient, one goroutine): the
// reference of TestChandrasekharSameSystem.
func chandrasekharRef(n int, c *big.Rat) *poly.System {
	s := &poly.System{Vars: famVars("H", n, false), Polys: make([]poly.Polynomial, n)}
	if c == nil {
		s.Param = "t"
	}
	twoN := int64(2 * n)
	var q big.Rat
	for i := 1; i <= n; i++ {
		p := &s.Polys[i-1]
		p.Terms = append(p.Terms, poly.Monomial{Coef: famInt(twoN), Vars: []int{i - 1}, Pows: []int{1}})
		for j := 1; j <= n; j++ {
			q.SetFrac64(int64(-i), int64(i+j))
			var coef poly.Series
			if c == nil {
				coef = make(poly.Series, 2)
				coef[1].Re.Set(&q)
			} else {
				coef = make(poly.Series, 1)
				coef[0].Re.Mul(&q, c)
			}
			if coef.Trim() == nil {
				continue
			}
			var m poly.Monomial
			switch {
			case j < i:
				m = poly.Monomial{Coef: coef, Vars: []int{j - 1, i - 1}, Pows: []int{1, 1}}
			case j == i:
				m = poly.Monomial{Coef: coef, Vars: []int{i - 1}, Pows: []int{2}}
			default:
				m = poly.Monomial{Coef: coef, Vars: []int{i - 1, j - 1}, Pows: []int{1, 1}}
			}
			p.Terms = append(p.Terms, m)
		}
		p.Const = famInt(-twoN)
	}
	return s
}

// TestChandrasekharSameSystem: the parallel generator with shared arrays
// and int64 coefficients makes the reference's system, term by term and
// value by value, for c = 33/64, a c too large for the int64 path, c = 0
// (no quadratic terms) and c = t; and Stage makes the same Plan of both.
func TestChandrasekharSameSystem(t *testing.T) {
	big1 := new(big.Rat).SetFrac(new(big.Int).Lsh(big.NewInt(3), 70), big.NewInt(7))
	// -2^63 is an int64 whose negation is not (it once took the int64 path).
	minInt64 := new(big.Rat).SetInt64(math.MinInt64)
	for _, c := range []*big.Rat{big.NewRat(33, 64), big.NewRat(-5, 3), big1, minInt64, new(big.Rat), nil} {
		for _, n := range []int{1, 2, 7, 130} {
			got, want := Chandrasekhar(n, c), chandrasekharRef(n, c)
			name := fmt.Sprintf("n=%d c=%v", n, c)
			if !slices.Equal(got.Vars, want.Vars) || got.Param != want.Param || len(got.Polys) != len(want.Polys) {
				t.Fatalf("%s: variables %v %q, want %v %q", name, got.Vars, got.Param, want.Vars, want.Param)
			}
			sameSeries := func(a, b poly.Series) bool {
				if len(a) != len(b) {
					return false
				}
				for k := range a {
					if a[k].Re.Cmp(&b[k].Re) != 0 || a[k].Im.Cmp(&b[k].Im) != 0 {
						return false
					}
				}
				return true
			}
			for i := range got.Polys {
				g, w := &got.Polys[i], &want.Polys[i]
				if !sameSeries(g.Const, w.Const) || len(g.Terms) != len(w.Terms) {
					t.Fatalf("%s: polynomial %d: constant or term count differ (%d, want %d terms)", name, i+1, len(g.Terms), len(w.Terms))
				}
				for j := range g.Terms {
					a, b := &g.Terms[j], &w.Terms[j]
					if !slices.Equal(a.Vars, b.Vars) || !slices.Equal(a.Pows, b.Pows) || !sameSeries(a.Coef, b.Coef) {
						t.Fatalf("%s: polynomial %d term %d: %v %v, want %v %v", name, i+1, j+1, a.Vars, a.Pows, b.Vars, b.Pows)
					}
				}
			}
			if n <= 7 {
				pg, err1 := stager.Stage(got, 2)
				pw, err2 := stager.Stage(want, 2)
				if err1 != nil || err2 != nil || pg.Hash() != pw.Hash() {
					t.Fatalf("%s: plans differ (%v, %v)", name, err1, err2)
				}
			}
		}
	}
}

// TestMonomialDegreeLimit: a degree whose b(t) would hold a coefficient
// below the smallest normal double is refused with the largest degree the
// rates can pose, and that degree builds.
func TestMonomialDegreeLimit(t *testing.T) {
	_, err := Build("monomial", Options{N: 16, Degree: 128, Seed: 1})
	if err == nil || !strings.Contains(err.Error(), "the largest degree that can be posed is 120") {
		t.Fatalf("monomial16, degree 128: %v; want a refusal naming degree 120", err)
	}
	if _, err := Build("monomial", Options{N: 16, Degree: 120, Seed: 1}); err != nil {
		t.Fatalf("monomial16, degree 120: %v", err)
	}
}
