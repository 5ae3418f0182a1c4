package bench

import (
	"bytes"
	"encoding/csv"
	"encoding/xml"
	"io"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/newton"
	"github.com/mdgen/mdgen/stager/families"
	"github.com/mdgen/mdgen/stager/poly"
)

// The anchors as the brief gives them, read back from the embedded CSV.
func TestPHCNewtonTable(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		key  phcNewtonKey
		want PHCNewton
	}{
		{phcNewtonKey{false, 2, 256, 64}, PHCNewton{Steps: 24, Converged: "yes", Wall: 16.3, Kern: 4.67, BackSub: 2.38, Update: 2.05, Err: 1.2e-20}},
		{phcNewtonKey{false, 4, 256, 64}, PHCNewton{Steps: 15, Converged: "yes", Wall: 12.2, Kern: 5.98, BackSub: 3.78, Update: 1.63, Err: 1.45e-49}},
		{phcNewtonKey{false, 8, 256, 64}, PHCNewton{Steps: 12, Converged: "yes", Wall: 18.5, Kern: 11.96, BackSub: 8.07, Update: 2.41, Err: 5.7e-117,
			Note: "convolutions 0.68 s, QR 0.56 s, Q^T b 0.24 s"}},
		{phcNewtonKey{true, 4, 128, 64}, PHCNewton{Steps: 24, Converged: "no", Wall: 98.2, Kern: 73.5, BackSub: 51.1, Update: 20.9, Err: 3.9e-06,
			Note: "step limit (24 steps), not converged; Q^H b 0.77 s, convolutions 0.56 s, QR 0.20 s"}},
		{phcNewtonKey{true, 8, 128, 64}, PHCNewton{Wall: nan, Kern: nan, BackSub: nan, Update: nan, Err: nan, Note: "no result within 260 s"}},
		{phcNewtonKey{true, 4, 256, 64}, PHCNewton{Wall: nan, Kern: nan, BackSub: nan, Update: nan, Err: nan, Note: "no result within 100 s"}},
		{phcNewtonKey{true, 8, 256, 64}, PHCNewton{Wall: nan, Kern: nan, BackSub: nan, Update: nan, Err: nan, Note: "no result within 150 s"}},
		{phcNewtonKey{false, 8, 1024, 64}, PHCNewton{Wall: nan, Kern: nan, BackSub: nan, Update: nan, Err: nan, Note: "did not finish within 240 s"}},
	} {
		got, ok := phcNewtonTable[c.key]
		same := func(a, b float64) bool { return a == b || isNaN(a) && isNaN(b) }
		w := c.want
		if !ok || got.Steps != w.Steps || got.Converged != w.Converged || !same(got.Wall, w.Wall) || !same(got.Kern, w.Kern) ||
			!same(got.BackSub, w.BackSub) || !same(got.Update, w.Update) || !same(got.Err, w.Err) || got.Note != w.Note {
			t.Errorf("%+v: %+v (%v), want %+v", c.key, got, ok, w)
		}
		if got.HasResult() != (w.Converged != "") {
			t.Errorf("%+v: HasResult %v", c.key, got.HasResult())
		}
	}
	if len(phcNewtonTable) != 8 {
		t.Errorf("%d PHCpack Newton cases, want 8", len(phcNewtonTable))
	}
	if _, ok := phcNewtonFor(2, 128, 64, false); ok {
		t.Error("PHCpack has no 2d real n=128 run")
	}
	if p, _ := phcNewtonFor(2, 128, 64, false); !isNaN(p.Wall) || !isNaN(p.Err) || p.HasResult() {
		t.Errorf("a case PHCpack did not run: %+v", p)
	}
	if !strings.Contains(phcpackNewtonCSV, "arXiv:2301.12659") || !strings.Contains(phcpackNewtonCSV, "H200") {
		t.Error("the CSV's comment does not state its source")
	}
}

func TestParsePHCNewtonErrors(t *testing.T) {
	const h = phcNewtonHeader + "\n"
	good := h + "real,2,256,64,24,yes,16.3,4.67,2.38,2.05,1.2e-20,\nreal,8,1024,64,,,,,,,,did not finish within 240 s\n"
	if m, err := parsePHCNewton("# a comment\n" + good); err != nil || len(m) != 2 {
		t.Fatalf("good CSV: %v, %d rows", err, len(m))
	}
	for name, text := range map[string]string{
		"header":             "data,prec\nreal,2\n",
		"no header":          "",
		"data":               h + "quaternion,2,256,64,24,yes,16.3,4.67,2.38,2.05,1.2e-20,\n",
		"prec":               h + "real,x,256,64,24,yes,16.3,4.67,2.38,2.05,1.2e-20,\n",
		"steps":              h + "real,2,256,64,,yes,16.3,4.67,2.38,2.05,1.2e-20,\n",
		"wall":               h + "real,2,256,64,24,yes,,4.67,2.38,2.05,1.2e-20,\n",
		"error":              h + "real,2,256,64,24,no,16.3,4.67,2.38,2.05,,\n",
		"negative":           h + "real,2,256,64,24,yes,-16.3,4.67,2.38,2.05,1.2e-20,\n",
		"number":             h + "real,2,256,64,24,yes,16.3s,4.67,2.38,2.05,1.2e-20,\n",
		"converged":          h + "real,2,256,64,24,maybe,16.3,4.67,2.38,2.05,1.2e-20,\n",
		"no result, a time":  h + "real,8,1024,64,,,240,,,,,did not finish within 240 s\n",
		"no result, no note": h + "real,8,1024,64,,,,,,,,\n",
		"twice":              good + "real,2,256,64,24,yes,16.3,4.67,2.38,2.05,1.2e-20,\n",
		"fields":             h + "real,2,256,64,24,yes\n",
	} {
		if _, err := parsePHCNewton(text); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// SeriesError on series whose errors are known exactly.
func TestSeriesError(t *testing.T) {
	rat := func(re, im string) poly.Rational {
		var z poly.Rational
		z.Re.SetString(re)
		z.Im.SetString(im)
		return z
	}
	// x = 1 + t/2 + t^2/4 with an error of 2^-60 at t^1; y = 4 - 3t with
	// 2^-70 at t^0: x is 60 bits good, y 72 bits (below 4).
	res := &newton.Result{N: 2, Degree: 2, Vars: []string{"x", "y"},
		X: []float64{1, 0, 0.5, math.Ldexp(1, -60), 0.25, 0, 4, math.Ldexp(1, -70), -3, 0, 0, 0}}
	exact := [][]poly.Rational{{rat("1", "0"), rat("1/2", "0"), rat("1/4", "0")}, {rat("4", "0"), rat("-3", "0"), rat("0", "0")}}
	abs, bits, where := SeriesError(res, exact, 2)
	if abs != math.Ldexp(1, -60) || bits != 60 || where != "x t^1" {
		t.Errorf("real: %g, %g bits at %q; want 2^-60, 60 at x t^1", abs, bits, where)
	}
	// Complex: x = 1 + 2i t with 2^-50 on the imaginary part of t^1 (the
	// largest coefficient 2: 51 bits); exact 1/3 cannot be represented, its
	// rounding error (below 2^-107) is far below.
	res = &newton.Result{N: 2, Degree: 1, Complex: true, Vars: []string{"x"},
		X: []float64{1, 0, 0, 0, 0, 0, 2, math.Ldexp(1, -50)}}
	exact = [][]poly.Rational{{rat("1", "0"), rat("0", "2")}}
	if abs, bits, where = SeriesError(res, exact, 1); abs != math.Ldexp(1, -50) || bits != 51 || where != "x t^1" {
		t.Errorf("complex: %g, %g bits at %q; want 2^-50, 51 at x t^1", abs, bits, where)
	}
	res.X[6] = math.NaN()
	if abs, bits, _ = SeriesError(res, exact, 1); !math.IsInf(abs, 1) || !isNaN(bits) {
		t.Errorf("NaN limb: %g, %g bits", abs, bits)
	}
	res.X[6], res.X[7] = 2, 0
	if abs, bits, _ = SeriesError(res, exact, 1); abs != 0 || !math.IsInf(bits, 1) || fmtBits(bits) != "exact" {
		t.Errorf("exact: %g, %g bits", abs, bits)
	}
}

// exactErrors recomputes the errors of res against the exact series in
// exact rational arithmetic (independently of SeriesError).
func exactErrors(res *newton.Result, exact [][]poly.Rational) (abs, bits float64) {
	abs, bits = 0, math.Inf(1)
	ratAbs := func(x *big.Rat) *big.Rat { return new(big.Rat).Abs(x) }
	for v := range res.Vars {
		maxC, maxD := new(big.Rat), new(big.Rat)
		for k := 0; k <= res.Degree; k++ {
			g := res.Rat(v, k)
			for _, p := range [][2]*big.Rat{{&g.Re, &exact[v][k].Re}, {&g.Im, &exact[v][k].Im}} {
				if a := ratAbs(p[1]); a.Cmp(maxC) > 0 {
					maxC = a
				}
				if d := ratAbs(new(big.Rat).Sub(p[0], p[1])); d.Cmp(maxD) > 0 {
					maxD = d
				}
			}
		}
		f, _ := maxD.Float64()
		abs = math.Max(abs, f)
		q, _ := new(big.Rat).Quo(maxC, maxD).Float64()
		bits = math.Min(bits, math.Log2(q))
	}
	return abs, bits
}

// A small case on the CPU end to end: the table, the CSV and the SVG agree
// with each other and with a Newton solve and an error computed here.
func TestNewtonSmallCPU(t *testing.T) {
	dir := t.TempDir()
	cfg := &NewtonConfig{Precs: []int{2}, Sizes: []int{8}, Degrees: []int{8}, Complexes: []bool{false, true},
		CPU: true, Check: true, Repeat: 2, OutDir: dir}
	var out, log bytes.Buffer
	if err := RunNewton(cfg, &out, &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	text := out.String()
	t.Log("\n" + text)
	if !strings.Contains(text, "backend: CPU (runtime/newton)") || !strings.Contains(log.String(), "[2/2 ") {
		t.Errorf("no backend line or progress:\n%s", log.String())
	}
	f, err := os.Open(filepath.Join(dir, "newton.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 || strings.Join(recs[0], ",") != strings.Join(newtonCSVHeader, ",") {
		t.Fatalf("CSV: %d records, header %v", len(recs), recs[0])
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	num := func(row []string, name string) float64 {
		x, err := strconv.ParseFloat(row[col[name]], 64)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return x
	}
	for i, complex := range []bool{false, true} {
		row := recs[i+1]
		inst, err := families.Build("monomial", families.Options{N: 8, Degree: 8, Seed: NewtonSeed, Complex: complex})
		if err != nil {
			t.Fatal(err)
		}
		s, err := newton.New(inst.System, newton.Options{Prec: mdops.Prec{N: 2, Complex: complex}, Degree: 8})
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Solve(inst.Start[0].Values)
		s.Close()
		if err != nil || !res.Converged {
			t.Fatalf("solve: %v, %v", err, res.Err)
		}
		abs, bits := exactErrors(res, inst.Exact)
		data := dataName(complex)
		for name, want := range map[string]string{"backend": "cpu", "data": data, "prec": "2", "n": "8", "degree": "8", "skipped": "",
			"converged": "true", "steps": strconv.Itoa(res.Steps), "refine_steps": strconv.Itoa(res.RefineSteps), "repeat": "2",
			"check": "identical", "phcpack_steps": "", "phcpack_wall_s": "", "phcpack_printed_error": "", "phcpack_note": "",
			"wall_speedup": "", "error_ratio": "", "residual": csvFloat(res.Residual), "cond": csvFloat(res.Cond)} {
			if got := row[col[name]]; got != want {
				t.Errorf("%s: CSV %s = %q, want %q", data, name, got, want)
			}
		}
		if got := num(row, "max_abs_error"); math.Abs(got-abs) > 1e-5*abs {
			t.Errorf("%s: max_abs_error %g, recomputed %g", data, got, abs)
		}
		if got := num(row, "bits"); math.Abs(got-bits) > 1e-3 {
			t.Errorf("%s: bits %g, recomputed %g", data, got, bits)
		}
		if bits < 53*2-20 {
			t.Errorf("%s: only %.1f bits", data, bits)
		}
		sum := 0.0
		for _, s := range StageNames {
			sum += num(row, s+"_s")
		}
		if got := num(row, "stage_sum_s"); math.Abs(got-sum) > 1e-5*sum {
			t.Errorf("%s: stage_sum_s %g, the stages add up to %g", data, got, sum)
		}
		if w, lo := num(row, "wall_s"), num(row, "wall_s_min"); lo > w || w <= 0 || num(row, "check_wall_s") <= 0 {
			t.Errorf("%s: wall %g, min %g", data, w, lo)
		}
		// The table's row: the same steps, error and bits as the CSV.
		want := []string{data, "2d", "8", "8", "cpu", strconv.Itoa(res.Steps)}
		if !hasRow(text, want) {
			t.Errorf("the table lacks a row starting %q", want)
		}
		for _, line := range strings.Split(text, "\n") {
			fs := strings.Fields(line)
			if len(fs) == 23 && fs[0] == data {
				if fs[14] != fmtE(num(row, "max_abs_error")) || fs[15] != fmtBits(num(row, "bits")) || fs[16] != "n/a" ||
					fs[17] != "n/a" || fs[20] != "n/a" || fs[22] != "identical" {
					t.Errorf("%s: table row %q against CSV %v", data, fs, row)
				}
			}
		}
	}
	for _, name := range []string{"newton.txt", "newton.log", "newton.svg"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || len(b) == 0 {
			t.Errorf("%s: %v", name, err)
		}
		if name == "newton.txt" && string(b) != text {
			t.Error("newton.txt is not the printed report")
		}
		if name == "newton.svg" {
			checkXML(t, b)
		}
	}
}

func checkXML(t *testing.T, b []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(b))
	for {
		if _, err := dec.Token(); err == io.EOF {
			return
		} else if err != nil {
			t.Fatalf("SVG: %v", err)
		}
	}
}

// PHCpack's columns, the speed-up, a case PHCpack gave no result for
// (n/a, never a number), a case of ours that did not converge, a skipped
// case.
func TestNewtonTablePHCColumns(t *testing.T) {
	fake := func(prec, n int, complex bool, wall, abs float64) NewtonResult {
		r := newNewtonResult(prec, n, 64, complex, 1)
		r.Backend, r.Device, r.Converged, r.Steps, r.RefineSteps = "gpu", "H200", true, 11, 7
		r.Wall, r.WallMin, r.Setup, r.AbsErr, r.Bits = wall, wall, 0.5, abs, 74.6
		r.Stages = [6]float64{0.1, 0.01, 0.01, 0.02, 0.05, 0.01}
		return r
	}
	rs := []NewtonResult{fake(2, 256, false, 0.25, 4.68e-23), fake(8, 128, true, 0.5, 1e-120), fake(4, 128, true, 0.4, 2e-50)}
	rs[2].Converged, rs[2].Steps, rs[2].Failure = false, 30, "step limit: no convergence after 30 steps"
	skipped := newNewtonResult(8, 1024, 64, false, 1)
	skipped.Skipped = "not run: past the -deadline of 1m0s"
	rs = append(rs, skipped)
	if x := rs[0].SpeedUp(); math.Abs(x-16.3/0.25) > 1e-12 {
		t.Errorf("speed-up %g", x)
	}
	if x := rs[0].ErrRatio(); math.Abs(x-1.2e-20/4.68e-23) > 1e-9 {
		t.Errorf("error ratio %g", x)
	}
	for x, want := range map[float64]string{0.0437: "0.044x", 1.5: "1.5x", 65.2: "65x", 1086381: "1.09e+06x", math.NaN(): "n/a"} {
		if got := fmtRatio(x); got != want {
			t.Errorf("fmtRatio(%g) = %q, want %q", x, got, want)
		}
	}
	if !isNaN(rs[1].SpeedUp()) || !isNaN(rs[1].ErrRatio()) {
		t.Error("a speed-up over a case PHCpack gave no result for")
	}
	var tab bytes.Buffer
	writeNewtonTable(&tab, rs)
	text := tab.String()
	t.Log("\n" + text)
	for _, want := range [][]string{
		{"real", "2d", "256", "64", "gpu", "11", "0.250", "0.500", "0.100", "0.010", "0.010", "0.020", "0.050", "0.010",
			"4.68e-23", "74.6", "24", "16.3", "4.67", "1.2e-20", "65x", "256x", "-"},
		{"complex", "8d", "128", "64", "gpu", "11", "0.500"},
		{"complex", "4d", "128", "64", "gpu", "30*"},
		{"real", "8d", "1024", "64", "skipped:", "not", "run:"},
	} {
		if !hasRow(text, want) {
			t.Errorf("the table lacks the row %q", want)
		}
	}
	for _, line := range strings.Split(text, "\n") {
		fs := strings.Fields(line)
		if len(fs) == 23 && fs[1] == "8d" {
			if !slicesEqual(fs[16:22], []string{"n/a", "n/a", "n/a", "n/a", "n/a", "n/a"}) {
				t.Errorf("PHCpack's 8d complex n=128 has no result: %q", fs)
			}
		}
		if len(fs) == 23 && fs[1] == "4d" && (fs[16] != "24*" || fs[17] != "98.2" || fs[19] != "3.9e-06") {
			t.Errorf("PHCpack's 4d complex n=128 (not converged): %q", fs)
		}
	}
	for _, want := range []string{
		"PHCpack 8d complex n=128 d=64: no result within 260 s",
		"PHCpack 8d real n=1024 d=64: did not finish within 240 s",
		"PHCpack 4d complex n=128 d=64: kernels 73.5 s: back substitution 51.1 s, updates 20.9 s; step limit (24 steps)",
		"PHCpack 2d real n=256 d=64: kernels 4.67 s: back substitution 2.38 s, updates 2.05 s\n",
		"mdgen 4d complex n=128 d=64: not converged: step limit",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the table lacks %q", want)
		}
	}

	// The CSV's PHCpack columns are the anchor file's fields.
	var c bytes.Buffer
	if err := writeNewtonCSV(&c, rs); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&c).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	anchor, err := csv.NewReader(strings.NewReader(phcpackNewtonCSV[strings.Index(phcpackNewtonCSV, "data,prec"):])).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	acol := map[string]int{}
	for i, h := range anchor[0] {
		acol[h] = i
	}
	for i, r := range rs {
		row := recs[i+1]
		var arow []string
		for _, a := range anchor[1:] {
			if a[0] == r.dataName() && a[1] == strconv.Itoa(r.Prec) && a[2] == strconv.Itoa(r.N) && a[3] == "64" {
				arow = a
			}
		}
		if arow == nil {
			t.Fatalf("no anchor for %+v", r)
		}
		for ours, theirs := range map[string]string{"phcpack_steps": "steps", "phcpack_converged": "converged", "phcpack_wall_s": "wall_s",
			"phcpack_kernel_s": "kernel_s", "phcpack_backsub_s": "backsub_s", "phcpack_update_s": "update_s",
			"phcpack_printed_error": "printed_error", "phcpack_note": "note"} {
			got, want := row[col[ours]], arow[acol[theirs]]
			if gx, err1 := strconv.ParseFloat(got, 64); err1 == nil {
				if wx, err2 := strconv.ParseFloat(want, 64); err2 != nil || gx != wx {
					t.Errorf("%dd %s n=%d: %s %q, anchor %s %q", r.Prec, r.dataName(), r.N, ours, got, theirs, want)
				}
			} else if got != want {
				t.Errorf("%dd %s n=%d: %s %q, anchor %s %q", r.Prec, r.dataName(), r.N, ours, got, theirs, want)
			}
		}
	}
	if row := recs[1]; row[col["wall_speedup"]] != "65.2" || row[col["stage_sum_s"]] != "0.2" {
		t.Errorf("CSV row %q", row)
	}
	if row := recs[4]; row[col["skipped"]] == "" || row[col["wall_s"]] != "" || row[col["converged"]] != "" || row[col["steps"]] != "" {
		t.Errorf("skipped row %q", row)
	}
	var svg bytes.Buffer
	if err := writeNewtonSVG(&svg, rs, newtonTitle(rs)); err != nil {
		t.Fatal(err)
	}
	checkXML(t, svg.Bytes())
	if !strings.Contains(svg.String(), "PHCpack n/a: no result within 260 s") {
		t.Error("the SVG does not mark PHCpack's missing result")
	}
}

func slicesEqual(a, b []string) bool { return strings.Join(a, "\x00") == strings.Join(b, "\x00") }

func TestNewtonConfigValidate(t *testing.T) {
	ok := func() *NewtonConfig {
		return &NewtonConfig{Precs: []int{2}, Sizes: []int{8}, Degrees: []int{8}, Complexes: []bool{false}, OutDir: "o"}
	}
	c := ok()
	if err := c.Validate(); err != nil || c.Repeat != 1 || c.CSV != filepath.Join("o", "newton.csv") || c.Plot != filepath.Join("o", "newton.svg") {
		t.Errorf("%v %+v", err, c)
	}
	for name, f := range map[string]func(*NewtonConfig){
		"prec 7":     func(c *NewtonConfig) { c.Precs = []int{7} },
		"n 0":        func(c *NewtonConfig) { c.Sizes = []int{0} },
		"degree 0":   func(c *NewtonConfig) { c.Degrees = []int{0} },
		"degree big": func(c *NewtonConfig) { c.Degrees = []int{1025} },
		"no data":    func(c *NewtonConfig) { c.Complexes = nil },
		"max steps":  func(c *NewtonConfig) { c.MaxSteps = -1 },
	} {
		c := ok()
		f(c)
		if err := c.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
