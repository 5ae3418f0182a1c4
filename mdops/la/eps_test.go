package la

import (
	"math"
	"testing"
)

// TestEps: Eps derives from mdops.Prec.UnitRoundoff and keeps its value,
// 2^(-52 n), for every n the generator makes.
func TestEps(t *testing.T) {
	for n := 1; n <= 16; n++ {
		if got, want := Eps(n), math.Ldexp(1, -52*n); got != want {
			t.Errorf("Eps(%d) = %g, want %g", n, got, want)
		}
	}
}
