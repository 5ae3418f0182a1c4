package solutions

import (
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mdgen/mdgen/stager/poly"
)

// TestChoicePHCOutput reads PHCpack's own output files (testdata/phc,
// written by phc 2.4.86, Debian's phcpack): phc -b (katsura2: the
// solutions with zero coordinates refined in a list of their own; cplx2:
// complex coefficients), phc -p in double double, phc -u (menu 4, no
// refinement summary: the last list). Each is read after its echo of the
// system, as mdgen solve reads a system file, and as a start list.
func TestChoicePHCOutput(t *testing.T) {
	for _, c := range []struct {
		file  string
		count int
		note  string // a part of Choice.String()
	}{
		{"katsura2.b.out", 4, "read the 4 solutions of the 2 lists refined by PHCpack (2 at line 135, 2 at line 246); skipped 1 other list (line 215: PHCpack's path diagnostics (\"== 1 = #step ...\"))"},
		{"cplx2.b.out", 3, "read the 3 solutions of the list refined by PHCpack (line 156); skipped 1 other list (line 120: PHCpack's path diagnostics (\"== 1 = #step ...\"))"},
		{"cplx2.p2.out", 4, "read the 4 solutions of the list refined by PHCpack (line 91); skipped 1 other list (line 11: 4 solutions)"},
		{"cplx2.u4.out", 4, "read the 4 solutions of the last complete list (line 146); skipped 1 other list (line 23: 4 solutions)"},
	} {
		path := filepath.Join("testdata", "phc", c.file)
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		sys, sols, choice, err := ParseWithSystemChoice(path, src, poly.ParseOptions{})
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if len(sols) != c.count || !choice.Several() || !strings.Contains(choice.String(), c.note) {
			t.Errorf("%s: %d solutions (want %d); choice %q, want it to contain %q", c.file, len(sols), c.count, choice, c.note)
		}
		for k := range sols {
			if sols[k].T.Re.Cmp(newRatInt(1)) != 0 && c.file != "cplx2.p2.out" && c.file != "cplx2.u4.out" {
				t.Errorf("%s: solution %d at t = %s, want 1 (an end of a path)", c.file, k+1, sols[k].T.Re.RatString())
			}
		}
		starts, choice2, err := ParseChoice(path, src, sys.Vars)
		if err != nil || len(starts) != len(sols) {
			t.Errorf("%s as a start list: %d solutions, %v", c.file, len(starts), err)
		}
		if err := solsEqual(starts, sols); err != nil {
			t.Errorf("%s: the start list differs from the list after the system: %v", c.file, err)
		}
		if len(choice2.Lists) < len(choice.Lists) {
			t.Errorf("%s: the start list saw %d banner lists, the system file %d", c.file, len(choice2.Lists), len(choice.Lists))
		}
	}
}

func newRatInt(n int64) *big.Rat { return big.NewRat(n, 1) }

// TestChoiceTruncated: a last list cut short (phc stopped while writing)
// is skipped, and the note says why.
func TestChoiceTruncated(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "phc", "cplx2.u4.out"))
	if err != nil {
		t.Fatal(err)
	}
	cut := src[:strings.LastIndex(string(src), "solution 3 :")]
	_, sols, choice, err := ParseWithSystemChoice("cut", cut, poly.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := "read the 4 solutions of the last complete list (line 23); skipped 1 other list (line 146: not a complete list: expected solution 3 of 4, found the end of the input"
	if len(sols) != 4 || !strings.Contains(choice.String(), want) {
		t.Errorf("%d solutions, %q; want 4 and %q", len(sols), choice, want)
	}
	if !sols[0].T.IsZero() {
		t.Errorf("the start solutions are at t = 0, got %s", sols[0].T.Re.RatString())
	}
}
