//go:build cuda

package solver

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/gpu/kernels"
	"github.com/mdgen/mdgen/runtime/track"
)

// TestTrackGPU: an emitted package's Track on the GPUs
// (WithTrackDevices with kernels.OpenTracker, whole solves pipelined)
// holds the bits of Track on the CPU, at 1 and 2 doubles, with the
// default batch and with batches smaller than the paths. The kernels come
// from MDGEN_KERNELS's cache (default build/kernels; nvcc builds them once).
func TestTrackGPU(t *testing.T) {
	dir := os.Getenv("MDGEN_KERNELS")
	if dir == "" {
		dir = filepath.Join("..", "..", kernels.DefaultDir)
	}
	g, err := kernels.OpenTracker(nil, "", dir)
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	defer g.Close()
	g.Notices = os.Stderr
	katsura := `3
 x^2 + 2*y^2 + 2*z^2 - x;
 2*x*y + 2*y*z - y;
 x + 2*y + 2*z - 1;
`
	for _, text := range []string{circleHyperbola, katsura} {
		for _, n := range []int{1, 2} {
			s := &Spec{Name: "gpu", Prec: mdops.Prec{N: n}, Degree: 2, Text: text, Homotopy: track.TotalDegree}
			want, err := s.Track()
			if err != nil {
				t.Fatal(err)
			}
			for _, batch := range []int{0, 3} {
				got, err := s.Track(WithTrackDevices(g, batch))
				if err != nil {
					t.Fatal(err)
				}
				if err := DiffTrack(got.Run, want.Run); err != nil {
					t.Errorf("%d doubles, batch %d: on %s: %v", n, batch, g.Name(), err)
				}
			}
		}
	}
}
