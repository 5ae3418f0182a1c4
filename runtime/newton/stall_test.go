package newton

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// TestStalledRule: a growing update above half the precision is a
// divergence, unless both updates are at most 2^-26 (a stall at the floor
// of rounding and conditioning, as problem -1 at n = 1024 in 4 doubles
// shows on its random instance); below half the precision it is neither.
func TestStalledRule(t *testing.T) {
	r := &run{set: Settings{SqrtU: math.Ldexp(1, -53*4/2)}, res: &Result{}}
	for _, c := range []struct {
		prev, now float64
		want      error // nil: no failure
	}{
		{5.32e-30, 1.09e-29, ErrStalled},
		{1e-9, 2e-9, ErrStalled},
		{0x1p-27, 0x1p-26, ErrStalled},
		{0x1p-27, 0x1.0000000000001p-26, ErrDiverging},
		{1e-4, 1e-3, ErrDiverging},
		{0.5, 3, ErrDiverging},
		{1e-33, 2e-33, nil}, // below half the precision (2^-106)
		{2e-29, 1e-29, nil}, // decreasing
		{-1, 1e-3, nil},     // no previous step
	} {
		f := r.diverging(stepOut{deltaOld: c.now}, c.prev, 64, false)
		switch {
		case c.want == nil && f != nil:
			t.Errorf("%g after %g: %v, want no failure", c.now, c.prev, f)
		case c.want != nil && (f == nil || !errors.Is(f, c.want)):
			t.Errorf("%g after %g: %v, want %v", c.now, c.prev, f, c.want)
		}
		if f != nil && f.Kind == Stalled {
			msg := f.Error()
			if !strings.HasPrefix(msg, "stalled: ") || !strings.Contains(msg, "106 bits") || errors.Is(f, ErrDiverging) {
				t.Errorf("stalled failure: %q", msg)
			}
		}
	}
}
