package main

import (
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// The flags land in bench.Config (the benchmark's own tests are in
// internal/bench).
func TestBenchFlags(t *testing.T) {
	cfg, err := parseBenchFlags([]string{"-systems", "p1,p3,p1", "-prec", "2,10", "-degrees", "8,152,255", "-complex", "real",
		"-check", "all", "-cpu", "-deadline", "9m", "-out", "o", "-max-gib", "0.5"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.Systems, []string{"p1", "p3"}) || !slices.Equal(cfg.Precs, []int{2, 10}) ||
		!slices.Equal(cfg.Degrees, []int{8, 152, 255}) || !slices.Equal(cfg.Complexes, []bool{false}) ||
		cfg.Check != "all" || !cfg.CPU || cfg.Deadline != 9*time.Minute || cfg.CSV != "o/bench.csv" ||
		cfg.MaxBytes != 1<<29 || cfg.Seed == 0 || cfg.KernelSrc != "gen" || cfg.Arch != "auto" || cfg.ConvSets != -1 {
		t.Fatalf("%+v", cfg)
	}
	for _, bad := range [][]string{{"-systems", "p4"}, {"-prec", "7"}, {"-complex", "maybe"}, {"-check", "some"},
		{"-degrees", "x"}, {"extra"}, {"-conv-block", "-1"}, {"-conv-block", "2048"}, {"-conv-sets", "-2"}, {"-kernels-src", "x"}} {
		if _, err := parseBenchFlags(bad, io.Discard); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

// The tuning flags: the convolution kernel's shape and nvcc flags after the
// defaults.
func TestBenchTuningFlags(t *testing.T) {
	cfg, err := parseBenchFlags([]string{"-prec", "8", "-conv-block", "64", "-conv-sets", "4", "-nvcc-flags", "-DA=1  -DB=2",
		"-merge", "a/bench.json, b/bench.json"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.NVCCFlags, []string{"-DA=1", "-DB=2"}) || cfg.ConvBlock != 64 || cfg.ConvSets != 4 ||
		!slices.Equal(cfg.Merge, []string{"a/bench.json", "b/bench.json"}) {
		t.Errorf("%+v", cfg)
	}
}

// mdgen bench -newton: its own flags and defaults (PHCpack's table).
func TestBenchNewtonFlags(t *testing.T) {
	for _, args := range [][]string{{"-newton"}, {"--newton"}, {"-prec", "2", "-newton=true"}} {
		if !isNewtonBench(args) {
			t.Errorf("%q: not the Newton bench", args)
		}
	}
	for _, args := range [][]string{{}, {"-newton=false"}, {"-systems", "p1"}, {"--", "-newton"}, {"newton"}} {
		if isNewtonBench(args) {
			t.Errorf("%q: the Newton bench", args)
		}
	}
	cfg, err := parseBenchNewtonFlags([]string{"-newton"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.Precs, []int{2, 4, 8}) || !slices.Equal(cfg.Sizes, []int{256}) || !slices.Equal(cfg.Degrees, []int{64}) ||
		!slices.Equal(cfg.Complexes, []bool{false}) || cfg.Repeat != 1 || cfg.Check || cfg.CPU || cfg.MaxSteps != 0 {
		t.Errorf("defaults: %+v", cfg)
	}
	cfg, err = parseBenchNewtonFlags([]string{"-newton", "-prec", "4,8,4", "-sizes", "128,1024", "-degrees", "8,1023", "-complex", "both",
		"-check", "-cpu", "-workers", "3", "-repeat", "3", "-max-steps", "40", "-out", "o", "-deadline", "9m"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.Precs, []int{4, 8}) || !slices.Equal(cfg.Sizes, []int{128, 1024}) || !slices.Equal(cfg.Degrees, []int{8, 1023}) ||
		!slices.Equal(cfg.Complexes, []bool{false, true}) || !cfg.Check || !cfg.CPU || cfg.Workers != 3 || cfg.Repeat != 3 ||
		cfg.MaxSteps != 40 || cfg.CSV != "o/newton.csv" || cfg.Plot != "o/newton.svg" || cfg.Deadline != 9*time.Minute {
		t.Errorf("%+v", cfg)
	}
	if cfg, err = parseBenchNewtonFlags([]string{"-newton", "-real"}, io.Discard); err != nil || !slices.Equal(cfg.Complexes, []bool{false}) {
		t.Errorf("-real: %v %+v", err, cfg)
	}
	if cfg, err = parseBenchNewtonFlags([]string{"-newton", "-complex", "complex"}, io.Discard); err != nil || !slices.Equal(cfg.Complexes, []bool{true}) {
		t.Errorf("-complex complex: %v %+v", err, cfg)
	}
	for _, bad := range [][]string{{"-complex", "maybe"}, {"-real", "-complex", "complex"}, {"-prec", "7"}, {"-degrees", "0"},
		{"-degrees", "2000"}, {"-sizes", "0"}, {"-sizes", "x"}, {"-repeat", "0"}, {"-systems", "p1"}, {"extra"}, {"-max-steps", "-1"}} {
		if _, err := parseBenchNewtonFlags(append([]string{"-newton"}, bad...), io.Discard); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	// The evaluation bench takes -newton=false.
	if _, err := parseBenchFlags([]string{"-newton=false", "-prec", "2"}, io.Discard); err != nil {
		t.Error(err)
	}
}

// A small Newton table end to end through the command.
func TestBenchNewtonRun(t *testing.T) {
	dir := t.TempDir()
	var out strings.Builder
	if err := runBench([]string{"-newton", "-cpu", "-sizes", "4", "-degrees", "4", "-prec", "2", "-check", "-csv", dir + "/n.csv"}, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"backend: CPU (runtime/newton)", "PHC_wall", "identical"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if _, err := os.Stat(dir + "/n.csv"); err != nil {
		t.Error(err)
	}
}

// mdgen bench -newton-step prints one row per system and precision.
func TestBenchNewtonStep(t *testing.T) {
	var out strings.Builder
	if err := runBench([]string{"-newton-step", "-systems", "noon3", "-prec", "1,2", "-time", "1ms"}, &out); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	if !strings.Contains(text, "%bare") || strings.Count(text, "noon3") != 2 {
		t.Errorf("the table:\n%s", text)
	}
	if err := runBench([]string{"-newton-step", "extra"}, io.Discard); err == nil {
		t.Error("an argument accepted")
	}
}

// TestLastLine: a crash's reason is phc's last non-blank line, cut at 300
// bytes.
func TestLastLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a\nraised CONSTRAINT_ERROR : x.adb:1 overflow check failed\n\n", "raised CONSTRAINT_ERROR : x.adb:1 overflow check failed"},
		{"", ""},
		{"  one  ", "one"},
		{strings.Repeat("z", 400), strings.Repeat("z", 300) + "..."},
	} {
		if got := lastLine([]byte(c.in)); got != c.want {
			t.Errorf("lastLine(%.20q) = %.40q, want %.40q", c.in, got, c.want)
		}
	}
}
