package main

import (
	"math/cmplx"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mdgen/mdgen/stager/solutions"
)

// phcDemoDir is where Debian's phcpack installs PHCpack's test database of
// polynomial systems (READ_ME describes them).
const phcDemoDir = "/usr/share/doc/phcpack/examples"

// TestPHCDemoDatabase: mdgen track and phc -b agree on systems of PHCpack's
// own test database, read as they are shipped: every regular finite
// solution of one is a regular finite solution of the other, one for one.
// Each system is one that mdgen solves completely today (docs/results.md,
// "Against phc -b on PHCpack's demo database", has the whole campaign and
// the systems where they disagree), picked for what it exercises:
//
//   - gaukwa2: complex decimal coefficients, 22 of 24 paths to infinity;
//   - lumped: complex coefficients written over several lines, 12 of 16 to
//     infinity;
//   - chandra5: real decimals times rationals in parentheses, half the
//     paths to infinity;
//   - comb3000s: coefficients in E-notation over continued lines, 80 of 96
//     paths to infinity;
//   - solotarev: 4 singular endpoints beside 2 regular ones, 30 to
//     infinity;
//   - caprasse: 32 singular endpoints (phc -b writes two refined lists,
//     the solutions with a zero coordinate apart);
//   - trinks: a variable named t in a square system (not a homotopy's
//     parameter);
//   - chemequ: finite solutions with coordinates of 35 to 51, which the
//     early test at infinity called at infinity (10 of 16);
//   - rediff3: a regular solution at the origin (it was called singular);
//   - tangents0: a solution list that the reader refuses (a solution
//     without its t), which the total-degree homotopy skips;
//   - rbpl24 (not with -short): coefficients up to 1.2e15, every path
//     failed unscaled;
//   - fbrfive4 (not with -short): 100 singular ends on positive-dimensional
//     components beside 36 regular solutions, none of them promoted.
//
// Each short one takes a second or less in either solver here (the test 3
// to 5 s on this 2-core machine, so -short runs them; the two long ones
// 10 to 15 s more). phc -b runs with
// -0 (a fixed seed), so that its lists, and this test, are the same on
// every run. Skips without phc or without the database (a docs-less
// install); CI installs phcpack with both.
func TestPHCDemoDatabase(t *testing.T) {
	phc := needPHC(t)
	if _, err := os.Stat(filepath.Join(phcDemoDir, "READ_ME")); err != nil {
		t.Skipf("SKIPPED: PHCpack's demo database is not installed (%v)", err)
	}
	names := []string{"gaukwa2", "lumped", "chandra5", "comb3000s", "solotarev", "caprasse", "trinks", "chemequ", "rediff3", "tangents0"}
	if !testing.Short() {
		names = append(names, "rbpl24", "fbrfive4")
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join(phcDemoDir, name)
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			rep := trackJSONOf(t, 0, file)
			ours := regularOfTrack(t, rep)
			if len(ours) != rep.Summary.Regular {
				t.Fatalf("%d regular endpoints in the list, %d in the summary", len(ours), rep.Summary.Regular)
			}
			// phc -b appends its solutions to its input file: it gets a copy
			dir := t.TempDir()
			writeTemp(t, dir, "f.in", string(src))
			runPHC(t, phc, dir, "", "-0", "-b", "f.in", "f.out")
			theirs := regularOfPHC(t, filepath.Join(dir, "f.out"), rep.Variables)
			t.Logf("%d regular solutions (mdgen track: %d paths, %d singular, %d at infinity)", len(ours), rep.TotalPaths, rep.Summary.Singular, rep.Summary.Infinite)
			if len(ours) != len(theirs) {
				t.Errorf("mdgen track: %d regular solutions, phc -b: %d", len(ours), len(theirs))
			}
			// 1e-6 relative to max(1, |x|): a regular endpoint of mdgen is
			// accurate to 2^10 u cond (cond <= 1e8, u = 2^-106 at 2
			// doubles), one of phc -b (rco > 1e-8, refined in double) to
			// about u/rco <= 1e-8; the distinct solutions of these systems
			// are more than 1e-3 apart, and the matching is one for one, so
			// that a tolerance too loose would show as a solution left over.
			match := func(what string, xs, ys [][]complex128) {
				used := make([]bool, len(ys))
				for k, z := range xs {
					found := false
					for j, w := range ys {
						if !used[j] && closeTo(z, w, 1e-6) {
							used[j], found = true, true
							break
						}
					}
					if !found {
						t.Errorf("%s regular solution %d %v: not a regular solution of the other", what, k+1, z)
					}
				}
			}
			match("mdgen track's", ours, theirs)
			match("phc -b's", theirs, ours)
		})
	}
}

// regularOfTrack returns the regular endpoints of mdgen track's report.
func regularOfTrack(t *testing.T, rep trackReport) [][]complex128 {
	t.Helper()
	var out [][]complex128
	for _, sol := range rep.Solutions {
		if sol.Status != "regular" {
			continue
		}
		z := make([]complex128, len(sol.X))
		for v, c := range sol.X {
			z[v] = complex(mustFloat(t, c[0]), mustFloat(t, c[1]))
		}
		out = append(out, z)
	}
	return out
}

// regularOfPHC returns the regular finite solutions of phc -b's output
// file, in the order of vars: those of every list that phc's root refiner
// summarized (phc -b writes one list per part of a stable mixed volume:
// the solutions with zero coordinates, then those in C*) with PHCpack's
// own criteria, rco > 1e-8 (MaxRegularCond's) and no coordinate past 1e8
// (at infinity), and a residual below 1e-6.
func regularOfPHC(t *testing.T, path string, vars []string) [][]complex128 {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, choice, err := solutions.ParseChoice(path, text, vars)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(text), "\n")
	var out [][]complex128
	refined := 0
	for i, list := range choice.Lists {
		if !list.Refined {
			continue
		}
		refined++
		end := len(lines)
		if i+1 < len(choice.Lists) {
			end = choice.Lists[i+1].Line - 1 // up to the next list's banner
		}
		one := strings.Join(lines[list.Line-1:end], "")
		sols, err := solutions.Parse(path, []byte(one), vars)
		if err != nil {
			t.Fatalf("the list of line %d: %v", list.Line, err)
		}
		out = append(out, phcRegular(sols)...)
	}
	if refined == 0 {
		t.Fatalf("%s: no list refined by phc's root refiner (%+v)", path, choice.Lists)
	}
	return out
}

// phcRegular returns the solutions of a phc list that PHCpack's own
// criteria call regular and finite: rco > 1e-8, no coordinate past 1e8
// (at infinity), a residual below 1e-6.
func phcRegular(sols []solutions.Solution) [][]complex128 {
	var out [][]complex128
	for _, s := range sols {
		z := make([]complex128, len(s.Values))
		finite := true
		for v := range s.Values {
			re, _ := s.Values[v].Re.Float64()
			im, _ := s.Values[v].Im.Float64()
			z[v] = complex(re, im)
			finite = finite && cmplx.Abs(z[v]) < 1e8
		}
		if finite && s.Rco > 1e-8 && s.Res < 1e-6 {
			out = append(out, z)
		}
	}
	return out
}
