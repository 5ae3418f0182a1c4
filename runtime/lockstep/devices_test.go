package lockstep

import (
	"testing"

	"github.com/mdgen/mdgen/runtime/track"
)

// TestTrackDevices: track.Track over several devices (three coordinators,
// the workers split among them, every path from one queue) gives every
// path's bits of track.Track with 2 workers and no device.
func TestTrackDevices(t *testing.T) {
	for _, c := range trackCases(true) {
		t.Run(c.String(), func(t *testing.T) {
			h := homotopy(t, c.family, c.n)
			want, err := track.Track(h, c.options(2), c.first, c.count)
			if err != nil {
				t.Fatal(err)
			}
			cos := []*Coordinator{New(NewCPU()), New(NewCPU()), New(NewCPU())}
			got, err := track.Track(h, c.options(3*2, cos[0], cos[1], cos[2]), c.first, c.count)
			if err != nil {
				t.Fatal(err)
			}
			if d := samePaths(want, got); d != "" {
				t.Fatal(d)
			}
			// Which device tracks which path depends on the scheduling
			// (one queue: a device whose workers start late may get
			// none of a small run's paths); the devices together ran
			// every solve.
			var calls int64
			for _, co := range cos {
				calls += co.Stats().Calls
			}
			if calls == 0 {
				t.Fatal("no device ran a call")
			}
		})
	}
}
