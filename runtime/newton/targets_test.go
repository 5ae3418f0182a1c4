package newton

import (
	"fmt"
	"math"
	"math/big"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/mdgen/mdgen/stager"
)

// TestTargets measures the targets (run on demand, they take
// minutes): MDGEN_NEWTON_TARGETS=1 go test ./runtime/newton -run TestTargets -v
//
//   - accuracy on the monomial homotopy (problem -1) at n = 256, d = 64,
//     real, in 2, 4 and 8 doubles: the largest error of a coefficient
//     against the exact series, absolute (PHCpack prints this one) and in
//     bits below the largest coefficient of its variable, with the steps
//     and the six stage times;
//   - Newton on the monomial problem n = 64, d = 32, 8 doubles: wall time
//     and its split over the six stages.
//
// MDGEN_TARGET_CASES overrides the cases: n:d:prec,... (default
// 64:32:8,256:64:2,256:64:4,256:64:8); MDGEN_TARGET_WORKERS the workers
// (default GOMAXPROCS).
func TestTargets(t *testing.T) {
	if os.Getenv("MDGEN_NEWTON_TARGETS") == "" {
		t.Skip("set MDGEN_NEWTON_TARGETS=1 to measure the targets (minutes)")
	}
	workers := envInt("MDGEN_TARGET_WORKERS", runtime.GOMAXPROCS(0))
	cases := "64:32:8,256:64:2,256:64:4,256:64:8"
	if s := os.Getenv("MDGEN_TARGET_CASES"); s != "" {
		cases = s
	}
	for _, c := range splitComma(cases) {
		var n, d, N int
		if _, err := fmt.Sscanf(c, "%d:%d:%d", &n, &d, &N); err != nil {
			t.Fatalf("MDGEN_TARGET_CASES: %q: %v", c, err)
		}
		target(t, n, d, N, workers)
	}
}

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

func target(t *testing.T, n, d, N, workers int) {
	inst, err := stager.BuildFamily("monomial", stager.FamilyOptions{N: n, Degree: d, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(inst.System, Options{Prec: N, Degree: d, Workers: workers, Progress: func(si StepInfo) {
		fmt.Printf("    n=%d d=%d %dd step %d w=%d update %.3g (old %.3g) skipped %d/%d at %v\n", n, d, N, si.Step, si.Degree,
			si.Update, si.UpdateOld, si.Skipped, si.Blocks, si.Elapsed.Round(time.Millisecond))
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	t0 := time.Now()
	if err := s.Prepare(); err != nil {
		t.Fatal(err)
	}
	setup := time.Since(t0)
	t0 = time.Now()
	res, err := s.Solve(inst.Start[0].Values)
	if err != nil {
		t.Fatal(err)
	}
	wall := time.Since(t0)
	bits, where := worstBits(res, func(v, k int) (*big.Float, *big.Float) { return bigC(inst.Exact[v][k]) })
	absErr := 0.0
	for v := range res.Vars {
		for k := 0; k <= d; k++ {
			g := res.Rat(v, k)
			var diff big.Rat
			diff.Sub(&g.Re, &inst.Exact[v][k].Re)
			f, _ := diff.Float64()
			absErr = math.Max(absErr, math.Abs(f))
		}
	}
	tm := res.Times
	fmt.Printf("TARGET monomial n=%d d=%d %dd real workers=%d: converged %v steps %d (refine %d), wall %.2fs (setup %.2fs), "+
		"stages evaluate %.2fs qr %.3fs qhb %.3fs backsub %.3fs update %.2fs residual %.3fs; "+
		"max abs error %.3g, worst %.1f bits below the largest coefficient (at %s; target %d), residual %.3g, cond %.3g\n",
		n, d, N, workers, res.Converged, res.Steps, res.RefineSteps, wall.Seconds(), setup.Seconds(),
		tm.Evaluate.Seconds(), tm.QR.Seconds(), tm.QHB.Seconds(), tm.BackSub.Seconds(), tm.Update.Seconds(), tm.Residual.Seconds(),
		absErr, bits, where, 53*N-20, res.Residual, res.Cond)
	if !res.Converged {
		t.Errorf("not converged: %v", res.Err)
	}
}
