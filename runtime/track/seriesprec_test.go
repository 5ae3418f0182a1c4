package track

import (
	"math"
	"slices"
	"testing"

	"github.com/mdgen/mdgen/mdops"
)

// TestSeriesPrecAt: at every generated precision n and every condition
// number (0, tiny, around each precision's u^(-1/2), huge, +Inf, NaN),
// the series precision is the first of SeriesPrec(n), then the Ladder
// below n, whose u^(-1/2) covers cond, else n itself; it is always one
// of Options{Prec: n}.Precisions() (the kernels a GPU tracker builds
// before the run). Off the Ladder (3, 5, 10) the search used to step
// past n to 0 and start over, forever.
func TestSeriesPrecAt(t *testing.T) {
	conds := []float64{0, 1e-300, 1, math.Inf(1), math.NaN(), math.MaxFloat64}
	for _, n := range []int{1, 2, 3, 4, 5, 8, 16} {
		u := mdops.Prec{N: n}.UnitRoundoff()
		conds = append(conds, 1/math.Sqrt(u), math.Nextafter(1/math.Sqrt(u), math.Inf(1)), 2/math.Sqrt(u))
	}
	for _, n := range mdops.Precisions() {
		built, err := Options{Prec: n}.Precisions()
		if err != nil {
			t.Fatal(err)
		}
		// The candidates in order: SeriesPrec(n), the Ladder above it
		// below n, then n.
		cands := []int{SeriesPrec(n)}
		for _, p := range Ladder {
			if p > cands[0] && p < n {
				cands = append(cands, p)
			}
		}
		if cands[len(cands)-1] != n {
			cands = append(cands, n)
		}
		for _, c := range conds {
			got := seriesPrecAt(n, c)
			want := n
			for _, q := range cands {
				if q == n || !(c*math.Sqrt(mdops.Prec{N: q}.UnitRoundoff()) > 1) {
					want = q
					break
				}
			}
			if got != want {
				t.Errorf("n=%d cond=%g: series at %d doubles, want %d", n, c, got, want)
			}
			if !slices.Contains(built, got) {
				t.Errorf("n=%d cond=%g: series at %d doubles, not among the precisions built, %v", n, c, got, built)
			}
		}
	}
}

// TestTrackOffLadder tracks cyclic4 (curves of solutions: ill-conditioned
// points, where the series climbs to the tracking precision) at 3 and 5
// doubles, off the Ladder: every path ends, at its precision, with the
// statuses of the run at 2 doubles (20 singular, 4 at infinity).
func TestTrackOffLadder(t *testing.T) {
	h, err := NewTotalDegree(family(t, "cyclic", 4), gammaTest, true, 1)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := Track(h, Options{Prec: 2}, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	precs := []int{3}
	if !testing.Short() {
		precs = append(precs, 5)
	}
	for _, n := range precs {
		run, err := Track(h, Options{Prec: n}, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if run.Summary.Regular != ref.Summary.Regular || run.Summary.Singular != ref.Summary.Singular ||
			run.Summary.Infinite != ref.Summary.Infinite || run.Summary.Failed != ref.Summary.Failed {
			t.Errorf("%d doubles: %+v, at 2 doubles %+v", n, run.Summary, ref.Summary)
		}
		for _, p := range run.Paths {
			if p.Prec != n {
				t.Errorf("%d doubles: path %d ended at %d doubles", n, p.Index, p.Prec)
			}
		}
	}
}
