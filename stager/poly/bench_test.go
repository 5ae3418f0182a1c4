package poly_test

// Tests of the reader and writer on PHCpack's benchmark systems (package
// families) and on what Stage makes of them: an external test package, as
// families and stager import poly.

import (
	"strings"
	"testing"

	"github.com/mdgen/mdgen/stager"
	"github.com/mdgen/mdgen/stager/families"
	"github.com/mdgen/mdgen/stager/poly"
)

func TestParseFormatBenchmarks(t *testing.T) {
	// The generated systems p1, p2, p3 (real and complex series
	// coefficients) survive poly.Format and poly.Parse exactly.
	for _, name := range []string{"p1", "p2", "p3"} {
		for _, complex := range []bool{false, true} {
			var s *poly.System
			var err error
			if complex {
				s, err = families.BenchmarkSystemComplex(name, 1)
			} else {
				s, err = families.BenchmarkSystem(name, 1)
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := poly.RoundTrip(s); err != nil {
				msg := err.Error()
				if len(msg) > 2000 {
					msg = msg[:2000]
				}
				t.Errorf("%s complex=%v: %s", name, complex, msg)
			}
		}
	}
}

// handSystems are systems whose parameter PHCpack's convention alone would
// get wrong, or right, when poly.Format writes them.
func handSystems(t *testing.T) map[string]*poly.System {
	t.Helper()
	one := func(v int64) poly.Series { var r poly.Rational; r.Re.SetInt64(v); return poly.Series{r} }
	two := func(a, b int64) poly.Series {
		s := make(poly.Series, 2)
		s[0].Re.SetInt64(a)
		s[1].Re.SetInt64(b)
		return s
	}
	lin := func(v int, c poly.Series) poly.Monomial {
		return poly.Monomial{Coef: c, Vars: []int{v}, Pows: []int{1}}
	}
	return map[string]*poly.System{
		// 2 equations in x, y and t: the convention finds t.
		"square homotopy": {Vars: []string{"x", "y"}, Param: "t", Polys: []poly.Polynomial{
			{Terms: []poly.Monomial{lin(0, two(1, 2))}, Const: one(-1)}, {Terms: []poly.Monomial{lin(1, one(3))}}}},
		// The parameter is s: the convention would look for t.
		"parameter s": {Vars: []string{"x", "y"}, Param: "s", Polys: []poly.Polynomial{
			{Terms: []poly.Monomial{lin(0, two(1, 2))}, Const: one(-1)}, {Terms: []poly.Monomial{lin(1, one(3))}}}},
		// One equation in x, y, z and t: the convention finds none.
		"underdetermined": {Vars: []string{"x", "y", "z"}, Param: "t", Polys: []poly.Polynomial{
			{Terms: []poly.Monomial{lin(0, two(1, 2)), lin(2, one(5))}, Const: one(-1)}}},
		// t is an ordinary variable of 1 equation in x and t: the convention
		// would take it for the parameter.
		"t a variable": {Vars: []string{"x", "t"}, Polys: []poly.Polynomial{
			{Terms: []poly.Monomial{lin(0, one(2)), lin(1, one(3))}, Const: one(-1)}}},
		// 1 equation in x and y, no parameter: the convention would want a t.
		"no t": {Vars: []string{"x", "y"}, Polys: []poly.Polynomial{
			{Terms: []poly.Monomial{lin(0, one(2)), lin(1, one(3))}}}},
		// Square, t a variable (katsura5): the convention is right.
		"square with t": {Vars: []string{"x", "t"}, Polys: []poly.Polynomial{
			{Terms: []poly.Monomial{lin(0, one(2))}}, {Terms: []poly.Monomial{lin(1, one(3))}, Const: one(4)}}},
	}
}

// TestParseFormatNoFlags: what poly.Format writes (what `mdgen system p2`
// prints) reads back as the same system with no options. p2 is one
// equation in 128 variables and t: it used to come back with t as a 129th
// variable (98,440 convolutions instead of 24,192) without a word.
func TestParseFormatNoFlags(t *testing.T) {
	for _, name := range families.BenchmarkNames {
		for _, complex := range []bool{false, true} {
			s, err := benchmarkSystem(name, 5, complex)
			if err != nil {
				t.Fatal(err)
			}
			out := poly.Format(s)
			back, err := poly.Parse(name, out, poly.ParseOptions{})
			if err != nil {
				t.Fatalf("%s complex %v: %v", name, complex, err)
			}
			if err := poly.SystemsEqual(s, back); err != nil {
				t.Errorf("%s complex %v: %v", name, complex, err)
			}
			if len(back.Warnings) > 0 {
				t.Errorf("%s complex %v: warnings %v", name, complex, back.Warnings)
			}
			if name == "p2" {
				p, err := stager.Stage(back, 2)
				if err != nil {
					t.Fatal(err)
				}
				if p.ConvJobs() != 24192 || p.AddJobs() != 8192 {
					t.Errorf("p2 read back: %d/%d jobs", p.ConvJobs(), p.AddJobs())
				}
			}
		}
	}
	for name, s := range handSystems(t) {
		if err := poly.RoundTrip(s); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	// The line is written only where the convention needs it.
	for name, want := range map[string]string{
		"square homotopy": "", "parameter s": "SERIES PARAMETER : s", "underdetermined": "SERIES PARAMETER : t",
		"t a variable": "NO SERIES PARAMETER", "no t": "NO SERIES PARAMETER", "square with t": "",
	} {
		out := string(poly.Format(handSystems(t)[name]))
		got := ""
		if i := strings.Index(out, ";\n\n"); i >= 0 {
			got = strings.TrimSpace(out[i+3:])
		}
		if got != want {
			t.Errorf("%s: trailing line %q, want %q in\n%s", name, got, want, out)
		}
	}
}

// TestParseParamWarnings: a file in which t is an ordinary variable by
// PHCpack's convention, but looks like the series parameter, gets a warning
// at the first t; files the convention reads as meant get none.
func TestParseParamWarnings(t *testing.T) {
	p2, _ := families.BenchmarkSystem("p2", 1)
	old := poly.Format(p2)
	old = old[:strings.Index(string(old), ";\n\n")+2] // as the old poly.Format wrote it
	s, err := poly.Parse("p2.txt", old, poly.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Vars) != 129 || s.Param != "" || len(s.Warnings) != 1 {
		t.Fatalf("old p2 file: %d variables, parameter %q, warnings %v", len(s.Vars), s.Param, s.Warnings)
	}
	w := s.Warnings[0].Error()
	if !strings.HasPrefix(w, "p2.txt:2:") || !strings.Contains(w, "t is read as an ordinary variable") ||
		!strings.Contains(w, "1 polynomials in 129 variables") || !strings.Contains(w, "-param t") {
		t.Errorf("warning %q", w)
	}
	if s, err := poly.Parse("p2.txt", old, poly.ParseOptions{Param: "t"}); err != nil || len(s.Warnings) != 0 || len(s.Vars) != 128 {
		t.Errorf("old p2 file with -param t: %v, %v", err, s.Warnings)
	}
	for _, src := range []string{
		"2\n x*t - 1;\n y + t;\n", // t the parameter by the convention
		"2\n x*t - 1;\n x + t;\n", // square with t (katsura5)
		"2\n x*y - 1;\n x - y;\n", // no t
		"1\n x*y*z - 1;\n",        // no t
	} {
		s, err := poly.Parse("ok", []byte(src), poly.ParseOptions{})
		if err != nil {
			t.Errorf("%q: %v", src, err)
		} else if len(s.Warnings) != 0 {
			t.Errorf("%q: warnings %v", src, s.Warnings)
		}
	}
	s, err = poly.Parse("w", []byte("4\n x*t - 1;\n x + y;\n y - x;\n x*y;\n"), poly.ParseOptions{})
	if err != nil || len(s.Warnings) != 1 || s.Warnings[0].Line != 2 || s.Warnings[0].Col != 4 {
		t.Errorf("overdetermined with t: %v, %v", err, s.Warnings)
	}
	// The option overrides the file's line, with a warning.
	s, err = poly.Parse("w", []byte("1\n x*s + y*t;\n\nSERIES PARAMETER : s\n"), poly.ParseOptions{Param: "t"})
	if err != nil || s.Param != "t" || len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0].Error(),
		"w:4:20: the file names the series parameter s; the parameter t given to the reader overrides it") {
		t.Errorf("override: %v, %v", err, s.Warnings)
	}
}

// benchmarkSystem is families.BenchmarkSystem or BenchmarkSystemComplex.
func benchmarkSystem(name string, seed int64, complex bool) (*poly.System, error) {
	if complex {
		return families.BenchmarkSystemComplex(name, seed)
	}
	return families.BenchmarkSystem(name, seed)
}
