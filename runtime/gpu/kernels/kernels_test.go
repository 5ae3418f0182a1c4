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
	if g, err := OpenTracker(nil, "", t.TempDir()); !errors.Is(err, cudadev.ErrNoCUDA) || g != nil {
		t.Errorf("OpenTracker: %v, %v, want cudadev.ErrNoCUDA", g, err)
	}
}

// TestTrackerBatch: an even share of the paths per GPU, at most
// DefaultTrackBatch, at least 1; a batch given is kept.
func TestTrackerBatch(t *testing.T) {
	g := &Tracker{devs: make([]*cudadev.Device, 2)}
	for _, c := range []struct {
		paths      int64
		batch, got int
	}{{5, 0, 3}, {1, 0, 1}, {0, 0, 1}, {1 << 20, 0, DefaultTrackBatch}, {100, 7, 7}} {
		if got := g.Batch(c.paths, c.batch); got != c.got {
			t.Errorf("Batch(%d, %d) = %d, want %d", c.paths, c.batch, got, c.got)
		}
	}
}
