package main

// mdgen track: every isolated solution of a polynomial system by homotopy
// continuation (runtime/track), with the output of phc -b: the summary,
// every path's endpoint with all the digits of its precision, JSON, and a
// PHCpack solution list.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"math/bits"
	"os"
	goruntime "runtime"
	"strconv"
	"strings"
	"time"

	"github.com/mdgen/mdgen/internal/atomicfile"
	"github.com/mdgen/mdgen/internal/par"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/mdops/fp"
	"github.com/mdgen/mdgen/runtime/gpu/kernels"
	"github.com/mdgen/mdgen/runtime/track"
	"github.com/mdgen/mdgen/stager/families"
	"github.com/mdgen/mdgen/stager/poly"
	"github.com/mdgen/mdgen/stager/solutions"
)

const trackUsage = `usage: mdgen track SYSTEM [flags]

Solves a square polynomial system by homotopy continuation: every path from
a start solution at t = 0 is tracked to t = 1 (Newton on Taylor series for
the path's series, a Padé predictor, precision raised per path with -prec
auto), in parallel over paths; the results do not depend on -workers.

SYSTEM is a PHCpack system file or a family spec (cyclic5, katsura6, noon4,
...; mdgen system -list). A system without a parameter is tracked with the
total-degree homotopy gamma (1 - t) g(x) + t f(x), g_i = x_i^d_i - 1, in
projective coordinates unless -affine. A system with a parameter t (PHCpack's
convention, or -param) is the homotopy itself, tracked from its start
solutions (-start FILE, else the list in the file, else the family's).

Prints gamma, the number of paths, the summary (regular, singular, at
infinity, failed, real, distinct), the time and every endpoint with all the
digits of the precision its path ended at (-quiet: not the endpoints);
-json prints one JSON object instead; -o writes the finite endpoints as a
PHCpack solution list. Progress (paths done, paths per second) goes to
stderr. -gpu runs the paths in batches of -batch on each GPU (every
visible one, or -devices), each path's bits the CPU's (a binary built with
-tags cuda, a device and nvcc; else it says why and tracks on the CPU);
by default whole Newton solves, a launch a group of paths, 16 groups at
once (-gpu-mode evaluations: only the evaluations on the GPU). On several
GPUs, a process each (this binary again), the paths handed out from one
queue as they come back, a failed process's paths given to the others
(-gpu-procs=false: a single process for all the GPUs, slower). Exit status
1 when any path failed (after the output), 2 for a usage error.

`

// maxTrackPaths is the most paths one run tracks: every endpoint is kept
// in memory until the end (track.Track's own bound is higher).
const maxTrackPaths = 1 << 24

// trackReport is the JSON output of `mdgen track`.
type trackReport struct {
	System     string          `json:"system"`
	Prec       any             `json:"prec"` // "auto" or the doubles per number
	Homotopy   string          `json:"homotopy"`
	Projective bool            `json:"projective"`
	Gamma      *[2]string      `json:"gamma"` // null for a given homotopy
	Seed       uint64          `json:"seed"`
	Paths      int64           `json:"paths"`       // paths tracked in this run
	TotalPaths int64           `json:"total_paths"` // paths of the homotopy
	First      int64           `json:"first"`       // 1-based index of the first path tracked
	Workers    int             `json:"workers"`
	Seconds    float64         `json:"seconds"`
	PathsPerS  float64         `json:"paths_per_second"`
	Summary    trackSummary    `json:"summary"`
	Variables  []string        `json:"variables"`
	Solutions  []trackSolution `json:"solutions"`
}

type trackSummary struct {
	Regular  int `json:"regular"`
	Singular int `json:"singular"`
	Infinite int `json:"infinite"`
	Failed   int `json:"failed"`
	Real     int `json:"real"`
	Distinct int `json:"distinct"`
}

type trackSolution struct {
	Path         int64       `json:"path"` // 1-based
	Status       string      `json:"status"`
	Reason       string      `json:"reason,omitempty"`
	X            [][2]string `json:"x"`         // null at infinity
	Residual     *string     `json:"residual"`  // null at infinity and for a failed path
	Condition    *string     `json:"condition"` // null at infinity
	Multiplicity int         `json:"multiplicity"`
	Real         bool        `json:"real"`
	Prec         int         `json:"prec"`
	T            float64     `json:"t"` // the t reached (1 unless failed)
	Steps        int         `json:"steps"`
	Rejected     int         `json:"rejected"`
	Seconds      float64     `json:"seconds"`
}

// trackSetup is what the flags and the system ask for: the homotopy, the
// options and the range of paths.
type trackSetup struct {
	arg   string
	h     *track.Homotopy
	opt   track.Options
	auto  bool
	seed  uint64
	param string // a given homotopy's parameter, as the system names it

	first, last int64 // 0-based, inclusive
	// gpu: -gpu, with -batch, -gpu-mode and the kernel flags.
	gpu                 bool
	gpuEvaluations      bool
	devices             []int // -devices (none: every visible GPU)
	batch               int
	kernelDir, nvccPath string
	// gpuProcs: -gpu-procs (several GPUs: a process each, track_procs.go);
	// args: the command line after "track", which the children repeat.
	gpuProcs bool
	args     []string
}

// trackDesc is what the outputs say about a run: from the flags and the
// homotopy (describe), or from the headers of shards (mdgen merge).
type trackDesc struct {
	Arg        string     `json:"system"`
	Kind       string     `json:"homotopy"`
	Projective bool       `json:"projective"`
	Gamma      *[2]string `json:"gamma"` // null for a given homotopy
	Seed       uint64     `json:"seed"`
	Degrees    []int      `json:"degrees,omitempty"` // total degree
	Param      string     `json:"param,omitempty"`   // given homotopy
	Vars       []string   `json:"variables"`
	Total      int64      `json:"total_paths"`
	Prec       any        `json:"prec"` // "auto" or the doubles per number
	// First and Last are the range of paths (0-based, inclusive), Workers
	// the paths tracked at once: not part of a shard's header.
	First, Last int64 `json:"-"`
	Workers     int   `json:"-"`
}

// describe is the description of the run ts asks for.
func describe(ts *trackSetup) *trackDesc {
	h := ts.h
	d := &trackDesc{Arg: ts.arg, Kind: h.Kind, Projective: h.Projective, Gamma: gammaText(h), Seed: ts.seed,
		Vars: h.Target.Vars, Total: h.Paths(), Prec: precValue(ts), First: ts.first, Last: ts.last}
	if h.Kind == track.Given {
		d.Param = ts.param
	} else {
		d.Degrees = h.Degrees
	}
	return d
}

func runTrack(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("track", trackUsage+shardUsage, stderr)
	precFlag := fs.String("prec", "auto", "doubles per number ("+joinInts(mdops.Precisions())+"), or auto: every path starts at -min-prec and a path that fails is resumed at the next precision (1, 2, 4, 8, 16) up to -max-prec")
	minPrec := fs.Int("min-prec", 0, "with -prec auto: the first precision (0: the tracker's default, 2)")
	maxPrec := fs.Int("max-prec", 0, "with -prec auto: the highest precision (0: the tracker's default, 8)")
	pade := fs.String("pade", "", "degrees `L,M` of the Padé approximants of the predictor (default: the tracker's, 2,1)")
	gammaFlag := fs.String("gamma", "", "the constant gamma `re,im` of the total-degree homotopy (scaled to modulus 1; default: random of modulus 1 from -seed)")
	seed := fs.Uint64("seed", 1, "seed of the random gamma and of the projective charts (one a path)")
	affine := fs.Bool("affine", false, "total-degree homotopy in affine coordinates (default: projective, so that paths to infinity stay bounded)")
	workers := fs.Int("workers", 0, fmt.Sprintf("paths tracked at once, 0..%d (0: one per CPU); the results do not depend on it", maxWorkers))
	pathsFlag := fs.String("paths", "", "track only the paths `a:b` (1-based, inclusive; a: to the last)")
	maxSteps := fs.Int("max-steps", 0, "most steps of a path at one precision (0: the tracker's default, 1000)")
	everyPoint := fs.Bool("every-point", false, "correct every point at the tracking precision (as phc -p does at its precision); default: only where the 1-double series solve does not already give the corrector's accuracy (cond u <= 1e-12), the endpoint always at the tracking precision")
	startFile := fs.String("start", "", "start solutions at t = 0 of a homotopy with a parameter: this `file` (PHCpack solution list, or lines: name re [im])")
	param := fs.String("param", "", "name of the homotopy's parameter (default: t when there is one more variable than equations)")
	asJSON := fs.Bool("json", false, "print one JSON object")
	quiet := fs.Bool("quiet", false, "text output: the summary only, no endpoints")
	useGPU := fs.Bool("gpu", false, "track on the GPU, in batches of -batch paths (the same bits as the CPU); falls back to the CPU, saying why, when this binary or machine has no GPU")
	batch := fs.Int("batch", 0, fmt.Sprintf("with -gpu: paths tracked at once on each GPU (0: all, at most %d)", kernels.DefaultTrackBatch))
	gpuMode := fs.String("gpu-mode", "solves", "with -gpu: `solves` (each group of whole Newton solves one launch on the GPU, 16 groups at once; its kernels built before the run) or evaluations (each group of evaluations one batched evaluation on the GPU, the rest of Newton on the host: slower); the same bits either way (docs/results.md compares them with the host's cores)")
	devices := fs.String("devices", "", "with -gpu: the GPUs to use, `list` of ordinals such as 0,1 (default: every visible GPU; the paths come from one queue, the results do not depend on it)")
	gpuProcs := fs.Bool("gpu-procs", true, "with -gpu on several GPUs: a process for each GPU, the paths from one queue (faster than a single process, whose garbage collector and scheduler serve every GPU); false: a single process for all")
	kernelDir, nvccPath := kernelFlags(fs, "with -gpu: ")
	outFile := fs.String("o", "", "write the finite endpoints (every digit of their precision) as a PHCpack solution list to this `file`")
	shards := addShardFlags(fs)
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if *shards.slurmResume != "" {
		if fs.NFlag() > 1 || fs.NArg() > 0 {
			return usagef("track: -slurm-resume DIR takes nothing else: the job's directory holds its command")
		}
		return slurmResume(*shards.slurmResume, stdout, stderr)
	}
	if err := shards.check(fs); err != nil {
		return err
	}
	if err := checkArgs(fs, 1, "one system file or family"); err != nil {
		return err
	}
	ts := &trackSetup{arg: fs.Arg(0), seed: *seed, gpu: *useGPU, batch: *batch, kernelDir: *kernelDir, nvccPath: *nvccPath,
		gpuEvaluations: *gpuMode != "solves", gpuProcs: *gpuProcs, args: args}
	if *gpuMode != "solves" && *gpuMode != "evaluations" {
		return usagef("track: -gpu-mode %q: want solves or evaluations", *gpuMode)
	}
	if flagGiven(fs, "gpu-mode") && !*useGPU {
		return usagef("track: -gpu-mode is for -gpu")
	}
	if err := checkRange("-batch", *batch, 0, 1<<20, "paths (0: the default)"); err != nil {
		return err
	}
	if flagGiven(fs, "batch") && !*useGPU {
		return usagef("track: -batch is for -gpu")
	}
	if flagGiven(fs, "gpu-procs") && !*useGPU {
		return usagef("track: -gpu-procs is for -gpu")
	}
	if *devices != "" {
		if !*useGPU {
			return usagef("track: -devices is for -gpu")
		}
		var err error
		if ts.devices, err = parseIntList(*devices, "GPU ordinal"); err != nil {
			return usagef("track: -devices: %w", err)
		}
	}
	var err error
	if ts.opt.Prec, ts.auto, err = parseTrackPrec(*precFlag); err != nil {
		return err
	}
	for _, bound := range []struct {
		name string
		n    int
		opt  *int
	}{{"max-prec", *maxPrec, &ts.opt.MaxPrec}, {"min-prec", *minPrec, &ts.opt.MinPrec}} {
		if !flagGiven(fs, bound.name) {
			continue
		}
		if !ts.auto {
			return usagef("track: -%s is for -prec auto", bound.name)
		}
		if bound.n == 0 { // the tracker's default, as the flag's help says
			continue
		}
		if err := checkPrec("-"+bound.name, mdops.Prec{N: bound.n, Complex: true}); err != nil {
			return err
		}
		*bound.opt = bound.n
	}
	if *pade != "" {
		if ts.opt.PadeL, ts.opt.PadeM, err = parsePade(*pade); err != nil {
			return err
		}
	}
	for _, err := range []error{checkWorkers("-workers", *workers), checkRange("-max-steps", *maxSteps, 0, 1<<24, "steps (0: the default)")} {
		if err != nil {
			return err
		}
	}
	ts.opt.Workers, ts.opt.MaxSteps, ts.opt.CorrectEveryPoint = *workers, *maxSteps, *everyPoint
	if filled, err := ts.opt.Filled(); err != nil && filled.MinPrec > filled.MaxPrec {
		return usagef("track: -min-prec %d is above -max-prec %d (the defaults are 2 and 8)", filled.MinPrec, filled.MaxPrec)
	}
	if err := shards.checkOutputs(*outFile, ts.arg, *startFile); err != nil {
		return err
	}
	sys, fileSols, err := loadSolveSystem(ts.arg, *param, 1, false, stderr)
	if err != nil {
		// The total-degree homotopy of a system without a parameter reads
		// no solution list: one it cannot read (PHCpack's diagnostics
		// lists, a solution without its t) does not stop it.
		alone, aerr := loadSystemAlone(ts.arg, *param)
		if aerr != nil || alone.Param != "" || *startFile != "" {
			return fmt.Errorf("track: %w", err)
		}
		fmt.Fprintf(stderr, "mdgen: warning: the solution list is not read, the total-degree homotopy needs none: %v\n", err)
		for _, w := range alone.Warnings {
			fmt.Fprintf(stderr, "mdgen: warning: %v\n", w)
		}
		sys, fileSols = alone, nil
	}
	if sys.Param != "" && sys.MaxCoefDegree() > 0 {
		if *gammaFlag != "" || *affine {
			return usagef("track: %s is a homotopy (parameter %s): -gamma and -affine are for the total-degree homotopy of a system without one", ts.arg, sys.Param)
		}
		starts, err := trackStarts(sys, fileSols, ts.arg, *startFile, stderr)
		if err != nil {
			return err
		}
		ts.param = sys.Param
		if ts.h, err = track.NewGiven(sys, starts); err != nil {
			return trackInputError(ts.arg, err)
		}
	} else {
		if *startFile != "" {
			return usagef("track: %s has no parameter: -start is for a homotopy (a system in the unknowns and t); the total-degree homotopy makes its own start solutions", ts.arg)
		}
		gamma := randomGamma(*seed)
		if *gammaFlag != "" {
			if gamma, err = parseGamma(*gammaFlag, stderr); err != nil {
				return err
			}
		}
		if ts.h, err = track.NewTotalDegree(sys, gamma, !*affine, *seed); err != nil {
			return trackInputError(ts.arg, err)
		}
	}
	total := ts.h.Paths()
	ts.first, ts.last = 0, total-1
	if *pathsFlag != "" {
		if ts.first, ts.last, err = parsePathRange(*pathsFlag, total); err != nil {
			return err
		}
	}
	if count := ts.last - ts.first + 1; count > maxTrackPaths {
		return fmt.Errorf("track: %s: %d paths (the %s homotopy's %d): at most %d in one run; track ranges with -paths a:b -shard FILE (e.g. -paths 1:%d) and put them together with mdgen merge",
			ts.arg, count, ts.h.Kind, total, maxTrackPaths, maxTrackPaths)
	}
	if os.Getenv(serveEnv) == "1" {
		return serveTrack(ts, os.Stdin, stdout, stderr)
	}
	if ok, err := shards.run(fs, ts, stdout, stderr, *asJSON, *quiet, *outFile); ok {
		return err
	}
	run, err := trackRun(ts, stderr)
	if err != nil {
		return fmt.Errorf("track: %s: %w", ts.arg, err)
	}
	d := describe(ts)
	d.Workers = trackWorkers(ts.opt.Workers, len(run.Paths))
	return writeTrackOutputs(stdout, stderr, d, run, *asJSON, *quiet, *outFile)
}

// writeTrackOutputs prints the run (text or JSON), writes the -o list, and
// returns the error of failed paths, saying why on stderr.
func writeTrackOutputs(stdout, stderr io.Writer, d *trackDesc, run *track.Run, asJSON, quiet bool, outFile string) error {
	warnCrossed(stderr, run)
	var err error
	if asJSON {
		err = writeJSON(stdout, trackJSON(d, run))
	} else {
		err = writeTrackText(stdout, d, run, quiet)
	}
	if err != nil {
		return err
	}
	if outFile != "" {
		if err := atomicfile.WriteFile(outFile, trackList(d, run), 0o644); err != nil {
			return fmt.Errorf("track: %w", err)
		}
	}
	if s := run.Summary; s.Failed > 0 {
		reportFailures(stderr, d, run)
		return fmt.Errorf("track: %s: %d of %d paths failed", d.Arg, s.Failed, len(run.Paths))
	}
	return nil
}

// trackProgress returns the tracker's Progress for a run of count paths:
// paths done, failed and per second on stderr (done() ends it).
func trackProgress(stderr io.Writer, count int64) (func(done, failed int64), *progress) {
	p := newProgress(stderr)
	t0 := time.Now()
	return func(done, failed int64) {
		rate := float64(done) / max(time.Since(t0).Seconds(), 1e-9)
		p.fraction(fmt.Sprintf("track %d/%d paths, %d failed, %.0f paths/s", done, count, failed, rate), float64(done)/float64(count))
	}, p
}

// trackRun tracks the paths of ts with progress on stderr: in a process a
// GPU (runProcs), else in this one.
func trackRun(ts *trackSetup, stderr io.Writer) (*track.Run, error) {
	count := ts.last - ts.first + 1
	opt := ts.opt
	var progress *progress
	opt.Progress, progress = trackProgress(stderr, count)
	var run *track.Run
	var err error
	if procs := runProcs(ts); procs != nil {
		run, err = trackProcesses(ts, opt, procs, nil, stderr)
	} else {
		if ts.gpu {
			defer useTrackGPU(&opt, count, ts.devices, ts.batch, ts.gpuEvaluations, ts.kernelDir, ts.nvccPath, stderr)()
		}
		run, err = track.Track(ts.h, opt, ts.first, count)
	}
	progress.done()
	if run != nil {
		reportDeviceFailures(stderr, run, ts.devices)
		reportCrossed(stderr, run, ts.first)
	}
	return run, err
}

// warnCrossed says on stderr which paths still end at one regular root
// with another path: paths in different shards written by -shard (each
// shard's run tracks again only the crossed paths it holds), paths of
// first-pass shards (-shards, -slurm) merged without mdgen track, or
// paths that crossed again after the tracker's rounds. One of each such
// pair jumped, so a root may be missing.
func warnCrossed(stderr io.Writer, run *track.Run) {
	if paths := stillCrossed(run); len(paths) > 0 {
		fmt.Fprintf(stderr, "mdgen: track: %d paths end at one regular root with another (a path jumped; a root may be missing; counted as singular): %s; "+
			"track them in one run (-paths), or with another -seed\n", len(paths), pathNames(paths))
	}
}

// stillCrossed lists the paths (1-based) that end Regular at a solution
// another path reached too (classified run).
func stillCrossed(run *track.Run) []int64 {
	var paths []int64
	for _, p := range run.Paths {
		if p.Tracked == track.Regular && p.Multiplicity > 1 {
			paths = append(paths, p.Index+1)
		}
	}
	return paths
}

// reportCrossed says on stderr which paths ended at one regular root with
// another path and were tracked again with smaller steps (track.Run.Crossed).
func reportCrossed(stderr io.Writer, run *track.Run, first int64) {
	for r, ks := range run.Crossed {
		paths := make([]int64, len(ks))
		for i, k := range ks {
			paths[i] = first + k + 1
		}
		fmt.Fprintf(stderr, "mdgen: track: round %d: %d paths had ended at one regular root with another (a path jumped), tracked again with smaller steps: %s\n",
			r+1, len(ks), pathNames(paths))
	}
}

// pathNames lists the first 8 of the 1-based path numbers, and how many
// more there are.
func pathNames(paths []int64) string {
	names := make([]string, 0, min(len(paths), 8))
	for _, k := range paths[:min(len(paths), 8)] {
		names = append(names, strconv.FormatInt(k, 10))
	}
	if len(paths) > 8 {
		return fmt.Sprintf("%s and %d more", strings.Join(names, ", "), len(paths)-8)
	}
	return strings.Join(names, ", ")
}

// reportFailures says on stderr why paths failed (the first few), and when
// the path failed at its start (t = 0) that its start solution does not
// solve the start system.
func reportFailures(stderr io.Writer, d *trackDesc, run *track.Run) {
	shown := 0
	for k := range run.Paths {
		p := &run.Paths[k]
		if p.Status != track.Failed {
			continue
		}
		if shown++; shown > 10 {
			fmt.Fprintf(stderr, "mdgen: track: ... %d failed paths in all\n", run.Summary.Failed)
			return
		}
		where := fmt.Sprintf("at t = %.6g", p.T)
		if p.T == 0 && d.Kind == track.Given {
			where = "at t = 0: its start solution does not solve the start system (Newton did not converge there)"
		}
		fmt.Fprintf(stderr, "mdgen: track: path %d failed %s: %s\n", p.Index+1, where, p.Reason)
	}
}

// parseTrackPrec reads -prec: auto, or a generated precision.
func parseTrackPrec(s string) (n int, auto bool, err error) {
	if s == "auto" {
		return 0, true, nil
	}
	n, err = strconv.Atoi(s)
	if err != nil {
		return 0, false, usagef("track: -prec %q: want auto or doubles per number (%s)", s, joinInts(mdops.Precisions()))
	}
	return n, false, checkPrec("-prec", mdops.Prec{N: n, Complex: true})
}

// parsePade reads -pade L,M.
func parsePade(s string) (l, m int, err error) {
	a, b, ok := strings.Cut(s, ",")
	l, err1 := strconv.Atoi(strings.TrimSpace(a))
	m, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil {
		return 0, 0, usagef("track: -pade %q: want L,M (the degrees of numerator and denominator, e.g. 2,1)", s)
	}
	if l < 0 || m < 0 || l+m > 16 || l+m == 0 {
		return 0, 0, usagef("track: -pade %d,%d: want L, M >= 0 with 1 <= L + M <= 16", l, m)
	}
	return l, m, nil
}

// parseGamma reads -gamma re,im and scales it to modulus 1 (saying so when
// it was not).
func parseGamma(s string, stderr io.Writer) (complex128, error) {
	a, b, ok := strings.Cut(s, ",")
	re, err1 := strconv.ParseFloat(strings.TrimSpace(a), 64)
	im, err2 := strconv.ParseFloat(strings.TrimSpace(b), 64)
	if !ok || err1 != nil || err2 != nil {
		return 0, usagef("track: -gamma %q: want re,im (e.g. 0.6,0.8)", s)
	}
	r := fp.Hypot(re, im)
	if !(r > 0) || math.IsInf(r, 0) {
		return 0, usagef("track: -gamma %q: want a finite nonzero complex number", s)
	}
	if math.Abs(r-1) > 1e-12 {
		fmt.Fprintf(stderr, "mdgen: track: -gamma %s has modulus %.6g: using gamma / |gamma|\n", s, r)
		re, im = re/r, im/r
	}
	return complex(re, im), nil
}

// randomGamma is the default gamma: exp(2 pi i theta), theta uniform from
// the seed.
func randomGamma(seed uint64) complex128 {
	return track.DefaultGamma(seed)
}

// parsePathRange reads -paths a:b (1-based, inclusive; a: to the last) and
// returns it 0-based.
func parsePathRange(s string, total int64) (first, last int64, err error) {
	a, b, ok := strings.Cut(s, ":")
	first, err1 := strconv.ParseInt(strings.TrimSpace(a), 10, 64)
	last, err2 := total, error(nil)
	if strings.TrimSpace(b) != "" {
		last, err2 = strconv.ParseInt(strings.TrimSpace(b), 10, 64)
	}
	if !ok || err1 != nil || err2 != nil {
		return 0, 0, usagef("track: -paths %q: want a:b (paths a to b, 1-based, inclusive) or a: (a to the last)", s)
	}
	if first < 1 || last < first || last > total {
		return 0, 0, usagef("track: -paths %s: out of range: the homotopy has paths 1..%d", s, total)
	}
	return first - 1, last - 1, nil
}

// trackStarts returns the start solutions of a given homotopy: -start FILE,
// else those that came with the system; each at t = 0, with a value for
// every unknown. A start that does not solve the start system is named on
// stderr (its path will fail or converge elsewhere).
func trackStarts(sys *poly.System, fileSols []solutions.Solution, arg, startFile string, stderr io.Writer) ([][]poly.Rational, error) {
	starts, where := fileSols, arg
	if startFile != "" {
		src, err := solutions.ReadFile(startFile)
		if err != nil {
			return nil, fmt.Errorf("track: start solutions: %w", err)
		}
		var choice solutions.Choice
		if starts, choice, err = solutions.ParseChoice(startFile, src, sys.Vars); err != nil {
			return nil, fmt.Errorf("track: start solutions: %w", err)
		}
		noteChoice(stderr, startFile, choice)
		where = startFile
	}
	if len(starts) == 0 && startFile != "" {
		return nil, fmt.Errorf("track: start solutions: %s holds no solutions", startFile)
	}
	if len(starts) == 0 {
		return nil, fmt.Errorf("track: %s is a homotopy (parameter %s) and lists no start solutions: give them with -start FILE", arg, sys.Param)
	}
	out := make([][]poly.Rational, len(starts))
	bad := 0
	for k := range starts {
		// at is the file, with the solution's line and column when known.
		at := where
		if s := &starts[k]; s.Line > 0 {
			at = fmt.Sprintf("%s:%d:%d", where, s.Line, s.Col)
		}
		if len(starts[k].Values) != len(sys.Vars) {
			return nil, fmt.Errorf("track: %s: start solution %d has %d coordinates, the system %d unknowns (%s)", at, k+1, len(starts[k].Values), len(sys.Vars), strings.Join(sys.Vars, ", "))
		}
		if !starts[k].T.IsZero() {
			return nil, fmt.Errorf("track: %s: start solution %d is at %s = %s, not at %s = 0", at, k+1, sys.Param, ratText(&starts[k].T), sys.Param)
		}
		out[k] = starts[k].Values
		if res := phcResidual(sys, starts[k].Values, 256); !(res <= 1e-6) {
			if bad++; bad <= 10 {
				fmt.Fprintf(stderr, "mdgen: track: %s: start solution %d does not solve the start system (residual %.2e at %s = 0): its path will fail or go elsewhere\n", at, k+1, res, sys.Param)
			}
		}
	}
	if bad > 10 {
		fmt.Fprintf(stderr, "mdgen: track: %s: %d of %d start solutions do not solve the start system\n", where, bad, len(starts))
	}
	return out, nil
}

// limbText writes the number of n limbs x in E notation with all the
// significant digits of the precision (mdops.Prec.Digits), from its exact
// value ("0" for zero).
func limbText(x []float64, n int) string {
	// The exact sum in a big.Float wide enough for it (a sum of big.Rats
	// was a third of the time of writing katsura15's 32,768 endpoints),
	// then rounded to 53n + 64 bits as SetRat of the exact rational rounds.
	lo, hi, nonzero := 0, 0, false
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return strconv.FormatFloat(x[0], 'e', -1, 64)
		}
		if v == 0 {
			continue
		}
		e := math.Ilogb(v)
		if !nonzero || e > hi {
			hi = e
		}
		if l := max(e-52, -1074); !nonzero || l < lo {
			lo = l
		}
		nonzero = true
	}
	if !nonzero {
		return "0"
	}
	sum := new(big.Float).SetPrec(uint(hi - lo + 2 + bits.Len(uint(len(x)))))
	var f big.Float
	for _, v := range x {
		if v != 0 {
			sum.Add(sum, f.SetFloat64(v))
		}
	}
	if sum.Sign() == 0 {
		return "0"
	}
	d := mdops.Prec{N: n}.Digits()
	return sum.SetPrec(uint(53*n+64)).Text('e', d-1)
}

// coordText returns the endpoint's coordinate v as [re, im].
func coordText(p *track.Path, v int) [2]string {
	w := 2 * p.Prec
	z := p.X[v*w : (v+1)*w]
	return [2]string{limbText(z[:p.Prec], p.Prec), limbText(z[p.Prec:], p.Prec)}
}

func precValue(ts *trackSetup) any {
	if ts.auto {
		return "auto"
	}
	return ts.opt.Prec
}

func gammaText(h *track.Homotopy) *[2]string {
	if h.Kind != track.TotalDegree {
		return nil
	}
	g := h.Gamma
	return &[2]string{strconv.FormatFloat(real(g), 'g', -1, 64), strconv.FormatFloat(imag(g), 'g', -1, 64)}
}

func trackJSON(d *trackDesc, run *track.Run) trackReport {
	s := run.Summary
	rep := trackReport{System: d.Arg, Prec: d.Prec, Homotopy: d.Kind, Projective: d.Projective,
		Gamma: d.Gamma, Seed: d.Seed, Paths: int64(len(run.Paths)), TotalPaths: d.Total, First: d.First + 1,
		Workers: d.Workers, Seconds: run.Seconds, PathsPerS: pathsPerSecond(run),
		Summary:   trackSummary{Regular: s.Regular, Singular: s.Singular, Infinite: s.Infinite, Failed: s.Failed, Real: s.Real, Distinct: s.Distinct},
		Variables: d.Vars, Solutions: make([]trackSolution, len(run.Paths))}
	// Every digit of every endpoint, on every core (as formatPaths).
	par.Run(len(run.Paths), func(_, k int) { rep.Solutions[k] = trackSolutionOf(d, &run.Paths[k]) })
	return rep
}

// trackSolutionOf is path p in trackJSON's report.
func trackSolutionOf(d *trackDesc, p *track.Path) trackSolution {
	sol := trackSolution{Path: p.Index + 1, Status: p.Status.String(), Reason: p.Reason, Multiplicity: p.Multiplicity,
		Real: p.Real, Prec: p.Prec, T: p.T, Steps: p.Steps, Rejected: p.Rejected, Seconds: p.Seconds}
	if p.X != nil {
		sol.X = make([][2]string, len(d.Vars))
		for v := range sol.X {
			sol.X[v] = coordText(p, v)
		}
		c := e2(p.Cond)
		sol.Condition = &c
	}
	if p.X != nil && p.Status != track.Failed && !math.IsNaN(p.Residual) {
		r := e2(p.Residual)
		sol.Residual = &r
	}
	return sol
}

// trackWorkers is the number of paths tracked at once (track.Track's rule)
// with -workers w for a run of the given paths.
func trackWorkers(w, paths int) int {
	if w <= 0 {
		w = goruntime.GOMAXPROCS(0)
	}
	return min(w, paths)
}

func pathsPerSecond(run *track.Run) float64 {
	return float64(len(run.Paths)) / max(run.Seconds, 1e-9)
}

// homotopyText describes the homotopy in one line.
func homotopyText(d *trackDesc) string {
	if d.Kind == track.Given {
		return fmt.Sprintf("given homotopy in %s, %d start solutions", d.Param, d.Total)
	}
	coords := "affine"
	if d.Projective {
		coords = "projective"
	}
	g := d.Gamma
	return fmt.Sprintf("total-degree homotopy (degrees %s, %d paths) in %s coordinates, gamma = %s + %s*i (seed %d)",
		joinInts(d.Degrees), d.Total, coords, g[0], g[1], d.Seed)
}

func writeTrackText(w io.Writer, d *trackDesc, run *track.Run, quiet bool) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s: %s\n", d.Arg, homotopyText(d))
	fmt.Fprintf(&b, "paths %d..%d of %d tracked, prec %v, %d workers\n", d.First+1, d.Last+1, d.Total, d.Prec, d.Workers)
	s := run.Summary
	fmt.Fprintf(&b, "summary: %d regular, %d singular, %d at infinity, %d failed; %d real, %d distinct finite solutions\n",
		s.Regular, s.Singular, s.Infinite, s.Failed, s.Real, s.Distinct)
	fmt.Fprintf(&b, "time: %.3f s, %.1f paths/s\n", run.Seconds, pathsPerSecond(run))
	if !quiet {
		b.Write(formatPaths(len(run.Paths), func(b *bytes.Buffer, k int) {
			p := &run.Paths[k]
			fmt.Fprintf(b, "\npath %d: %s", p.Index+1, p.Status)
			if p.Multiplicity > 1 {
				fmt.Fprintf(b, " (multiplicity %d)", p.Multiplicity)
			}
			if p.Real && p.X != nil && p.Status != track.Failed {
				b.WriteString(", real")
			}
			fmt.Fprintf(b, ", prec %d, %d steps (%d rejected), %.3g s", p.Prec, p.Steps, p.Rejected, p.Seconds)
			if p.X != nil {
				fmt.Fprintf(b, ", condition %s", e2(p.Cond))
				if p.Status != track.Failed {
					fmt.Fprintf(b, ", residual %s", e2(p.Residual))
				}
			}
			if p.Status == track.Failed {
				fmt.Fprintf(b, ", at t = %.6g: %s", p.T, p.Reason)
			}
			b.WriteString("\n")
			if p.X == nil {
				return
			}
			for v, name := range d.Vars {
				z := coordText(p, v)
				fmt.Fprintf(b, "  %s : %s  %s\n", name, signed(z[0]), signed(z[1]))
			}
		}))
	}
	_, err := w.Write(b.Bytes())
	return err
}

// signed puts a space before a number without a sign, so that columns align.
func signed(s string) string {
	if strings.HasPrefix(s, "-") {
		return s
	}
	return " " + s
}

// phcNumber writes a coordinate as PHCpack does: d.ddd...E+XX with a space
// for the sign; zero gets the precision's digits too.
func phcNumber(s string, n int) string {
	if s == "0" {
		s = "0." + strings.Repeat("0", mdops.Prec{N: n}.Digits()-1) + "e+00"
	}
	return signed(strings.ToUpper(s))
}

// trackList writes the endpoints of the regular and singular paths as a
// PHCpack solution list (phc reads it, and so does mdgen's reader: the
// comment before the banner is skipped). Each coordinate has all the
// digits of its path's precision; m is the multiplicity, rco the inverse
// of the condition estimate, res the residual ||f(x)||_1 at the endpoint;
// err (PHCpack's last Newton correction) is not measured by the tracker
// and written as 0. The label after res is PHCpack's: real or complex,
// regular or singular.
func trackList(d *trackDesc, run *track.Run) []byte {
	var listed, infinite, failed int
	for k := range run.Paths {
		switch run.Paths[k].Status {
		case track.Regular, track.Singular:
			listed++
		case track.Infinite:
			infinite++
		case track.Failed:
			failed++
		}
	}
	vars := d.Vars
	var b bytes.Buffer
	fmt.Fprintf(&b, "mdgen track %s: %s\n", d.Arg, homotopyText(d))
	fmt.Fprintf(&b, "paths %d..%d: %d endpoints listed (regular and singular, every digit of the precision each path ended at),\n", d.First+1, d.Last+1, listed)
	fmt.Fprintf(&b, "%d paths at infinity and %d failed paths left out; err = the last Newton correction at t = 1 (for a singular endpoint: the distance the end game extrapolated), rco = 1/condition, res = ||f(x)||_1.\n\n", infinite, failed)
	fmt.Fprintf(&b, "THE SOLUTIONS :\n%d %d\n%s\n", listed, len(vars), strings.Repeat("=", 75))
	number := make([]int, len(run.Paths)) // the solution number of a listed path
	k := 0
	for i := range run.Paths {
		if st := run.Paths[i].Status; st == track.Regular || st == track.Singular {
			k++
			number[i] = k
		}
	}
	b.Write(formatPaths(len(run.Paths), func(b *bytes.Buffer, i int) {
		if number[i] > 0 {
			writeListed(b, &run.Paths[i], number[i], vars)
		}
	}))
	return b.Bytes()
}

// formatPaths returns what write(b, k) writes for k = 0..n-1, in that
// order, each path written on whichever core is free: every digit of an
// endpoint is a big.Float's, and 32,768 endpoints of 16 unknowns at 4
// doubles took 10 s on one core (with limbText's sums of big.Rats; its
// big.Float sums take about a fifth of that: BenchmarkLimbText). The
// bytes do not depend on the cores.
func formatPaths(n int, write func(b *bytes.Buffer, k int)) []byte {
	parts := make([][]byte, n)
	par.Run(n, func(_, k int) {
		var b bytes.Buffer
		write(&b, k)
		parts[k] = b.Bytes()
	})
	return bytes.Join(parts, nil)
}

// writeListed writes path p's endpoint as solution k of PHCpack's list.
func writeListed(b *bytes.Buffer, p *track.Path, k int, vars []string) {
	fmt.Fprintf(b, "solution %d :\nt :  1.00000000000000E+00   0.00000000000000E+00\nm : %d\nthe solution for t :\n", k, p.Multiplicity)
	for v, name := range vars {
		z := coordText(p, v)
		fmt.Fprintf(b, " %s : %s  %s\n", name, phcNumber(z[0], p.Prec), phcNumber(z[1], p.Prec))
	}
	rco := 0.0
	if p.Cond > 0 {
		rco = 1 / p.Cond
	}
	kind := "complex"
	if p.Real {
		kind = "real"
	}
	// Path.Err is relative to max(1, |x|); PHCpack's err is absolute.
	scale := 1.0
	for k := 0; k+2*p.Prec <= len(p.X); k += 2 * p.Prec {
		scale = max(scale, fp.Hypot(p.X[k], p.X[k+p.Prec]))
	}
	fmt.Fprintf(b, "== err : %s = rco : %s = res : %s = %s %s ==\n", phcDiag(p.Err*scale), phcDiag(rco), phcDiag(p.Residual), kind, p.Status)
}

// phcDiag writes a diagnostic as PHCpack's %.3E with a space for the sign.
func phcDiag(x float64) string { return signed(strconv.FormatFloat(x, 'E', 3, 64)) }

// trackInputError prefixes an error about the system arg with "track:" and
// arg, or only with "track:" when it already points into the file
// (file:line:col, a *poly.ParseError).
func trackInputError(arg string, err error) error {
	if _, ok := errors.AsType[*poly.ParseError](err); ok {
		return fmt.Errorf("track: %w", err)
	}
	return fmt.Errorf("track: %s: %w", arg, err)
}

// loadSystemAlone reads the system of the file arg without its solution
// list (nil and an error for a family spec, whose lists are its own).
func loadSystemAlone(arg, param string) (*poly.System, error) {
	if families.IsBenchmarkName(arg) || families.IsSpec(arg) {
		return nil, fmt.Errorf("%s is a family", arg)
	}
	src, err := poly.ReadFile(arg)
	if err != nil {
		return nil, err
	}
	return poly.Parse(arg, src, poly.ParseOptions{Param: param})
}
