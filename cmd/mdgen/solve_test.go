package main

import (
	"bytes"
	"encoding/json"
	"github.com/mdgen/mdgen/internal/phcdemo"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mdgen/mdgen/stager/families"
	"github.com/mdgen/mdgen/stager/solutions"
)

// solveCmd runs `mdgen solve args` through runSolve and returns stdout,
// stderr and the exit status that main would give (0, 1, or 2 for a usage
// error).
func solveCmd(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	err := runSolve(args, &out, &errb)
	status := 0
	switch {
	case err == nil:
	case isUsageError(err):
		status = 2
		errb.WriteString("mdgen: " + err.Error() + "\n")
	default:
		status = 1
		errb.WriteString("mdgen: " + err.Error() + "\n")
	}
	return out.String(), errb.String(), status
}

func writeTemp(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSolveMonomialJSON: the JSON shape, and the series of a monomial
// homotopy against its exact series.
func TestSolveMonomialJSON(t *testing.T) {
	const spec = "monomial6:degree=8,seed=2"
	out, errs, status := solveCmd(t, spec, "-prec", "4", "-degree", "8", "-json", "-workers", "2")
	if status != 0 {
		t.Fatalf("status %d: %s", status, errs)
	}
	var rep struct {
		Prec      int  `json:"prec"`
		Degree    int  `json:"degree"`
		Complex   bool `json:"complex"`
		Solutions []struct {
			Start     int                `json:"start"`
			Converged bool               `json:"converged"`
			Steps     int                `json:"steps"`
			Variables []string           `json:"variables"`
			Series    [][][]string       `json:"series"`
			Residual  string             `json:"residual"`
			Condition string             `json:"condition"`
			Stages    map[string]float64 `json:"stages_seconds"`
		} `json:"solutions"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rep.Prec != 4 || rep.Degree != 8 || rep.Complex || len(rep.Solutions) != 1 {
		t.Fatalf("header: %+v", rep)
	}
	s := rep.Solutions[0]
	if s.Start != 1 || !s.Converged || s.Steps < 2 || len(s.Variables) != 6 || len(s.Series) != 6 {
		t.Fatalf("solution: %+v", s)
	}
	for _, k := range []string{"evaluate", "qr", "qhb", "backsub", "update", "residual"} {
		if _, ok := s.Stages[k]; !ok {
			t.Errorf("stages_seconds has no %q: %v", k, s.Stages)
		}
	}
	if _, err := parseE(s.Residual); err != nil || !strings.Contains(s.Condition, "e+") {
		t.Errorf("residual %q, condition %q", s.Residual, s.Condition)
	}
	inst, err := families.System(spec, families.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	tol := new(big.Float).SetMantExp(big.NewFloat(1), -(53*4 - 30))
	for v := range s.Series {
		if len(s.Series[v]) != 9 {
			t.Fatalf("variable %d: %d coefficients", v, len(s.Series[v]))
		}
		for k, c := range s.Series[v] {
			if len(c) != 2 || c[1] != "0" {
				t.Fatalf("%s t^%d: %q (want [re, \"0\"])", s.Variables[v], k, c)
			}
			if k == 1 && len(c[0]) < digitsOf(4) {
				t.Errorf("%s t^1 = %s: fewer than %d digits", s.Variables[v], c[0], digitsOf(4))
			}
			got, err := parseE(c[0])
			if err != nil {
				t.Fatal(err)
			}
			want := new(big.Float).SetPrec(1000).SetRat(&inst.Exact[v][k].Re)
			if d := new(big.Float).Sub(got, want); d.Abs(d).Cmp(tol) > 0 {
				t.Errorf("%s t^%d = %s, want %s", s.Variables[v], k, c[0], want.Text('e', 40))
			}
		}
	}
}

func digitsOf(n int) int { return 53 * n * 30103 / 100000 }

func parseE(s string) (*big.Float, error) {
	f, _, err := big.ParseFloat(s, 10, 2000, big.ToNearestEven)
	return f, err
}

// TestSolveOutputFile: -o writes PHCpack's solution list with the series,
// which stager reads back; text output lists every coefficient.
func TestSolveOutputFile(t *testing.T) {
	dir := t.TempDir()
	sys := writeTemp(t, dir, "sqrt", "1 2\n x^2 - 1 - t;\n")
	start := writeTemp(t, dir, "start", "x 1.1\n")
	outPath := filepath.Join(dir, "out.sols")
	out, errs, status := solveCmd(t, sys, "-prec", "2", "-degree", "6", "-start", start, "-o", outPath)
	if status != 0 {
		t.Fatalf("status %d: %s", status, errs)
	}
	if !strings.Contains(out, "solution 1: converged") || !strings.Contains(out, "x t^6 :") {
		t.Errorf("text output:\n%s", out)
	}
	sols, err := solutions.ParseFile(outPath, []string{"x"})
	if err != nil {
		t.Fatal(err)
	}
	if len(sols) != 1 || len(sols[0].Series) != 1 || len(sols[0].Series[0]) != 7 || !sols[0].HasDiag {
		t.Fatalf("read back: %+v", sols)
	}
	// sqrt(1+t): 1, 1/2, -1/8, 1/16, ...
	c2, _ := sols[0].Series[0][2].Re.Float64()
	if c2 != -0.125 || !sols[0].T.IsZero() {
		t.Errorf("t^2 coefficient %v, t = %v", c2, sols[0].T.Re.String())
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

// TestSolveWorkers: the printed series do not depend on the worker count.
func TestSolveWorkers(t *testing.T) {
	var first string
	for _, w := range []string{"1", "2", "3"} {
		out, errs, status := solveCmd(t, "monomial5:degree=6,columns=2", "-prec", "3", "-degree", "6", "-complex", "-workers", w)
		if status != 0 {
			t.Fatalf("workers %s: status %d: %s", w, status, errs)
		}
		series := out[strings.Index(out, "  x1 t^0"):]
		if first == "" {
			first = series
		} else if series != first {
			t.Errorf("workers %s: the series differ from workers 1", w)
		}
	}
}

// TestSolveComplexAuto: a complex start chooses complex data.
func TestSolveComplexAuto(t *testing.T) {
	dir := t.TempDir()
	sys := writeTemp(t, dir, "circle", "1\n x^2 + 1;\n")
	start := writeTemp(t, dir, "start", "x 0.0001 1.0001\n")
	out, errs, status := solveCmd(t, sys, "-prec", "2", "-start", start)
	if status != 0 || !strings.Contains(errs, "complex coordinate") || !strings.Contains(out, "complex data") {
		t.Fatalf("status %d\n%s\n%s", status, out, errs)
	}
	if _, _, status := solveCmd(t, sys, "-prec", "2", "-start", start, "-complex=false"); status != 2 {
		t.Errorf("-complex=false with a complex start: status %d, want 2", status)
	}
}

// TestSolveBadInput: each bad input gets a clear error, a non-zero exit
// status, and no output file.
func TestSolveBadInput(t *testing.T) {
	dir := t.TempDir()
	sys2 := writeTemp(t, dir, "sys2", "2 3\n x*y - 1 - t;\n x - y;\n")
	noParam := writeTemp(t, dir, "noparam", "2\n x^2 - 1;\n y - 2;\n")
	under := writeTemp(t, dir, "under", "1\n x*y*z - 1;\n")
	circle := writeTemp(t, dir, "circle", "1\n x^2 + 1;\n")
	threeVals := writeTemp(t, dir, "three", "x 1\ny 1\nz 1\n")
	unknown := writeTemp(t, dir, "unknown", "x 1\nw 1\n")
	half := writeTemp(t, dir, "half", "x 0.5\n")
	malformed := writeTemp(t, dir, "malformed", "THE SOLUTIONS :\n1 2\n===\nsolution 1 :\nt : 0 0\nm : 1\nthe solution for t :\n x : 1.0 0.0\n y : 1.0x 0.0\n")
	emptyList := writeTemp(t, dir, "emptylist", "THE SOLUTIONS :\n0 2\n===========================================================================\n")
	notAtZero := writeTemp(t, dir, "notzero", "THE SOLUTIONS :\n1 2\n===\nsolution 1 :\nt : 1 0\nm : 1\nthe solution for t :\n x : 1.0 0.0\n y : 1.0 0.0\n")
	cases := []struct {
		name   string
		args   []string
		status int
		want   []string
	}{
		{"unknown variable (too many values)", []string{sys2, "-degree", "3", "-start", threeVals}, 1, []string{"three:3:1", "z is not a variable"}},
		{"unknown variable name", []string{sys2, "-degree", "3", "-start", unknown}, 1, []string{"unknown:2:1", "w is not a variable"}},
		{"too few values", []string{sys2, "-degree", "3", "-start", half}, 1, []string{"half:1:1", "no coordinate for the variable y"}},
		{"not a solution", []string{circle, "-prec", "2", "-start", half}, 1, []string{"diverging", "not a solution at t = 0", "||f(x(0), 0)||_1 = 1.25", "1 of 1 solutions did not converge"}},
		{"fewer equations", []string{under, "-start", half}, 1, []string{"1 equations in 3 unknowns (x, y, z)", "at least as many equations"}},
		{"no parameter", []string{noParam, "-degree", "4", "-start", half}, 1, []string{"no series parameter", "-param", "-degree 0"}},
		{"malformed list", []string{sys2, "-degree", "2", "-start", malformed}, 1, []string{"malformed:9:", "1.0x"}},
		{"start not at t = 0", []string{sys2, "-degree", "2", "-start", notAtZero}, 1, []string{"is at t = 1, not at t = 0"}},
		{"no start solutions", []string{sys2, "-degree", "2"}, 1, []string{"lists no start solutions", "-start FILE"}},
		{"empty start list", []string{sys2, "-degree", "2", "-start", emptyList}, 1, []string{"emptylist holds no solutions"}},
		{"bad precision", []string{sys2, "-prec", "6", "-start", half}, 2, []string{"-prec 6"}},
		{"negative degree", []string{sys2, "-degree", "-1", "-start", half}, 2, []string{"-degree -1"}},
		{"missing start file", []string{sys2, "-start", filepath.Join(dir, "nope")}, 1, []string{"nope", "no such file"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			outPath := filepath.Join(dir, "out-"+strings.ReplaceAll(c.name, " ", "_"))
			_, errs, status := solveCmd(t, append(c.args, "-o", outPath)...)
			if status != c.status {
				t.Errorf("status %d, want %d\n%s", status, c.status, errs)
			}
			for _, w := range c.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errs)
				}
			}
			if _, err := os.Stat(outPath); err == nil {
				t.Errorf("%s was written", outPath)
			}
		})
	}
}

// TestSolveCyclic5: the 7 generating solutions of PHCpack's cyclic 5-roots
// demo file refined in 8 doubles (the solution list of the file itself).
func TestSolveCyclic5(t *testing.T) {
	workspace := filepath.Join("..", "..", "..", "shared", "systems", "phcpack-demo")
	dir := phcdemo.Dir(workspace)
	if dir == "" {
		t.Skipf("SKIPPED: PHCpack's demo file cyclic5 is not here (%s, %s)", workspace, phcdemo.Debian)
	}
	path := filepath.Join(dir, "cyclic5")
	outPath := filepath.Join(t.TempDir(), "cyclic5.sols")
	out, errs, status := solveCmd(t, path, "-prec", "8", "-json", "-o", outPath)
	if status != 0 {
		t.Fatalf("status %d: %s", status, errs)
	}
	var rep struct {
		Complex   bool `json:"complex"`
		Solutions []struct {
			Converged bool   `json:"converged"`
			Residual  string `json:"residual"`
		} `json:"solutions"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.Complex || len(rep.Solutions) != 7 {
		t.Fatalf("complex %v, %d solutions", rep.Complex, len(rep.Solutions))
	}
	for i, s := range rep.Solutions {
		r, err := parseE(s.Residual)
		if err != nil || !s.Converged || r.Cmp(big.NewFloat(1e-115)) >= 0 {
			t.Errorf("solution %d: converged %v, residual %s", i+1, s.Converged, s.Residual)
		}
	}
	// The list written keeps PHCpack's t = 1 and multiplicity 10 of the
	// roots (the system has no series parameter).
	sols, err := solutions.ParseFile(outPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sols) != 7 || sols[0].T.Re.Cmp(big.NewRat(1, 1)) != 0 || sols[0].M != 10 || !(sols[0].Res < 1e-115) {
		t.Errorf("written list: %d solutions, t = %s, m = %d, res = %g", len(sols), sols[0].T.Re.RatString(), sols[0].M, sols[0].Res)
	}
}

// TestSolvePHCOutputFile: phc -b's output file (katsura2, phc 2.4.86) is
// the system and its start list: the two lists of phc's root refiner are
// read and stderr says so; -o writes every digit of a double double (33
// significant digits) and PHCpack's err, rco, res; the console says what
// its residual and update are relative to.
func TestSolvePHCOutputFile(t *testing.T) {
	file := filepath.Join("..", "..", "stager", "solutions", "testdata", "phc", "katsura2.b.out")
	o := filepath.Join(t.TempDir(), "k2.dd")
	out, errs, status := solveCmd(t, file, "-prec", "2", "-degree", "0", "-o", o)
	if status != 0 {
		t.Fatalf("status %d: %s", status, errs)
	}
	if want := "read the 4 solutions of the 2 lists refined by PHCpack (2 at line 135, 2 at line 246); skipped 1 other list (line 215: PHCpack's path diagnostics"; !strings.Contains(errs, want) {
		t.Errorf("stderr lacks %q:\n%s", want, errs)
	}
	if want := "(relative to the size of the terms: of f, and of x)"; !strings.Contains(out, want) {
		t.Errorf("stdout lacks %q:\n%s", want, out)
	}
	list, err := os.ReadFile(o)
	if err != nil {
		t.Fatal(err)
	}
	sols, err := solutions.Parse(o, list, nil)
	if err != nil || len(sols) != 4 {
		t.Fatalf("%d solutions, %v", len(sols), err)
	}
	for k, s := range sols {
		if !s.HasDiag || s.Res > 1e-29 || s.Err > 1e-14 || s.Rco <= 0 || s.Rco > 1 {
			t.Errorf("solution %d: err %g, rco %g, res %g: want PHCpack's, of a double double root", k+1, s.Err, s.Rco, s.Res)
		}
	}
	for _, line := range strings.Split(string(list), "\n") {
		if strings.HasPrefix(line, " u0 : ") {
			f := strings.Fields(line)
			if mant, _, _ := strings.Cut(strings.TrimPrefix(f[2], "-"), "E"); len(mant) != 34 {
				t.Errorf("%q: want 33 significant digits", line)
			}
		}
	}
}

// TestSolveManyWorkers: several start solutions are refined one per worker;
// the list written and the printed roots are the same bits for any worker
// count, in the order of the starts.
func TestSolveManyWorkers(t *testing.T) {
	// phc -b's output on katsura2: the system and its 4 roots.
	path := filepath.Join("..", "..", "stager", "solutions", "testdata", "phc", "katsura2.b.out")
	dir := t.TempDir()
	var firstList, firstText string
	for _, w := range []string{"1", "2", "3"} {
		outPath := filepath.Join(dir, "w"+w+".sols")
		out, errs, status := solveCmd(t, path, "-prec", "2", "-workers", w, "-o", outPath)
		if status != 0 {
			t.Fatalf("workers %s: status %d: %s", w, status, errs)
		}
		list, err := os.ReadFile(outPath)
		if err != nil {
			t.Fatal(err)
		}
		var roots []string // the lines of the coefficients, without the times
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, " t^0 :") || strings.HasPrefix(l, "solution ") {
				roots = append(roots, l)
			}
		}
		text := strings.Join(roots, "\n")
		if firstList == "" {
			firstList, firstText = string(list), text
			if strings.Count(text, "converged") != 4 {
				t.Fatalf("the roots:\n%s", text)
			}
		} else if string(list) != firstList || text != firstText {
			t.Errorf("workers %s: the roots differ from workers 1", w)
		}
	}
}
