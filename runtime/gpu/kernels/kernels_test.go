//go:build !cuda

package kernels

import (
	"errors"
	"strings"
	"testing"

	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
)

// Without the cuda tag there is nothing to build for: New says so before
// it looks for nvcc.
func TestNoCUDA(t *testing.T) {
	if err := Enabled(); !errors.Is(err, cudadev.ErrNoCUDA) || !strings.Contains(err.Error(), "built without the GPU") {
		t.Errorf("Enabled: %v", err)
	}
	if _, err := New(nil, "no-such-nvcc", t.TempDir()); !errors.Is(err, cudadev.ErrNoCUDA) {
		t.Errorf("New: %v, want cudadev.ErrNoCUDA", err)
	}
}
