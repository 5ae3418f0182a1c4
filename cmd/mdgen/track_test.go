package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/cmplx"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mdgen/mdgen/runtime/track"
	"github.com/mdgen/mdgen/stager/solutions"
)

// trackCmd runs mdgen track with args and returns stdout, stderr and the
// exit status as main would give it.
func trackCmd(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	err := runTrack(args, &out, &errb)
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

// trackJSONOf runs mdgen track -json and decodes the report.
func trackJSONOf(t *testing.T, wantStatus int, args ...string) trackReport {
	t.Helper()
	out, errs, status := trackCmd(t, append(args, "-json")...)
	if status != wantStatus {
		t.Fatalf("mdgen track %v: status %d, want %d\n%s", args, status, wantStatus, errs)
	}
	var rep trackReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("mdgen track %v: %v\n%s", args, err, out)
	}
	return rep
}

// TestTrackJSON: the shape of -json (the keys of the issue, in its
// order), katsura4's 16 regular solutions, every coordinate with all the
// digits of double double.
func TestTrackJSON(t *testing.T) {
	out, errs, status := trackCmd(t, "katsura4", "-prec", "2", "-json", "-workers", "2")
	if status != 0 {
		t.Fatalf("status %d: %s", status, errs)
	}
	var keys []string
	dec := json.NewDecoder(strings.NewReader(out))
	dec.Token()
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		var skip json.RawMessage
		dec.Decode(&skip)
	}
	order := []string{"prec", "homotopy", "gamma", "paths", "summary", "variables", "solutions"}
	pos := 0
	for _, k := range keys {
		if pos < len(order) && k == order[pos] {
			pos++
		}
	}
	if pos != len(order) {
		t.Errorf("keys %v: want %v in this order", keys, order)
	}
	var raw map[string]any
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	sol := raw["solutions"].([]any)[0].(map[string]any)
	for _, k := range []string{"path", "status", "x", "residual", "condition", "multiplicity", "prec", "steps", "rejected", "seconds"} {
		if _, ok := sol[k]; !ok {
			t.Errorf("a solution lacks %q: %v", k, sol)
		}
	}
	rep := trackJSONOf(t, 0, "katsura4", "-prec", "2")
	s := rep.Summary
	if rep.Prec != float64(2) || rep.Homotopy != "total-degree" || rep.Gamma == nil || rep.Paths != 16 || len(rep.Solutions) != 16 ||
		s.Regular != 16 || s.Singular != 0 || s.Infinite != 0 || s.Failed != 0 || s.Distinct != 16 || s.Real != 12 ||
		strings.Join(rep.Variables, " ") != "u0 u1 u2 u3 u4" {
		t.Fatalf("report: %+v", rep)
	}
	digits := regexp.MustCompile(`^-?\d\.(\d+)e[-+]\d+$`)
	for k, sol := range rep.Solutions {
		if sol.Path != int64(k+1) || sol.Status != "regular" || sol.Prec != 2 || sol.Multiplicity != 1 || sol.Residual == nil || len(sol.X) != 5 || sol.Steps <= 0 {
			t.Errorf("solution %d: %+v", k+1, sol)
		}
		if m := digits.FindStringSubmatch(sol.X[0][0]); m == nil || len(m[1]) != 32 {
			t.Errorf("solution %d: %q has not the 33 digits of double double", k+1, sol.X[0][0])
		}
	}
	// -prec auto is "auto"
	if rep := trackJSONOf(t, 0, "katsura3"); rep.Prec != "auto" {
		t.Errorf("prec %v, want auto", rep.Prec)
	}
}

// TestTrackCrossedPaths: on x^200 + 3x - 1 (200 regular roots, 2 real)
// two paths of the default run (seed 1) end at one regular root: one
// jumped, and the real root 1/3 was missing. The tracker tracks them
// again with smaller steps and finds every root.
func TestTrackCrossedPaths(t *testing.T) {
	file := writeTemp(t, t.TempDir(), "x200.txt", "1\nx^200 + 3*x - 1;\n")
	rep := trackJSONOf(t, 0, file)
	if s := rep.Summary; s.Regular != 200 || s.Real != 2 || s.Distinct != 200 || s.Singular != 0 || s.Failed != 0 {
		t.Errorf("x^200 + 3x - 1: %+v, want 200 regular, 2 real, 200 distinct", s)
	}
	// Where a change of the step's rules leaves no path to jump here,
	// this case no longer exercises the second round: find another.
	if _, errs, _ := trackCmd(t, file, "-quiet"); !strings.Contains(errs, "tracked again with smaller steps") {
		t.Errorf("no path was tracked again:\n%s", errs)
	}
}

// TestTrackSingularReal: the real singular root (0, 1) of x^4, y - 1 is
// real and one solution, at the default precision and at 16 doubles
// (x^2, y - 1 there: 0 real before singularTol, whose tolerance was
// u^(1/4), 1e-64 at 16 doubles, far below what the end game gives).
func TestTrackSingularReal(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		src  string
		args []string
		m    int
	}{
		{"2\nx^4;\ny - 1;\n", nil, 4},
	}
	if !testing.Short() {
		cases = append(cases, struct {
			src  string
			args []string
			m    int
		}{"2\nx^2;\ny - 1;\n", []string{"-prec", "16"}, 2})
	}
	for k, c := range cases {
		file := writeTemp(t, dir, fmt.Sprintf("sing%d.txt", k), c.src)
		rep := trackJSONOf(t, 0, append([]string{file}, c.args...)...)
		if s := rep.Summary; s.Singular != c.m || s.Real != 1 || s.Distinct != 1 {
			t.Errorf("%q %v: %+v, want %d singular, 1 real, 1 distinct", c.src, c.args, s, c.m)
		}
	}
}

// TestTrackSingularEndsAreSolutions: (x-1)^8 has one root, of
// multiplicity 8. A path of the default run stalled in the end game 0.4
// from it (residual 7.7e-4) and was reported as a second singular
// solution; a singular end that Newton moves by more than 1e-3 is now a
// failed end, so every reported endpoint is at the root. At -prec 2 that
// path fails; with -prec auto it is resumed at 4 doubles, where it ends
// at the root: 8 singular ends, one real solution.
func TestTrackSingularEndsAreSolutions(t *testing.T) {
	file0 := writeTemp(t, t.TempDir(), "m8.txt", "1\n(x - 1)^8;\n")
	if s := trackJSONOf(t, 1, file0, "-prec", "2").Summary; s.Failed != 1 || s.Singular != 7 {
		t.Errorf("(x-1)^8 at -prec 2: %+v, want 7 singular and the failed end", s)
	}
	auto := trackJSONOf(t, 0, file0)
	if s := auto.Summary; s.Failed != 0 || s.Singular != 8 || s.Distinct != 1 || s.Real != 1 {
		t.Errorf("(x-1)^8 at -prec auto: %+v, want 8 singular, 1 distinct and real", s)
	}
	higher := 0
	for _, sol := range auto.Solutions {
		if sol.Prec > 2 {
			higher++
		}
	}
	if higher == 0 {
		t.Error("(x-1)^8 at -prec auto: no path was resumed at a higher precision")
	}
	file := writeTemp(t, t.TempDir(), "m8.txt", "1\n(x - 1)^8;\n")
	out, errs, status := trackCmd(t, file, "-json")
	var rep trackReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || status == 2 {
		t.Fatalf("status %d, %v\n%s", status, err, errs)
	}
	if s := rep.Summary; s.Distinct != 1 || s.Regular+s.Singular+s.Failed != 8 {
		t.Errorf("(x-1)^8: %+v, want 1 distinct", s)
	}
	for _, sol := range rep.Solutions {
		if sol.Status != "regular" && sol.Status != "singular" {
			continue
		}
		re, err1 := strconv.ParseFloat(sol.X[0][0], 64)
		im, err2 := strconv.ParseFloat(sol.X[0][1], 64)
		if err1 != nil || err2 != nil || math.Hypot(re-1, im) > 1e-2 {
			t.Errorf("path %d (%s) ends at %s + %s i, not at the root 1", sol.Path, sol.Status, sol.X[0][0], sol.X[0][1])
		}
	}
}

// TestTrackPrecBoundsZero: -min-prec 0 and -max-prec 0 are the
// tracker's defaults, as their help says: the run is the default's, path
// for path.
func TestTrackPrecBoundsZero(t *testing.T) {
	def := trackJSONOf(t, 0, "katsura3")
	zero := trackJSONOf(t, 0, "katsura3", "-min-prec", "0", "-max-prec", "0")
	for _, r := range []*trackReport{&def, &zero} {
		for k := range r.Solutions {
			r.Solutions[k].Seconds = 0 // the only field that may differ
		}
	}
	if !reflect.DeepEqual(def.Solutions, zero.Solutions) || def.Summary != zero.Summary {
		t.Errorf("-min-prec 0 -max-prec 0: %+v, the default run %+v", zero.Summary, def.Summary)
	}
}

// TestTrackSummaryCounts: noon3 (21 solutions, 6 paths at infinity);
// cyclic4, whose solutions are curves: no regular endpoint, and no hang.
func TestTrackSummaryCounts(t *testing.T) {
	rep := trackJSONOf(t, 0, "noon3")
	if s := rep.Summary; s.Regular != 21 || s.Infinite != 6 || s.Failed != 0 || s.Distinct != 21 || s.Real != 7 || rep.Paths != 27 {
		t.Errorf("noon3: %+v", s)
	}
	for _, sol := range rep.Solutions {
		if sol.Status == "infinite" && (sol.X != nil || sol.Residual != nil) {
			t.Errorf("path %d at infinity has a point: %+v", sol.Path, sol)
		}
	}
	out, errs, status := trackCmd(t, "cyclic4", "-prec", "2", "-quiet")
	if status == 2 || !strings.Contains(out, "summary: 0 regular") {
		t.Errorf("cyclic4: status %d\n%s%s", status, out, errs)
	}
}

// TestTrackListRoundTrip: -o is a PHCpack list that mdgen reads back with
// every digit of the JSON report's coordinates, m, rco and res.
func TestTrackListRoundTrip(t *testing.T) {
	dir := t.TempDir()
	list := filepath.Join(dir, "n3.sols")
	rep := trackJSONOf(t, 0, "noon3", "-prec", "4", "-o", list)
	src, err := os.ReadFile(list)
	if err != nil {
		t.Fatal(err)
	}
	sols, err := solutions.Parse(list, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sols) != 21 || !strings.Contains(string(src), "6 paths at infinity and 0 failed paths left out") ||
		!strings.Contains(string(src), "= real regular ==") || !strings.Contains(string(src), "= complex regular ==") {
		t.Fatalf("%d solutions in\n%.1200s", len(sols), src)
	}
	k := 0
	for _, sol := range rep.Solutions {
		if sol.Status != "regular" {
			continue
		}
		got := sols[k]
		k++
		if got.M != 1 || !got.T.Im.IsInt() || got.T.Re.Cmp(big.NewRat(1, 1)) != 0 || math.Abs(got.Rco*mustFloat(t, *sol.Condition)-1) > 0.05 {
			t.Errorf("solution %d: m %d, t %v, rco %g, condition %s", k, got.M, &got.T.Re, got.Rco, *sol.Condition)
		}
		for v := range sol.X {
			for part, text := range sol.X[v] {
				want, ok := new(big.Rat).SetString(text)
				val := &got.Values[v].Re
				if part == 1 {
					val = &got.Values[v].Im
				}
				if !ok || want.Cmp(val) != 0 {
					t.Errorf("solution %d, coordinate %d: %s read back as %s", k, v, text, val.FloatString(70))
				}
			}
		}
	}
}

func mustFloat(t *testing.T, s string) float64 {
	t.Helper()
	var f float64
	if _, err := fmt.Sscan(s, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestTrackWorkersBitIdentical: the lists of -workers 1 and 2 are the same
// bytes, and so are the reports but for the times.
func TestTrackWorkersBitIdentical(t *testing.T) {
	dir := t.TempDir()
	var lists [2][]byte
	var reps [2]trackReport
	for i, w := range []string{"1", "2"} {
		f := filepath.Join(dir, "k4."+w)
		reps[i] = trackJSONOf(t, 0, "katsura4", "-prec", "auto", "-workers", w, "-o", f)
		var err error
		if lists[i], err = os.ReadFile(f); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(lists[0], lists[1]) {
		t.Errorf("-o differs between 1 and 2 workers")
	}
	for i := range reps {
		reps[i].Seconds, reps[i].PathsPerS, reps[i].Workers = 0, 0, 0
		for k := range reps[i].Solutions {
			reps[i].Solutions[k].Seconds = 0
		}
	}
	a, _ := json.Marshal(reps[0])
	b, _ := json.Marshal(reps[1])
	if !bytes.Equal(a, b) {
		t.Errorf("the reports differ between 1 and 2 workers")
	}
}

// TestTrackPathRanges: -paths 1:10 and 11: together are the whole run,
// path by path.
func TestTrackPathRanges(t *testing.T) {
	whole := trackJSONOf(t, 0, "noon3")
	a := trackJSONOf(t, 0, "noon3", "-paths", "1:10")
	b := trackJSONOf(t, 0, "noon3", "-paths", "11:")
	if a.Paths != 10 || b.Paths != 17 || a.First != 1 || b.First != 11 || a.TotalPaths != 27 {
		t.Fatalf("ranges: %d paths from %d, %d from %d of %d", a.Paths, a.First, b.Paths, b.First, a.TotalPaths)
	}
	parts := append(a.Solutions, b.Solutions...)
	for k, w := range whole.Solutions {
		p := parts[k]
		if p.Path != w.Path || p.Status != w.Status || fmt.Sprint(p.X) != fmt.Sprint(w.X) || p.Steps != w.Steps {
			t.Errorf("path %d: %+v in a range, %+v in the whole run", w.Path, p, w)
		}
	}
	if a.Summary.Regular+b.Summary.Regular != whole.Summary.Regular || a.Summary.Infinite+b.Summary.Infinite != whole.Summary.Infinite {
		t.Errorf("summaries %+v + %+v != %+v", a.Summary, b.Summary, whole.Summary)
	}
}

// TestTrackBadInput: clear errors, exit status 2 for usage errors, no
// output file.
func TestTrackBadInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.sols")
	nonSquare := writeTemp(t, dir, "ns.txt", "3 2\nx + y - 1;\nx - y;\nx*y - 1;\n")
	var big strings.Builder
	fmt.Fprintf(&big, "25\n")
	for i := 1; i <= 25; i++ {
		fmt.Fprintf(&big, "x%d^2 - 1;\n", i)
	}
	huge := writeTemp(t, dir, "huge.txt", big.String())
	hom := writeTemp(t, dir, "hom.txt", "2 3\nx^2 - 1 - 3*t;\ny - 2 - t;\n")
	starts := writeTemp(t, dir, "starts.txt", "THE SOLUTIONS :\n2 2\n===\nsolution 1 :\nt : 0 0\nm : 1\nthe solution for t :\n x : 1 0\n y : 2 0\n"+
		"== err : 0 = rco : 1 = res : 0 ==\nsolution 2 :\nt : 0 0\nm : 1\nthe solution for t :\n x : 7 0\n y : 2 0\n== err : 0 = rco : 1 = res : 0 ==\n")
	emptyList := writeTemp(t, dir, "emptylist.txt", "THE SOLUTIONS :\n0 2\n===========================================================================\n")
	for _, c := range []struct {
		args   []string
		status int
		want   string
	}{
		{[]string{nonSquare}, 1, "square system"},
		{[]string{huge}, 1, "-paths"},
		{[]string{"noon3", "-paths", "0:3"}, 2, "out of range"},
		{[]string{"noon3", "-paths", "5:2"}, 2, "out of range"},
		{[]string{"noon3", "-paths", "1:28"}, 2, "paths 1..27"},
		{[]string{"noon3", "-paths", "x"}, 2, "want a:b"},
		{[]string{"noon3", "-pade", "2"}, 2, "want L,M"},
		{[]string{"noon3", "-pade", "0,0"}, 2, "L + M"},
		{[]string{"noon3", "-pade", "12,5"}, 2, "L + M"},
		{[]string{"noon3", "-gamma", "0,0"}, 2, "nonzero"},
		{[]string{"noon3", "-gamma", "1;2"}, 2, "want re,im"},
		{[]string{"noon3", "-prec", "7"}, 2, "-prec 7"},
		{[]string{"noon3", "-prec", "x"}, 2, "want auto"},
		{[]string{"noon3", "-prec", "2", "-max-prec", "4"}, 2, "-prec auto"},
		{[]string{"noon3", "-start", starts}, 2, "no parameter"},
		{[]string{hom, "-gamma", "1,0"}, 2, "total-degree"},
		{[]string{hom}, 1, "lists no start solutions"},
		{[]string{hom, "-start", emptyList}, 1, "emptylist.txt holds no solutions"},
	} {
		_, errs, status := trackCmd(t, append(c.args, "-o", out)...)
		if status != c.status || !strings.Contains(errs, c.want) {
			t.Errorf("%v: status %d, want %d with %q:\n%s", c.args, status, c.status, c.want, errs)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%v: %s written", c.args, out)
		}
	}
	// A range of a homotopy too large for one run.
	if _, errs, status := trackCmd(t, huge, "-paths", "1:2", "-quiet"); status != 0 {
		t.Errorf("-paths 1:2 of 2^25: status %d\n%s", status, errs)
	}
	// A start solution that does not solve the start system is named.
	_, errs, _ := trackCmd(t, hom, "-start", starts, "-quiet")
	if !strings.Contains(errs, "start solution 2 does not solve the start system") || strings.Contains(errs, "start solution 1 ") {
		t.Errorf("bad start not named:\n%s", errs)
	}
	// -gamma is scaled to modulus 1
	rep := trackJSONOf(t, 0, "katsura3", "-gamma", "3,4")
	if rep.Gamma == nil || rep.Gamma[0] != "0.6" || rep.Gamma[1] != "0.8" {
		t.Errorf("gamma %v, want 0.6, 0.8", rep.Gamma)
	}
}

// TestTrackPHC: the regular solutions of mdgen track are phc -b's, one for
// one within 1e-6 (katsura4, noon3, cyclic5).
func TestTrackPHC(t *testing.T) {
	phc := needPHC(t)
	systems := []string{"katsura4", "noon3"}
	if !testing.Short() {
		systems = append(systems, "cyclic5")
	}
	for _, name := range systems {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			writeTemp(t, dir, "f.in", systemText(t, name))
			runPHC(t, phc, dir, "", "-0", "-b", "f.in", "f.out")
			text, err := os.ReadFile(filepath.Join(dir, "f.out"))
			if err != nil {
				t.Fatal(err)
			}
			sols, _, err := solutions.ParseChoice("f.out", text, nil)
			if err != nil {
				t.Fatal(err)
			}
			theirs := phcRegular(sols)
			rep := trackJSONOf(t, 0, name)
			var ours [][]complex128
			for _, sol := range rep.Solutions {
				if sol.Status != "regular" {
					continue
				}
				z := make([]complex128, len(sol.X))
				for v, c := range sol.X {
					z[v] = complex(mustFloat(t, c[0]), mustFloat(t, c[1]))
				}
				ours = append(ours, z)
			}
			if len(ours) != len(theirs) {
				t.Fatalf("%d regular solutions, phc -b %d", len(ours), len(theirs))
			}
			used := make([]bool, len(theirs))
			for k, z := range ours {
				found := false
				for j, w := range theirs {
					if !used[j] && closeTo(z, w, 1e-6) {
						used[j], found = true, true
						break
					}
				}
				if !found {
					t.Errorf("solution %d %v: not among phc -b's", k+1, z)
				}
			}
		})
	}
}

func closeTo(a, b []complex128, tol float64) bool {
	for v := range a {
		if cmplx.Abs(a[v]-b[v]) > tol*max(1, cmplx.Abs(b[v])) {
			return false
		}
	}
	return true
}

// BenchmarkTrack: paths per second of mdgen track's tracker on katsura5 and
// noon4 at 1, 2 and 4 doubles, one worker.
func BenchmarkTrack(b *testing.B) {
	for _, name := range []string{"katsura5", "noon4"} {
		for _, prec := range []int{1, 2, 4} {
			b.Run(fmt.Sprintf("%s/prec=%d", name, prec), func(b *testing.B) {
				h, err := benchHomotopy(name, 1)
				if err != nil {
					b.Fatal(err)
				}
				paths := 0
				for b.Loop() {
					run, err := trackOnce(h, track.Options{Prec: prec, Workers: 1})
					if err != nil {
						b.Fatal(err)
					}
					paths += len(run.Paths)
				}
				b.ReportMetric(float64(paths)/b.Elapsed().Seconds(), "paths/s")
			})
		}
	}
}
