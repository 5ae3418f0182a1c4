package lockstep

import (
	"fmt"
	"math"
	"math/cmplx"
	"reflect"
	"slices"
	"testing"

	"github.com/mdgen/mdgen/internal/race"
	"github.com/mdgen/mdgen/runtime/track"
	"github.com/mdgen/mdgen/stager/families"
)

// trackCase is a tracker run to repeat through the coordinator.
type trackCase struct {
	family string
	n      int
	prec   int // 0: automatic (from 1 double: the paths that fail there go on at 2)
	// first and count are the paths tracked (count 0: every path).
	first, count int64
}

func (c trackCase) String() string {
	if c.count > 0 {
		return fmt.Sprintf("%s%d/prec%d/paths%d-%d", c.family, c.n, c.prec, c.first+1, c.first+c.count)
	}
	return fmt.Sprintf("%s%d/prec%d", c.family, c.n, c.prec)
}

// options returns the case's options with workers workers on the devices
// devs (none: the CPU tracker).
func (c trackCase) options(workers int, devs ...track.Device) track.Options {
	o := track.Options{Prec: c.prec, Workers: workers, Devices: devs}
	if c.prec == 0 {
		o.MinPrec = 1
	}
	return o
}

// trackCases are katsura, noon and cyclic at 1, 2, 4 doubles and with the
// automatic precision from 1 double (cyclic 4 has curves of solutions:
// its paths fail and end singular, the rare branches of the tracker; some
// paths of cyclic 5 fail at 1 double and go on at 2; the short form leaves
// out cyclic's slower cases, and tracks paths 91 to 106 of cyclic 5
// instead, two of which go on at 2 doubles).
func trackCases(short bool) []trackCase {
	var out []trackCase
	sizes := map[string]int{"katsura": 3, "noon": 3, "cyclic": 4}
	if !short {
		sizes = map[string]int{"katsura": 4, "noon": 4, "cyclic": 5}
	}
	for _, f := range []string{"katsura", "noon", "cyclic"} {
		for _, p := range []int{1, 2, 4, 0} {
			if short && f == "cyclic" && (p == 2 || p == 4 || (p == 0 && race.Enabled)) {
				continue // 1 to 10 s (a minute under the race detector): its curves take hundreds of steps per path
			}
			out = append(out, trackCase{family: f, n: sizes[f], prec: p})
		}
	}
	if short {
		out = append(out, trackCase{family: "cyclic", n: 5, prec: 0, first: 90, count: 16})
	}
	return out
}

func homotopy(t testing.TB, family string, n int) *track.Homotopy {
	t.Helper()
	in, err := families.Build(family, families.Options{N: n})
	if err != nil {
		t.Fatal(err)
	}
	h, err := track.NewTotalDegree(in.System, cmplx.Rect(1, 0.7), true, 1)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// samePaths reports the first difference of two runs' paths (every field
// but the time), or "".
func samePaths(want, got *track.Run) string {
	if len(want.Paths) != len(got.Paths) {
		return fmt.Sprintf("%d paths, want %d", len(got.Paths), len(want.Paths))
	}
	bits := func(x []float64) []uint64 {
		out := make([]uint64, len(x))
		for i, v := range x {
			out[i] = math.Float64bits(v)
		}
		return out
	}
	for i := range want.Paths {
		w, g := want.Paths[i], got.Paths[i]
		if !slices.Equal(bits(w.X), bits(g.X)) {
			return fmt.Sprintf("path %d: endpoint %v, want %v", i+1, g.X, w.X)
		}
		w.X, g.X, w.Seconds, g.Seconds = nil, nil, 0, 0
		for _, f := range [][2]float64{{w.T, g.T}, {w.Cond, g.Cond}, {w.Residual, g.Residual}, {w.Err, g.Err}} {
			if math.Float64bits(f[0]) != math.Float64bits(f[1]) {
				return fmt.Sprintf("path %d: %+v, want %+v", i+1, g, w)
			}
		}
		w.T, g.T, w.Cond, g.Cond, w.Residual, g.Residual, w.Err, g.Err = 0, 0, 0, 0, 0, 0, 0, 0
		if !reflect.DeepEqual(w, g) {
			return fmt.Sprintf("path %d: %+v, want %+v", i+1, g, w)
		}
	}
	if want.Summary != got.Summary {
		return fmt.Sprintf("summary %+v, want %+v", got.Summary, want.Summary)
	}
	return ""
}

// TestTrackCPU: track.Track through the coordinator with the CPU
// executor and 64 workers gives every path's bits of track.Track with 2
// workers and no device.
func TestTrackCPU(t *testing.T) {
	for _, c := range trackCases(testing.Short()) {
		t.Run(c.String(), func(t *testing.T) {
			h := homotopy(t, c.family, c.n)
			want, err := track.Track(h, c.options(2), c.first, c.count)
			if err != nil {
				t.Fatal(err)
			}
			co := New(NewCPU())
			got, err := track.Track(h, c.options(64, co), c.first, c.count)
			if err != nil {
				t.Fatal(err)
			}
			if d := samePaths(want, got); d != "" {
				t.Fatal(d)
			}
			st := co.Stats()
			if st.Groups == 0 || st.Calls < st.Groups {
				t.Fatalf("stats %+v: no groups ran", st)
			}
			t.Logf("%d paths (%+v, %d raised): %d calls in %d groups (%.1f per group)", len(got.Paths), got.Summary, raised(got), st.Calls, st.Groups, float64(st.Calls)/float64(st.Groups))
		})
	}
}

// raised counts the paths that ended above their first precision.
func raised(run *track.Run) int {
	n := 0
	for _, p := range run.Paths {
		if p.Prec > max(run.Options.Prec, run.Options.MinPrec) {
			n++
		}
	}
	return n
}
