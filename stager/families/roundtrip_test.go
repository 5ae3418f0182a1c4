package families

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/mdgen/mdgen/stager/poly"
	"github.com/mdgen/mdgen/stager/solutions"
)

// roundTrip writes inst as mdgen system does (poly.Format, then the start
// list) and reads it back with solutions.ParseWithSystem: every reader
// must read what the generator writes (cyclic56:newton wrote p/q past
// 1e308 that the reader refused; chandra c=1e99999 was written, then
// refused).
func roundTrip(t *testing.T, inst *Instance) {
	t.Helper()
	text := poly.Format(inst.System)
	text = append(text, "\nTITLE : x\n\n"...)
	if len(inst.Start) > 0 {
		text = append(text, solutions.Format(inst.Start, solutions.FormatOptions{})...)
	}
	sys, sols, err := solutions.ParseWithSystem(inst.Spec, text, poly.ParseOptions{})
	if err != nil {
		t.Errorf("%s: written, then refused: %v", inst.Spec, err)
		return
	}
	if len(sys.Polys) != len(inst.System.Polys) || len(sys.Vars) != len(inst.System.Vars) || len(sols) != len(inst.Start) {
		t.Errorf("%s: read back %d polynomials in %d variables and %d solutions, wrote %d, %d, %d", inst.Spec,
			len(sys.Polys), len(sys.Vars), len(sols), len(inst.System.Polys), len(inst.System.Vars), len(inst.Start))
	}
}

// TestRoundTripExtremes: every family at its smallest and large advertised
// sizes (under -short only what takes well under a second: cyclic at
// n = 56, where -newton's p/q first pass 1e308) and at the extremes of its
// options reads back.
func TestRoundTripExtremes(t *testing.T) {
	for _, f := range All() {
		// The largest sizes take minutes and gigabytes to build (cyclic256:newton
		// 4.5 minutes, noon4096:newton 10 GB): up to 256 here, -newton up to 64,
		// where its p/q are largest in digits already.
		sizes := []int{f.MinN, f.DefaultN, min(f.MaxN, 256)}
		if testing.Short() {
			sizes = []int{f.MinN, min(f.MaxN, 56)}
		}
		var opts []Options
		for _, n := range sizes {
			opts = append(opts, Options{N: n})
			if f.MinN != f.MaxN || !testing.Short() {
				opts = append(opts, Options{N: n, Complex: true, Seed: 7})
			}
			if slices.Contains(f.Options, "newton") {
				opts = append(opts, Options{N: min(n, 64), Newton: true}, Options{N: min(n, 8), Newton: true, Complex: true, Seed: 1 << 62})
			}
			if slices.Contains(f.Options, "c") {
				for _, c := range []string{"1e300", "-1e300", "3e-290", "1/3" + "0000000000", "t"} {
					if c == "t" && f.Name == "noon" {
						continue
					}
					opts = append(opts, Options{N: n, C: c})
				}
			}
			if slices.Contains(f.Options, "degree") {
				opts = append(opts, Options{N: n, Degree: 1}, Options{N: min(n, 2), Degree: 1024, Columns: 2})
			}
		}
		for _, o := range opts {
			t0 := time.Now()
			inst, err := f.Build(o)
			if err != nil {
				// Refused before writing is fine; only a written file must read back.
				t.Logf("%s %+v: refused: %v", f.Name, o, err)
				continue
			}
			roundTrip(t, inst)
			if el := time.Since(t0); el > time.Second {
				t.Logf("%s: %v", inst.Spec, el)
			}
		}
	}
	if testing.Short() {
		return
	}
	for n := 56; n <= 64; n++ {
		inst, err := Build("cyclic", Options{N: n, Newton: true})
		if err != nil {
			t.Fatal(err)
		}
		roundTrip(t, inst)
	}
}

// TestFamilyRefusesOutOfRange: an option that would make a coefficient
// outside a double's range is refused by Build, with the option.
func TestFamilyRefusesOutOfRange(t *testing.T) {
	for _, c := range []string{"1e99999", "1e400", "1e-400", "1/0", "abc", "1e999999999"} {
		for _, name := range []string{"chandra", "noon"} {
			if _, err := Build(name, Options{N: 2, C: c}); err == nil {
				t.Errorf("%s c=%s built", name, c)
			} else {
				t.Log(fmt.Sprint(err))
			}
		}
	}
}
