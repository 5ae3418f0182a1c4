package mdops

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/mdgen/mdgen/mdops/alg"
)

// sweepChunk is the number of corpus cases drawn per seed: the sweep streams
// its cases chunk by chunk (10^6 N = 16 cases at once would take a
// gigabyte) and spreads the chunks over the CPUs.
const sweepChunk = 5000

// sweepCases returns the number of cases per operation and N of
// TestNormalizationSweep: MDGEN_SWEEP when set (an integer or a float such
// as 1e6), else 200 with -short (CI) and 2000 without.
func sweepCases(t *testing.T) int {
	if s := os.Getenv("MDGEN_SWEEP"); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v < 1 || v > 1e9 {
			t.Fatalf("MDGEN_SWEEP=%q: want a positive count such as 1e6", s)
		}
		return int(v)
	}
	if testing.Short() {
		return 200
	}
	return 2000
}

// sweepResult is what the sweep found for one operation at one N.
type sweepResult struct {
	cases, unnormalized, belowTarget int
	worst                            float64
	example                          string // the first unnormalized case
	worstCase                        string // the least accurate case
}

func (r *sweepResult) merge(o sweepResult) {
	r.cases += o.cases
	r.unnormalized += o.unnormalized
	r.belowTarget += o.belowTarget
	if o.worst < r.worst {
		r.worst, r.worstCase = o.worst, o.worstCase
	}
	if r.example == "" {
		r.example = o.example
	}
}

// TestNormalizationSweep runs every measured real and complex operation of
// the generated code at N = 5, 8, 10, 16 on alg.Corpus and alg.ComplexCorpus
// cases (random operands over the whole exponent range, and adversarial
// ones: cancellation, heads cancelling, sparse limbs at exact and near half
// ulps with zeros below, ties, powers of two, ±0, far-apart operands,
// subnormal lower limbs, near overflow), counting the results that are not
// normalized (alg.IsNormalized) and the worst accuracy in bits against
// math/big. It fails on any unnormalized result. MDGEN_SWEEP=1e6 runs the
// million-case sweep (about 18 minutes on two cores); CI runs 200 cases per
// operation and N (-short), go test without -short 2000.
func TestNormalizationSweep(t *testing.T) {
	count := sweepCases(t)
	var ns []int
	for _, n := range []int{5, 8, 10, 16} {
		if slices.Contains(Precisions(), n) {
			ns = append(ns, n)
		}
	}
	type job struct {
		n, chunk int
		op       string
		complex  bool
	}
	type key struct {
		n  int
		op string
	}
	var jobs []job
	chunks := (count + sweepChunk - 1) / sweepChunk
	for _, n := range ns {
		for _, op := range arithOps {
			for c := range chunks {
				jobs = append(jobs, job{n, c, op, false})
			}
		}
		for _, op := range alg.ComplexOpsMeasured {
			for c := range chunks {
				jobs = append(jobs, job{n, c, op, true})
			}
		}
	}
	results := map[key]*sweepResult{}
	var mu sync.Mutex
	next := make(chan job)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				size := min(sweepChunk, count-j.chunk*sweepChunk)
				seed := uint64(1000 + j.chunk)
				var r sweepResult
				if j.complex {
					r = sweepComplex(j.op, j.n, size, seed)
				} else {
					r = sweepReal(j.op, j.n, size, seed)
				}
				mu.Lock()
				k := key{j.n, j.op}
				if results[k] == nil {
					results[k] = &sweepResult{worst: math.Inf(1)}
				}
				results[k].merge(r)
				mu.Unlock()
			}
		}()
	}
	for _, j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
	for _, n := range ns {
		for _, op := range append(slices.Clone(arithOps), alg.ComplexOpsMeasured...) {
			r := results[key{n, op}]
			t.Logf("N=%-2d %-6s %8d cases: %d unnormalized, worst %.1f accurate bits, %d below target", n, op, r.cases, r.unnormalized, r.worst, r.belowTarget)
			if r.belowTarget > 0 {
				t.Logf("N=%d %s: least accurate: %s", n, op, r.worstCase)
			}
			if r.unnormalized > 0 {
				t.Errorf("N=%d %s: %d of %d results not normalized; first: %s", n, op, r.unnormalized, r.cases, r.example)
			}
		}
	}
}

// sweepReal runs count cases of the real operation op at N = n drawn from
// alg.Corpus with the given seed.
func sweepReal(op string, n, count int, seed uint64) sweepResult {
	f := limbFuncsByN[n]
	prec := uint(64*n + 200)
	r := sweepResult{worst: math.Inf(1)}
	for _, c := range alg.Corpus(op, n, count, seed) {
		got := apply(f, op, c)
		r.cases++
		if !alg.IsNormalized(got) {
			r.unnormalized++
			if r.example == "" {
				r.example = fmt.Sprintf("%s case x=%v y=%v f=%v acc=%v: %v", c.Kind, c.X, c.Y, c.F, c.A, got)
			}
		}
		bits := alg.AccurateBitsScaled(got, alg.Reference(op, c, prec), alg.Scale(op, c))
		if bits < targetBits(op, n) {
			r.belowTarget++
		}
		if bits < r.worst {
			r.worst = bits
			r.worstCase = fmt.Sprintf("%s case x=%v y=%v f=%v acc=%v: %v", c.Kind, c.X, c.Y, c.F, c.A, got)
		}
	}
	return r
}

// sweepComplex is sweepReal for the complex operation op on
// alg.ComplexCorpus; each part is checked.
func sweepComplex(op string, n, count int, seed uint64) sweepResult {
	f := limbFuncsByN[n]
	prec := uint(64*n + 200)
	r := sweepResult{worst: math.Inf(1)}
	for _, c := range alg.ComplexCorpus(op, n, count, seed) {
		re, im := applyComplex(f, op, c)
		wantRe, wantIm, scaleRe, scaleIm := alg.ComplexReference(op, c, prec)
		r.cases++
		broken := !alg.IsNormalized(re) || im != nil && !alg.IsNormalized(im)
		if broken {
			r.unnormalized++
			if r.example == "" {
				r.example = fmt.Sprintf("%s case a=%v b=%v acc=%v: %v %v", c.Kind, c.A, c.B, c.C, re, im)
			}
		}
		bits := alg.AccurateBitsScaled(re, wantRe, scaleRe)
		if im != nil {
			bits = min(bits, alg.AccurateBitsScaled(im, wantIm, scaleIm))
		}
		if bits < complexTargetBits(op, n) {
			r.belowTarget++
		}
		if bits < r.worst {
			r.worst = bits
			r.worstCase = fmt.Sprintf("%s case a=%v b=%v acc=%v: %v %v", c.Kind, c.A, c.B, c.C, re, im)
		}
	}
	return r
}
