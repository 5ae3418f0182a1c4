package backend

import (
	"fmt"
	"math"
	"math/big"
	goruntime "runtime"
	"sync"
	"sync/atomic"

	"github.com/mdgen/mdgen/stager"
	"github.com/mdgen/mdgen/stager/poly"
)

// RoundValues rounds the read-only slots of plan in [lo, hi) (the slots
// with a series in plan.Values) once to the layout l, on workers
// goroutines (<= 0: one per CPU), and hands each to put(s, series) in the
// CPU layout (a buffer of the worker, valid during the call). put is
// called concurrently for different slots, in no particular order. The
// error (a complex coefficient with real data, a coefficient outside the
// float64 range) is that of the lowest slot that has one, so it does not
// depend on the workers. Every executor rounds its coefficients with it:
// the same bits everywhere, and a setup of millions of coefficients that
// uses every core.
func RoundValues(plan *stager.Plan, lo, hi int, l Layout, workers int, put func(s stager.Slot, series []float64)) error {
	if workers <= 0 {
		workers = goruntime.GOMAXPROCS(0)
	}
	const chunk = 1024
	n := hi - lo
	workers = max(1, min(workers, (n+chunk-1)/chunk))
	var next atomic.Int64
	var mu sync.Mutex
	errSlot, firstErr := hi, error(nil)
	work := func() {
		buf := make([]float64, l.SlotLen())
		for {
			c := int(next.Add(chunk)) - chunk
			if c >= n {
				return
			}
			for s := lo + c; s < min(lo+c+chunk, hi); s++ {
				k := plan.Kinds[s]
				if k != stager.SlotConst && k != stager.SlotCoef {
					continue
				}
				v, ok := plan.Values[stager.Slot(s)]
				if !ok {
					continue
				}
				err := RoundSeries(buf, v, l)
				if err == nil {
					err = checkFiniteSlot(buf, v)
				}
				if err != nil {
					mu.Lock()
					if s < errSlot {
						errSlot, firstErr = s, err
					}
					mu.Unlock()
					break
				}
				put(stager.Slot(s), buf)
			}
		}
	}
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Add(1)
		go func() { defer wg.Done(); work() }()
	}
	work()
	wg.Wait()
	return firstErr
}

// checkFiniteSlot returns an error when rounding the exact series v gave a
// limb that is ±Inf: a coefficient outside the float64 range.
func checkFiniteSlot(limbs []float64, v poly.Series) error {
	for _, x := range limbs {
		if math.IsInf(x, 0) {
			for k := range v {
				for _, r := range []*big.Rat{&v[k].Re, &v[k].Im} {
					if f, _ := r.Float64(); math.IsInf(f, 0) {
						return fmt.Errorf("runtime: the system has a coefficient %s outside the float64 range (magnitudes up to %.4g)",
							new(big.Float).SetRat(r).Text('g', 6), math.MaxFloat64)
					}
				}
			}
			return fmt.Errorf("runtime: the system has a coefficient outside the float64 range")
		}
	}
	return nil
}

// RoundRat rounds r to len(dst) doubles: each limb is the nearest double to
// what the limbs before it leave over, so the result is normalized and the
// error is at most half an ulp of the last limb (rounded once, exactly).
//
// The rest is kept as an unreduced fraction num/den: subtracting a limb
// v = m·2^e only shifts and multiplies by the 53-bit m, where big.Rat's Sub
// would reduce by a gcd every time (most of the time of a large setup:
// NewCPU and the GPU executors round every coefficient of a plan).
// Rat.Float64 rounds the value num/den correctly whether or not the
// fraction is reduced, so the limbs are the same bits.
func RoundRat(dst []float64, r *big.Rat) {
	if len(dst) == 0 {
		return
	}
	a, b := r.Num(), r.Denom()
	if a.IsInt64() && b.IsInt64() {
		if i, num, k := roundSmall(dst, a.Int64(), b.Int64()); i >= 0 {
			// The rest num/(b·2^k) left the fast path's range at limb i.
			sc := ratScratch.Get().(*roundScratch)
			defer ratScratch.Put(sc)
			rest := &sc.rest
			rest.SetInt64(1) // a denominator of its own: Num and Denom are references
			rest.Num().SetInt64(num)
			rest.Denom().Lsh(rest.Denom().SetInt64(b.Int64()), uint(k))
			roundRest(dst[i:], sc)
		}
		return
	}
	sc := ratScratch.Get().(*roundScratch)
	defer ratScratch.Put(sc)
	rest := &sc.rest
	rest.SetInt64(1)
	rest.Num().Set(a)
	rest.Denom().Set(b)
	roundRest(dst, sc)
}

// roundSmall is RoundRat for r = a/b with |a|, b <= 2^53 in float64 and
// int64 arithmetic. The rest after each limb is num/(b·2^k) with
// |num| <= b/2 (a limb is within half an ulp of the rest), so num stays an
// int64; a limb is float64(num)/float64(b) (one correctly rounded division
// of exact operands) times 2^-k, exact while it is a normal double. It
// returns i = -1 when dst is done, or the limb i where the rest
// num/(b·2^k) leaves that range, for the big.Int path to go on from.
func roundSmall(dst []float64, a, b int64) (i int, num int64, k int) {
	const lim = 1 << 53
	if a < -lim || a > lim || b <= 0 || b > lim {
		return 0, a, 0
	}
	fb := float64(b)
	num = a
	for i = range dst {
		if num == 0 {
			clear(dst[i:])
			return -1, 0, 0
		}
		v := math.Ldexp(float64(num)/fb, -k)
		if math.Abs(v) < 0x1p-1021 { // near or below the subnormals: exact path
			return i, num, k
		}
		dst[i] = v
		frac, exp := math.Frexp(v)
		m, e := int64(frac*(1<<53)), exp-53
		if -e < k || -e-k >= 64 {
			if i+1 == len(dst) {
				return -1, 0, 0
			}
			// A limb of ulp above 2^-k (|rest| >= 2^53 at limb 0) or an
			// exponent drop of 64 or more: the same step with big.Int.
			var n, t big.Int
			n.SetInt64(num)
			t.SetInt64(m)
			t.Mul(&t, n.SetInt64(b))
			n.SetInt64(num)
			if e+k >= 0 {
				t.Lsh(&t, uint(e+k))
			} else {
				n.Lsh(&n, uint(-e-k))
			}
			n.Sub(&n, &t)
			if !n.IsInt64() {
				panic("runtime: RoundRat: rest out of range")
			}
			num, k = n.Int64(), max(k, -e)
			continue
		}
		// num·2^(-e-k) - m·b, exact in wrapping int64 arithmetic: the
		// result is at most b/2 in magnitude.
		num = num<<uint(-e-k) - m*b
		k = -e
	}
	return -1, 0, 0
}

// roundRest writes the limbs of the rest sc.rest (num/den, not reduced)
// into dst.
func roundRest(dst []float64, sc *roundScratch) {
	rest := &sc.rest
	num, den := rest.Num(), rest.Denom()
	for i := range dst {
		v, _ := rest.Float64()
		dst[i] = v
		if v == 0 || math.IsInf(v, 0) {
			clear(dst[i+1:])
			return
		}
		if i == len(dst)-1 {
			return
		}
		// rest -= v, v = m·2^e exactly (m an integer of at most 53 bits).
		frac, exp := math.Frexp(v)
		m, e := int64(frac*(1<<53)), exp-53
		sc.m.SetInt64(m)
		sc.t.Mul(den, &sc.m)
		if e >= 0 {
			sc.t.Lsh(&sc.t, uint(e))
		} else {
			num.Lsh(num, uint(-e))
			den.Lsh(den, uint(-e))
		}
		num.Sub(num, &sc.t)
	}
}

// roundScratch holds RoundRat's integers, reused across calls.
type roundScratch struct {
	rest big.Rat
	m, t big.Int
}

var ratScratch = sync.Pool{New: func() any { return new(roundScratch) }}
