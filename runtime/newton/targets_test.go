package newton

import (
	"fmt"
	"math"
	"math/big"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/stager/families"
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
// Each monomial case also prints the floor of its instance: the error of the
// exact solution of the system whose b(t) is rounded to P doubles (what any
// solver reading b in P doubles starts from; monomialFloorBits). With
// PHCpack's random rates that floor is above the target at n = 256; with
// balanced rates (the partial sums of the rates stay in [-2, 2]) it is not.
//
// MDGEN_TARGET_CASES overrides the cases: n:d:prec[:balanced],... (default
// 64:32:8,256:64:2,256:64:4,256:64:8, then the three n = 256 cases
// balanced); MDGEN_TARGET_WORKERS the workers (default GOMAXPROCS).
func TestTargets(t *testing.T) {
	if os.Getenv("MDGEN_NEWTON_TARGETS") == "" {
		t.Skip("set MDGEN_NEWTON_TARGETS=1 to measure the targets (minutes)")
	}
	workers := envInt("MDGEN_TARGET_WORKERS", runtime.GOMAXPROCS(0))
	cases := "64:32:8,256:64:2,256:64:4,256:64:8,256:64:2:balanced,256:64:4:balanced,256:64:8:balanced"
	if s := os.Getenv("MDGEN_TARGET_CASES"); s != "" {
		cases = s
	}
	for _, c := range splitComma(cases) {
		var n, d, N int
		balanced := strings.HasSuffix(c, ":balanced")
		if _, err := fmt.Sscanf(strings.TrimSuffix(c, ":balanced"), "%d:%d:%d", &n, &d, &N); err != nil {
			t.Fatalf("MDGEN_TARGET_CASES: %q: %v", c, err)
		}
		target(t, n, d, N, workers, balanced)
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

func target(t *testing.T, n, d, N, workers int, balanced bool) {
	opt := families.Options{N: n, Degree: d, Seed: 1, Balanced: balanced}
	inst, err := families.Build("monomial", opt)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(inst.System, Options{Prec: mdops.Prec{N: N}, Degree: d, Workers: workers, Progress: func(si StepInfo) {
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
	floor := monomialFloorBits(n, d, N, opt)
	fmt.Printf("TARGET %s %dd real workers=%d: converged %v steps %d (refine %d), wall %.2fs (setup %.2fs), "+
		"stages evaluate %.2fs qr %.3fs qhb %.3fs backsub %.3fs update %.2fs residual %.3fs; "+
		"max abs error %.3g, worst %.1f bits below the largest coefficient (at %s; target %d; floor of the instance %.1f), residual %.3g, cond %.3g\n",
		inst.Spec, N, workers, res.Converged, res.Steps, res.RefineSteps, wall.Seconds(), setup.Seconds(),
		tm.Evaluate.Seconds(), tm.QR.Seconds(), tm.QHB.Seconds(), tm.BackSub.Seconds(), tm.Update.Seconds(), tm.Residual.Seconds(),
		absErr, bits, where, 53*N-20, floor, res.Residual, res.Cond)
	if !res.Converged {
		t.Errorf("not converged: %v", res.Err)
	}
}

// monomialFloorBits returns, for the one-column real monomial homotopy of
// opt, the worst number of bits by which the exact solution of the system
// with b_i(t) rounded to P doubles (coefficient by coefficient, as the
// solver reads it) agrees with the exact series, below the largest
// coefficient of each variable: x_1 = b~_1 and x_i = b~_i / b~_(i-1), series
// division in 64P+200 bits. No solver that reads b in P doubles can be
// expected to do better.
func monomialFloorBits(n, d, P int, opt families.Options) float64 {
	rates := families.MonomialRates(n, opt.Seed, false)
	if opt.Balanced {
		families.BalanceRates(rates)
	}
	prec := uint(64*P + 200)
	newF := func() *big.Float { return new(big.Float).SetPrec(prec) }
	var s big.Rat
	var prev []*big.Float
	worst := math.Inf(1)
	limbs := make([]float64, P)
	for i := 0; i < n; i++ {
		s.Add(&s, &rates[i].Re)
		b := make([]*big.Float, d+1)
		var c big.Rat
		c.SetInt64(1)
		for k := 0; k <= d; k++ {
			if k > 0 {
				c.Mul(&c, &s)
				c.Quo(&c, new(big.Rat).SetInt64(int64(k)))
			}
			backend.RoundRat(limbs, &c)
			b[k] = newF()
			for _, v := range limbs {
				b[k].Add(b[k], new(big.Float).SetFloat64(v))
			}
		}
		x := b
		if i > 0 {
			x = make([]*big.Float, d+1)
			for k := 0; k <= d; k++ {
				acc := newF().Set(b[k])
				for j := 1; j <= k; j++ {
					acc.Sub(acc, newF().Mul(prev[j], x[k-j]))
				}
				x[k] = acc.Quo(acc, prev[0])
			}
		}
		var e big.Rat
		e.SetInt64(1)
		maxc, maxerr := 0.0, 0.0
		for k := 0; k <= d; k++ {
			if k > 0 {
				e.Mul(&e, &rates[i].Re)
				e.Quo(&e, new(big.Rat).SetInt64(int64(k)))
			}
			ef := newF().SetRat(&e)
			v, _ := ef.Float64()
			maxc = math.Max(maxc, math.Abs(v))
			dv, _ := newF().Sub(x[k], ef).Float64()
			maxerr = math.Max(maxerr, math.Abs(dv))
		}
		if maxerr > 0 {
			worst = math.Min(worst, math.Log2(maxc/maxerr))
		}
		prev = b
	}
	return worst
}
