package cpu

import (
	"slices"
	"strings"
	"testing"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/stager"
	"github.com/mdgen/mdgen/stager/families"
	"github.com/mdgen/mdgen/stager/poly"
)

// roundTestPlan stages a benchmark system (seed 7).
func roundTestPlan(t *testing.T, name string, degree int, complex bool) *stager.Plan {
	t.Helper()
	var sys *poly.System
	var err error
	if complex {
		sys, err = families.BenchmarkSystemComplex(name, 7)
	} else {
		sys, err = families.BenchmarkSystem(name, 7)
	}
	if err != nil {
		t.Fatal(err)
	}
	plan, err := stager.Stage(sys, degree)
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// RoundSeries stores what New stores in every read-only slot.
func TestRoundSeriesMatchesCPU(t *testing.T) {
	for _, complex := range []bool{false, true} {
		for _, n := range []int{1, 3, 10} {
			plan := roundTestPlan(t, "p1", 2, complex)
			cpu, err := New(plan, mdops.Prec{N: n, Complex: complex}, 1)
			if err != nil {
				t.Fatal(err)
			}
			l := backend.Layout{Prec: mdops.Prec{N: n, Complex: complex}, Degree: plan.Degree}
			got := make([]float64, l.SlotLen())
			for s, v := range plan.Values {
				if err := backend.RoundSeries(got, v, l); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, cpu.slot(s)) {
					t.Fatalf("n=%d complex=%v slot %d: RoundSeries %v, CPU %v", n, complex, s, got, cpu.slot(s))
				}
			}
		}
	}
	// Real data refuses complex coefficients.
	plan := roundTestPlan(t, "p1", 1, true)
	l := backend.Layout{Prec: mdops.Prec{N: 2}, Degree: 1}
	for _, v := range plan.Values {
		if err := backend.RoundSeries(make([]float64, l.SlotLen()), v, l); err == nil || !strings.Contains(err.Error(), "complex") {
			t.Fatalf("complex coefficient into real data: err = %v", err)
		}
		break
	}
}
