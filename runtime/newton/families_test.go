package newton

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/ref"
	"github.com/mdgen/mdgen/stager/families"
)

// TestFamiliesAgainstReference: small Newton homotopies f(x) - (1-t) f(z)
// of cyclic, katsura and noon with random exact starts z, and
// Chandrasekhar's H-equation with c = t from H = 1, real and complex: every
// coefficient agrees with ref.NewtonSeries at 64N+200 bits to 53N-30 bits
// relative to the largest coefficient of its variable (issue 11's target).
func TestFamiliesAgainstReference(t *testing.T) {
	const d = 8
	precs := []int{2, 4, 8}
	if testing.Short() {
		precs = []int{2, 4}
	}
	for _, spec := range []string{"cyclic5:newton", "katsura4:newton", "noon4:newton", "chandra4:c=t"} {
		for _, complex := range []bool{false, true} {
			if complex && spec == "chandra4:c=t" {
				continue // real coefficients and a real start: complex data adds nothing
			}
			for _, N := range precs {
				name := fmt.Sprintf("%s/%dd/complex=%v", spec, N, complex)
				t.Run(name, func(t *testing.T) {
					inst, err := families.System(spec, families.Options{Seed: 7, Complex: complex})
					if err != nil {
						t.Fatal(err)
					}
					if len(inst.Start) == 0 {
						t.Fatalf("%s has no start solution", spec)
					}
					z := inst.Start[0].Values
					res := solve(t, inst.System, z, Options{Prec: mdops.Prec{N: N, Complex: complex}, Degree: d, Workers: 1})
					if !res.Converged {
						t.Fatalf("not converged: %v", res.Err)
					}
					prec := uint(64*N + 200)
					want, err := ref.NewtonSeries(inst.System, refStart(z, prec), d, prec, 80)
					if err != nil {
						t.Fatal(err)
					}
					bits, where := worstBits(res, func(v, k int) (*big.Float, *big.Float) {
						c := want.Series[v][k]
						return c.Re, c.Im
					})
					need := float64(53*N - 30)
					t.Logf("%s: %d steps, cond %.3g, worst %.1f bits at %s (need %.0f)", name, res.Steps, res.Cond, bits, where, need)
					if bits < need {
						t.Errorf("%.1f bits at %s, want >= %.0f", bits, where, need)
					}
				})
			}
		}
	}
}
