package la

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkLeadCond times LeadR.Cond, the float64 condition estimate, on
// a well-conditioned complex 7 x 7 R (cyclic7's size).
func BenchmarkLeadCond(b *testing.B) {
	const n = 7
	r := triR(rand.New(rand.NewPCG(1, 2)), n, 8)
	l := NewLeadR(n, true)
	for k, v := range r {
		l.Re[k], l.Im[k] = v[0], v[1]
	}
	for b.Loop() {
		l.Cond(1, 2)
	}
}
