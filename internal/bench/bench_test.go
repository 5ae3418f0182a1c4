package bench

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/gpu"
	"github.com/mdgen/mdgen/stager"
)

func TestPHCTable(t *testing.T) {
	for _, c := range []struct {
		key        phcKey
		kern, wall float64
	}{
		{phcKey{10, "p1", false, 152}, 166.76, 170},
		{phcKey{1, "p2", false, 0}, 0.48, 6},
		{phcKey{3, "p3", false, 191}, 79.89, 83},
		{phcKey{8, "p2", true, 191}, 692.94, 833},
		{phcKey{2, "p3", true, 63}, 1.72, 12},
	} {
		got, ok := phcTable[c.key]
		if !ok || got.Kern != c.kern || got.Wall != c.wall {
			t.Errorf("%+v: %+v, %v; want %v/%v", c.key, got, ok, c.kern, c.wall)
		}
	}
	for _, k := range []phcKey{{10, "p1", false, 191}, {3, "p1", true, 8}, {10, "p2", true, 0}, {2, "p1", false, 15}} {
		if _, ok := phcTable[k]; ok {
			t.Errorf("%+v: PHCpack has no number there", k)
		}
	}
	if want := 21*7 - 3 + 12*7; len(phcTable) != want {
		t.Errorf("%d PHCpack entries, want %d", len(phcTable), want)
	}
}

// hasRow reports whether a line of text starts with the fields want.
func hasRow(text string, want []string) bool {
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) >= len(want) && slices.Equal(f[:len(want)], want) {
			return true
		}
	}
	return false
}

// fakeResults is a small result set: real and complex, a skipped case, a
// case without PHCpack numbers, a CPU mismatch.
func fakeResults() []Result {
	mk := func(sys string, prec, d int, complex bool, kern, wall float64, check string) Result {
		r := Result{System: sys, Prec: prec, Degree: d, Complex: complex, Backend: "gpu", Repeat: 5,
			KernelMs: kern, WallMs: wall, KernelMsLo: kern * 0.9, WallMsLo: wall * 0.9,
			ConvJobs: 16380, AddJobs: 9084, Launches: 15, DeviceBytes: 1 << 30, DoubleOps: 1.336e12,
			Seed: 42, Checksum: "0123456789abcdef", Check: check}
		r.setPHC()
		return r
	}
	rs := []Result{
		mk("p2", 10, 152, false, 120, 121, "identical"),
		mk("p1", 10, 152, false, 84.2, 85, "identical"),
		mk("p1", 2, 15, false, 0.05, 0.08, "-"),
		mk("p1", 2, 8, true, 0.04, 0.07, "DIFFERS"),
		mk("p1", 10, 191, false, 130, 131, "-"),
		mk("p1", 2, 8, false, 0.03, 0.06, "identical"),
	}
	skipped := mk("p3", 10, 511, true, math.NaN(), math.NaN(), "-")
	skipped.Skipped = "too big for the GPU: needs 200 GiB"
	return append(rs, skipped)
}

func TestBenchTableAndFiles(t *testing.T) {
	rs := fakeResults()
	sortResults(rs)
	if rs[0].Complex || rs[len(rs)-1].Skipped == "" || rs[0].Prec != 2 || rs[0].Degree != 8 {
		t.Fatalf("sort order: %+v first", rs[0])
	}
	var tab bytes.Buffer
	writeTable(&tab, rs)
	writeMatrices(&tab, rs)
	text := tab.String()
	t.Log("\n" + text)
	for _, want := range []string{
		"kern ms", "PHC wall", "wall x", "%peak",
		"skipped: too big for the GPU: needs 200 GiB", // a skipped case runs on
		"DIFFERS", "identical",
		"### mdgen GPU, real data, kern/wall ms",
		"| 10d p1 | | | 84.2/85.0 | 130/131 |",
		"### wall-clock speed-up over PHCpack (PHCpack wall / mdgen wall), complex data",
		"| 10d p3 | | skipped |",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("table lacks %q", want)
		}
	}
	for _, want := range [][]string{
		{"real", "10d", "p1", "152", "84.2", "85.0", "167", "170", "2.0x", "15867", "101.1", "identical"}, // ours, PHCpack, speed-up
		{"real", "10d", "p1", "191", "130", "131", "n/a", "n/a", "n/a", "10277", "65.5", "-"},             // no PHCpack at 10d d=191
		{"complex", "2d", "p1", "8", "0.040", "0.070", "0.460", "13.0", "186x"},
	} {
		if !hasRow(text, want) {
			t.Errorf("table lacks the row %q", want)
		}
	}
	// 1.336e12 ops in 84.2 ms = 15.9 T op/s = 101% of 15.7e12.
	if r := rs[2]; r.Prec != 10 || r.Degree != 152 || math.Abs(r.OpRate()-1.336e12/0.0842) > 1 || math.Abs(r.PeakFraction()-1.336e12/0.0842/15.7e12) > 1e-12 {
		t.Errorf("op rate of %+v: %g", r, r.OpRate())
	}

	var c bytes.Buffer
	if err := writeCSV(&c, rs); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&c).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != len(rs)+1 || len(recs[0]) != len(csvHeader) {
		t.Fatalf("CSV: %d records of %d fields", len(recs), len(recs[0]))
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	row := recs[3] // 10d p1 152 real
	if row[col["prec"]] != "10" || row[col["degree"]] != "152" || row[col["wall_ms"]] != "85" ||
		row[col["phcpack_wall_ms"]] != "170" || row[col["wall_speedup"]] != "2" || row[col["check"]] != "identical" {
		t.Errorf("CSV row %v", row)
	}
	last := recs[len(recs)-1]
	if last[col["skipped"]] == "" || last[col["wall_ms"]] != "" || last[col["phcpack_wall_ms"]] != "" {
		t.Errorf("CSV skipped row %v", last)
	}

	var svg bytes.Buffer
	if err := writeSVG(&svg, rs, "test <plot> & title"); err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(bytes.NewReader(svg.Bytes()))
	paths, texts := 0, []string{}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v\n%s", err, svg.String())
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "path" {
			paths++
		}
		if cd, ok := tok.(xml.CharData); ok {
			texts = append(texts, string(cd))
		}
	}
	// real data: p1 (2d and 10d ours and PHCpack's) and p2 (10d ours and PHCpack's)
	if paths != 6 {
		t.Errorf("SVG has %d lines, want 6", paths)
	}
	all := strings.Join(texts, "|")
	for _, want := range []string{"p1 (real)", "p2 (real)", "log2(wall ms)", "degree", "10d", "PHCpack", "test <plot> & title"} {
		if !strings.Contains(all, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if strings.Contains(all, "p3 (real)") {
		t.Error("SVG has a panel of complex-only data")
	}

	var js bytes.Buffer
	if err := writeJSON(&js, []string{"note"}, rs); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Results []map[string]any
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Results) != len(rs) || doc.Results[len(rs)-1]["wall_ms"] != nil || doc.Results[2]["phcpack_wall_ms"] != 170.0 {
		t.Errorf("JSON: %v", doc.Results)
	}
}

// config returns a valid configuration of a small CPU run.
func config(t *testing.T, edit func(*Config)) *Config {
	t.Helper()
	c := &Config{Systems: []string{"p1"}, Precs: []int{1, 2}, Degrees: []int{0, 3}, Complexes: []bool{false, true},
		Repeat: 2, KernelDir: t.TempDir(), KernelSrc: "gen", Arch: "auto", Check: "low", CheckWorkers: 1,
		Overlap: true, CPU: true, Seed: 7, ConvSets: -1}
	if edit != nil {
		edit(c)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestConfig(t *testing.T) {
	c := config(t, func(c *Config) { c.Precs, c.Degrees, c.Seed, c.OutDir = []int{2, 10}, []int{8, 152, 255}, 0, "out" })
	if c.Seed == 0 || c.CSV != "out/bench.csv" || c.Plot != "out/bench.svg" {
		t.Errorf("defaults not filled in: %+v", c)
	}
	for _, x := range []struct {
		prec, d int
		want    bool
	}{{2, 63, true}, {2, 64, false}, {10, 152, true}, {8, 152, false}, {10, 191, false}} {
		if got := c.Checked(x.prec, x.d); got != x.want {
			t.Errorf("-check low: %dd d=%d checked = %v", x.prec, x.d, got)
		}
	}
	for _, bad := range []func(*Config){
		func(c *Config) { c.Systems = []string{"p4"} },
		func(c *Config) { c.Precs = []int{7} },
		func(c *Config) { c.Check = "some" },
		func(c *Config) { c.KernelSrc = "mine" },
		func(c *Config) { c.Degrees = nil },
		func(c *Config) { c.ConvBlock = -1 },
		func(c *Config) { c.ConvBlock = 2048 },
		func(c *Config) { c.ConvSets = -2 },
	} {
		c := config(t, nil)
		bad(c)
		if err := c.Validate(); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}

// The tuning override replaces the convolution kernel's shape only.
func TestShapeOverride(t *testing.T) {
	shape := ShapeOverride(64, 4)
	if tb, sh := shape(gpuabi.Conv, 8, true, 152); tb != 64 || sh != 4*8*153*8 {
		t.Errorf("conv shape %d threads, %d bytes; want 64, %d", tb, sh, 4*8*153*8)
	}
	wantT, wantS := gpuabi.LaunchShape(gpuabi.Add, 8, true, 152)
	if tb, sh := shape(gpuabi.Add, 8, true, 152); tb != wantT || sh != wantS {
		t.Errorf("add shape %d, %d changed; want %d, %d", tb, sh, wantT, wantS)
	}
	lt, ls := gpuabi.LaunchShape(gpuabi.Conv, 8, true, 152)
	if tb, sh := ShapeOverride(0, 2)(gpuabi.Conv, 8, true, 152); tb != lt || sh != 2*8*153*8 {
		t.Errorf("sets only: %d, %d (default %d, %d)", tb, sh, lt, ls)
	}
	if ShapeOverride(0, -1) != nil {
		t.Error("no override gives a shape function")
	}
	s := &session{cfg: config(t, func(c *Config) { c.KernelSrc = "ref" })}
	if tb, _ := s.gpuOptions().Shape(gpuabi.Conv, 8, false, 500); tb != 128 {
		t.Errorf("reference kernels: %d threads", tb)
	}
}

// The CPU mode runs the whole path at tiny degrees and writes every file.
func TestBenchCPUSmoke(t *testing.T) {
	dir := t.TempDir()
	cfg := config(t, func(c *Config) { c.OutDir = dir })
	var out, log bytes.Buffer
	if err := Run(cfg, &out, &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	text := out.String()
	t.Log("\n" + text)
	if n := strings.Count(text, "reference"); n != 8 {
		t.Errorf("%d cases with the CPU reference, want 8", n)
	}
	for _, want := range []string{"backend: CPU executor", "### mdgen CPU executor, real data, wall ms", "### mdgen CPU executor, complex data", "| 2d p1 |"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if !strings.Contains(log.String(), "[8/8") {
		t.Errorf("no progress on stderr:\n%s", log.String())
	}
	for _, f := range []string{"bench.txt", "bench.log", "bench.csv", "bench.svg", "bench.json"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	// Same seed, same checksums.
	var out2 bytes.Buffer
	cfg.OutDir, cfg.CSV, cfg.Plot = "", "", ""
	cfg.JSON = true
	if err := Run(cfg, &out2, io.Discard); err != nil {
		t.Fatal(err)
	}
	js, _ := os.ReadFile(filepath.Join(dir, "bench.json"))
	var a, b struct{ Results []map[string]any }
	if json.Unmarshal(js, &a) != nil || json.Unmarshal(out2.Bytes(), &b) != nil || len(a.Results) != 8 || len(b.Results) != 8 {
		t.Fatalf("JSON results: %d, %d", len(a.Results), len(b.Results))
	}
	for i := range a.Results {
		if a.Results[i]["checksum"] != b.Results[i]["checksum"] || a.Results[i]["checksum"] == "" {
			t.Errorf("case %d: checksums %v, %v", i, a.Results[i]["checksum"], b.Results[i]["checksum"])
		}
	}
}

// Without the cuda tag the GPU bench says why it cannot run and how to.
func TestBenchWithoutGPU(t *testing.T) {
	if gpu.Enabled {
		t.Skip("a cuda build")
	}
	cfg := config(t, func(c *Config) { c.CPU = false })
	err := Run(cfg, io.Discard, io.Discard)
	if err == nil {
		t.Fatal("the GPU bench ran without CUDA")
	}
	for _, want := range []string{"GPU is unavailable", "make gpu", "-tags cuda", "-cpu"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
}

func TestDescribeDiff(t *testing.T) {
	plan := &stager.Plan{NumPolys: 1, NumVars: 2, Degree: 1}
	l := backend.Layout{Prec: mdops.Prec{N: 2, Complex: true}, Degree: 1} // 8 doubles a series, 3 series
	want := make([]float64, 24)
	for i := range want {
		want[i] = float64(i + 1)
	}
	got := slices.Clone(want)
	got[8+4+2+1] *= 1.5 // d p0/d x1, t^1, im limb 1
	msg := describeDiff(got, want, plan, l)
	for _, w := range []string{"1 of 24 doubles", "d p0/d x1 t^1 im limb 1", "GPU 24, CPU 16", "largest difference 0.53"} {
		if !strings.Contains(msg, w) {
			t.Errorf("%q lacks %q", msg, w)
		}
	}
}

func TestBenchDeadline(t *testing.T) {
	cfg := config(t, func(c *Config) {
		c.Precs, c.Degrees, c.Complexes, c.Deadline = []int{1}, []int{0, 1}, []bool{false}, time.Nanosecond
	})
	var out bytes.Buffer
	if err := Run(cfg, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "skipped: not run: past the -deadline of 1ns"); n != 2 {
		t.Errorf("%d cases past the deadline, want 2:\n%s", n, out.String())
	}
}

// Runs split over several device calls are merged from their bench.json.
func TestBenchMerge(t *testing.T) {
	dir := t.TempDir()
	rs := fakeResults()
	write := func(name string, part []Result) string {
		p := filepath.Join(dir, name, "bench.json")
		os.MkdirAll(filepath.Dir(p), 0o755)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := writeJSON(f, []string{"run " + name}, part); err != nil {
			t.Fatal(err)
		}
		f.Close()
		return p
	}
	a := write("a", rs[:4])
	b := write("b", rs[3:]) // rs[3] in both
	out := filepath.Join(dir, "merged")
	cfg := config(t, func(c *Config) { c.Merge, c.OutDir = []string{a, b}, out })
	var text bytes.Buffer
	if err := Run(cfg, &text, io.Discard); err != nil && !strings.Contains(err.Error(), "differ") {
		t.Fatal(err)
	}
	_, merged, err := readJSON(filepath.Join(out, "bench.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(merged) != len(rs) {
		t.Fatalf("%d merged cases, want %d", len(merged), len(rs))
	}
	want := slices.Clone(rs)
	sortResults(want)
	for i := range want {
		g, w := merged[i], want[i]
		same := func(x, y float64) bool { return x == y || isNaN(x) && isNaN(y) }
		if g.System != w.System || g.Prec != w.Prec || g.Degree != w.Degree || g.Complex != w.Complex || g.Skipped != w.Skipped ||
			!same(g.WallMs, w.WallMs) || !same(g.KernelMs, w.KernelMs) || !same(g.PHCWallMs, w.PHCWallMs) || g.Check != w.Check {
			t.Errorf("case %d: merged %+v, want %+v", i, g, w)
		}
	}
	for _, note := range []string{"a/bench.json: run a", "b/bench.json: run b", "as each merged run asked"} {
		if !strings.Contains(text.String(), note) {
			t.Errorf("merged report lacks %q", note)
		}
	}
}
