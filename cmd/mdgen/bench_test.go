package main

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

	mdrt "github.com/mdgen/mdgen/runtime"
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
func fakeResults() []benchResult {
	mk := func(sys string, prec, d int, complex bool, kern, wall float64, check string) benchResult {
		r := benchResult{System: sys, Prec: prec, Degree: d, Complex: complex, Backend: "gpu", Repeat: 5,
			KernelMs: kern, WallMs: wall, KernelMsLo: kern * 0.9, WallMsLo: wall * 0.9,
			ConvJobs: 16380, AddJobs: 9084, Launches: 15, DeviceBytes: 1 << 30, DoubleOps: 1.336e12,
			Seed: 42, Checksum: "0123456789abcdef", Check: check}
		r.setPHC()
		return r
	}
	rs := []benchResult{
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
	if err := writeBenchJSON(&js, []string{"note"}, rs); err != nil {
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

func TestBenchFlags(t *testing.T) {
	cfg, err := parseBenchFlags([]string{"-systems", "p1,p3", "-prec", "2,10", "-degrees", "8,152,255", "-complex", "real", "-check", "low"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.systems) != 2 || len(cfg.precs) != 2 || len(cfg.degrees) != 3 || len(cfg.complexes) != 1 || cfg.seed == 0 {
		t.Fatalf("%+v", cfg)
	}
	for _, c := range []struct {
		prec, d int
		want    bool
	}{{2, 63, true}, {2, 64, false}, {10, 152, true}, {8, 152, false}, {10, 191, false}} {
		if got := cfg.checked(c.prec, c.d); got != c.want {
			t.Errorf("-check low: %dd d=%d checked = %v", c.prec, c.d, got)
		}
	}
	for _, bad := range [][]string{{"-systems", "p4"}, {"-prec", "7"}, {"-complex", "maybe"}, {"-check", "some"}, {"-degrees", "x"}, {"extra"}} {
		if _, err := parseBenchFlags(bad, io.Discard); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

// The tuning flags override the convolution kernel's shape only, and add
// nvcc flags after the defaults.
func TestBenchTuningFlags(t *testing.T) {
	cfg, err := parseBenchFlags([]string{"-prec", "8", "-conv-block", "64", "-conv-sets", "4", "-nvcc-flags", "-DA=1  -DB=2"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.nvccFlags) != 2 || cfg.nvccFlags[0] != "-DA=1" || cfg.nvccFlags[1] != "-DB=2" {
		t.Errorf("nvcc flags %q", cfg.nvccFlags)
	}
	opt := (&benchSession{cfg: cfg}).gpuOptions()
	if opt.Shape == nil {
		t.Fatal("no shape override")
	}
	if tb, sh := opt.Shape("conv", 8, true, 152); tb != 64 || sh != 4*8*153*8 {
		t.Errorf("conv shape %d threads, %d bytes; want 64, %d", tb, sh, 4*8*153*8)
	}
	wantT, wantS := mdrt.GPULaunchShape("add", 8, true, 152)
	if tb, sh := opt.Shape("add", 8, true, 152); tb != wantT || sh != wantS {
		t.Errorf("add shape %d, %d changed; want %d, %d", tb, sh, wantT, wantS)
	}
	def, err := parseBenchFlags([]string{"-prec", "8"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if (&benchSession{cfg: def}).gpuOptions().Shape != nil {
		t.Error("default flags override the shape")
	}
	for _, bad := range [][]string{{"-conv-block", "-1"}, {"-conv-block", "2048"}, {"-conv-sets", "-2"}} {
		if _, err := parseBenchFlags(bad, io.Discard); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

// The CPU mode runs the whole path at tiny degrees and writes every file.
func TestBenchCPUSmoke(t *testing.T) {
	dir := t.TempDir()
	cfg, err := parseBenchFlags([]string{"-cpu", "-systems", "p1", "-prec", "1,2", "-degrees", "0,3", "-repeat", "2",
		"-out", dir, "-seed", "7"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var out, log bytes.Buffer
	if err := benchMain(cfg, &out, &log); err != nil {
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
	cfg.outDir, cfg.csv, cfg.plot = "", "", ""
	cfg.asJSON = true
	if err := benchMain(cfg, &out2, io.Discard); err != nil {
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
	if mdrt.GPUEnabled {
		t.Skip("a cuda build")
	}
	cfg, err := parseBenchFlags([]string{"-systems", "p1", "-prec", "2", "-degrees", "0"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	err = benchMain(cfg, io.Discard, io.Discard)
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
	l := mdrt.Layout{N: 2, Degree: 1, Complex: true} // 8 doubles a series, 3 series
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
	cfg, err := parseBenchFlags([]string{"-cpu", "-systems", "p1", "-prec", "1", "-degrees", "0,1", "-complex", "real",
		"-deadline", "1ns"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := benchMain(cfg, &out, io.Discard); err != nil {
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
	write := func(name string, part []benchResult) string {
		p := filepath.Join(dir, name, "bench.json")
		os.MkdirAll(filepath.Dir(p), 0o755)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := writeBenchJSON(f, []string{"run " + name}, part); err != nil {
			t.Fatal(err)
		}
		f.Close()
		return p
	}
	a := write("a", rs[:4])
	b := write("b", rs[3:]) // rs[3] in both
	out := filepath.Join(dir, "merged")
	cfg, err := parseBenchFlags([]string{"-merge", a + "," + b, "-out", out}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	if err := benchMain(cfg, &text, io.Discard); err != nil && !strings.Contains(err.Error(), "differ") {
		t.Fatal(err)
	}
	_, merged, err := readBenchJSON(filepath.Join(out, "bench.json"))
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
