package newton_test

import (
	"github.com/mdgen/mdgen/internal/race"
	"testing"

	"github.com/mdgen/mdgen/internal/bench"
	"github.com/mdgen/mdgen/mdops"
)

// TestSolveAllocs: after the first, a solve of one Newton step (root
// refinement, one worker) allocates only what it returns: the Result, its
// X and its Failure (the step limit). The run state, the QR, the condition
// estimate and the stage clock reuse their memory (a tracker solves
// thousands of times per path).
func TestSolveAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector makes sync.Pool drop items at random: allocation counts mean nothing there")
	}
	for _, n := range []int{1, 2} {
		st, err := bench.NewStepBench("cyclic7:newton", mdops.Prec{N: n, Complex: true}, 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Step(); err != nil {
			t.Fatal(err)
		}
		allocs := testing.AllocsPerRun(20, func() {
			if err := st.Step(); err != nil {
				t.Fatal(err)
			}
		})
		st.Close()
		if allocs > 3 {
			t.Errorf("%d doubles: %v allocations per solve, want at most 3 (Result, X, Failure)", n, allocs)
		}
	}
}
