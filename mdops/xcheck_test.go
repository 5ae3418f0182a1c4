package mdops

// The Go/C++ cross-check: the generated Go code (this package) and the
// generated CUDA/C++ headers (generated/cuda) must agree bit for bit. The C++
// side is internal/xcheck/driver.cu built as plain host C++; both sides draw
// the same operands from internal/xcheck's generator and compare FNV-1a
// hashes of every operation's outputs. See internal/xcheck's package comment
// for the driver's usage and the GPU variant of this check.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mdgen/mdgen/internal/xcheck"
)

// xcheckSeed is the seed both sides draw their operands from.
const xcheckSeed = 1

// Paths relative to this package's directory, where go test runs the test.
const (
	xcheckDriverSrc  = "../internal/xcheck/driver.cu"
	xcheckIncludeDir = "../generated/cuda"
)

// xcheckMaxExplained bounds how many mismatching (N, OP) lines get a full
// element-by-element explanation (each one reruns the driver in dump mode).
const xcheckMaxExplained = 4

// xcheckOp is one operation of the cross-check, applied with the driver's
// operand conventions: binary ops take (x, y), unary ops x, mulf64 (x, y[0]),
// complex ops a = (re x, im y) and b = (re y, im x), cabs a. The
// multiply-adds also take z, the x of the next pair (wrapping): madd
// (acc = x, y, z), maddc (acc = -(y*z), y, z), cmadd (acc = (x, y), (y, z), (z, x)).
type xcheckOp struct {
	name string
	// apply returns the outputs; im is nil for real results.
	apply func(f *limbFuncs, x, y, z []float64) (re, im []float64)
}

// xcheckOps lists the operations in the driver's output order.
var xcheckOps = []xcheckOp{
	{"add", func(f *limbFuncs, x, y, _ []float64) ([]float64, []float64) { return f.add(x, y), nil }},
	{"sub", func(f *limbFuncs, x, y, _ []float64) ([]float64, []float64) { return f.sub(x, y), nil }},
	{"mul", func(f *limbFuncs, x, y, _ []float64) ([]float64, []float64) { return f.mul(x, y), nil }},
	{"div", func(f *limbFuncs, x, y, _ []float64) ([]float64, []float64) { return f.div(x, y), nil }},
	{"sqr", func(f *limbFuncs, x, _, _ []float64) ([]float64, []float64) { return f.sqr(x), nil }},
	{"sqrt", func(f *limbFuncs, x, _, _ []float64) ([]float64, []float64) { return f.sqrt(x), nil }},
	{"neg", func(f *limbFuncs, x, _, _ []float64) ([]float64, []float64) { return f.neg(x), nil }},
	{"abs", func(f *limbFuncs, x, _, _ []float64) ([]float64, []float64) { return f.abs(x), nil }},
	{"mulf64", func(f *limbFuncs, x, y, _ []float64) ([]float64, []float64) { return f.mulFloat64(x, y[0]), nil }},
	{"cadd", func(f *limbFuncs, x, y, _ []float64) ([]float64, []float64) { return f.cadd(x, y, y, x) }},
	{"csub", func(f *limbFuncs, x, y, _ []float64) ([]float64, []float64) { return f.csub(x, y, y, x) }},
	{"cmul", func(f *limbFuncs, x, y, _ []float64) ([]float64, []float64) { return f.cmul(x, y, y, x) }},
	{"cdiv", func(f *limbFuncs, x, y, _ []float64) ([]float64, []float64) { return f.cdiv(x, y, y, x) }},
	{"cabs", func(f *limbFuncs, x, y, _ []float64) ([]float64, []float64) { return f.cabs(x, y), nil }},
	{"madd", func(f *limbFuncs, x, y, z []float64) ([]float64, []float64) { return f.madd(x, y, z), nil }},
	{"maddc", func(f *limbFuncs, _, y, z []float64) ([]float64, []float64) {
		return f.madd(f.neg(f.mul(y, z)), y, z), nil
	}},
	{"cmadd", func(f *limbFuncs, x, y, z []float64) ([]float64, []float64) { return f.cmadd(x, y, y, z, z, x) }},
}

// xcheckInputs holds one precision's operands, flat: pair i is
// x[i*n:(i+1)*n] and y[i*n:(i+1)*n].
type xcheckInputs struct {
	n    int
	x, y []float64
}

// pair returns pair i as slices whose capacity ends at the pair, so that an
// operation appending to its argument cannot clobber the next pair.
func (in *xcheckInputs) pair(i int) (x, y []float64) {
	lo, hi := i*in.n, (i+1)*in.n
	return in.x[lo:hi:hi], in.y[lo:hi:hi]
}

// next returns z for pair i of count: the x of pair i+1, wrapping to 0.
func (in *xcheckInputs) next(i, count int) []float64 {
	z, _ := in.pair((i + 1) % count)
	return z
}

// hash returns the "N inputs" hash: x's then y's limbs, pair by pair.
func (in *xcheckInputs) hash(count int) uint64 {
	h := xcheck.HashInit
	for i := 0; i < count; i++ {
		x, y := in.pair(i)
		h = xcheck.Hash(h, x...)
		h = xcheck.Hash(h, y...)
	}
	return h
}

// xcheckLine is one line of the driver's hash output.
type xcheckLine struct {
	n    int
	what string // "inputs" or an operation name
	hash uint64
}

// key identifies the line independently of its hash: "N WHAT".
func (l xcheckLine) key() string { return fmt.Sprintf("%d %s", l.n, l.what) }

// String formats the line exactly as the driver prints it.
func (l xcheckLine) String() string { return fmt.Sprintf("%d %s %016x", l.n, l.what, l.hash) }

// TestCUDAHeadersMatchGo builds internal/xcheck/driver.cu against
// generated/cuda with g++ and requires every hash it prints to equal the one
// computed from the generated Go code on the same operands. COUNT is 100000
// pairs per precision (2000 with -short), SEED 1.
//
// Environment:
//   - MDGEN_REQUIRE_CXX=1: fail instead of skipping when g++ is missing.
//   - MDGEN_XCHECK_EXPECT=FILE: also write the Go side's lines to FILE, in the
//     driver's format, to diff against an nvcc-built driver's output on a GPU
//     machine (written even when g++ is missing).
//   - MDGEN_XCHECK_TIMING=1: log each Go-side operation's time (the driver
//     reports its own with XCHECK_TIMING=1).
func TestCUDAHeadersMatchGo(t *testing.T) {
	expectPath := os.Getenv("MDGEN_XCHECK_EXPECT")
	cxx, lookErr := exec.LookPath("g++")
	if lookErr != nil {
		if os.Getenv("MDGEN_REQUIRE_CXX") == "1" {
			t.Fatalf("g++ not found (%v) and MDGEN_REQUIRE_CXX=1: the Go/C++ cross-check of generated/cuda cannot run", lookErr)
		}
		if expectPath == "" {
			t.Skipf("g++ not found (%v): skipping the Go/C++ cross-check of generated/cuda (set MDGEN_REQUIRE_CXX=1 to make this an error)", lookErr)
		}
	}
	count := 100000
	if testing.Short() {
		count = 2000
	}

	// Build and run the driver while the Go side computes: g++ -O2 on the
	// headers is single-threaded and takes a while, and the driver then
	// runs on one core, so overlapping them with the parallel Go work keeps
	// the test's wall time close to the slower of the two.
	bin := filepath.Join(t.TempDir(), "xcheck")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	type driverResult struct {
		out              []byte
		err              error
		compile, execute time.Duration
	}
	driverDone := make(chan driverResult, 1)
	if lookErr == nil {
		go func() {
			var res driverResult
			start := time.Now()
			cmd := exec.CommandContext(ctx, cxx, "-std=c++17", "-O2", "-ffp-contract=off",
				"-x", "c++", "-I", xcheckIncludeDir, xcheckDriverSrc, "-o", bin)
			if out, err := cmd.CombinedOutput(); err != nil {
				res.err = fmt.Errorf("compiling the driver failed: %s: %v\n%s", cmd, err, out)
				driverDone <- res
				return
			}
			res.compile = time.Since(start)
			start = time.Now()
			cmd = exec.CommandContext(ctx, bin, strconv.Itoa(count), strconv.Itoa(xcheckSeed))
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			res.out, res.err = cmd.Output()
			if res.err != nil {
				res.err = fmt.Errorf("running the driver failed: %s: %v\n%s", cmd, res.err, stderr.Bytes())
			}
			res.execute = time.Since(start)
			driverDone <- res
		}()
	}

	start := time.Now()
	inputs, goLines := xcheckGoSide(t, count)
	goTime := time.Since(start)
	if expectPath != "" {
		var b strings.Builder
		for _, l := range goLines {
			fmt.Fprintln(&b, l)
		}
		if err := os.WriteFile(expectPath, []byte(b.String()), 0o644); err != nil {
			t.Errorf("writing MDGEN_XCHECK_EXPECT file: %v", err)
		} else {
			t.Logf("wrote the Go side's %d lines to %s", len(goLines), expectPath)
		}
	}
	if t.Failed() {
		return
	}
	if lookErr != nil {
		t.Skipf("g++ not found (%v): Go side written to %s, C++ side not checked", lookErr, expectPath)
	}

	res := <-driverDone
	if res.err != nil {
		t.Fatal(res.err)
	}
	t.Logf("COUNT=%d: Go side %v (GOMAXPROCS %d); g++ compile %v, driver run %v",
		count, goTime.Round(time.Millisecond), runtime.GOMAXPROCS(0),
		res.compile.Round(time.Millisecond), res.execute.Round(time.Millisecond))

	cLines, err := xcheckParseLines(res.out)
	if err != nil {
		t.Fatalf("parsing the driver's output: %v\n%s", err, res.out)
	}
	cByKey := make(map[string]xcheckLine, len(cLines))
	for _, l := range cLines {
		cByKey[l.key()] = l
	}
	goByKey := make(map[string]bool, len(goLines))
	badInputs := map[int]bool{}
	var mismatches []xcheckLine
	for _, g := range goLines {
		goByKey[g.key()] = true
		c, ok := cByKey[g.key()]
		switch {
		case !ok:
			t.Errorf("%d %s: missing from the driver's output", g.n, g.what)
		case c.hash != g.hash && g.what == "inputs":
			// Every operation of this N then differs too; that is noise.
			badInputs[g.n] = true
			t.Errorf("N=%d: inputs hash differs (Go %016x, C++ %016x): the generator in driver.cu no longer mirrors internal/xcheck/inputs.go",
				g.n, g.hash, c.hash)
			t.Log(xcheckExplainInputs(ctx, bin, count, inputs[g.n]))
		case c.hash != g.hash && !badInputs[g.n]:
			mismatches = append(mismatches, g)
		}
	}
	for _, c := range cLines {
		if !goByKey[c.key()] {
			t.Errorf("%d %s: printed by the driver but not computed on the Go side (N missing from Precisions()?)", c.n, c.what)
		}
	}
	for k, g := range mismatches {
		t.Errorf("N=%d OP=%s: hash differs: Go %016x, C++ %016x", g.n, g.what, g.hash, cByKey[g.key()].hash)
		if k < xcheckMaxExplained {
			t.Log(xcheckExplainOp(ctx, bin, count, inputs[g.n], g.what))
		}
	}
	if len(mismatches) > xcheckMaxExplained {
		t.Logf("(details shown for the first %d of %d mismatching lines)", xcheckMaxExplained, len(mismatches))
	}
}

// xcheckGoSide generates every precision's operands and computes the Go
// side's lines, in the driver's order. Work is spread over GOMAXPROCS
// goroutines per (N, OP), most expensive first so that the long N=16
// divisions do not end up last on one core.
func xcheckGoSide(t *testing.T, count int) (map[int]*xcheckInputs, []xcheckLine) {
	t.Helper()
	inputs := make(map[int]*xcheckInputs, len(Precisions()))
	inputHash := make(map[int]uint64, len(Precisions()))
	funcs := make(map[int]*limbFuncs, len(Precisions()))
	for _, n := range Precisions() {
		f, ok := limbFuncsByN[n]
		if !ok {
			t.Fatalf("Precisions() lists N=%d but limbFuncsByN has no entry for it", n)
		}
		funcs[n] = &f
		inputs[n] = &xcheckInputs{n: n, x: make([]float64, count*n), y: make([]float64, count*n)}
	}

	var wg sync.WaitGroup
	for _, n := range Precisions() {
		wg.Add(1)
		go func(in *xcheckInputs) {
			defer wg.Done()
			for i := 0; i < count; i++ {
				x, y := in.pair(i)
				xcheck.PairInto(in.n, xcheckSeed, i, x, y)
			}
		}(inputs[n])
	}
	wg.Wait()
	for _, n := range Precisions() {
		inputHash[n] = inputs[n].hash(count)
	}

	type job struct {
		n  int
		op int
	}
	var jobs []job
	for k := len(Precisions()) - 1; k >= 0; k-- {
		for op := range xcheckOps {
			jobs = append(jobs, job{Precisions()[k], op})
		}
	}
	results := make(map[job]uint64, len(jobs))
	durations := make(map[job]time.Duration, len(jobs))
	var mu sync.Mutex
	var failures []string
	next := make(chan job)
	workers := runtime.GOMAXPROCS(0)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				start := time.Now()
				h, err := xcheckHashOp(funcs[j.n], inputs[j.n], count, xcheckOps[j.op])
				d := time.Since(start)
				mu.Lock()
				durations[j] = d
				if err != nil {
					failures = append(failures, err.Error())
				}
				results[j] = h
				mu.Unlock()
			}
		}()
	}
	for _, j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
	for _, f := range failures {
		t.Error(f)
	}

	if os.Getenv("MDGEN_XCHECK_TIMING") != "" {
		for _, n := range Precisions() {
			var b strings.Builder
			for op := range xcheckOps {
				fmt.Fprintf(&b, " %s %.3fs", xcheckOps[op].name, durations[job{n, op}].Seconds())
			}
			t.Logf("Go side, N=%d:%s", n, b.String())
		}
	}

	var lines []xcheckLine
	for _, n := range Precisions() {
		// An operation writing into its argument slices would make every
		// later hash meaningless (and race with the other goroutines).
		if h := inputs[n].hash(count); h != inputHash[n] {
			t.Errorf("N=%d: the inputs changed while the operations ran: some operation modifies its argument slices", n)
		}
		lines = append(lines, xcheckLine{n, "inputs", inputHash[n]})
		for op := range xcheckOps {
			lines = append(lines, xcheckLine{n, xcheckOps[op].name, results[job{n, op}]})
		}
	}
	return inputs, lines
}

// xcheckHashOp hashes op's outputs over all pairs. A panic or an output of
// the wrong length is returned as an error naming the pair.
func xcheckHashOp(f *limbFuncs, in *xcheckInputs, count int, op xcheckOp) (h uint64, err error) {
	i := 0
	defer func() {
		if p := recover(); p != nil {
			x, y := in.pair(i)
			err = fmt.Errorf("N=%d OP=%s: panic at pair %d (x=%s y=%s): %v",
				in.n, op.name, i, xcheckHex(x), xcheckHex(y), p)
		}
	}()
	h = xcheck.HashInit
	for ; i < count; i++ {
		x, y := in.pair(i)
		re, im := op.apply(f, x, y, in.next(i, count))
		if err := xcheckCheckLen(in.n, op, re, im); err != nil {
			return 0, fmt.Errorf("N=%d OP=%s pair %d: %v", in.n, op.name, i, err)
		}
		h = xcheck.Hash(h, re...)
		h = xcheck.Hash(h, im...)
	}
	return h, nil
}

// xcheckCheckLen verifies that an operation returned N limbs per part.
func xcheckCheckLen(n int, op xcheckOp, re, im []float64) error {
	complexOut := op.name == "cadd" || op.name == "csub" || op.name == "cmul" || op.name == "cdiv" || op.name == "cmadd"
	if len(re) != n || (complexOut && len(im) != n) {
		return fmt.Errorf("result has %d+%d limbs, want %d per part", len(re), len(im), n)
	}
	return nil
}

// xcheckParseLines parses "N WHAT HASH" lines.
func xcheckParseLines(out []byte) ([]xcheckLine, error) {
	var lines []xcheckLine
	for _, s := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(s)
		if len(f) != 3 || len(f[2]) != 16 {
			return nil, fmt.Errorf("malformed line %q", s)
		}
		n, err1 := strconv.Atoi(f[0])
		h, err2 := strconv.ParseUint(f[2], 16, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("malformed line %q", s)
		}
		lines = append(lines, xcheckLine{n, f[1], h})
	}
	return lines, nil
}

// xcheckHex formats limbs as their bits, 16 hex digits each.
func xcheckHex(v []float64) string {
	s := make([]string, len(v))
	for k, f := range v {
		s[k] = fmt.Sprintf("%016x", math.Float64bits(f))
	}
	return strings.Join(s, " ")
}

// xcheckCanon returns v's bits, NaNs canonicalised as in xcheck.Hash.
func xcheckCanon(v float64) uint64 {
	if v != v {
		return 0x7ff8000000000000
	}
	return math.Float64bits(v)
}

// xcheckDump runs the driver in dump mode for (N, what) over all COUNT
// elements and calls visit with each element's index and limbs, streaming so
// that even N=16 complex outputs for 100000 pairs (about 50 MB of text) need
// little memory. visit returns false to stop early.
func xcheckDump(ctx context.Context, bin string, count, n int, what string, visit func(i int, limbs []uint64) bool) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, strconv.Itoa(count), strconv.Itoa(xcheckSeed),
		"dump", strconv.Itoa(n), what, strconv.Itoa(count))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	stopped := false
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 1 {
			continue
		}
		i, err := strconv.Atoi(f[0])
		if err != nil {
			cancel()
			cmd.Wait()
			return fmt.Errorf("malformed dump line %q", sc.Text())
		}
		limbs := make([]uint64, len(f)-1)
		for k, s := range f[1:] {
			if limbs[k], err = strconv.ParseUint(s, 16, 64); err != nil {
				cancel()
				cmd.Wait()
				return fmt.Errorf("malformed dump line %q", sc.Text())
			}
		}
		if !visit(i, limbs) {
			stopped = true
			break
		}
	}
	if stopped {
		cancel() // the rest of the output is not needed
		cmd.Wait()
		return nil
	}
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("%s: %v\n%s", cmd, err, stderr.Bytes())
	}
	return sc.Err()
}

// xcheckDiffLimbs returns the positions where got differs from want
// (NaNs compared canonically), or nil.
func xcheckDiffLimbs(want []float64, got []uint64) []int {
	var diff []int
	for k := range max(len(want), len(got)) {
		if k >= len(want) || k >= len(got) || xcheckCanon(want[k]) != xcheckCanon(math.Float64frombits(got[k])) {
			diff = append(diff, k)
		}
	}
	return diff
}

// xcheckExplainOp reruns the driver in dump mode for one mismatching
// (N, OP) and describes the differing elements: how many, and the first few
// with their inputs and both sides' limbs.
func xcheckExplainOp(ctx context.Context, bin string, count int, in *xcheckInputs, opName string) string {
	var op xcheckOp
	for _, o := range xcheckOps {
		if o.name == opName {
			op = o
		}
	}
	f := limbFuncsByN[in.n]
	var b strings.Builder
	fmt.Fprintf(&b, "N=%d OP=%s, elements that differ (limbs as float64 bits in hex, leading limb first; complex: re limbs then im limbs):\n", in.n, opName)
	const shown = 3
	ndiff, seen := 0, 0
	err := xcheckDump(ctx, bin, count, in.n, opName, func(i int, got []uint64) bool {
		seen++
		x, y := in.pair(i)
		re, im := op.apply(&f, x, y, in.next(i, count))
		want := append(append([]float64(nil), re...), im...)
		d := xcheckDiffLimbs(want, got)
		if d == nil {
			return true
		}
		ndiff++
		if ndiff <= shown {
			gotF := make([]float64, len(got))
			for k, g := range got {
				gotF[k] = math.Float64frombits(g)
			}
			fmt.Fprintf(&b, "  pair %d (%v), limbs %v differ:\n    x   = %s\n    y   = %s\n    Go  = %s\n    C++ = %s\n",
				i, xcheck.CategoryOf(in.n, xcheckSeed, i), d, xcheckHex(x), xcheckHex(y), xcheckHex(want), xcheckHex(gotF))
		}
		return true
	})
	if err != nil {
		fmt.Fprintf(&b, "  dump failed: %v\n", err)
	}
	fmt.Fprintf(&b, "  %d of %d elements differ", ndiff, seen)
	if ndiff == 0 && err == nil {
		b.WriteString(" (yet the hashes differ: nondeterminism in the driver?)")
	}
	fmt.Fprintf(&b, "\n  to reproduce, from the repository root: g++ -std=c++17 -O2 -ffp-contract=off -x c++ -I generated/cuda internal/xcheck/driver.cu -o xcheck && ./xcheck %d %d dump %d %s K",
		count, xcheckSeed, in.n, opName)
	return b.String()
}

// xcheckExplainInputs shows the first pair on which driver.cu's generator
// and xcheck.Pair disagree.
func xcheckExplainInputs(ctx context.Context, bin string, count int, in *xcheckInputs) string {
	var b strings.Builder
	found := false
	err := xcheckDump(ctx, bin, count, in.n, "inputs", func(i int, got []uint64) bool {
		x, y := in.pair(i)
		want := append(append([]float64(nil), x...), y...)
		if d := xcheckDiffLimbs(want, got); d != nil {
			gotF := make([]float64, len(got))
			for k, g := range got {
				gotF[k] = math.Float64frombits(g)
			}
			fmt.Fprintf(&b, "N=%d: first differing pair %d (%v), limbs %v of x then y:\n  Go  = %s\n  C++ = %s",
				in.n, i, xcheck.CategoryOf(in.n, xcheckSeed, i), d, xcheckHex(want), xcheckHex(gotF))
			found = true
			return false
		}
		return true
	})
	if err != nil {
		fmt.Fprintf(&b, "dump failed: %v", err)
	} else if !found {
		fmt.Fprintf(&b, "N=%d: no pair differs in the dump, yet the hashes differ", in.n)
	}
	return b.String()
}
