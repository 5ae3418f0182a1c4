package main

// mdgen bench -track: paths per second and steps per path of mdgen track's
// tracker on families, beside PHCpack's trackers (phc -p, phc -u menu 4) on
// the same total-degree start system in the same run.

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/big"
	"math/cmplx"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	goruntime "runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mdgen/mdgen/runtime/gpu/kernels"
	"github.com/mdgen/mdgen/runtime/track"
	"github.com/mdgen/mdgen/stager/families"
	"github.com/mdgen/mdgen/stager/poly"
	"github.com/mdgen/mdgen/stager/solutions"
)

const benchTrackUsage = `usage: mdgen bench -track [flags]

Tracks every path of the total-degree homotopy of each system (projective
coordinates, gamma from -seed) at each precision and worker count, and
prints paths per second, steps and rejected steps per path and the
summary. With -phc (and phc on the PATH or -phc-bin), PHCpack's trackers
run in the same run on the same total-degree start system (x_i^d_i - 1 with
the roots of unity, gamma from phc -0): phc -p (-p2, -p4) and phc -u menu 4
at the matching precision (1, 2, 4 doubles), with their wall time, paths
per second and counts (phc's own summary for -p; for -u 4, which writes
none: infinite when max |x| > 1e8, failed when t != 1 or res > 1e-6,
singular when rco < 1e-8), and the ratio of mdgen's paths per second to
theirs. With -gpu, each system and precision is also tracked on the GPU,
every path at once (workers "gpu"; a binary built with -tags cuda, a
device and nvcc; else it says why and leaves the GPU out).

`

// trackBenchRow is one case of mdgen's tracker.
type trackBenchRow struct {
	system        string
	prec          int // 0: auto
	workers       int // 0: the GPU, every path at once
	paths         int
	sum           track.Summary
	secs          float64
	steps, reject float64 // per path
}

// phcRun is one run of a PHCpack tracker.
type phcRun struct {
	method                              string // p or u4
	prec                                int
	paths                               int
	regular, singular, infinite, failed int
	distinct                            int
	secs                                float64
	counts                              string // "phc" (its summary) or "classified"
	err                                 error
	why                                 string // a crash's last line of phc's output
}

func runBenchTrack(args []string, out, stderr io.Writer) error {
	fs := newFlagSet("bench -track", benchTrackUsage, stderr)
	fs.Bool("track", true, "the path tracker's table (this one)")
	systems := fs.String("systems", "katsura6,katsura7,katsura8,cyclic5,noon3,noon4,noon5", "families (comma-separated)")
	precs := fs.String("precs", "1,2,4,auto", "precisions: doubles per number, or auto")
	workers := fs.String("workers", "1,2", "worker counts")
	seed := fs.Uint64("seed", 1, "seed of gamma and of the projective charts (one a path)")
	usePHC := fs.Bool("phc", false, "also run PHCpack's trackers (phc -p and phc -u menu 4) at 1, 2 and 4 doubles")
	phcBin := fs.String("phc-bin", "phc", "the phc binary")
	phcMethods := fs.String("phc-methods", "p,u4", "PHCpack's trackers: p (phc -p, -p2, -p4) and u4 (phc -u, menu 4)")
	phcTimeout := fs.Duration("phc-timeout", 10*time.Minute, "time limit of one phc run")
	everyPoint := fs.Bool("every-point", false, "correct every point at the tracking precision (mdgen track -every-point)")
	useGPU := fs.Bool("gpu", false, "also track on the GPU (every path at once), beside the CPU rows")
	kernelDir, nvccPath := kernelFlags(fs, "with -gpu: ")
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("bench -track: unexpected arguments %q", fs.Args())
	}
	var names []string
	for _, f := range strings.Split(*systems, ",") {
		if f = strings.TrimSpace(f); f != "" {
			names = append(names, f)
		}
	}
	if len(names) == 0 {
		return usagef("bench -track: -systems %q: no system (families, comma-separated)", *systems)
	}
	var ps []int
	for _, f := range strings.Split(*precs, ",") {
		p, _, err := parseTrackPrec(strings.TrimSpace(f))
		if err != nil {
			return usagef("bench -track: -precs: %w", err)
		}
		ps = append(ps, p)
	}
	ws, err := parseIntList(*workers, "worker count")
	if err != nil {
		return usagef("bench -track: -workers: %w", err)
	}
	for _, w := range ws {
		if w == 0 { // 0 marks the GPU's rows
			return usagef("bench -track: -workers 0: want worker counts 1..%d (the GPU's rows: -gpu)", maxWorkers)
		}
		if err := checkWorkers("-workers", w); err != nil {
			return err
		}
	}
	var methods []string
	for _, m := range strings.Split(*phcMethods, ",") {
		switch m = strings.TrimSpace(m); m {
		case "p", "u4":
			methods = append(methods, m)
		default:
			return usagef("bench -track: -phc-methods: %q: want p or u4", m)
		}
	}
	if *phcTimeout <= 0 {
		return usagef("bench -track: -phc-timeout %v: want a positive duration (e.g. 10m)", *phcTimeout)
	}
	phc := ""
	if *usePHC {
		if phc, err = exec.LookPath(*phcBin); err != nil {
			return fmt.Errorf("bench -track: -phc: %w (apt-get install phcpack)", err)
		}
	}
	var g *kernels.Tracker
	if *useGPU {
		if g, err = kernels.OpenTracker(nil, *nvccPath, *kernelDir); err != nil {
			fmt.Fprintf(stderr, "mdgen: bench -track: -gpu: %v; the CPU only\n", err)
		} else {
			defer g.Close()
			g.Notices = stderr
			ws = append(ws, 0)
		}
	}
	// Every system is posed before any output: a family that cannot be
	// tracked fails at once, not after the others' runs.
	homotopies := make([]*track.Homotopy, len(names))
	for k, name := range names {
		if homotopies[k], err = benchHomotopy(name, *seed); err != nil {
			return fmt.Errorf("bench -track: %w", err)
		}
	}
	fmt.Fprintf(out, "mdgen %s\n", strings.Join(os.Args[1:], " "))
	fmt.Fprintf(out, "machine: %s, %d CPUs (GOMAXPROCS %d), %s/%s\n\n", cpuModel(), goruntime.NumCPU(), goruntime.GOMAXPROCS(0), goruntime.GOOS, goruntime.GOARCH)
	var rows []trackBenchRow
	phcRuns := map[string]map[int]map[string]phcRun{} // system -> prec -> method
	for k, name := range names {
		h := homotopies[k]
		for _, p := range ps {
			for _, w := range ws {
				fmt.Fprintf(stderr, "mdgen: bench -track: %s, prec %s, %s workers\n", name, precName(p), workerName(w))
				opt := track.Options{Prec: p, Workers: w, CorrectEveryPoint: *everyPoint}
				var run *track.Run
				if w == 0 {
					run, err = trackOnGPU(h, opt, g)
				} else {
					run, err = trackOnce(h, opt)
				}
				if err != nil {
					return fmt.Errorf("bench -track: %s: %w", name, err)
				}
				row := trackBenchRow{system: name, prec: p, workers: w, paths: len(run.Paths), sum: run.Summary, secs: run.Seconds}
				for k := range run.Paths {
					row.steps += float64(run.Paths[k].Steps)
					row.reject += float64(run.Paths[k].Rejected)
				}
				row.steps /= float64(row.paths)
				row.reject /= float64(row.paths)
				rows = append(rows, row)
			}
		}
		if phc == "" {
			continue
		}
		dir, err := os.MkdirTemp("", "mdgen-phc-")
		if err != nil {
			return err
		}
		phcRuns[name] = map[int]map[string]phcRun{}
		for _, p := range ps {
			if p != 1 && p != 2 && p != 4 {
				continue
			}
			phcRuns[name][p] = map[string]phcRun{}
			for _, m := range methods {
				fmt.Fprintf(stderr, "mdgen: bench -track: %s, phc %s at %d doubles\n", name, m, p)
				phcRuns[name][p][m] = phcTrack(phc, dir, h, m, p, *phcTimeout)
			}
		}
		os.RemoveAll(dir)
	}
	writeTrackBench(out, rows, phcRuns, methods)
	return nil
}

func precName(p int) string {
	if p == 0 {
		return "auto"
	}
	return strconv.Itoa(p)
}

// benchHomotopy is the total-degree homotopy of the family name (projective,
// gamma from seed as in mdgen track).
func benchHomotopy(name string, seed uint64) (*track.Homotopy, error) {
	inst, err := families.System(name, families.Options{Seed: 1})
	if err != nil {
		return nil, err
	}
	h, err := track.NewTotalDegree(inst.System, randomGamma(seed), true, seed)
	if err == nil && h.Paths() > maxTrackPaths {
		return nil, fmt.Errorf("%s: %d paths: bench -track tracks every path in one run, at most %d (mdgen track -paths and merge track more)", name, h.Paths(), maxTrackPaths)
	}
	return h, err
}

// trackOnce tracks every path of h with opt.
func trackOnce(h *track.Homotopy, opt track.Options) (*track.Run, error) {
	return track.Track(h, opt, 0, 0)
}

// trackOnGPU tracks every path of h with opt on g's GPUs, all at once. A
// GPU that failed during the run (its paths tracked on the others) makes
// the time no measure of the GPUs: an error.
func trackOnGPU(h *track.Homotopy, opt track.Options, g *kernels.Tracker) (*track.Run, error) {
	if err := g.Prepare(opt); err != nil { // nvcc before the clock starts
		return nil, err
	}
	n := int64(g.GPUs())
	closeAll := g.Use(&opt, int((h.Paths()+n-1)/n))
	run, err := track.Track(h, opt, 0, 0)
	if err == nil {
		for _, f := range run.DeviceFailures {
			err = errors.Join(err, fmt.Errorf("GPU %d failed during the run (%d paths tracked again on the others): %w", g.Ordinal(f.Device), f.Requeued, f.Err))
		}
	}
	return run, errors.Join(err, closeAll())
}

func workerName(w int) string {
	if w == 0 {
		return "gpu"
	}
	return strconv.Itoa(w)
}

// cpuModel is the processor's name from /proc/cpuinfo (Linux), else GOARCH.
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err == nil {
		if m := regexp.MustCompile(`(?m)^model name\s*:\s*(.+)$`).FindSubmatch(b); m != nil {
			return strings.TrimSpace(string(m[1]))
		}
	}
	return goruntime.GOARCH
}

func writeTrackBench(out io.Writer, rows []trackBenchRow, phcRuns map[string]map[int]map[string]phcRun, methods []string) {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "system\tpaths\tprec\tworkers\tregular\tsingular\tinfinite\tfailed\tdistinct\twall s\tpaths/s\tsteps/path\trejected/path\t"
	for _, m := range methods {
		if len(phcRuns) > 0 {
			head += "x phc " + m + "\t"
		}
	}
	fmt.Fprintln(tw, head)
	for _, r := range rows {
		rate := float64(r.paths) / max(r.secs, 1e-9)
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%.3f\t%.1f\t%.1f\t%.2f\t", r.system, r.paths, precName(r.prec), workerName(r.workers),
			r.sum.Regular, r.sum.Singular, r.sum.Infinite, r.sum.Failed, r.sum.Distinct, r.secs, rate, r.steps, r.reject)
		for _, m := range methods {
			if len(phcRuns) == 0 {
				continue
			}
			pr, ok := phcRuns[r.system][r.prec][m]
			if !ok || pr.err != nil || pr.secs <= 0 {
				fmt.Fprint(tw, "-\t")
				continue
			}
			fmt.Fprintf(tw, "%.1f\t", rate/(float64(pr.paths)/pr.secs))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	if len(phcRuns) == 0 {
		return
	}
	fmt.Fprintln(out, "\nPHCpack on the same total-degree start system (one process, wall clock of the phc call):")
	tw = tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "system\tmethod\tprec\tpaths\tregular\tsingular\tinfinite\tfailed\tdistinct\twall s\tpaths/s\tcounts\t")
	seen := map[string]bool{}
	var crashes []string // what phc printed last before each crash
	for _, r := range rows {
		if seen[r.system] {
			continue
		}
		seen[r.system] = true
		for _, p := range []int{1, 2, 4} {
			for _, m := range methods {
				pr, ok := phcRuns[r.system][p][m]
				if !ok {
					continue
				}
				label := "phc -" + m
				if m == "p" && p > 1 {
					label = fmt.Sprintf("phc -p%d", p)
				} else if m == "u4" {
					label = "phc -u 4"
				}
				if pr.err != nil {
					fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t\t\t\t\t%.3f\t\t\t\n", r.system, label, p, pr.paths, pr.err, pr.secs)
					if pr.why != "" {
						crashes = append(crashes, fmt.Sprintf("%s on %s at %d doubles: %s", label, r.system, p, pr.why))
					}
					continue
				}
				fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.3f\t%.1f\t%s\t\n", r.system, label, p, pr.paths,
					pr.regular, pr.singular, pr.infinite, pr.failed, pr.distinct, pr.secs, float64(pr.paths)/pr.secs, pr.counts)
			}
		}
	}
	tw.Flush()
	for _, c := range crashes {
		fmt.Fprintln(out, "crashed:", c)
	}
}

// phcTrack runs PHCpack's tracker method (p: phc -p, -p2, -p4; u4: phc -u,
// menu 4) at prec doubles on the target of h from its total-degree start
// system, answering phc's menus on stdin, in dir. The wall time is that of
// the phc process.
func phcTrack(phc, dir string, h *track.Homotopy, method string, prec int, timeout time.Duration) phcRun {
	r := phcRun{method: method, prec: prec, paths: int(h.Paths())}
	target, start := filepath.Join(dir, "target.sys"), filepath.Join(dir, "start.sols")
	if _, err := os.Stat(start); err != nil {
		order := phcSymbolOrder(h.Target)
		if err := os.WriteFile(target, poly.FormatDecimal(h.Target, phcDecimalDigits), 0o644); err != nil {
			r.err = err
			return r
		}
		if err := os.WriteFile(start, phcStartSystem(h, order), 0o644); err != nil {
			r.err = err
			return r
		}
	}
	outName := fmt.Sprintf("%s.p%d.out", method, prec)
	os.Remove(filepath.Join(dir, outName)) // phc asks before it overwrites a file
	var args []string
	var answers string
	switch method {
	case "p":
		opt := "-p"
		if prec > 1 {
			opt = "-p" + strconv.Itoa(prec)
		}
		// target, output file, no separate solution file, start system
		// with its solutions, keep the homotopy's and the continuation's
		// settings, no intermediate output
		args = []string{"-0", opt}
		answers = "target.sys\n" + outName + "\nn\nstart.sols\n0\n0\n0\n"
	case "u4":
		// menu 4, the precision (1, 2 or 4 doubles), no multitasking,
		// artificial-parameter homotopy, keep the settings, target on
		// file, its name, the start system with solutions, affine
		// coordinates, output file, not verbose
		args = []string{"-0", "-u"}
		answers = fmt.Sprintf("4\n%d\nn\ny\n0\ny\ntarget.sys\nstart.sols\n0\n%s\nn\n", prec, outName)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, phc, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(answers)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	t0 := time.Now()
	err := cmd.Run()
	r.secs = time.Since(t0).Seconds()
	if ctx.Err() != nil {
		r.err = errors.New("timeout")
		return r
	}
	text, rerr := os.ReadFile(filepath.Join(dir, outName))
	if err != nil || rerr != nil || bytes.Contains(log.Bytes(), []byte("unhandled exception")) || bytes.Contains(text, []byte("unhandled exception")) {
		r.err = errors.New("crash")
		r.why = lastLine(log.Bytes())
		if err != nil {
			r.why = strings.TrimSpace(err.Error() + "; " + r.why)
		}
		return r
	}
	phcCounts(&r, text, len(h.Target.Vars))
	return r
}

// phcCounts fills r from phc's output: its own summaries ("A list of N
// solutions has been refined", summed) when there are any, else the
// classification of the last solution list; distinct counts the finite
// converged endpoints that differ by more than 1e-6 (relative).
func phcCounts(r *phcRun, text []byte, n int) {
	i := bytes.LastIndex(text, []byte("THE SOLUTIONS"))
	var sols []solutions.Solution
	if i >= 0 {
		sols, _ = solutions.Parse("phc", text[i:], nil)
	}
	var good [][]complex128
	r.counts = "classified"
	for _, s := range sols {
		z := make([]complex128, len(s.Values))
		big := 0.0
		for v := range s.Values {
			re, _ := s.Values[v].Re.Float64()
			im, _ := s.Values[v].Im.Float64()
			z[v] = complex(re, im)
			big = max(big, cmplx.Abs(z[v]))
		}
		tr, _ := s.T.Re.Float64()
		ti, _ := s.T.Im.Float64()
		switch {
		case big > 1e8 || math.IsNaN(big):
			r.infinite++
		case math.Abs(tr-1) > 1e-8 || math.Abs(ti) > 1e-8 || !(s.Res <= 1e-6):
			r.failed++
		case !(s.Rco >= 1e-8):
			r.singular++
			good = append(good, z)
		default:
			r.regular++
			good = append(good, z)
		}
	}
	var distinct [][]complex128
	for _, z := range good {
		dup := false
		for _, w := range distinct {
			if closeEnough(z, w, 1e-6) {
				dup = true
				break
			}
		}
		if !dup {
			distinct = append(distinct, z)
		}
	}
	r.distinct = len(distinct)
	summary := regexp.MustCompile(`A list of (\d+) solutions has been refined :\s*\n` +
		`Number of regular solutions\s*:\s*(\d+)\.\s*\n` +
		`Number of singular solutions\s*:\s*(\d+)\.\s*\n` +
		`(?:.*\n){2}` +
		`Number of clustered solutions\s*:\s*(\d+)\.\s*\n` +
		`Number of solutions at infinity\s*:\s*(\d+)\.\s*\n` +
		`Number of failures\s*:\s*(\d+)\.`)
	ms := summary.FindAllSubmatch(text, -1)
	if len(ms) == 0 {
		return
	}
	r.regular, r.singular, r.infinite, r.failed, r.counts = 0, 0, 0, 0, "phc"
	for _, m := range ms {
		v := func(k int) int { x, _ := strconv.Atoi(string(m[k])); return x }
		r.regular += v(2)
		r.singular += v(3)
		r.infinite += v(5)
		r.failed += v(6)
	}
}

func closeEnough(a, b []complex128, tol float64) bool {
	scale := 1.0
	for _, w := range b {
		scale = max(scale, cmplx.Abs(w))
	}
	for v := range a {
		if cmplx.Abs(a[v]-b[v]) > tol*scale {
			return false
		}
	}
	return true
}

// phcSymbolOrder is the order in which phc numbers the unknowns of sys:
// by first appearance in the file FormatDecimal writes (phc's symbol
// table grows as it reads), as indices into sys.Vars.
func phcSymbolOrder(sys *poly.System) []int {
	text := string(poly.FormatDecimal(sys, phcDecimalDigits))
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		text = text[i+1:] // the dimension line
	}
	index := map[string]int{}
	for v, name := range sys.Vars {
		index[name] = v
	}
	seen := map[int]bool{}
	var order []int
	for _, id := range regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`).FindAllString(text, -1) {
		if v, ok := index[id]; ok && !seen[v] {
			seen[v] = true
			order = append(order, v)
		}
	}
	for v := range sys.Vars { // unknowns that occur nowhere
		if !seen[v] {
			order = append(order, v)
		}
	}
	return order
}

// phcStartSystem writes the total-degree start system of h, x_i^d_i - 1
// (x_i the i-th unknown, d_i the degree of equation i, as mdgen's
// homotopy pairs them), and its prod d_i solutions, the roots of unity to
// 64 digits, coordinates in phc's symbol order.
func phcStartSystem(h *track.Homotopy, order []int) []byte {
	vars := h.Target.Vars
	var b bytes.Buffer
	fmt.Fprintf(&b, "%d\n", len(vars))
	for i, d := range h.Degrees {
		fmt.Fprintf(&b, "%s^%d - 1;\n", vars[i], d)
	}
	b.WriteString("\n")
	roots := make([][]poly.Rational, len(vars))
	for i, d := range h.Degrees {
		roots[i] = make([]poly.Rational, d)
		for k := range d {
			c, s := cosSinTurn(k, d)
			roots[i][k].Re.Set(c)
			roots[i][k].Im.Set(s)
		}
	}
	names := make([]string, len(order))
	for j, v := range order {
		names[j] = vars[v]
	}
	sols := make([]solutions.Solution, h.Paths())
	for p := range sols {
		vals := make([]poly.Rational, len(vars))
		q := p
		for i, d := range h.Degrees { // path p's digits, as track.Homotopy.Start
			vals[i] = roots[i][q%d]
			q /= d
		}
		ordered := make([]poly.Rational, len(order))
		for j, v := range order {
			ordered[j] = vals[v]
		}
		sols[p] = solutions.Solution{M: 1, Names: names, Values: ordered}
	}
	b.Write(solutions.Format(sols, solutions.FormatOptions{Digits: 64, NoExact: true}))
	return b.Bytes()
}

// cosSinTurn returns cos and sin of 2 pi k / d to about 70 digits (Taylor
// series in big.Float at 320 bits, the angle reduced to [-pi, pi]).
func cosSinTurn(k, d int) (*big.Rat, *big.Rat) {
	const prec = 320
	if 4*k%d == 0 { // exact on the axes
		c, s := [4]int64{1, 0, -1, 0}[4*k/d], [4]int64{0, 1, 0, -1}[4*k/d]
		return big.NewRat(c, 1), big.NewRat(s, 1)
	}
	a := new(big.Float).SetPrec(prec).Mul(bigPi(prec), big.NewFloat(2))
	a.Mul(a, new(big.Float).SetPrec(prec).Quo(new(big.Float).SetInt64(int64(k)), new(big.Float).SetInt64(int64(d))))
	if 2*k > d {
		a.Sub(a, new(big.Float).SetPrec(prec).Mul(bigPi(prec), big.NewFloat(2)))
	}
	eps := new(big.Float).SetMantExp(big.NewFloat(1), -prec)
	series := func(term *big.Float, first int) *big.Float {
		sum := new(big.Float).SetPrec(prec)
		a2 := new(big.Float).SetPrec(prec).Mul(a, a)
		for j := first; ; j += 2 {
			sum.Add(sum, term)
			if new(big.Float).Abs(term).Cmp(eps) < 0 {
				return sum
			}
			term = new(big.Float).SetPrec(prec).Mul(term, a2)
			term.Quo(term, new(big.Float).SetInt64(int64(-(j+1)*(j+2))))
		}
	}
	c, _ := series(new(big.Float).SetPrec(prec).SetInt64(1), 0).Rat(nil)
	s, _ := series(new(big.Float).SetPrec(prec).Set(a), 1).Rat(nil)
	return c, s
}

// bigPi is pi by Machin's formula, 16 atan(1/5) - 4 atan(1/239).
func bigPi(prec uint) *big.Float {
	atanInv := func(x int64) *big.Float {
		sum := new(big.Float).SetPrec(prec)
		term := new(big.Float).SetPrec(prec).Quo(big.NewFloat(1), new(big.Float).SetInt64(x))
		x2 := new(big.Float).SetInt64(x * x)
		eps := new(big.Float).SetMantExp(big.NewFloat(1), -int(prec))
		for k := int64(1); term.Cmp(eps) > 0; k += 2 {
			t := new(big.Float).SetPrec(prec).Quo(term, new(big.Float).SetInt64(k))
			if k%4 == 1 {
				sum.Add(sum, t)
			} else {
				sum.Sub(sum, t)
			}
			term.Quo(term, x2)
		}
		return sum
	}
	pi := new(big.Float).SetPrec(prec).Mul(atanInv(5), big.NewFloat(16))
	return pi.Sub(pi, new(big.Float).SetPrec(prec).Mul(atanInv(239), big.NewFloat(4)))
}

// isTrackBench reports whether args ask for mdgen bench -track.
func isTrackBench(args []string) bool { return hasBoolFlag(args, "track") }

// runBenchTrackArgs is bench's entry for -track (help is not an error).
func runBenchTrackArgs(args []string, out, stderr io.Writer) error {
	err := runBenchTrack(args, out, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	return err
}

// lastLine is the last non-blank line of out, at most 300 bytes of it.
func lastLine(out []byte) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	l := strings.TrimSpace(lines[len(lines)-1])
	if len(l) > 300 {
		l = l[:300] + "..."
	}
	return l
}
