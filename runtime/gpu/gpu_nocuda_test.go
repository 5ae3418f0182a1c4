//go:build !cuda

package gpu

import (
	"errors"
	"strings"
	"testing"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
)

// Without the cuda tag every way to a GPU executor says why and how to get one.
func TestNewNoCUDA(t *testing.T) {
	plan := testPlan(t, "p1", 1, false)
	g, err := New(plan, mdops.Prec{N: 2}, []byte("not a fatbin"), nil)
	if g != nil || !errors.Is(err, cudadev.ErrNoCUDA) {
		t.Fatalf("New = %v, %v; want an error wrapping cudadev.ErrNoCUDA", g, err)
	}
	if !strings.Contains(err.Error(), "-tags cuda") || !strings.Contains(err.Error(), "make gpu") {
		t.Errorf("the error does not say how to build with CUDA: %v", err)
	}
	if _, err := NewWithOptions(plan, mdops.Prec{N: 2}, nil, nil, Options{}); !errors.Is(err, cudadev.ErrNoCUDA) {
		t.Errorf("NewWithOptions: %v", err)
	}
	if _, err := LoadKernels(nil, nil, 2); !errors.Is(err, cudadev.ErrNoCUDA) {
		t.Errorf("LoadKernels: %v", err)
	}
	if _, err := NewFromKernels(plan, false, nil, Options{}); !errors.Is(err, cudadev.ErrNoCUDA) {
		t.Errorf("NewFromKernels: %v", err)
	}
	if Enabled {
		t.Error("Enabled in a build without cuda")
	}
}

// Without the cuda tag the Newton kernels cannot be loaded: the error wraps
// cudadev.ErrNoCUDA (callers fall back to the CPU).
func TestNewtonNoCUDA(t *testing.T) {
	k, err := LoadNewtonKernels(nil, nil, nil, mdops.Prec{N: 2})
	if k != nil || !errors.Is(err, cudadev.ErrNoCUDA) {
		t.Fatalf("LoadNewtonKernels = %v, %v; want an error wrapping cudadev.ErrNoCUDA", k, err)
	}
}
