package solver

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/cpu"
	"github.com/mdgen/mdgen/runtime/newton"
	"github.com/mdgen/mdgen/stager"
)

// Where the linear algebra runs (Result.LinearAlgebra) and why not on the
// GPU: on the CPU it is the CPU without a reason; on a GPU Solver whose
// GPUNewton declines (ErrNoGPUNewton: a fatbin without the Newton kernels)
// or is absent, the CPU with the reason, and the same bits; any other
// error of GPUNewton fails the solve. (That the GPU build's GPUNewton keeps
// it on the device with the CPU's bits is the emitted packages'
// TestGPUSolveMatchesCPU, on a GPU.)
func TestSolveLinearAlgebraBackend(t *testing.T) {
	spec, inst := newtonSpec(t, "katsura3:newton", 2, 6, false)
	starts, err := spec.Starts()
	if err != nil {
		t.Fatal(err)
	}
	want := direct(t, inst, newton.Options{Prec: mdops.Prec{N: 2}, Degree: 6}, starts[0])

	c, err := New(spec, WithCPU())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.Solve(starts[0])
	if err != nil {
		t.Fatal(err)
	}
	if res.LinearAlgebra != CPU || res.LinearAlgebraReason != nil {
		t.Fatalf("on the CPU: linear algebra on the %s (%v)", res.LinearAlgebra, res.LinearAlgebraReason)
	}

	gpuSpec := func() *Spec {
		s, _ := newtonSpec(t, "katsura3:newton", 2, 6, false)
		s.Fatbins = fstest.MapFS{"fatbin/hom.fatbin": {Data: []byte("k")}}
		s.gpuTest = func(plan *stager.Plan, fatbin []byte, cfg GPUConfig) (backend.Executor, error) {
			return cpu.New(plan, cfg.Prec, 1)
		}
		return s
	}
	old := GPUNewton // the cuda build's
	defer func() { GPUNewton = old }()
	for _, c := range []struct {
		name   string
		seam   func(NewtonConfig, *newton.Options) (func() error, error)
		reason string // "": fails
	}{
		{"no seam", nil, "built without it"},
		{"declined", func(cfg NewtonConfig, opt *newton.Options) (func() error, error) {
			opt.NewBackend = func(backend.NewtonConfig) (newton.Backend, error) { return nil, errors.New("must not be used") }
			return nil, errors.Join(ErrNoGPUNewton, errors.New("the fatbin has no linear-algebra kernels"))
		}, "no linear-algebra kernels"},
		{"failed", func(NewtonConfig, *newton.Options) (func() error, error) {
			return nil, errors.New("out of device memory")
		}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			GPUNewton = c.seam
			s, err := New(gpuSpec())
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if s.Backend() != GPU {
				t.Fatalf("backend %s: %v", s.Backend(), s.FallbackReason())
			}
			res, err := s.Solve(starts[0])
			if c.reason == "" {
				if err == nil || !strings.Contains(err.Error(), "out of device memory") {
					t.Fatalf("Solve: %v, want the seam's error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			sameBits(t, c.name, res.Result, want)
			r := res.LinearAlgebraReason
			if res.LinearAlgebra != CPU || !errors.Is(r, ErrNoGPUNewton) || !strings.Contains(r.Error(), c.reason) {
				t.Fatalf("linear algebra on the %s, reason %v; want the CPU, %q", res.LinearAlgebra, r, c.reason)
			}
		})
	}
}
