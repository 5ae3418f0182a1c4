package main

import (
	"io"
	"slices"
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
