package newton

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"testing"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/stager/families"
	"github.com/mdgen/mdgen/stager/poly"
)

// TestSolveEachWorkers: refining a list of starts with 1, 2 and 3 solvers
// gives every result bit for bit as one solver's Solve (with 2 workers of
// its own), in the order of the starts, converged or not.
func TestSolveEachWorkers(t *testing.T) {
	inst, err := families.System("katsura4:newton", families.Options{Seed: 3, Complex: true})
	if err != nil {
		t.Fatal(err)
	}
	z := inst.Start[0].Values
	var starts [][]poly.Rational
	for k := range 7 {
		s := make([]poly.Rational, len(z))
		f := big.NewRat(int64(1000+k*k*k), 1000) // k = 6: 21% off, may fail
		for v := range z {
			s[v].Re.Mul(&z[v].Re, f)
			s[v].Im.Mul(&z[v].Im, f)
		}
		starts = append(starts, s)
	}
	for _, d := range []int{0, 3} {
		opt := Options{Prec: mdops.Prec{N: 2, Complex: true}, Degree: d}
		one := opt
		one.Workers = 2
		s, err := New(inst.System, one)
		if err != nil {
			t.Fatal(err)
		}
		var want []*Result
		for _, st := range starts {
			res, err := s.Solve(st)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, res)
		}
		s.Close()
		for _, workers := range []int{1, 2, 3} {
			t.Run(fmt.Sprintf("d=%d/workers=%d", d, workers), func(t *testing.T) {
				opt.Workers = workers
				calls := 0
				b, err := SolveEach(inst.System, opt, starts, func(int) { calls++ })
				if err != nil {
					t.Fatal(err)
				}
				if calls != len(starts) || b.Solvers != min(workers, len(starts)) {
					t.Errorf("%d progress calls, %d solvers", calls, b.Solvers)
				}
				for k, res := range b.Results {
					w := want[k]
					if res.Converged != w.Converged || res.Steps != w.Steps || !slices.Equal(bitsOf(res.X), bitsOf(w.X)) ||
						math.Float64bits(res.Residual) != math.Float64bits(w.Residual) || math.Float64bits(res.Cond) != math.Float64bits(w.Cond) {
						t.Errorf("start %d: converged %v in %d steps, residual %g, want %v, %d, %g (or x differs)",
							k+1, res.Converged, res.Steps, res.Residual, w.Converged, w.Steps, w.Residual)
					}
				}
			})
		}
	}
}

func bitsOf(x []float64) []uint64 {
	out := make([]uint64, len(x))
	for i, v := range x {
		out[i] = math.Float64bits(v)
	}
	return out
}
