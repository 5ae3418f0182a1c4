package newton

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/mdops/la"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/cpu"
	"github.com/mdgen/mdgen/stager/families"
)

var errInjected = errors.New("injected launch failure")

// failingBackend is the CPU back end with one failure injected: the
// call number at of the method named fail returns errInjected (once).
type failingBackend struct {
	*cpu.Newton
	fail  string
	at    int
	calls map[string]int
}

func (f *failingBackend) hit(name string) error {
	f.calls[name]++
	if name == f.fail && f.calls[name] == f.at {
		return errInjected
	}
	return nil
}

func (f *failingBackend) Factor(inverse bool) (*la.RankError, float64, float64, error) {
	if err := f.hit("Factor"); err != nil {
		return nil, 0, 0, err
	}
	return f.Newton.Factor(inverse)
}

func (f *failingBackend) UpdateB(k, w int) error {
	if err := f.hit("UpdateB"); err != nil {
		return err
	}
	return f.Newton.UpdateB(k, w)
}

func (f *failingBackend) Evaluate(w int, jac bool) (float64, float64, error) {
	if err := f.hit("Evaluate"); err != nil {
		return 0, 0, err
	}
	return f.Newton.Evaluate(w, jac)
}

// TestBackendErrorStageStep: an error of the back end inside a run (a
// CUDA error on the GPU) stops the Solve with the stage and the step in
// its message, wrapping the back end's error; the next Solve on the same
// Solver (the same back end) gives the results of a fresh Solver, bit for
// bit.
func TestBackendErrorStageStep(t *testing.T) {
	inst, err := families.Build("monomial", families.Options{N: 6, Degree: 8, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	want := solve(t, inst.System, inst.Start[0].Values, Options{Prec: mdops.Prec{N: 2}, Degree: 8})
	if !want.Converged {
		t.Fatal(want.Err)
	}
	for _, c := range []struct {
		fail string
		at   int
		msg  string
	}{
		{"Factor", 1, "newton: QR (step 1, refining x(0)): "},
		{"Evaluate", 3, "newton: evaluate (step 3, degree 2): "},
		{"UpdateB", 2, "newton: update (step 3, degree 2): "},
	} {
		s, err := New(inst.System, Options{Prec: mdops.Prec{N: 2}, Degree: 8, NewBackend: func(bc backend.NewtonConfig) (Backend, error) {
			be, err := cpu.NewNewton(bc)
			if err != nil {
				return nil, err
			}
			return &failingBackend{Newton: be, fail: c.fail, at: c.at, calls: map[string]int{}}, nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Solve(inst.Start[0].Values)
		if !errors.Is(err, errInjected) || !strings.HasPrefix(err.Error(), c.msg) {
			t.Errorf("%s call %d: error %v, want %q wrapping the injected one", c.fail, c.at, err, c.msg)
		}
		got, err := s.Solve(inst.Start[0].Values)
		if err != nil {
			t.Fatalf("%s call %d: the next solve: %v", c.fail, c.at, err)
		}
		if got.Converged != want.Converged || got.Steps != want.Steps || math.Float64bits(got.Cond) != math.Float64bits(want.Cond) ||
			math.Float64bits(got.Residual) != math.Float64bits(want.Residual) {
			t.Errorf("%s call %d: the next solve: steps %d cond %v residual %v, want %d %v %v", c.fail, c.at, got.Steps, got.Cond, got.Residual,
				want.Steps, want.Cond, want.Residual)
		}
		for i := range want.X {
			if math.Float64bits(got.X[i]) != math.Float64bits(want.X[i]) {
				t.Fatalf("%s call %d: the next solve differs at double %d", c.fail, c.at, i)
			}
		}
		s.Close()
	}
}
