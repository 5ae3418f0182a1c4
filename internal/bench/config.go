package bench

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/stager/families"
)

// Config describes one run of the table (mdgen bench's flags).
type Config struct {
	Systems   []string // benchmark systems: p1, p2, p3
	Precs     []int    // doubles per number
	Degrees   []int
	Complexes []bool // kinds of data: false real, true complex
	Repeat    int    // timed runs per case after one warm-up (the median is reported)

	KernelDir string // folder of the fatbin cache (nvcc.Compiler)
	KernelSrc string // "gen": mdgen's generated kernels; "ref": gpuabi.ReferenceKernelsCU
	NVCC      string // path of nvcc ("": nvcc.Find)
	Arch      string // SM versions to compile for, e.g. "sm_90" ("auto": the GPU's)

	Check        string // compare with the CPU executor: all, low or none (see Checked)
	CheckWorkers int    // CPU workers of the checks
	Overlap      bool   // run the checks while the GPU times the next cases

	CSV, Plot string // files to write ("": none)
	OutDir    string // folder of bench.txt, bench.log, bench.csv, bench.svg, bench.json ("": none)
	JSON      bool   // print JSON instead of the tables

	CPU     bool // the CPU executor instead of the GPU
	Workers int  // CPU workers with CPU (0: one per CPU)

	Seed     uint64        // of the random inputs (0: from the clock)
	MaxBytes int64         // skip cases whose device arrays need more (0: no limit)
	Deadline time.Duration // stop starting cases and checks after this long (0: none)
	Merge    []string      // no run: combine these bench.json files

	// Tuning overrides of the convolution kernel's launch shape (ConvBlock
	// 0 and ConvSets -1: gpuabi.LaunchShape's; see ShapeOverride) and nvcc
	// flags after nvcc.Args' (e.g. -DMDGEN_CONV_MIN_BLOCKS_r4=2).
	ConvBlock int
	ConvSets  int
	NVCCFlags []string

	// Profile names the tuning profile (-profile; mdgen bench installs it
	// with runtime/tune.Install, and the session says what it holds for
	// the GPU).
	Profile string
}

// Validate checks the configuration and fills in the defaults: the seed
// from the clock, at least one repeat and one check worker, the CSV and
// SVG files in OutDir.
func (c *Config) Validate() error {
	if c.ConvBlock < 0 || c.ConvBlock > 1024 || c.ConvSets < -1 {
		return fmt.Errorf("bench: -conv-block %d -conv-sets %d: want 0..1024 threads (0: the default) and -1 (the default) or more sets", c.ConvBlock, c.ConvSets)
	}
	if len(c.Merge) > 0 {
		return nil // a merge runs nothing
	}
	for _, s := range c.Systems {
		if !families.IsBenchmarkName(s) {
			return fmt.Errorf("bench: unknown system %q (want p1, p2, p3)", s)
		}
	}
	if len(c.Systems) == 0 || len(c.Precs) == 0 || len(c.Degrees) == 0 || len(c.Complexes) == 0 {
		return fmt.Errorf("bench: no systems, precisions, degrees or kinds of data given")
	}
	for _, n := range c.Precs {
		if err := (mdops.Prec{N: n}).Check(); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
	}
	for _, d := range c.Degrees {
		if d < 0 {
			return fmt.Errorf("bench: negative degree %d", d)
		}
	}
	switch c.Check {
	case "all", "low", "none":
	default:
		return fmt.Errorf("bench: -check %q: want all, low or none", c.Check)
	}
	switch c.KernelSrc {
	case "gen", "ref":
	default:
		return fmt.Errorf("bench: -kernels-src %q: want gen or ref", c.KernelSrc)
	}
	c.Repeat = max(c.Repeat, 1)
	c.CheckWorkers = max(c.CheckWorkers, 1)
	if c.Seed == 0 {
		c.Seed = uint64(time.Now().UnixNano())
	}
	defaultOutFiles(c.OutDir, "bench", &c.CSV, &c.Plot)
	return nil
}

// defaultOutFiles names the CSV and plot files in outDir (name.csv,
// name.svg) that the flags left unnamed; without outDir, none.
func defaultOutFiles(outDir, name string, csv, plot *string) {
	if outDir == "" {
		return
	}
	if *csv == "" {
		*csv = filepath.Join(outDir, name+".csv")
	}
	if *plot == "" {
		*plot = filepath.Join(outDir, name+".svg")
	}
}

// Checked reports whether Check asks for a CPU comparison of the case:
// "low" checks the cases of degree <= 63 and the 10d d=152 cases.
func (c *Config) Checked(prec, degree int) bool {
	switch c.Check {
	case "all":
		return true
	case "low":
		return degree <= 63 || prec == 10 && degree == 152
	}
	return false
}

// CheckRule says in words which cases Check compares.
func (c *Config) CheckRule() string {
	switch c.Check {
	case "all":
		return "every case"
	case "low":
		return "cases of degree <= 63 and the 10d d=152 cases"
	}
	return "none"
}

// caseSeed derives the seed of one case's inputs.
func caseSeed(base uint64, sys string, prec, degree int, complex bool) uint64 {
	h := base ^ 0x9e3779b97f4a7c15
	for _, b := range []byte(fmt.Sprintf("%s/%d/%d/%v", sys, prec, degree, complex)) {
		h = (h ^ uint64(b)) * 0x100000001b3
	}
	if h == 0 {
		h = 1
	}
	return h
}
