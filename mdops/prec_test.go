package mdops

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

// TestPrec: the one check (every generated precision passes; others wrap
// ErrPrecision, list the generated ones and suggest `mdgen generate -n`
// only where the generator can make N), the width, the kernel suffix, the
// name and the unit roundoff.
func TestPrec(t *testing.T) {
	for _, n := range Precisions() {
		for _, c := range []bool{false, true} {
			if err := (Prec{N: n, Complex: c}).Check(); err != nil {
				t.Errorf("N = %d complex %v: %v", n, c, err)
			}
		}
	}
	for _, c := range []struct {
		n    int
		hint bool
	}{{0, false}, {6, true}, {17, false}, {-1, false}} {
		if slices.Contains(Precisions(), c.n) {
			continue // `mdgen generate -n 6` was run in this checkout
		}
		err := Prec{N: c.n}.Check()
		if err == nil || !errors.Is(err, ErrPrecision) || !strings.Contains(err.Error(), "generated: 1,2,3,4,5,8,10,16") {
			t.Errorf("N = %d: %v", c.n, err)
			continue
		}
		if hint := strings.Contains(err.Error(), "`mdgen generate -n 6`"); hint != c.hint {
			t.Errorf("N = %d: hint %v: %v", c.n, hint, err)
		}
	}
	for _, c := range []struct {
		p            Prec
		width        int
		suffix, name string
		u            float64
	}{
		{Prec{N: 1}, 1, "r1", "1-double real", 0x1p-53},
		{Prec{N: 2, Complex: true}, 4, "c2", "2-double complex", 0x1p-106},
		{Prec{N: 8}, 8, "r8", "8-double real", 0x1p-424},
		{Prec{N: 16, Complex: true}, 32, "c16", "16-double complex", math.Ldexp(1, -848)},
	} {
		if w, s, name, u := c.p.Width(), c.p.Suffix(), c.p.String(), c.p.UnitRoundoff(); w != c.width || s != c.suffix || name != c.name || u != c.u {
			t.Errorf("%+v: width %d, suffix %q, name %q, u %g; want %d, %q, %q, %g", c.p, w, s, name, u, c.width, c.suffix, c.name, c.u)
		}
	}
}
