//go:build !cuda

package runtime

import (
	"errors"
	"strings"
	"testing"

	"github.com/mdgen/mdgen/runtime/cudadev"
)

// Without the cuda tag every way to a GPU executor says why and how to get one.
func TestNewGPUNoCUDA(t *testing.T) {
	plan := gpuTestPlan(t, "p1", 1, false)
	g, err := NewGPU(plan, 2, false, []byte("not a fatbin"), nil)
	if g != nil || !errors.Is(err, cudadev.ErrNoCUDA) {
		t.Fatalf("NewGPU = %v, %v; want an error wrapping cudadev.ErrNoCUDA", g, err)
	}
	if !strings.Contains(err.Error(), "-tags cuda") || !strings.Contains(err.Error(), "make gpu") {
		t.Errorf("the error does not say how to build with CUDA: %v", err)
	}
	if _, err := NewGPUWithOptions(plan, 2, false, nil, nil, GPUOptions{}); !errors.Is(err, cudadev.ErrNoCUDA) {
		t.Errorf("NewGPUWithOptions: %v", err)
	}
	if _, err := LoadGPUKernels(nil, nil, 2); !errors.Is(err, cudadev.ErrNoCUDA) {
		t.Errorf("LoadGPUKernels: %v", err)
	}
	if _, err := NewGPUFromKernels(plan, false, nil, GPUOptions{}); !errors.Is(err, cudadev.ErrNoCUDA) {
		t.Errorf("NewGPUFromKernels: %v", err)
	}
	if GPUEnabled {
		t.Error("GPUEnabled in a build without cuda")
	}
}
