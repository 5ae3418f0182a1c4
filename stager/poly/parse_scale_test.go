package poly

import (
	"errors"
	"runtime"
	"strings"
	"testing"
)

// TestParseDoubleRange: coefficients are exact, but executors round them
// to doubles; one that would be Inf, subnormal or 0 there is refused at its
// position instead of changing the system silently.
func TestParseDoubleRange(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		// Literals, at the literal.
		{"1\n 1e400*x + 1;\n", "bad:2:2: number 1e400 is too large for a double"},
		{"1\n x + 1e-400;\n", "bad:2:6: number 1e-400 is too small for a double (the smallest normal one is about 2.2e-308)"},
		{"1\n x + 1" + strings.Repeat("0", 309) + ";\n", "bad:2:6: number 1000000000000000000000... is too large"[:27]},
		{"1\n x - 1.8e308*y;\n", "bad:2:6: number 1.8e308 is too large for a double"},
		{"1\n x + 2.2250738585072e-308*y;\n", "bad:2:6: number 2.2250738585072e-308 is too small"},
		// A divisor is range-checked as part of the value it makes.
		{"1\n x/1e-400;\n", "bad:2:2: coefficient 1e+400 of x in polynomial 1 is too large"},
		{"1\n 1e400/1e10*x;\n", "bad:2:2: coefficient 1e+390 of x in polynomial 1 is too large"},
		{"1\n x + 4.9e-324;\n", "bad:2:6: number 4.9e-324 is too small"},
		// Coefficients made by products and sums, at the term that made them.
		{"1\n 1e200*1e200*x - 1;\n", "bad:2:2: coefficient 1e+400 of x in polynomial 1 is too large for a double"},
		{"2\n x;\n x*1e308 + y + x*1e308;\n", "bad:3:16: coefficient 2e+308 of x in polynomial 2 is too large"},
		{"1\n 1e-200*1e-200*x - 1;\n", "bad:2:2: coefficient 1e-400 of x in polynomial 1 is too small for a double"},
		{"1\n (1e300 + x)*(1e300 - x);\n", "bad:2:2: coefficient 1e+600 of the constant term in polynomial 1 is too large"},
		{"1\n x + (1 + 1e-200*1e-200*i)*y + z;\n", "bad:2:6: coefficient (1 + 1e-400*i) of y in polynomial 1 (its imaginary part) is too small"},
		{"1\n x + 1e-300*y/1e10 + z;\n", "bad:2:6: coefficient 1e-310 of y in polynomial 1 is too small"},
		{"1\n (2*1e300)^2*x;\n", "bad:2:2: coefficient 4e+600 of x in polynomial 1 is too large"},
		// A series coefficient (t the parameter: 1 equation, 2 variables).
		{"1\n x + 1e300*1e300*t^2*x;\n", "bad:2:6: coefficient 1e+600 of x*t^2 in polynomial 1 is too large"},
	} {
		_, err := Parse("bad", []byte(c.src), ParseOptions{})
		wantErr(t, err, c.want)
	}
	// The ends of the range, and values that only pass through it.
	for _, src := range []string{
		"1\n 1.7976931348623157e308*x + 2.2250738585072014e-308;\n",
		"1\n -1.7976931348623157e308*x - 2.2250738585072014e-308*i;\n",
		"1\n 1e300*1e-300*x + 1e200*x*1e-100;\n",
		"1\n 0*x + 0.0e-400*y + 0*z;\n",            // zero is exact
		"1\n 1e300*x*1e8 - 1e300*x*1e8 + y + z;\n", // cancels
		// p/q: the range is the value's (mdgen system cyclic56:newton writes
		// numerators and denominators past 1e308 for values near 1e-18).
		"1\n 1e400/1e100*x + 1/1e400*1e100*y + 1" + strings.Repeat("0", 330) + "/3" + strings.Repeat("0", 340) + "*z;\n",
	} {
		if _, err := Parse("ok", []byte(src), ParseOptions{}); err != nil {
			t.Errorf("%q: %v", src, err)
		}
	}
}

// TestParseBOMAndLineEnds: a UTF-8 byte order mark is skipped, CR LF and
// lone CR (old Mac) end lines, and positions stay right.
func TestParseBOMAndLineEnds(t *testing.T) {
	const bom = "\xEF\xBB\xBF"
	for _, src := range []string{
		bom + "2\n x + y;\n x - y;\n",
		bom + "2 2\r\n x + y;\r\n x - y;\r\n",
		"2\r x + y;\r x - y;\r",
		bom + "2 2\r x + y;\r x - y;\r\rTITLE : old Mac\r",
		"2\r\n x + y;\r x - y;\n", // mixed
		"2 \r x\r + y;\r x - y;\r",
	} {
		s, err := Parse("eol", []byte(src), ParseOptions{})
		if err != nil {
			t.Errorf("%q: %v", src, err)
			continue
		}
		if len(s.Polys) != 2 || len(s.Vars) != 2 {
			t.Errorf("%q: %d polynomials in %v", src, len(s.Polys), s.Vars)
		}
	}
	for _, c := range []struct{ src, want string }{
		{bom + "1\n x + $;\n", "bad:2:6: unexpected character '$'"},
		{bom + "x;\n", "bad:1:1: expected the number of polynomials"},
		{"2\r x + y;\r x - $;\r", "bad:3:6: unexpected character '$'"},
		{"3\r x + y;\r x - y;\r\r x*y\r", "bad:5:5: missing ';' at the end of polynomial 3"},
		{"2\r x + y\r x - y;\r", "bad:2:7: missing ';' at the end of polynomial 1"},
		{"2\r\n x + y;\r\n x - $;\r\n", "bad:3:6: unexpected character '$'"},
		{"\xFF\xFE2\x00\n\x00", "bad:1:1: the file is in UTF-16"},
		{"\xFE\xFF\x002\x00\n", "bad:1:1: the file is in UTF-16"},
	} {
		_, err := Parse("bad", []byte(c.src), ParseOptions{})
		wantErr(t, err, c.want)
	}
}

// TestParseParamLine: the SERIES PARAMETER line after the polynomials.
func TestParseParamLine(t *testing.T) {
	for _, c := range []struct{ src, param string }{
		{"1 3\n x*y - s;\n\nSERIES PARAMETER : s\n", "s"},
		{"1\n x*y - s;\nseries parameter:s\n", "s"},
		{"1\n x*y - s;\n  Series Parameter s  \nTITLE : anything\n", "s"},
		{"1 2\n x - t;\n\nNO SERIES PARAMETER\n", ""},
		{"1\n x*y - t;\nTITLE : the line may come later\n\nSERIES PARAMETER : t\n\nTHE SOLUTIONS :\n", "t"},
		{"1\n x - t;\nTHE SERIES PARAMETER IS y\n", "t"}, // not at the start of a line: prose
		{"1\n x - t;\r\rSERIES PARAMETER : x\r", "x"},
	} {
		s, err := Parse("p", []byte(c.src), ParseOptions{})
		if err != nil {
			t.Errorf("%q: %v", c.src, err)
			continue
		}
		if s.Param != c.param {
			t.Errorf("%q: parameter %q, want %q", c.src, s.Param, c.param)
		}
	}
	for _, c := range []struct{ src, want string }{
		{"1\n x - t;\n\nSERIES PARAMETER : u\n", "bad:4:20: series parameter u does not occur in the polynomials (variables: x t)"},
		{"1\n x - t;\nSERIES PARAMETER : t\nSERIES PARAMETER : x\n", "bad:4:1: a second SERIES PARAMETER line (the first is at 3:20)"},
		{"1\n x - t;\nSERIES PARAMETER : t x\n", `bad:3:20: expected "SERIES PARAMETER : name" with one variable name`},
		{"1\n x - t;\nSERIES PARAMETER :\n", `bad:3:19: expected "SERIES PARAMETER : name"`},
		{"1\n x - t;\nSERIES PARAMETER : 2x\n", `bad:3:20: expected "SERIES PARAMETER : name"`},
		{"1\n x - t;\nSERIES PARAMETER : e\n", "bad:3:20: series parameter e does not occur in the polynomials (variables: x t)"},
		{"1\n x - t;\nNO SERIES PARAMETER t\n", `bad:3:21: unexpected "t" after NO SERIES PARAMETER`},
	} {
		_, err := Parse("bad", []byte(c.src), ParseOptions{})
		wantErr(t, err, c.want)
	}
}

// allocated is the number of bytes f allocates (as in package stager's
// scale tests).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestParseSmallFileLimits: a small file never asks for unbounded time or
// memory; each case is refused with a position (or read in bounded work).
func TestParseSmallFileLimits(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"1\n x^1000000000;\n", "bad:2:4: exponent too large"},
		{"1\n t^1000000000*x;\n", "bad:2:4: exponent too large"},
		{"1\n (x + y)^65536;\n", "bad:2:9: expansion too large"},
		{"1\n ((((((((((((x + y)^2)^2)^2)^2)^2)^2)^2)^2)^2)^2)^2)^2;\n", "expansion too large"},
		{"1\n ((((x+1)^9)^9)^9)^9;\n", "bad:2:"},
		{"1\n (x1+x2+x3+x4+x5+x6+x7+x8+x9+x10)^6*(y1+y2+y3+y4+y5+y6+y7+y8+y9+y10)^6;\n", "expansion too large"},
		{"1\n " + strings.Repeat("(", 1001) + "x" + strings.Repeat(")", 1001) + ";\n", "bad:2:1002: parentheses nested too deeply"},
		{"1\n " + strings.Repeat("(x+", 1001) + "1" + strings.Repeat(")", 1001) + ";\n", "parentheses nested too deeply"},
		// Long literals: refused before a quadratic decimal conversion.
		{"1\n 1" + strings.Repeat("0", 200000) + "*x;\n", "bad:2:2: number too large (more than 20000 significant digits)"},
		{"1\n 0." + strings.Repeat("0", 200000) + "1*x;\n", "bad:2:2: number 0.000"},
		{"1\n 1" + strings.Repeat("0", 11000) + ".5e-1*x;\n", "bad:2:2: number 1000"},
		// Series coefficients of a parameter power: bounded.
		{"1\n t^65536*x + t^65535*y + t^65534*z + t^65533*u + t^65532*v + t^65531*w + t^65530*a + t^65529*b + t^65528*c;\n",
			"bad:1:1: series coefficients too large"},
	} {
		var err error
		alloc := allocated(func() { _, err = Parse("bad", []byte(c.src), ParseOptions{Param: "t"}) })
		var pe *ParseError
		if !errors.As(err, &pe) || !strings.Contains(pe.Error(), c.want) {
			t.Errorf("%.60q...: %v, want %q", c.src, err, c.want)
		}
		if alloc > 1<<30 {
			t.Errorf("%.60q...: %d bytes allocated", c.src, alloc)
		}
	}
	// Trailing zeros of a fraction do not count: 1.000...0 is 1.
	s, err := Parse("ok", []byte("1\n 1."+strings.Repeat("0", 100000)+"*x;\n"), ParseOptions{})
	if err != nil || s.Polys[0].Terms[0].Coef[0].Re.Cmp(rat("1")) != 0 {
		t.Errorf("1.000...: %v", err)
	}
	// A long product of sums of long monomials is charged by its length.
	var b strings.Builder
	b.WriteString("1\n ")
	for k := range 3 {
		if k > 0 {
			b.WriteString("*")
		}
		b.WriteString("(")
		for j := range 60 {
			if j > 0 {
				b.WriteString(" + ")
			}
			for v := range 400 {
				if v > 0 {
					b.WriteString("*")
				}
				b.WriteString("x")
				b.WriteString(string(rune('a' + j%26)))
				b.WriteString(string(rune('a' + v%26)))
				b.WriteString(string(rune('a' + v/26)))
			}
		}
		b.WriteString(")")
	}
	b.WriteString(";\n")
	var perr error
	alloc := allocated(func() { _, perr = Parse("long", []byte(b.String()), ParseOptions{}) })
	t.Logf("%d bytes of long monomials: %v, %d bytes allocated", b.Len(), perr, alloc)
	if alloc > 1<<30 {
		t.Errorf("long monomials: %d bytes allocated", alloc)
	}
}
