package cpu

import (
	"github.com/mdgen/mdgen/internal/race"
	"testing"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/stager"
	"github.com/mdgen/mdgen/stager/families"
)

// TestNewtonHotPathAllocs: after the first solve, the CPU back end's own
// work of a Newton step allocates nothing but the Result's x per Reset:
// the evaluation (executor run, gathering, norms), the block norms, the
// updates and the residual reuse their buffers. (The QR is la's: a
// factorization per Factor.)
func TestNewtonHotPathAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector makes sync.Pool drop items at random: allocation counts mean nothing there")
	}
	inst, err := families.System("cyclic5:newton", families.Options{Seed: 1, Complex: true})
	if err != nil {
		t.Fatal(err)
	}
	p := mdops.Prec{N: 2, Complex: true}
	plan, err := stager.Stage(inst.System, 0)
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(plan, p, 1)
	if err != nil {
		t.Fatal(err)
	}
	n := len(inst.System.Vars)
	be, err := NewNewton(backend.NewtonConfig{Sys: inst.System, Prec: p, Degree: 0, Vars: n, Eqs: n, Workers: 1,
		Exec: func(int) (backend.Executor, error) { return e, nil }})
	if err != nil {
		t.Fatal(err)
	}
	x0 := backend.RandomInputs(1, backend.Layout{Prec: p, Degree: n - 1}, 3)[0]
	skipped, nb := []bool{false}, []float64{0}
	step := func() {
		if _, _, err := be.Evaluate(0, true); err != nil {
			t.Fatal(err)
		}
		if _, err := be.BlockNorm(0); err != nil {
			t.Fatal(err)
		}
		if err := be.UpdateB(0, 0); err != nil {
			t.Fatal(err)
		}
		if _, err := be.Residual(0, skipped, nb); err != nil {
			t.Fatal(err)
		}
		if _, _, _, err := be.UpdateX(0, 0, skipped); err != nil {
			t.Fatal(err)
		}
	}
	if err := be.Reset(x0); err != nil {
		t.Fatal(err)
	}
	step()
	if a := testing.AllocsPerRun(10, step); a != 0 {
		t.Errorf("a step's own work: %g allocations", a)
	}
	if a := testing.AllocsPerRun(10, func() { be.Reset(x0) }); a != 1 {
		t.Errorf("Reset: %g allocations, want 1 (x)", a)
	}
}
