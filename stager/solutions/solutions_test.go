package solutions

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
	"time"

	"github.com/mdgen/mdgen/stager/poly"
)

// solDemoWorkspace is the workspace's copy of PHCpack's demo systems
// (../shared is not part of the product); phcdemo falls back to Debian's
// phcpack package.
var solDemoWorkspace = filepath.Join("..", "..", "..", "shared", "systems", "phcpack-demo")

func solDemoDir(t testing.TB) string {
	dir := phcdemo.Dir(solDemoWorkspace)
	if dir == "" {
		t.Skipf("SKIPPED: PHCpack demo files not found at %s or %s", solDemoWorkspace, phcdemo.Debian)
	}
	return dir
}

func solRatEq(a, b *poly.Rational) bool { return a.Re.Cmp(&b.Re) == 0 && a.Im.Cmp(&b.Im) == 0 }

// solsEqual compares solutions exactly (diagnostics aside); a series of
// degree 0 counts as none.
func solsEqual(a, b []Solution) error {
	if len(a) != len(b) {
		return fmt.Errorf("%d solutions != %d", len(a), len(b))
	}
	deg := func(s *Solution) int {
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

func solRat(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic(s)
	}
	return r
}

// TestSolutionsDemoFiles reads every demo file that carries solutions: the
// count, the dimension, exact values, and residuals of the system at them.
func TestSolutionsDemoFiles(t *testing.T) {
	dir := solDemoDir(t)
	want := map[string]int{ // solutions listed
		"chandra4": 8, "chandra6": 32, "cyclic5": 7, "cyclic7": 66, "d1": 48, "eco6": 16,
		"fourbar": 36, "game4two": 9, "ipp2": 16, "katsura5": 32, "noon3": 8, "virasoro": 76,
	}
	seen := 0
	for _, name := range phcdemo.Names {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			sys, sols, err := ParseWithSystemFile(path, poly.ParseOptions{})
			if err != nil {
				t.Fatal(err)
			}
			n, ok := want[name]
			if !ok {
				t.Fatalf("new demo file %s: %d solutions (add it to the table)", name, len(sols))
			}
			if len(sols) != n {
				t.Fatalf("%d solutions, want %d", len(sols), n)
			}
			seen++
			for k, sol := range sols {
				if !slices.Equal(sol.Names, sys.Vars) || len(sol.Values) != len(sys.Vars) {
					t.Fatalf("solution %d: names %v, vars %v", k+1, sol.Names, sys.Vars)
				}
				if sol.M < 1 {
					t.Errorf("solution %d: m = %d", k+1, sol.M)
				}
				if name != "ipp2" && !sol.HasDiag {
					t.Errorf("solution %d: no diagnostics", k+1)
				}
				// the residual, relative to the size of the terms
				vals := sys.EvalAt(sol.Values, &sol.T)
				for i, v := range vals {
					scale := solTermScale(&sys.Polys[i], sol.Values)
					re, _ := v.Re.Float64()
					im, _ := v.Im.Float64()
					if math.Hypot(re, im) > 1e-9*scale {
						t.Errorf("solution %d: |f_%d| = %.3g (terms up to %.3g)", k+1, i+1, math.Hypot(re, im), scale)
					}
				}
			}
			// The list reads the same on its own, and writes back exactly.
			src, _ := os.ReadFile(path)
			alone, err := Parse(path, src[SystemEnd(src):], sys.Vars)
			if err != nil {
				t.Fatal(err)
			}
			if err := solsEqual(sols, alone); err != nil {
				t.Fatal(err)
			}
			out := Format(sols, FormatOptions{})
			if strings.Contains(string(out), "MDGEN EXACT") {
				t.Errorf("decimals of the demo files need the exact block")
			}
			back, err := Parse("formatted", out, sys.Vars)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if err := solsEqual(sols, back); err != nil {
				t.Fatal(err)
			}
			for k := range sols {
				if back[k].HasDiag != sols[k].HasDiag && sols[k].HasDiag {
					t.Fatalf("solution %d: diagnostics lost", k+1)
				}
			}
		})
	}
	if seen < len(want) {
		t.Errorf("read %d demo files with solutions, want %d", seen, len(want))
	}

	// Exact values: chandra4's first coordinate and cyclic7's names.
	_, sols, err := ParseWithSystemFile(filepath.Join(dir, "chandra4"), poly.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sols[0].Values[0].Re.Cmp(solRat("323234611912785/10000000000000")) != 0 ||
		sols[0].Values[0].Im.Cmp(solRat("330909953661441/1"+strings.Repeat("0", 138))) != 0 ||
		sols[0].T.Re.Cmp(big.NewRat(1, 1)) != 0 || sols[0].Err != 8.626e-15 || sols[0].Rco != 1.257e-01 || sols[0].Res != 3.553e-15 {
		t.Errorf("chandra4 solution 1: %v %v, diag %g %g %g", sols[0].Values[0].Re.RatString(), sols[0].Values[0].Im.RatString(), sols[0].Err, sols[0].Rco, sols[0].Res)
	}
	// game4two lists p3 p2 p4 p1, its variables are in that order too; a
	// different order of vars puts the values where they belong.
	src, _ := os.ReadFile(filepath.Join(dir, "game4two"))
	sols, err = Parse("game4two", src, []string{"p1", "p2", "p3", "p4"})
	if err != nil {
		t.Fatal(err)
	}
	if sols[0].Values[2].Re.Cmp(solRat("1.20207135996546")) != 0 || sols[0].Values[0].Im.Cmp(solRat("0.371033535799464")) != 0 {
		t.Errorf("game4two: p3 = %s, Im p1 = %s", sols[0].Values[2].Re.RatString(), sols[0].Values[0].Im.RatString())
	}
	if _, err := Parse("game4two", src, []string{"p1", "p2", "p3"}); err == nil || !strings.Contains(err.Error(), "p4 is not a variable") {
		t.Errorf("three variables: %v", err)
	}
}

// solTermScale returns the largest |term| of p at x (for a relative
// residual).
func solTermScale(p *poly.Polynomial, x []poly.Rational) float64 {
	f := func(r *poly.Rational) float64 {
		a, _ := r.Re.Float64()
		b, _ := r.Im.Float64()
		return math.Hypot(a, b)
	}
	scale := 1.0
	for _, m := range p.Terms {
		v := 0.0
		for _, c := range m.Coef {
			v += f(&c)
		}
		for k, i := range m.Vars {
			v *= math.Pow(f(&x[i]), float64(m.Pows[k]))
		}
		scale = max(scale, v)
	}
	return scale
}

func TestSolutionsFormatExact(t *testing.T) {
	third := poly.Rational{}
	third.Re.SetFrac64(1, 3)
	third.Im.SetFrac64(-2, 7)
	sols := []Solution{
		{M: 1, Names: []string{"x", "y"}, Values: []poly.Rational{third, {}}},
		{M: 2, Names: []string{"x", "y"}, Values: make([]poly.Rational, 2), Err: 1e-30, Rco: 0.5, Res: math.Inf(1), HasDiag: true},
	}
	sols[1].T.Re.SetInt64(1)
	sols[1].Values[0].Re.SetFrac64(-7, 8)
	sols[1].Values[1].Im.SetString("1e-200")
	sols[0].Series = [][]poly.Rational{make([]poly.Rational, 3), make([]poly.Rational, 3)}
	sols[0].Series[0][0].Set(&third)
	sols[0].Series[0][2].Re.SetFrac64(5, 11)
	sols[0].Series[1][1].Im.SetInt64(-4)
	out := Format(sols, FormatOptions{})
	for _, want := range []string{
		"THE SOLUTIONS :\n2 2\n",
		" x :  3.33333333333333E-01  -2.85714285714286E-01\n",
		" x : -8.75000000000000E-01   0.00000000000000E+00\n",
		" y :  0.00000000000000E+00   1.00000000000000E-200\n",
		"== err :  1.000E-30 = rco :  5.000E-01 = res :  +Inf ==\n",
		"== err :  0.000E+00 = rco :  1.000E+00 = res :  0.000E+00 ==\n",
		"\nMDGEN EXACT SOLUTIONS :\n2 2 2\nsolution 1 :\n t : 0 0\n x t^0 : 1/3 -2/7\n x t^1 : 0 0\n x t^2 : 5/11 0\n y t^0 : 0 0\n y t^1 : 0 -4\n",
		"solution 2 :\n t : 1 0\n x t^0 : -7/8 0\n",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	back, err := Parse("out", out, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if err := solsEqual(sols, back); err != nil {
		t.Fatal(err)
	}
	if back[1].Res != math.Inf(1) || back[1].Rco != 0.5 {
		t.Errorf("diagnostics %v", back[1])
	}
	// The same bytes on any number of workers.
	for _, w := range []int{1, 2, 3} {
		if again := Format(sols, FormatOptions{Workers: w}); string(again) != string(out) {
			t.Errorf("Workers %d: Format differs:\n%s\n---\n%s", w, again, out)
		}
	}
	// Without the exact block the values are the rounded decimals.
	out = Format(sols, FormatOptions{NoExact: true, Digits: 20})
	if strings.Contains(string(out), "MDGEN") || !strings.Contains(string(out), " x :  3.3333333333333333333E-01") {
		t.Errorf("NoExact, 20 digits:\n%s", out)
	}
	// Exact short decimals need no block.
	if out := Format(sols[1:], FormatOptions{}); strings.Contains(string(out), "MDGEN") {
		t.Errorf("exact block for short decimals:\n%s", out)
	}
	// Mapped to vars in another order, with the series.
	back, err = Parse("out", Format(sols, FormatOptions{}), []string{"y", "x"})
	if err != nil {
		t.Fatal(err)
	}
	if !solRatEq(&back[0].Values[1], &third) || back[0].Series[0][1].Im.Cmp(big.NewRat(-4, 1)) != 0 || back[0].Names[0] != "y" {
		t.Errorf("mapped: %v", back[0])
	}
}

func TestSolDecimal(t *testing.T) {
	for _, c := range []struct {
		r      string
		digits int
		want   string
		exact  bool
	}{
		{"0", 15, "0.00000000000000E+00", true},
		{"1", 15, "1.00000000000000E+00", true},
		{"-1/4", 15, "-2.50000000000000E-01", true},
		{"1/3", 15, "3.33333333333333E-01", false},
		{"2/3", 15, "6.66666666666667E-01", false},
		{"-2/3", 3, "-6.67E-01", false},
		{"123456789012345678", 15, "1.23456789012345678E+17", true},
		{"1/1" + strings.Repeat("0", 124), 15, "1.00000000000000E-124", true},
		{"1/1048576", 15, "9.53674316406250E-07", true},
		{"1/1048576", 3, "9.5367431640625E-07", true},
		{"99999999999999999999/100000000000000000000", 15, "9.9999999999999999999E-01", true},
		{"299999999999999999999/300000000000000000000", 15, "1.00000000000000E+00", false}, // rounds up across the decade
		{"1/3" + strings.Repeat("0", 300), 4, "3.333E-301", false},
		{"10000000000000000000000000000000000000000000000000000000000000001/3", 5, "3.3333E+63", false},
		{"5/2", 2, "2.5E+00", true},
	} {
		r := solRat(c.r)
		got, exact := solDecimal(r, c.digits)
		if got != c.want || exact != c.exact {
			t.Errorf("solDecimal(%s, %d) = %q %v, want %q %v", c.r, c.digits, got, exact, c.want, c.exact)
		}
	}
	// half to even at the last digit: 0.125 with 2 digits rounds to 0.12
	// when written inexactly; use a value that is not a short decimal
	// exactly half way: impossible for non-decimals, so check carries.
	got, _ := solRound(solRat("125/1000"), 2)
	if got != "12" {
		t.Errorf("solRound(0.125, 2) = %s, want 12 (half to even)", got)
	}
	got, _ = solRound(solRat("135/1000"), 2)
	if got != "14" {
		t.Errorf("solRound(0.135, 2) = %s, want 14", got)
	}
}

func TestSolutionsSimple(t *testing.T) {
	src := "# start point\n x1  1/3\nx2: -0.25 1\n\nx3 : 1.5E+00 -2D-1\n"
	sols, err := Parse("start.txt", []byte(src), []string{"x3", "x1", "x2"})
	if err != nil {
		t.Fatal(err)
	}
	if len(sols) != 1 || sols[0].M != 1 || !sols[0].T.IsZero() || !slices.Equal(sols[0].Names, []string{"x3", "x1", "x2"}) {
		t.Fatalf("%+v", sols)
	}
	v := sols[0].Values
	if v[0].Re.Cmp(big.NewRat(3, 2)) != 0 || v[0].Im.Cmp(big.NewRat(-1, 5)) != 0 || v[1].Re.Cmp(big.NewRat(1, 3)) != 0 ||
		v[2].Re.Cmp(big.NewRat(-1, 4)) != 0 || v[2].Im.Cmp(big.NewRat(1, 1)) != 0 {
		t.Errorf("values %v", v)
	}
	// A coordinate named t first, with a colon: still the simple format.
	sols, err = Parse("start.txt", []byte("t : 1/2\nx 1\n"), nil)
	if err != nil || !slices.Equal(sols[0].Names, []string{"t", "x"}) {
		t.Errorf("coordinate t: %v %v", sols, err)
	}
	// Without vars, the file's order.
	sols, err = Parse("start.txt", []byte(src), nil)
	if err != nil || !slices.Equal(sols[0].Names, []string{"x1", "x2", "x3"}) {
		t.Errorf("%v %v", sols, err)
	}
}

func TestSolutionsNoCountLine(t *testing.T) {
	// phcpy's solution strings: no banner, no count line, no "solution k".
	src := `t : 1.00000000000000E+00 0.00000000000000E+00
m : 1
the solution for t :
 x : -1.00000000000000E+00 0.00000000000000E+00
 y : -1.61803398874989E+00 0.00000000000000E+00
== err : 2.143E-101 = rco : 4.775E-02 = res : 2.220E-16 =
t : 1.00000000000000E+00 0.00000000000000E+00
m : 1
The solution for t :
 x : 2 0
 y : 3 0
== err :  0.000E+00 = rco :  1.000E+00 = res :  0.000E+00 = real regular ==
`
	sols, err := Parse("phcpy", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sols) != 2 || sols[0].Err != 2.143e-101 || sols[1].Values[1].Re.Cmp(big.NewRat(3, 1)) != 0 {
		t.Fatalf("%+v", sols)
	}
}

func TestSolutionsErrors(t *testing.T) {
	head := "THE SOLUTIONS :\n1 2\n=====\nsolution 1 :\nt : 0 0\nm : 1\nthe solution for t :\n"
	for _, c := range []struct {
		src  string
		vars []string
		want string
	}{
		{"", nil, "f:1:1: no solution"},
		{"# nothing\n", nil, "f:2:1: no solution"},
		{"x 1 2 3\n", nil, `f:1:7: unexpected "3" after the value of x`},
		{"x 1\nx 2\n", nil, "f:2:1: coordinate x given twice"},
		{"x abc\n", nil, `f:1:3: bad number "abc"`},
		{"x 1/0\n", nil, `f:1:3: division by zero`},
		{"x 1e99999999\n", nil, `f:1:3: number 1e99999999: exponent out of range`},
		{"x 1e10001\n", nil, `f:1:3: number 1e10001: exponent out of range (at most 10000 in magnitude)`},
		{"x 1\n", []string{"x", "y"}, "f:1:1: solution 1: no coordinate for the variable y"},
		{"z 1\n", []string{"x"}, "f:1:1: solution 1: z is not a variable of the system (x)"},
		{"x\n", nil, "f:1:2: expected x: a real part and an imaginary part"},
		{head + " x : 1 0\n", nil, "f:9:1: solution 1: expected coordinate 2 of 2, found the end of the input"},
		{head + " x : 1 0\n y 1 0\n", nil, `f:9:2: solution 1: expected coordinate 2 of 2 as "name : re im"`},
		{head + " x : 1 0\n x : 1 0\n", nil, "f:9:2: solution 1: coordinate x given twice"},
		{head + " x : 1 0\n y : 1 0\n== err : x = rco : 1 = res : 0 ==\n", nil, `f:10:10: bad err value "x"`},
		{head + " x : 1 0\n y : 1 0\n== err : 0 = res : 0 ==\n", nil, `f:10:1: expected the diagnostics "== err : e = rco : r = res : s ==" (no rco)`},
		{strings.Replace(head, "1 2", "2 2", 1) + " x : 1 0\n y : 1 0\n", nil, "f:10:1: expected solution 2 of 2, found the end of the input"},
		{strings.Replace(head, "m : 1", "m : one", 1), nil, `f:6:5: solution 1: bad multiplicity "one"`},
		{strings.Replace(head, "m : 1\n", "", 1), nil, `f:6:1: solution 1: expected "m : multiplicity"`},
		{strings.Replace(head, "t : 0 0\n", "", 1), nil, `f:5:1: solution 1: expected "t : re im"`},
		{strings.Replace(head, "the solution for t :\n", "", 1), nil, `f:7:1: solution 1: expected "the solution for t :"`},
		{"THE SOLUTIONS :\nsome text\n", nil, `f:2:1: expected the count line "N D"`},
		{"THE SOLUTIONS :\n99999999999999999999999 3\n", nil, `f:2:1: solution count "99999999999999999999999 3" too large`},
		{head + " x : 1 0\n y : 1 0\n\nMDGEN EXACT SOLUTIONS :\n1 2 0\nsolution 1 :\n x t^0 : 1 0\n", nil,
			"f:13:1: MDGEN EXACT SOLUTIONS: solution 1: want the coefficients of t^0..t^0 of each of its 2 coordinates, have 1 lines"},
		{head + " x : 1 0\n y : 1 0\n\nMDGEN EXACT SOLUTIONS :\n1 2 0\nsolution 1 :\n z t^0 : 1 0\n", nil,
			"f:14:2: MDGEN EXACT SOLUTIONS: solution 1 has no coordinate z"},
		{head + " x : 1 0\n y : 1 0\n\nMDGEN EXACT SOLUTIONS :\n1 2 0\nsolution 1 :\n x t^999999999 : 1 0\n", nil,
			"want the coefficients of t^0..t^999999999 of each of its 2 coordinates, have 1 lines"},
		{head + " x : 1 0\n y : 1 0\n\nMDGEN EXACT SOLUTIONS :\n2 2 0\n", nil, "f:12:1: MDGEN EXACT SOLUTIONS: count 2, but the list has 1 solutions"},
	} {
		_, err := Parse("f", []byte(c.src), c.vars)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q):\n got %v\nwant %s", c.src, err, c.want)
			continue
		}
		var pe *poly.ParseError
		if !errors.As(err, &pe) || pe.File != "f" || pe.Line < 1 || pe.Col < 1 {
			t.Errorf("error %v is not a *ParseError with a position", err)
		}
	}
	// After a system: positions count from the top of the file.
	src := "2\n x*y - 1;\n x - y;\nTITLE : test\n\nTHE SOLUTIONS :\n1 2\nsolution 1 :\nt : 0 0\nm : 1\nthe solution for t :\n x : 1 0\n z : 1 0\n"
	_, _, err := ParseWithSystem("sys", []byte(src), poly.ParseOptions{})
	if err == nil || !strings.Contains(err.Error(), "sys:13:2: solution 1: z is not a variable of the system (x y)") {
		t.Errorf("after a system: %v", err)
	}
	// A bad system is the parser's error.
	if _, _, err := ParseWithSystem("sys", []byte("2\n x*y - 1;\n"), poly.ParseOptions{}); err == nil {
		t.Error("bad system: no error")
	}
	// The parameter as a coordinate gives T.
	src = "1\n x^2 - t;\nTHE SOLUTIONS :\n1 2\nsolution 1 :\nt : 0 0\nm : 1\nthe solution for t :\n x : 2 0\n t : 4 0\n"
	sys, sols, err := ParseWithSystem("sys", []byte(src), poly.ParseOptions{})
	if err != nil || sys.Param != "t" || len(sols) != 1 || sols[0].T.Re.Cmp(big.NewRat(4, 1)) != 0 || len(sols[0].Values) != 1 {
		t.Errorf("parameter coordinate: %v %v", sols, err)
	}
	// No solutions after the system.
	if _, sols, err := ParseWithSystem("sys", []byte("1\n x - 1;\nTITLE : x\n"), poly.ParseOptions{}); err != nil || sols != nil {
		t.Errorf("no list: %v %v", sols, err)
	}
}

// TestSolutionsLineEnds: CRLF and CR line ends and a byte order mark.
func TestSolutionsLineEnds(t *testing.T) {
	lf := "1\n x - 1;\nTHE SOLUTIONS :\n1 1\nsolution 1 :\nt : 0 0\nm : 1\nthe solution for t :\n x : 1 0\n"
	_, want, err := ParseWithSystem("lf", []byte(lf), poly.ParseOptions{})
	if err != nil || len(want) != 1 {
		t.Fatal(err)
	}
	for _, src := range []string{strings.ReplaceAll(lf, "\n", "\r\n"), strings.ReplaceAll(lf, "\n", "\r"), solBOM + lf} {
		_, got, err := ParseWithSystem("x", []byte(src), poly.ParseOptions{})
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		if err := solsEqual(want, got); err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		bad := strings.Replace(src, " x : 1 0", " y : 1 0", 1)
		if _, _, err := ParseWithSystem("x", []byte(bad), poly.ParseOptions{}); err == nil || !strings.Contains(err.Error(), "x:9:2: solution 1: y is not a variable") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if _, err := Parse("bom", []byte(solBOM+"x 1\n"), nil); err != nil {
		t.Error(err)
	}
}

func TestSystemEnd(t *testing.T) {
	for _, c := range []struct {
		src  string
		want int
	}{
		{"2\nx;y;rest", 6}, {" 1 2\n x - t; THE", 12}, {"2\nx;", -1}, {"", -1}, {"x;", -1}, {"0\n;", -1},
	} {
		if got := SystemEnd([]byte(c.src)); got != c.want {
			t.Errorf("SystemEnd(%q) = %d, want %d", c.src, got, c.want)
		}
	}
}

// TestSolutionsHostile: large counts, exponents and degrees fail fast, and
// the largest numbers allowed read and write in bounded time.
func TestSolutionsHostile(t *testing.T) {
	var b strings.Builder
	b.WriteString("x ")
	for range 200 {
		b.WriteString("9")
	}
	b.WriteString("E+9999 1/3E\n")
	if _, err := Parse("h", []byte(b.String()), nil); err == nil {
		t.Errorf("1/3E: no error")
	}
	// many big exponents: the budget ends it
	b.Reset()
	b.WriteString("THE SOLUTIONS :\n1 20000\nt : 0 0\nm : 1\nthe solution for t :\n")
	for i := range 20000 {
		fmt.Fprintf(&b, " x%d : 1E-9999 1E+9999\n", i)
	}
	if _, err := Parse("h", []byte(b.String()), nil); err == nil || !strings.Contains(err.Error(), "budget") {
		t.Errorf("many big numbers: %v", err)
	}
	if _, err := Parse("h", []byte("THE SOLUTIONS :\n999999999 999999999\n"), nil); err == nil {
		t.Error("huge count: no error")
	}
	// As many maximal numbers as the budget allows: read and write them.
	b.Reset()
	b.WriteString("THE SOLUTIONS :\n1 40\nt : 0 0\nm : 1\nthe solution for t :\n")
	for i := range 40 {
		fmt.Fprintf(&b, " x%d : 3.%sE-9999 -7.%sE+9999\n", i, strings.Repeat("3", 1000), strings.Repeat("1", 1000))
	}
	start := time.Now()
	sols, err := Parse("h", []byte(b.String()), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := Format(sols, FormatOptions{})
	if _, err := Parse("h", out, nil); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("maximal numbers took %v", el)
	}
}

func FuzzParseSolutions(f *testing.F) {
	f.Add([]byte("x 1/3\ny -0.25 1\n"))
	f.Add([]byte("THE SOLUTIONS :\n1 2\n=====\nsolution 1 :\nt : 0 0\nm : 1\nthe solution for t :\n x : 1.5E+00 0\n y : -7/9 2\n== err :  1.0E-16 = rco :  1.0E+00 = res :  0.0E+00 ==\n"))
	f.Add([]byte("t : 1 0\nm : 1\nthe solution for t :\n x : 1 0\n== err : 0 = rco : 1 = res : 0 =\n"))
	f.Add(Format([]Solution{{M: 1, Names: []string{"a"}, Values: []poly.Rational{{}}, Series: [][]poly.Rational{make([]poly.Rational, 3)}}}, FormatOptions{}))
	if dir := phcdemo.Dir(solDemoWorkspace); dir != "" {
		for _, name := range []string{"noon3", "game4two", "ipp2", "cyclic5"} {
			if src, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
				if end := SystemEnd(src); end > 0 {
					f.Add(src[end:])
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 1<<16 {
			return
		}
		sols, err := Parse("fuzz", src, nil)
		if err != nil {
			var pe *poly.ParseError
			if !errors.As(err, &pe) || pe.Line < 1 || pe.Col < 1 {
				t.Fatalf("error %v is not positioned", err)
			}
			return
		}
		out := Format(sols, FormatOptions{})
		back, err := Parse("formatted", out, nil)
		if err != nil {
			t.Fatalf("formatted list does not read back: %v\n%s", err, out)
		}
		if len(sols) > 0 {
			dim := len(sols[0].Values)
			for _, s := range sols {
				if len(s.Values) != dim {
					return // PHCpack lists have one dimension; the writer assumes it
				}
			}
		}
		if err := solsEqual(sols, back); err != nil {
			t.Fatalf("round trip: %v\n%s", err, out)
		}
		if again := Format(back, FormatOptions{}); string(again) != string(out) {
			t.Fatalf("Format(Parse(Format)) differs:\n%s\n---\n%s", out, again)
		}
	})
}

// TestSolutionsPositions: every solution read knows where it begins (its
// "t :" line in a PHCpack list, its first coordinate in lines "name re
// [im]"), for the messages of the commands about it.
func TestSolutionsPositions(t *testing.T) {
	list := "junk\nTHE SOLUTIONS :\n2 1\n===\nsolution 1 :\n  t : 0 0\nm : 1\nthe solution for t :\n x : 1 0\n== err : 0 = rco : 1 = res : 0 ==\n" +
		"solution 2 :\nt : 0 0\nm : 1\nthe solution for t :\n x : -1 0\n== err : 0 = rco : 1 = res : 0 ==\n"
	for _, c := range []struct {
		src  string
		want [][2]int
	}{
		{list, [][2]int{{6, 3}, {12, 1}}},
		{"\n  x 1 0\n", [][2]int{{2, 3}}},
	} {
		sols, err := Parse("f", []byte(c.src), []string{"x"})
		if err != nil {
			t.Fatal(err)
		}
		if len(sols) != len(c.want) {
			t.Fatalf("%d solutions, want %d", len(sols), len(c.want))
		}
		for k, w := range c.want {
			if got := [2]int{sols[k].Line, sols[k].Col}; got != w {
				t.Errorf("solution %d at %v, want %v:\n%s", k+1, got, w, c.src)
			}
		}
	}
}
