package poly

import (
	"errors"
	"fmt"
	"github.com/mdgen/mdgen/internal/phcdemo"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// demoWorkspace holds PHCpack's demo systems in the workspace (read in
// place, never copied into the repository); phcdemo falls back to
// Debian's phcpack package.
const demoWorkspace = "../../../shared/systems/phcpack-demo"

func demoFiles(tb testing.TB) []string {
	r := phcdemo.Files(demoWorkspace)
	if len(r) == 0 {
		tb.Skipf("no PHCpack demo files under %s or %s", demoWorkspace, phcdemo.Debian)
	}
	return r
}

// rat parses "a", "a/b" or "a+bi"-free real rationals for expectations.
func rat(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic("bad rational " + s)
	}
	return r
}

func cplx(re, im string) Rational {
	var c Rational
	c.Re.Set(rat(re))
	c.Im.Set(rat(im))
	return c
}

func ratEqual(a, b *Rational) bool { return a.Re.Cmp(&b.Re) == 0 && a.Im.Cmp(&b.Im) == 0 }

func seriesEqual(a, b Series) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !ratEqual(&a[i], &b[i]) {
			return false
		}
	}
	return true
}

// systemsEqual compares everything but Source.
func systemsEqual(a, b *System) error {
	if !slices.Equal(a.Vars, b.Vars) {
		return fmt.Errorf("vars %v != %v", a.Vars, b.Vars)
	}
	if a.Param != b.Param {
		return fmt.Errorf("param %q != %q", a.Param, b.Param)
	}
	if len(a.Polys) != len(b.Polys) {
		return fmt.Errorf("%d polys != %d", len(a.Polys), len(b.Polys))
	}
	for i := range a.Polys {
		p, q := &a.Polys[i], &b.Polys[i]
		if !seriesEqual(p.Const, q.Const) {
			return fmt.Errorf("poly %d: const %s != %s", i, seriesString(p.Const), seriesString(q.Const))
		}
		if len(p.Terms) != len(q.Terms) {
			return fmt.Errorf("poly %d: %d terms != %d", i, len(p.Terms), len(q.Terms))
		}
		for j := range p.Terms {
			m, n := &p.Terms[j], &q.Terms[j]
			if !slices.Equal(m.Vars, n.Vars) || !slices.Equal(m.Pows, n.Pows) || !seriesEqual(m.Coef, n.Coef) {
				return fmt.Errorf("poly %d term %d: %s%v^%v != %s%v^%v", i, j,
					seriesString(m.Coef), m.Vars, m.Pows, seriesString(n.Coef), n.Vars, n.Pows)
			}
		}
	}
	return nil
}

func seriesString(s Series) string {
	var parts []string
	for k := range s {
		parts = append(parts, fmt.Sprintf("(%s,%s)", s[k].Re.RatString(), s[k].Im.RatString()))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// checkInvariants checks what the System type promises.
func checkInvariants(s *System) error {
	seen := map[string]bool{}
	for _, v := range s.Vars {
		if seen[v] || v == s.Param {
			return fmt.Errorf("variable %q twice", v)
		}
		seen[v] = true
	}
	trimmed := func(c Series) bool { return len(c) == 0 || !c[len(c)-1].IsZero() }
	// Every coefficient rounds to a finite, normal double (or is 0).
	inRange := func(c Series) error {
		for k := range c {
			for _, r := range []*big.Rat{&c[k].Re, &c[k].Im} {
				if f, _ := r.Float64(); r.Sign() != 0 && (math.IsInf(f, 0) || math.Abs(f) < 0x1p-1022) {
					return fmt.Errorf("coefficient %s outside the range of normal doubles", r.RatString())
				}
			}
		}
		return nil
	}
	for i := range s.Polys {
		p := &s.Polys[i]
		if !trimmed(p.Const) {
			return fmt.Errorf("poly %d: const not trimmed", i)
		}
		if err := inRange(p.Const); err != nil {
			return fmt.Errorf("poly %d: const: %v", i, err)
		}
		exps := map[string]bool{}
		for j := range p.Terms {
			m := &p.Terms[j]
			if len(m.Coef) == 0 || !trimmed(m.Coef) {
				return fmt.Errorf("poly %d term %d: zero or untrimmed coefficient", i, j)
			}
			if err := inRange(m.Coef); err != nil {
				return fmt.Errorf("poly %d term %d: %v", i, j, err)
			}
			if s.Param == "" && len(m.Coef) != 1 {
				return fmt.Errorf("poly %d term %d: series without a parameter", i, j)
			}
			if len(m.Vars) == 0 || len(m.Vars) != len(m.Pows) {
				return fmt.Errorf("poly %d term %d: bad shape", i, j)
			}
			for k, v := range m.Vars {
				if v < 0 || v >= len(s.Vars) || k > 0 && v <= m.Vars[k-1] || m.Pows[k] < 1 {
					return fmt.Errorf("poly %d term %d: vars %v pows %v", i, j, m.Vars, m.Pows)
				}
			}
			key := fmt.Sprint(m.Vars, m.Pows)
			if exps[key] {
				return fmt.Errorf("poly %d: monomial %s twice", i, key)
			}
			exps[key] = true
		}
	}
	return nil
}

// roundTrip checks Parse(Format(s)) == s with no options (the file says
// which variable is the parameter) and no warnings, and that naming the
// parameter changes nothing.
func roundTrip(s *System) error {
	out := Format(s)
	for _, opt := range []ParseOptions{{}, {Param: s.Param}} {
		s2, err := Parse("formatted", out, opt)
		if err != nil {
			return fmt.Errorf("reparse with %+v: %v\n%s", opt, err, out)
		}
		if err := systemsEqual(s, s2); err != nil {
			return fmt.Errorf("round trip with %+v: %v\n%s", opt, err, out)
		}
		if len(s2.Warnings) > 0 {
			return fmt.Errorf("round trip with %+v: warnings %v\n%s", opt, s2.Warnings, out)
		}
	}
	return nil
}

func mustParse(t *testing.T, src string, opt ParseOptions) *System {
	t.Helper()
	s, err := Parse("test", []byte(src), opt)
	if err != nil {
		t.Fatalf("Parse(%q): %v", src, err)
	}
	if err := checkInvariants(s); err != nil {
		t.Fatalf("Parse(%q): %v", src, err)
	}
	return s
}

// term finds the monomial with the given variables and powers ("x^2*y").
func findTerm(t *testing.T, s *System, poly int, mono string) Series {
	t.Helper()
	if mono == "1" {
		return s.Polys[poly].Const
	}
	var vars, pows []int
	for _, f := range strings.Split(mono, "*") {
		name, pow, _ := strings.Cut(f, "^")
		p := 1
		if pow != "" {
			fmt.Sscan(pow, &p)
		}
		v := slices.Index(s.Vars, name)
		if v < 0 {
			t.Fatalf("no variable %s in %v", name, s.Vars)
		}
		vars = append(vars, v)
		pows = append(pows, p)
	}
	for j := range s.Polys[poly].Terms {
		m := &s.Polys[poly].Terms[j]
		if slices.Equal(m.Vars, vars) && slices.Equal(m.Pows, pows) {
			return m.Coef
		}
	}
	t.Fatalf("poly %d has no monomial %s", poly, mono)
	return nil
}

func wantCoef(t *testing.T, s *System, poly int, mono string, want ...Rational) {
	t.Helper()
	got := findTerm(t, s, poly, mono)
	if !seriesEqual(got, Series(want)) {
		t.Errorf("poly %d, %s: coefficient %s, want %s", poly, mono, seriesString(got), seriesString(want))
	}
}

func re(s string) Rational { return cplx(s, "0") }

func TestParseDemoFiles(t *testing.T) {
	files := demoFiles(t)
	terms := map[string][]int{ // monomials (constants apart) per polynomial, counted by hand
		"katsura5": {7, 6, 6, 5, 5, 6},
		"cyclic5":  {5, 5, 5, 5, 1},
		"chandra4": {4, 4, 4, 4},
		"noon3":    {3, 3, 3},
		"eco6":     {5, 4, 3, 2, 1, 5},
	}
	for _, f := range files {
		name := filepath.Base(f)
		s, err := ParseFile(f, ParseOptions{})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if err := checkInvariants(s); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if s.Source != f {
			t.Errorf("%s: Source %q", name, s.Source)
		}
		if s.Param != "" {
			t.Errorf("%s: parameter %q, want none", name, s.Param)
		}
		if want, ok := terms[name]; ok {
			var got []int
			for _, p := range s.Polys {
				got = append(got, len(p.Terms))
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s: monomials per polynomial %v, want %v", name, got, want)
			}
		}
		if err := roundTrip(s); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestParseDemoFacts(t *testing.T) {
	demoFiles(t)
	read := func(name string, opt ParseOptions) *System {
		s, err := ParseFile(filepath.Join(phcdemo.Dir(demoWorkspace), name), opt)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	// katsura5: 6 equations in x y z t u v; t is an ordinary variable.
	k := read("katsura5", ParseOptions{})
	if len(k.Polys) != 6 || !slices.Equal(k.Vars, []string{"x", "y", "z", "t", "u", "v"}) || k.Param != "" {
		t.Errorf("katsura5: %d polys, vars %v, param %q", len(k.Polys), k.Vars, k.Param)
	}
	wantCoef(t, k, 0, "t^2", re("2"))
	wantCoef(t, k, 0, "v", re("-1"))
	wantCoef(t, k, 5, "1", re("-1"))
	if k.MaxCoefDegree() != 0 {
		t.Errorf("katsura5: MaxCoefDegree %d", k.MaxCoefDegree())
	}
	// Naming t as the parameter makes katsura5 5 unknowns with series.
	kt := read("katsura5", ParseOptions{Param: "t"})
	if kt.Param != "t" || !slices.Equal(kt.Vars, []string{"x", "y", "z", "u", "v"}) {
		t.Errorf("katsura5 with t: vars %v, param %q", kt.Vars, kt.Param)
	}
	wantCoef(t, kt, 0, "1", re("0"), re("0"), re("2")) // 2*t**2
	wantCoef(t, kt, 1, "z", re("0"), re("2"))          // 2*z*t
	// chandra4: 8*H1 - 0.51234*H1*(1 + (1/2)*H1 + ...) - 8, expanded exactly.
	c := read("chandra4", ParseOptions{})
	wantCoef(t, c, 0, "H1", re("374383/50000")) // 8 - 0.51234
	wantCoef(t, c, 0, "H1^2", re("-25617/100000"))
	wantCoef(t, c, 0, "H1*H2", re("-8539/50000")) // -0.51234/3
	wantCoef(t, c, 0, "1", re("-8"))
	// game4two: E-notation, 0.646954510E-01.
	g := read("game4two", ParseOptions{})
	if !slices.Equal(g.Vars, []string{"p3", "p2", "p4", "p1"}) {
		t.Errorf("game4two vars %v", g.Vars)
	}
	wantCoef(t, g, 1, "p3*p4", re("0.0646954510"))
	// ipp2: complex coefficients, polynomials over several lines.
	ip := read("ipp2", ParseOptions{})
	wantCoef(t, ip, 0, "1", cplx("-1.25830472585", "1.05384271933"))
	wantCoef(t, ip, 4, "z33", cplx("0.642935654806", "0.819555356316"))
	// virasoro: a product split across lines (2*x4*\nx5).
	v := read("virasoro", ParseOptions{})
	wantCoef(t, v, 2, "x4*x5", re("-2"))
	// fourbar: upper-case variables, order of first appearance.
	fb := read("fourbar", ParseOptions{})
	if !slices.Equal(fb.Vars, []string{"X1", "Y1", "Y2", "X2"}) {
		t.Errorf("fourbar vars %v", fb.Vars)
	}
}

func TestParseHomotopy(t *testing.T) {
	s, err := ParseFile("testdata/parse/homotopy.txt", ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := checkInvariants(s); err != nil {
		t.Fatal(err)
	}
	if s.Param != "t" || !slices.Equal(s.Vars, []string{"x", "y"}) {
		t.Fatalf("vars %v param %q", s.Vars, s.Param)
	}
	// (1-t)(x^2-1) + t(x^2+y^2-4) = x^2 + t*y^2 + (-1 - 3t)
	wantCoef(t, s, 0, "x^2", re("1"))
	wantCoef(t, s, 0, "y^2", re("0"), re("1"))
	wantCoef(t, s, 0, "1", re("-1"), re("-3"))
	if len(s.Polys[0].Terms) != 2 {
		t.Errorf("poly 0: %d terms", len(s.Polys[0].Terms))
	}
	// (1-t)(y-1) + t(x*y - 1/3) = (1 - t)*y + t*x*y + (-1 + 2/3 t)
	wantCoef(t, s, 1, "y", re("1"), re("-1"))
	wantCoef(t, s, 1, "x*y", re("0"), re("1"))
	wantCoef(t, s, 1, "1", re("-1"), re("2/3"))
	if s.MaxCoefDegree() != 1 {
		t.Errorf("MaxCoefDegree %d", s.MaxCoefDegree())
	}
	if err := roundTrip(s); err != nil {
		t.Error(err)
	}

	// A parameter with another name must be named.
	_, err = ParseFile("testdata/parse/homotopy_s.txt", ParseOptions{})
	wantErr(t, err, "testdata/parse/homotopy_s.txt:1:1: 2 polynomials in 3 variables: the extra variable is the series parameter, but t does not occur")
	s, err = ParseFile("testdata/parse/homotopy_s.txt", ParseOptions{Param: "s"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Param != "s" || !slices.Equal(s.Vars, []string{"x", "y"}) {
		t.Fatalf("vars %v param %q", s.Vars, s.Param)
	}
	wantCoef(t, s, 0, "1", re("0"), re("0"), cplx("-1", "-2"))
	wantCoef(t, s, 0, "y^2", re("0"), re("1"))
	wantCoef(t, s, 1, "x", re("0"), re("1"))
	wantCoef(t, s, 1, "1", re("1/4"))
	if err := roundTrip(s); err != nil {
		t.Error(err)
	}

	// Chandrasekhar with c = t.
	s, err = ParseFile("testdata/parse/chandra_t.txt", ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Param != "t" || len(s.Vars) != 3 {
		t.Fatalf("vars %v param %q", s.Vars, s.Param)
	}
	wantCoef(t, s, 0, "H1", re("6"), re("-1"))
	wantCoef(t, s, 0, "H1^2", re("0"), re("-1/2"))
	wantCoef(t, s, 2, "H3^2", re("0"), re("-1/2"))
	wantCoef(t, s, 2, "H1*H3", re("0"), re("-3/4"))
	if err := roundTrip(s); err != nil {
		t.Error(err)
	}

	// Equal counts: no parameter unless named; named, it must occur.
	s = mustParse(t, "2\n x*t - 1;\n x + t;\n", ParseOptions{})
	if s.Param != "" || len(s.Vars) != 2 {
		t.Errorf("vars %v param %q", s.Vars, s.Param)
	}
	s = mustParse(t, "2\n x*t - 1;\n x + t;\n", ParseOptions{Param: "t"})
	if s.Param != "t" || !slices.Equal(s.Vars, []string{"x"}) {
		t.Errorf("vars %v param %q", s.Vars, s.Param)
	}
	wantCoef(t, s, 0, "x", re("0"), re("1"))
	wantCoef(t, s, 1, "1", re("0"), re("1"))
	// A parameter that only multiplies constants still occurs.
	s = mustParse(t, "1\n x^2 - t^3;\n", ParseOptions{})
	wantCoef(t, s, 0, "1", re("0"), re("0"), re("0"), re("-1"))
	// Terms that cancel in t are trimmed.
	s = mustParse(t, "1\n x*(1 + t^2) - x*t^2 + t - t;\n", ParseOptions{})
	wantCoef(t, s, 0, "x", re("1"))
	if len(s.Polys[0].Const) != 0 {
		t.Errorf("const %s, want none", seriesString(s.Polys[0].Const))
	}
}

func TestParseExact(t *testing.T) {
	s := mustParse(t, "1\n 0.1*x + 1/3*x^2 + 1.0e-2*x^3 + 1E+3*x^4 + .5*x^5 + 3.*x^6 + 2.5e-3*x^7 + 0.51234E2*x^8 + 1e0*x^9 + 007*x^10 + 1/0.5*x^11 + 12345678901234567890123*x^12 - 1/3;\n", ParseOptions{})
	for _, c := range []struct{ mono, want string }{
		{"x", "1/10"}, {"x^2", "1/3"}, {"x^3", "1/100"}, {"x^4", "1000"}, {"x^5", "1/2"},
		{"x^6", "3"}, {"x^7", "1/400"}, {"x^8", "51.234"}, {"x^9", "1"}, {"x^10", "7"},
		{"x^11", "2"}, {"x^12", "12345678901234567890123"}, {"1", "-1/3"},
	} {
		wantCoef(t, s, 0, c.mono, re(c.want))
	}
	// 0.1 + 0.2 is 3/10 exactly, not the double nearest.
	s = mustParse(t, "1\n (0.1 + 0.2)*x - 0.3*x + 1;\n", ParseOptions{})
	if len(s.Polys[0].Terms) != 0 {
		t.Errorf("0.1 + 0.2 - 0.3 did not cancel: %d terms", len(s.Polys[0].Terms))
	}
	// Rationals divide left to right: 1/2/3 = 1/6; x/4 is x*(1/4).
	s = mustParse(t, "1\n 1/2/3*x + x^2/4 + (x + 1)/2;\n", ParseOptions{})
	wantCoef(t, s, 0, "x", re("2/3"))
	wantCoef(t, s, 0, "x^2", re("1/4"))
	wantCoef(t, s, 0, "1", re("1/2"))
}

func TestParseComplex(t *testing.T) {
	s := mustParse(t, "1\n (1.2 + 3*i)*x + 2*I*y + i*x^2 - i*y^2 + i^2*z + (1 - i)^2*z^2 + 4 - 0.5*i;\n", ParseOptions{})
	wantCoef(t, s, 0, "x", cplx("6/5", "3"))
	wantCoef(t, s, 0, "y", cplx("0", "2"))
	wantCoef(t, s, 0, "x^2", cplx("0", "1"))
	wantCoef(t, s, 0, "y^2", cplx("0", "-1"))
	wantCoef(t, s, 0, "z", re("-1"))
	wantCoef(t, s, 0, "z^2", cplx("0", "-2"))
	wantCoef(t, s, 0, "1", cplx("4", "-1/2"))
	if err := roundTrip(s); err != nil {
		t.Error(err)
	}
	// Identifiers that merely start with i or e are variables.
	s = mustParse(t, "3\n i1*e2 + I_x;\n i1 - e2 - I_x;\n i1;\n", ParseOptions{})
	if !slices.Equal(s.Vars, []string{"i1", "e2", "I_x"}) {
		t.Errorf("vars %v", s.Vars)
	}
}

func TestParseExpansion(t *testing.T) {
	s := mustParse(t, "2\n (x+y)^3;\n x;\n", ParseOptions{})
	want := map[string]string{"x^3": "1", "x^2*y": "3", "x*y^2": "3", "y^3": "1"}
	if len(s.Polys[0].Terms) != len(want) {
		t.Errorf("(x+y)^3: %d terms", len(s.Polys[0].Terms))
	}
	for m, c := range want {
		wantCoef(t, s, 0, m, re(c))
	}
	s = mustParse(t, "3\n (x - y)*(x + y) + y**2;\n ((x + 1)^2)**2 - x^4 - 4*x^3;\n -x^2 + (2*x)^0 + x^(1)*y;\n", ParseOptions{})
	if len(s.Polys[0].Terms) != 1 || len(s.Polys[0].Const) != 0 {
		t.Errorf("(x-y)(x+y)+y^2 = x^2: got %d terms", len(s.Polys[0].Terms))
	}
	wantCoef(t, s, 0, "x^2", re("1"))
	wantCoef(t, s, 1, "x^2", re("6"))
	wantCoef(t, s, 1, "x", re("4"))
	wantCoef(t, s, 1, "1", re("1"))
	wantCoef(t, s, 2, "x^2", re("-1"))
	wantCoef(t, s, 2, "x*y", re("1"))
	wantCoef(t, s, 2, "1", re("1"))
	// Terms keep the order of their first appearance; variables too.
	s = mustParse(t, "3\n b*a + a + b^2;\n c - a;\n c;\n", ParseOptions{})
	if !slices.Equal(s.Vars, []string{"b", "a", "c"}) {
		t.Errorf("vars %v", s.Vars)
	}
	p := s.Polys[0]
	if len(p.Terms) != 3 || !slices.Equal(p.Terms[0].Vars, []int{0, 1}) || !slices.Equal(p.Terms[1].Vars, []int{1}) || !slices.Equal(p.Terms[2].Pows, []int{2}) {
		t.Errorf("terms %+v", p.Terms)
	}
	// A variable whose terms cancel still counts (PHCpack's symbol table
	// keeps it) and survives a round trip.
	s = mustParse(t, "2\n x - x + y;\n y;\n", ParseOptions{})
	if !slices.Equal(s.Vars, []string{"x", "y"}) {
		t.Errorf("vars %v", s.Vars)
	}
	if err := roundTrip(s); err != nil {
		t.Error(err)
	}
	// A larger expansion: (x1 + ... + x6)^8 has C(13,5) = 1287 terms.
	s = mustParse(t, "1\n (x1 + x2 + x3 + x4 + x5 + x6)^8;\n", ParseOptions{})
	if n := len(s.Polys[0].Terms); n != 1287 {
		t.Errorf("(x1+...+x6)^8: %d terms, want 1287", n)
	}
	wantCoef(t, s, 0, "x1*x2*x3*x4*x5^2*x6^2", re("10080")) // 8!/(2!2!)
}

// wantErr checks that err is an ErrorList whose first error prints as want
// (a prefix: file:line:col: the start of the reason).
func wantErr(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil {
		t.Errorf("no error, want %q", want)
		return
	}
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Errorf("error %v (%T) is not a *ParseError", err, err)
		return
	}
	if !strings.HasPrefix(pe.Error(), want) {
		t.Errorf("error\n\t%s\nwant\n\t%s...", pe.Error(), want)
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct {
		src   string
		param string
		want  string // file:line:col: reason prefix
	}{
		// The first line.
		{"", "", "bad:1:1: empty file"},
		{"x + y;", "", "bad:1:1: expected the number of polynomials"},
		{"0\n", "", "bad:1:1: empty system: 0 polynomials"},
		{"\n  0\n", "", "bad:2:3: empty system"},
		{"2 2 2\n x;\n y;\n", "", `bad:1:5: unexpected "2" on the first line`},
		{"1 x;\n", "", `bad:1:3: unexpected "x;" on the first line`},
		{"99999999999\n", "", "bad:1:1: number of polynomials 99999999999 too large"},
		// Unknown and reserved symbols (e and E are variables: TestParseVariableE).
		{"1\n x + $y;\n", "", "bad:2:6: unexpected character '$'"},
		{"1\n x + é;\n", "", "bad:2:6: unexpected character 'é'"},
		{"1\n _x;\n", "", "bad:2:2: unexpected character '_'"},
		{"1\n 2e*x;\n", "", `bad:2:2: malformed number "2e": missing exponent digits`},
		{"1\n x - y : 2;\n", "", `bad:2:8: unexpected character ':'`},
		// Missing ';'.
		{"1\n x + y", "", "bad:2:7: missing ';' at the end of polynomial 1 (end of file)"},
		{"1\n x + y\n\n", "", "bad:2:7: missing ';' at the end of polynomial 1 (end of file)"},
		{"1\n x + ", "", "bad:2:5: unexpected end of file in polynomial 1"},
		{"2\n x + y\n x - y;\n", "", "bad:2:7: missing ';' at the end of polynomial 1"},
		{"2\n x*y - 1\n (x + 1)*y;\n", "", "bad:2:9: missing ';' at the end of polynomial 1"},
		// Fewer polynomials than declared.
		{"3\n x + y;\n x - y;\n", "", "bad:4:1: expected 3 polynomials (line 1), found 2"},
		{"3\n x + y;\n x - y;\n\nTITLE : two only\n", "", `bad:5:7: unexpected character ':' (polynomial 3 of 3: fewer polynomials than declared on line 1?)`},
		{"3\n x + y;\n x - y;\nThe end\n", "", `bad:4:5: missing operator before identifier end (implicit products are not allowed: write '*') (polynomial 3 of 3`},
		// More polynomials than declared: a complete polynomial in known
		// variables right after the last one.
		{"1\n x + y;\n x - y;\n", "", "bad:3:2: more polynomials than the 1 declared on line 1"},
		{"1\n x - 1; 2*x;", "", "bad:2:9: more polynomials than the 1 declared on line 1"},
		// Malformed numbers.
		{"1\n 1.2.3*x;\n", "", `bad:2:2: malformed number "1.2.3": unexpected '.'`},
		{"1\n 2e*x;\n", "", `bad:2:2: malformed number "2e": missing exponent digits`},
		{"1\n 2E+*x;\n", "", `bad:2:2: malformed number "2E": missing exponent digits`},
		{"1\n 2.5D-3*x;\n", "", `bad:2:2: malformed number "2.5D-3": exponent letter D is not supported, write E`},
		{"1\n 1_0*x;\n", "", `bad:2:2: malformed number "1_0"`},
		{"1\n x + .;\n", "", `bad:2:6: unexpected character '.'`},
		{"1\n 1e100000*x;\n", "", "bad:2:2: number 1e100000: exponent out of range"},
		// Implicit products and brackets.
		{"1\n 2x + 1;\n", "", "bad:2:3: missing operator before identifier x (implicit products are not allowed"},
		{"1\n x y;\n", "", "bad:2:4: missing operator before identifier y"},
		{"1\n 3 i;\n", "", "bad:2:4: missing operator before imaginary unit i"},
		{"1\n (x+1)(x-1);\n", "", `bad:2:7: missing operator before "("`},
		{"1\n (x + 1;\n", "", "bad:2:8: missing ')' to close the '(' at 2:2"},
		{"1\n (x + 1", "", "bad:2:8: missing ')' to close the '(' at 2:2 (end of file)"},
		{"1\n x + 1);\n", "", "bad:2:7: unmatched ')'"},
		{"1\n x + * y;\n", "", `bad:2:6: unexpected "*": expected a term`},
		{"1\n x + - y;\n", "", `bad:2:6: unexpected "-": expected a term`},
		{"1\n ;\n", "", "bad:2:2: unexpected ';': expected a term"},
		{"1\n x^2^3;\n", "", `bad:2:5: unexpected "^"`},
		{"1\n " + strings.Repeat("(", 1001) + "x" + strings.Repeat(")", 1001) + ";\n", "", "bad:2:1002: parentheses nested too deeply"},
		// Exponents.
		{"1\n x^70000;\n", "", "bad:2:4: exponent too large (at most 65536)"},
		{"1\n x^99999999999999999999999;\n", "", "bad:2:4: exponent too large"},
		{"1\n x^40000*x^40000;\n", "", "bad:2:9: exponent too large"},
		{"1\n (x^300)^300;\n", "", "bad:2:9: exponent too large"},
		{"1\n x^2.5;\n", "", "bad:2:4: exponent 2.5 is not an integer"},
		{"1\n x^1e2;\n", "", "bad:2:4: exponent 1e2 is not an integer"},
		{"1\n x^-1;\n", "", "bad:2:4: negative exponent"},
		{"1\n x**(-1);\n", "", "bad:2:6: negative exponent"},
		{"1\n x^y;\n", "", "bad:2:4: expected an exponent, found identifier y"},
		{"1\n x^(2;\n", "", "bad:2:6: expected ')' to close the '(' at 2:4, found \";\""},
		// Expansions too large.
		{"1\n (x + y + z + u + v + w + a + b)^40;\n", "", "bad:2:33: expansion too large"},
		{"1\n (1 + x)^65536;\n", "", "bad:2:9: expansion too large"},
		{"1\n (10^10000)^100*x;\n", "", "bad:2:12: coefficient too large"},
		{"1\n ((1+i)*7^1000)^1000*x;\n", "", "bad:2:16: coefficient too large"},
		{"1\n ((1+i)*536870911)^2340*x;\n", "", "bad:2:19: coefficient too large"},
		{"1\n 1" + strings.Repeat("0", 20000) + "*x;\n", "", "bad:2:2: number too large"},
		// Division.
		{"1\n x/0;\n", "", "bad:2:4: division by zero"},
		{"1\n 5/0.0*x;\n", "", "bad:2:4: division by zero"},
		{"1\n x/y;\n", "", "bad:2:4: division by identifier y: only division by a number literal is allowed"},
		{"1\n x/(2);\n", "", `bad:2:4: division by "(": only division by a number literal`},
		// Variable counts and the series parameter.
		{"2 3\n x + y;\n x - y;\n", "", "bad:1:3: line 1 declares 3 variables, but the polynomials use 2 (x y)"},
		{"2\n x + y + z;\n x - y;\n", "", "bad:1:1: 2 polynomials in 3 variables: the extra variable is the series parameter, but t does not occur"},
		{"2\n x + y;\n x - y;\n", "s", "bad:1:1: series parameter s does not occur in the polynomials (variables: x y)"},
		{"1\n t^65536*x + t^65535*y + t^65534*z + t^65533*u + t^65532*v + t^65531*w + t^65530*a + t^65529*b + t^65528*c;\n", "t", "bad:1:1: series coefficients too large"},
	} {
		// The hostile cases are bounded by the parser's work limits; their
		// cost is measured by the scale tests' allocation bounds, not here.
		_, err := Parse("bad", []byte(c.src), ParseOptions{Param: c.param})
		wantErr(t, err, c.want)
	}
}

func TestParseErrorList(t *testing.T) {
	// Errors in separate polynomials are all reported, in file order.
	src := "4\n x + $;\n y^-1;\n x*y;\n 2x;\n"
	_, err := Parse("multi", []byte(src), ParseOptions{})
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("error %T, want ErrorList", err)
	}
	want := []string{
		"multi:2:6: unexpected character '$'",
		"multi:3:4: negative exponent",
		"multi:5:3: missing operator before identifier x",
	}
	if len(list) != len(want) {
		t.Fatalf("%d errors, want %d:\n%v", len(list), len(want), err)
	}
	for i, w := range want {
		if !strings.HasPrefix(list[i].Error(), w) {
			t.Errorf("error %d: %s, want %s...", i, list[i], w)
		}
	}
	if !strings.Contains(err.Error(), "\n") {
		t.Errorf("ErrorList.Error joins lines: %q", err.Error())
	}
	// A missing ';' on a new line resumes at that line.
	_, err = Parse("multi", []byte("3\n x + y\n x - y;\n x*y - 1\n"), ParseOptions{})
	if !errors.As(err, &list) || len(list) != 2 || list[0].Line != 2 || list[1].Line != 4 {
		t.Errorf("missing ';' twice: %v", err)
	}
	// At most 10 errors.
	src = "20\n" + strings.Repeat(" x + $;\n", 20)
	_, err = Parse("many", []byte(src), ParseOptions{})
	if !errors.As(err, &list) || len(list) != 10 {
		t.Errorf("want 10 errors, got %v", err)
	}
	// Line and column fields.
	var pe *ParseError
	if !errors.As(err, &pe) || pe.File != "many" || pe.Line != 2 || pe.Col != 6 {
		t.Errorf("first error %+v", pe)
	}
}

func TestParseTrailingText(t *testing.T) {
	// Text after the last polynomial is ignored, whatever it is.
	for _, tail := range []string{
		"",
		"\nTITLE : a title; with a semicolon\n",
		"\nx : 1.0 0.0\n",
		"\nTHE SOLUTIONS :\n2 1\n====\n",
		" y;\n",    // a new variable: not a polynomial of this system
		"x + ;\n",  // not a complete polynomial
		"x + 1\n",  // no ';'
		"\n\n x\n", // no ';'
		"$%^&\x00\xff",
	} {
		src := "1\n x - 1;" + tail
		s, err := Parse("tail", []byte(src), ParseOptions{})
		if err != nil {
			t.Errorf("%q: %v", src, err)
			continue
		}
		wantCoef(t, s, 0, "x", re("1"))
	}
	// CR LF line ends and tabs.
	s := mustParse(t, "2 2\r\n\tx + y;\r\n\tx - y;\r\n", ParseOptions{})
	if len(s.Vars) != 2 {
		t.Errorf("vars %v", s.Vars)
	}
	// A polynomial may follow the header on the next line only; zero
	// polynomials are allowed.
	s = mustParse(t, "2\n0;\n x;", ParseOptions{})
	if len(s.Polys[0].Terms) != 0 || len(s.Polys[0].Const) != 0 {
		t.Errorf("0; is not the zero polynomial")
	}
}

func TestParseFormat(t *testing.T) {
	s := mustParse(t, "2\n (1-t)*(x^2 - 1) + t*(x^2 + y^2 - 4*i);\n x*y - t^2*(3/7 + x) + 0.1*t - 5*i*x + (2/3 - i)*y;\n", ParseOptions{})
	got := string(Format(s))
	want := "2 3\n" +
		"x^2 + t*y^2 + (-1 + (1 - 4*i)*t);\n" +
		"x*y + (-5*i - t^2)*x + (2/3 - i)*y + (1/10*t - 3/7*t^2);\n"
	if got != want {
		t.Errorf("Format:\n%s\nwant\n%s", got, want)
	}
	if s.String() != got {
		t.Errorf("String differs from Format")
	}
	// Variables in an order the terms would not show, an unused variable
	// and a parameter that occurs nowhere: a zero term lists them.
	var one Rational
	one.Re.SetInt64(1)
	sys := &System{
		Vars:  []string{"a", "b", "c"},
		Param: "s",
		Polys: []Polynomial{
			{Terms: []Monomial{{Coef: Series{one}, Vars: []int{1}, Pows: []int{2}}}},
			{Const: Series{one}, Terms: []Monomial{{Coef: Series{one}, Vars: []int{0}, Pows: []int{1}}}},
		},
	}
	got = string(Format(sys))
	if want := "2 4\n0*a*b*c*s + b^2;\na + 1;\n\nSERIES PARAMETER : s\n"; got != want {
		t.Errorf("Format:\n%s\nwant\n%s", got, want)
	}
	if err := roundTrip(sys); err != nil {
		t.Error(err)
	}
	// Series coefficients without a named parameter are written in t.
	sys = &System{Vars: []string{"t"}, Polys: []Polynomial{{Const: Series{one, one}}}}
	if got := string(Format(sys)); got != "1 2\n0*t*t0 + (1 + t0);\n\nSERIES PARAMETER : t0\n" {
		t.Errorf("Format:\n%s", got)
	}
	// Long polynomials wrap before an operator.
	s = mustParse(t, "1\n (x1 + x2 + x3 + x4 + x5 + x6)^4;\n", ParseOptions{})
	out := Format(s)
	for _, line := range strings.Split(string(out), "\n") {
		if len(line) > formatWidth {
			t.Errorf("line longer than %d: %q", formatWidth, line)
		}
	}
	if err := roundTrip(s); err != nil {
		t.Error(err)
	}
}

func TestParseFileErrors(t *testing.T) {
	if _, err := ParseFile("testdata/parse/no-such-file", ParseOptions{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "bad.txt")
	os.WriteFile(path, []byte("2\n x + y;\n"), 0o644)
	_, err := ParseFile(path, ParseOptions{})
	wantErr(t, err, path+":3:1: expected 2 polynomials (line 1), found 1")
}

// TestParseVariableE: e and E are variables (PHCpack's cassou, extcyc5 and
// s9_1 name one e), with a warning at the first occurrence, since phc
// reads a lone e as an exponent; numbers with exponents read as before.
func TestParseVariableE(t *testing.T) {
	s, err := Parse("e.txt", []byte("3\n a + e - 1e1;\n e*a - 2.5E-1*E^2 + E;\n a - E;\n"), ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(s.Vars, " "); got != "a e E" {
		t.Errorf("variables %q, want a e E", got)
	}
	if len(s.Warnings) != 2 || s.Warnings[0].Line != 2 || s.Warnings[0].Col != 6 || !strings.Contains(s.Warnings[0].Reason, "PHCpack reads a lone e") ||
		s.Warnings[1].Line != 3 || s.Warnings[1].Col != 15 {
		t.Errorf("warnings %v", s.Warnings)
	}
	// a + e - 10: the constant 1e1 is a number.
	if c, _ := s.Polys[0].Const[0].Re.Float64(); c != -10 || len(s.Polys[0].Terms) != 2 {
		t.Errorf("polynomial 1: constant %v, %d terms", c, len(s.Polys[0].Terms))
	}
	back, err := Parse("back", Format(s), ParseOptions{})
	if err != nil || strings.Join(back.Vars, " ") != "a e E" {
		t.Errorf("round trip: %v, %v", back, err)
	}
}
