package solver

import (
	"errors"
	"math"
	"math/cmplx"
	"slices"
	"strings"
	"testing"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/lockstep"
	"github.com/mdgen/mdgen/runtime/track"
)

// circleHyperbola is x^2 + y^2 = 5, x y = 2: four real solutions, (1, 2),
// (2, 1), (-1, -2), (-2, -1), and no path to infinity.
const circleHyperbola = `2
 x^2 + y^2 - 5;
 x*y - 2;
`

func trackSpec(text, homotopy string) *Spec {
	return &Spec{Name: "ch", Prec: mdops.Prec{N: 2}, Degree: 2, Text: text, Homotopy: homotopy}
}

// TestTrackTotalDegree: Track finds the four solutions, and its run holds
// the bits of runtime/track on the same homotopy, on any number of workers.
func TestTrackTotalDegree(t *testing.T) {
	s := trackSpec(circleHyperbola, track.TotalDegree)
	res, err := s.Track(WithTrackWorkers(2))
	if err != nil {
		t.Fatal(err)
	}
	if res.Summary.Regular != 4 || res.Summary.Real != 4 || res.Summary.Distinct != 4 || len(res.Solutions) != 4 {
		t.Fatalf("summary %+v, %d solutions", res.Summary, len(res.Solutions))
	}
	want := []complex128{1 + 2i, 2 + 1i, -1 - 2i, -2 - 1i} // x + i y
	var got []complex128
	for k := range res.Solutions {
		sol := &res.Solutions[k]
		if !sol.Finite() || sol.Prec != 2 || sol.Multiplicity != 1 || sol.Number() != int64(k+1) {
			t.Fatalf("path %d: %+v", k+1, sol.Path)
		}
		p := sol.Point()
		if math.Abs(imag(p[0]))+math.Abs(imag(p[1])) > 1e-25 {
			t.Errorf("path %d: %v is not real", k+1, p)
		}
		got = append(got, complex(real(p[0]), real(p[1])))
		// Text and Rat are the limbs' values: the real part of x is an
		// integer to within the double-double's accuracy.
		r := sol.Rat(0)
		f, _ := r.Re.Float64()
		re, im := sol.Text(0)
		if f != real(p[0]) || !strings.Contains(re, "e") || im == "" || len(sol.Coef(1)) != 4 {
			t.Errorf("path %d: Rat %v, Text %s %s, Float %v", k+1, f, re, im, p[0])
		}
	}
	for _, w := range want {
		if !slices.ContainsFunc(got, func(z complex128) bool { return cmplx.Abs(z-w) < 1e-25 }) {
			t.Errorf("no solution %v among %v", w, got)
		}
	}
	if res.Seed != DefaultSeed || res.Homotopy.Gamma != Gamma(DefaultSeed) || !res.Homotopy.Projective {
		t.Errorf("seed %d, gamma %v, projective %v", res.Seed, res.Homotopy.Gamma, res.Homotopy.Projective)
	}
	sys, err := s.System()
	if err != nil {
		t.Fatal(err)
	}
	h, err := track.NewTotalDegree(sys, Gamma(DefaultSeed), true, DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := track.Track(h, track.Options{Prec: 2, Workers: 1}, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := DiffTrack(res.Run, ref); err != nil {
		t.Fatalf("Track against runtime/track: %v", err)
	}
	// A range of paths, another gamma and the automatic precision.
	part, err := s.Track(WithPaths(2, 3), WithSeed(7), WithTrackPrecision(0), WithAffine())
	if err != nil {
		t.Fatal(err)
	}
	if len(part.Solutions) != 2 || part.Solutions[0].Number() != 2 || part.Homotopy.Gamma != Gamma(7) || part.Homotopy.Projective ||
		part.Options.Prec != 0 {
		t.Fatalf("paths 2:3 of seed 7: %d solutions from %d, gamma %v", len(part.Solutions), part.Solutions[0].Number(), part.Homotopy.Gamma)
	}
	if g := cmplx.Abs(Gamma(7)); math.Abs(g-1) > 1e-15 {
		t.Errorf("|Gamma(7)| = %v", g)
	}
}

// A package without a homotopy has no Track, nor one of a homotopy this
// mdgen does not know; a range beyond the paths and a system with a
// parameter are refused with the reason.
func TestTrackRefused(t *testing.T) {
	if _, err := trackSpec(circleHyperbola, "").Track(); !errors.Is(err, ErrNoTrack) {
		t.Errorf("no homotopy: %v, want ErrNoTrack", err)
	}
	if _, err := trackSpec(circleHyperbola, "polyhedral").Track(); err == nil || !strings.Contains(err.Error(), "regenerate") {
		t.Errorf("an unknown homotopy: %v", err)
	}
	if _, err := trackSpec(circleHyperbola, track.TotalDegree).Track(WithPaths(3, 5)); err == nil || !strings.Contains(err.Error(), "paths 1 to 4") {
		t.Errorf("paths 3:5 of 4: %v", err)
	}
	if _, err := trackSpec(testSystem, track.TotalDegree).Track(); err == nil || !strings.Contains(err.Error(), "parameter") {
		t.Errorf("a system with a parameter: %v", err)
	}
}

// hostDevices is a TrackDevices of one runtime/lockstep coordinator whose
// whole solves run on the CPU (lockstep.NewCPUSolves), pipelined as the
// GPUs' are, counting the calls Track makes.
type hostDevices struct {
	prepared, closed int
	batch            int
	prepareErr       error
}

func (d *hostDevices) Batch(paths int64, batch int) int {
	if batch > 0 {
		return batch
	}
	return int(min(paths, 3))
}

func (d *hostDevices) Prepare(track.Options) error {
	d.prepared++
	return d.prepareErr
}

func (d *hostDevices) Use(opt *track.Options, batch int) func() error {
	co := lockstep.New(lockstep.NewCPUSolves())
	co.Pipeline = 2
	opt.Devices, opt.Workers, d.batch = []track.Device{co}, batch, batch
	return func() error { d.closed++; return nil }
}

// TestTrackDevices: Track on devices (WithTrackDevices) holds the bits of
// Track on the CPU, prepares the devices, uses them with their batch and
// closes what they made; a device that cannot be prepared is an error.
func TestTrackDevices(t *testing.T) {
	s := trackSpec(circleHyperbola, track.TotalDegree)
	want, err := s.Track()
	if err != nil {
		t.Fatal(err)
	}
	for _, batch := range []int{0, 2} {
		d := &hostDevices{}
		got, err := s.Track(WithTrackDevices(d, batch))
		if err != nil {
			t.Fatal(err)
		}
		if err := DiffTrack(got.Run, want.Run); err != nil {
			t.Fatalf("batch %d: on the devices: %v", batch, err)
		}
		wantBatch := map[int]int{0: 3, 2: 2}[batch]
		if d.prepared != 1 || d.closed != 1 || d.batch != wantBatch {
			t.Fatalf("batch %d: prepared %d, closed %d times, batch %d (want 1, 1, %d)", batch, d.prepared, d.closed, d.batch, wantBatch)
		}
	}
	d := &hostDevices{prepareErr: errors.New("no kernels")}
	if _, err := s.Track(WithTrackDevices(d, 0)); err == nil || !strings.Contains(err.Error(), "no kernels") {
		t.Fatalf("a device that cannot be prepared: %v", err)
	}
}
