package newton

import (
	"math"
	"testing"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/stager/poly"
)

// TestTermSize: at the root x = 3 of x^2 - 9 the terms have size 9 + 9 =
// 18, and the residual relative to it is at the rounding level; the
// series of x^2 - 9 - 7t (x(t) = sqrt(9 + 7t)) have terms whose size is
// the 1-norm of the majorant series, here at least the 18 of t^0 and
// 7 of t^1; the relative update is the stop rule's and small.
func TestTermSize(t *testing.T) {
	sys, err := poly.Parse("sq", []byte("1\nx^2 - 9;"), poly.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var x0 poly.Rational
	x0.Re.SetFrac64(31, 10)
	res := solve(t, sys, []poly.Rational{x0}, Options{Prec: mdops.Prec{N: 2}})
	if !res.Converged {
		t.Fatal(res.Err)
	}
	if size := TermSize(sys, res); math.Abs(size-18) > 1e-12 {
		t.Errorf("TermSize = %g, want 18", size)
	}
	if rel := RelativeResidual(sys, res); !(rel <= 1e-30) {
		t.Errorf("relative residual %g, want at most 1e-30", rel)
	}
	if res.PointUpdate <= 0 || res.PointUpdate > 1e-14 {
		t.Errorf("PointUpdate %g: want the last correction of x(0), absolute, below 1e-14", res.PointUpdate)
	}

	sys, err = poly.Parse("sqt", []byte("1 2\nx^2 - 9 - 7*t;"), poly.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res = solve(t, sys, []poly.Rational{x0}, Options{Prec: mdops.Prec{N: 2}, Degree: 8})
	if !res.Converged {
		t.Fatal(res.Err)
	}
	if size := TermSize(sys, res); !(size >= 25) {
		t.Errorf("TermSize = %g, want at least 25", size)
	}
	if rel := RelativeResidual(sys, res); !(rel <= 1e-28) || !(res.Update <= 1e-28) {
		t.Errorf("relative residual %g, update %g: want at most 1e-28", rel, res.Update)
	}
}
