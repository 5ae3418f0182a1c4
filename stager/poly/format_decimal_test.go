package poly

import (
	"math/big"
	"strings"
	"testing"
)

// TestFormatDecimal: integers of more than 15 digits and rationals become
// decimals of the digits asked for (PHCpack misreads long integers), short
// integers stay, series coefficients and complex ones too; Parse reads the
// file back as the system rounded to that many digits.
func TestFormatDecimal(t *testing.T) {
	src := "2 3\n123456789012345678901234567*x^2 + 1/3*y - 11/10 + (2/7 - 5/9*i)*t*x;\n" +
		"x*y - 3 + 12345*t^2;\n"
	sys, err := Parse("d", []byte(src), ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const digits = 40
	text := string(FormatDecimal(sys, digits))
	for _, want := range []string{"1.23456789012345678901234567E+26*x^2", "3.333333333333333333333333333333333333333E-01*y",
		"1.1E+00", "2.857142857142857142857142857142857142857E-01 - 5.555555555555555555555555555555555555556E-01*i", "3 + 12345*t^2"} {
		if !strings.Contains(text, want) {
			t.Errorf("FormatDecimal lacks %q:\n%s", want, text)
		}
	}
	back, err := Parse("d", []byte(text), ParseOptions{})
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	tol := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Exp(big.NewInt(10), big.NewInt(digits-1), nil))
	close := func(a, b *big.Rat) bool {
		var d, m big.Rat
		d.Sub(a, b)
		d.Abs(&d)
		m.Abs(a)
		m.Mul(&m, tol)
		return d.Cmp(&m) <= 0
	}
	for i := range sys.Polys {
		p, q := &sys.Polys[i], &back.Polys[i]
		if len(p.Terms) != len(q.Terms) || len(p.Const) != len(q.Const) {
			t.Fatalf("polynomial %d: the terms differ:\n%s", i+1, text)
		}
		for j := range p.Terms {
			for k := range p.Terms[j].Coef {
				a, b := &p.Terms[j].Coef[k], &q.Terms[j].Coef[k]
				if !close(&a.Re, &b.Re) || !close(&a.Im, &b.Im) {
					t.Errorf("polynomial %d, term %d, t^%d: %s + %s i read back as %s + %s i", i+1, j+1, k,
						a.Re.RatString(), a.Im.RatString(), b.Re.RatString(), b.Im.RatString())
				}
			}
		}
	}
}
