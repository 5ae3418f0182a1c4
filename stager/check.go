package stager

import (
	"errors"
	"fmt"
	"math/big"
	"math/bits"
	"math/rand/v2"

	"github.com/mdgen/mdgen/stager/poly"
)

// Check proves that p is race-free and complete, and, when p.System is set,
// that it computes the values and partial derivatives of that system.
//
// Shape: slots are numbered [constants | coefficients | inputs | work];
// Values holds exactly the constant and coefficient slots, with series of at
// most Degree+1 coefficients; Inputs lists the input slots, one per variable;
// Value has one entry per polynomial; Partials (when set) one list per
// polynomial, by increasing variable, of slots other than NoSlot; Deriv
// (when set) one row per polynomial of one entry per variable, the same
// slots as Partials. Check takes time linear in the size of the plan and of
// p.System: it never walks NumPolys·NumVars unless Deriv is set.
//
// Race-free: within a convolution layer no two jobs write one slot, every
// job writes a work slot, and no job reads a slot written in its own layer;
// within an addition layer no two jobs write one slot, no job writes a
// read-only or input slot, and no job reads (as Src) a slot that a job of
// the layer writes.
//
// Complete: every work slot that a job reads, or that an output names, was
// written by an earlier layer (for an addition's Dst: by a convolution or an
// earlier addition, since Dst += Src reads it); every output is NoSlot, a
// read-only or input slot, or a written work slot. Additions run after all
// convolutions (the executors' order), so they see every convolution's
// result.
//
// Semantic: the plan is run over GF(q²), q = 2^61-1 (the complex rationals
// reduced mod q; -1 is not a square mod q), on random input series truncated
// at degree min(Degree, 4) — truncation is a ring homomorphism, so a correct
// plan gives the truncated values — and every Value and Deriv is compared
// with the value and derivative computed directly from p.System. A wrong
// staging passes only if the difference polynomial vanishes at the random
// point, with probability below (total degree)/q. The inputs come from a
// fixed seed, so Check is deterministic.
func Check(p *Plan) error {
	if err := checkShape(p); err != nil {
		return fmt.Errorf("stager: check: %w", err)
	}
	if err := checkLayers(p); err != nil {
		return fmt.Errorf("stager: check: %w", err)
	}
	if p.System != nil {
		if err := checkSemantics(p); err != nil {
			return fmt.Errorf("stager: check: %w", err)
		}
	}
	return nil
}

func isReadOnly(k SlotKind) bool { return k == SlotConst || k == SlotCoef }

func checkShape(p *Plan) error {
	if p.Degree < 0 {
		return fmt.Errorf("negative degree %d", p.Degree)
	}
	for i := 1; i < len(p.Kinds); i++ {
		if p.Kinds[i] < p.Kinds[i-1] {
			return fmt.Errorf("slot %d of kind %d follows a slot of kind %d: kinds not in the order "+
				"[constants | coefficients | inputs | work]", i, p.Kinds[i], p.Kinds[i-1])
		}
	}
	for i, k := range p.Kinds {
		if k > SlotWork {
			return fmt.Errorf("slot %d has unknown kind %d", i, k)
		}
		if _, ok := p.Values[Slot(i)]; ok != isReadOnly(k) {
			if ok {
				return fmt.Errorf("slot %d of kind %d has a value", i, k)
			}
			return fmt.Errorf("read-only slot %d has no value", i)
		}
	}
	for s, v := range p.Values {
		if s < 0 || int(s) >= len(p.Kinds) {
			return fmt.Errorf("value for slot %d out of range [0, %d)", s, len(p.Kinds))
		}
		if len(v) > p.Degree+1 {
			return fmt.Errorf("slot %d holds a series of %d coefficients, more than Degree+1 = %d",
				s, len(v), p.Degree+1)
		}
	}
	if p.NumVars < 0 || p.NumPolys < 0 {
		return errors.New("negative NumVars or NumPolys")
	}
	if len(p.Inputs) != p.NumVars {
		return fmt.Errorf("%d inputs for %d variables", len(p.Inputs), p.NumVars)
	}
	nin := 0
	for _, k := range p.Kinds {
		if k == SlotInput {
			nin++
		}
	}
	if nin != p.NumVars {
		return fmt.Errorf("%d input slots for %d variables", nin, p.NumVars)
	}
	seen := make([]bool, len(p.Kinds))
	for v, s := range p.Inputs {
		if s < 0 || int(s) >= len(p.Kinds) || p.Kinds[s] != SlotInput {
			return fmt.Errorf("input %d is slot %d, not an input slot", v, s)
		}
		if seen[s] {
			return fmt.Errorf("input slot %d used for two variables", s)
		}
		seen[s] = true
	}
	if len(p.Value) != p.NumPolys {
		return fmt.Errorf("%d values for %d polynomials", len(p.Value), p.NumPolys)
	}
	if p.Partials == nil && p.Deriv == nil && p.NumPolys > 0 {
		return errors.New("no derivatives: Partials and Deriv are both nil")
	}
	if p.Partials != nil {
		if len(p.Partials) != p.NumPolys {
			return fmt.Errorf("%d derivative lists for %d polynomials", len(p.Partials), p.NumPolys)
		}
		for i, row := range p.Partials {
			for k, e := range row {
				if e.Var < 0 || int(e.Var) >= p.NumVars || k > 0 && e.Var <= row[k-1].Var {
					return fmt.Errorf("polynomial %d: derivative list not by increasing variable in [0, %d) at entry %d (variable %d)",
						i+1, p.NumVars, k, e.Var)
				}
				if e.Slot == NoSlot {
					return fmt.Errorf("polynomial %d: derivative in variable %d listed as NoSlot", i+1, e.Var+1)
				}
			}
		}
	}
	if p.Deriv != nil {
		if len(p.Deriv) != p.NumPolys {
			return fmt.Errorf("%d derivative rows for %d polynomials", len(p.Deriv), p.NumPolys)
		}
		for i, row := range p.Deriv {
			if len(row) != p.NumVars {
				return fmt.Errorf("polynomial %d: %d derivatives for %d variables", i+1, len(row), p.NumVars)
			}
			if p.Partials == nil {
				continue
			}
			// The dense table is the sparse lists written out.
			k := 0
			list := p.Partials[i]
			for v, s := range row {
				want := NoSlot
				if k < len(list) && int(list[k].Var) == v {
					want = list[k].Slot
					k++
				}
				if s != want {
					return fmt.Errorf("polynomial %d: Deriv gives slot %d in variable %d, Partials %d", i+1, s, v+1, want)
				}
			}
		}
	}
	if s := p.System; s != nil && (len(s.Polys) != p.NumPolys || len(s.Vars) != p.NumVars) {
		return fmt.Errorf("plan of %d polynomials in %d variables for a system of %d in %d",
			p.NumPolys, p.NumVars, len(s.Polys), len(s.Vars))
	}
	return nil
}

func checkLayers(p *Plan) error {
	ns := len(p.Kinds)
	inRange := func(s Slot) bool { return s >= 0 && int(s) < ns }
	written := make([]bool, ns) // work slot holds a result
	wstamp := make([]int32, ns) // 1 + index of the last layer that wrote the slot
	stamp := int32(0)
	// writable checks the slot out that job j of layer l (a convolution
	// or an addition layer: what) writes: a work slot, that no other job
	// of the layer writes.
	writable := func(what string, l, j int, job any, out Slot) error {
		if p.Kinds[out] != SlotWork {
			return fmt.Errorf("%s layer %d, job %d %v: writes slot %d of kind %d, not a work slot",
				what, l, j, job, out, p.Kinds[out])
		}
		if wstamp[out] == stamp {
			return fmt.Errorf("%s layer %d: two jobs write slot %d (race)", what, l, out)
		}
		return nil
	}
	for l, layer := range p.ConvLayers {
		stamp++
		for j, job := range layer {
			if !inRange(job.Out) || !inRange(job.A) || !inRange(job.B) {
				return fmt.Errorf("convolution layer %d, job %d %v: slot out of range [0, %d)", l, j, job, ns)
			}
			if err := writable("convolution", l, j, job, job.Out); err != nil {
				return err
			}
			wstamp[job.Out] = stamp
		}
		for j, job := range layer {
			for _, in := range [2]Slot{job.A, job.B} {
				if p.Kinds[in] != SlotWork {
					continue
				}
				if wstamp[in] == stamp {
					return fmt.Errorf("convolution layer %d, job %d %v: reads slot %d written in the same layer (race)",
						l, j, job, in)
				}
				if !written[in] {
					return fmt.Errorf("convolution layer %d, job %d %v: reads slot %d before any job wrote it",
						l, j, job, in)
				}
			}
		}
		for _, job := range layer {
			written[job.Out] = true
		}
	}
	for l, layer := range p.AddLayers {
		stamp++
		for j, job := range layer {
			if !inRange(job.Dst) || !inRange(job.Src) {
				return fmt.Errorf("addition layer %d, job %d %v: slot out of range [0, %d)", l, j, job, ns)
			}
			if err := writable("addition", l, j, job, job.Dst); err != nil {
				return err
			}
			if !written[job.Dst] {
				return fmt.Errorf("addition layer %d, job %d %v: adds into slot %d before any job wrote it",
					l, j, job, job.Dst)
			}
			wstamp[job.Dst] = stamp
		}
		for j, job := range layer {
			if wstamp[job.Src] == stamp {
				return fmt.Errorf("addition layer %d, job %d %v: reads slot %d written in the same layer (race)",
					l, j, job, job.Src)
			}
			if p.Kinds[job.Src] == SlotWork && !written[job.Src] {
				return fmt.Errorf("addition layer %d, job %d %v: reads slot %d before any job wrote it",
					l, j, job, job.Src)
			}
		}
	}
	checkOut := func(what string, s Slot) error {
		switch {
		case s == NoSlot:
			return nil
		case !inRange(s):
			return fmt.Errorf("%s is slot %d, out of range [0, %d)", what, s, ns)
		case p.Kinds[s] == SlotWork && !written[s]:
			return fmt.Errorf("%s is work slot %d, which no job writes", what, s)
		}
		return nil
	}
	for i, s := range p.Value {
		if err := checkOut(fmt.Sprintf("value of polynomial %d", i+1), s); err != nil {
			return err
		}
		var err error
		p.forEachDeriv(i, func(v int, s Slot) {
			if err == nil {
				err = checkOut(fmt.Sprintf("derivative of polynomial %d in variable %d", i+1, v+1), s)
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// Arithmetic in GF(q²) = GF(q)[i], q = 2^61-1 ≡ 3 (mod 4).

const modQ = 1<<61 - 1

type gf struct{ re, im uint64 }

func addq(a, b uint64) uint64 {
	s := a + b
	if s >= modQ {
		s -= modQ
	}
	return s
}

func subq(a, b uint64) uint64 {
	if a >= b {
		return a - b
	}
	return a + modQ - b
}

func mulq(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	// a·b = hi·2^64 + lo = (hi·8 + lo>>61)·2^61 + (lo & q), and 2^61 ≡ 1.
	s := (lo & modQ) + (lo>>61 | hi<<3)
	s = (s & modQ) + (s >> 61)
	if s >= modQ {
		s -= modQ
	}
	return s
}

func (a gf) add(b gf) gf { return gf{addq(a.re, b.re), addq(a.im, b.im)} }

func (a gf) mul(b gf) gf {
	return gf{subq(mulq(a.re, b.re), mulq(a.im, b.im)), addq(mulq(a.re, b.im), mulq(a.im, b.re))}
}

// series over GF(q²), truncated to a fixed length.
type gfSeries []gf

func (s gfSeries) mul(a, b gfSeries) {
	for k := range s {
		acc := gf{}
		for i := 0; i <= k; i++ {
			acc = acc.add(a[i].mul(b[k-i]))
		}
		s[k] = acc
	}
}

func (s gfSeries) addTo(a gfSeries) {
	for k := range s {
		s[k] = s[k].add(a[k])
	}
}

var bigQ = big.NewInt(modQ)

func ratModQ(r *big.Rat) (uint64, error) {
	num := new(big.Int).Mod(r.Num(), bigQ)
	den := new(big.Int).Mod(r.Denom(), bigQ)
	if den.Sign() == 0 {
		return 0, fmt.Errorf("denominator of %s divisible by 2^61-1", r.RatString())
	}
	den.ModInverse(den, bigQ)
	num.Mul(num, den).Mod(num, bigQ)
	return num.Uint64(), nil
}

// seriesModQ reduces s, truncated to length l.
func seriesModQ(s poly.Series, l int) (gfSeries, error) {
	out := make(gfSeries, l)
	for k := 0; k < l && k < len(s); k++ {
		re, err := ratModQ(&s[k].Re)
		if err != nil {
			return nil, err
		}
		im, err := ratModQ(&s[k].Im)
		if err != nil {
			return nil, err
		}
		out[k] = gf{re, im}
	}
	return out, nil
}

// checkDegree is the largest series degree of the semantic check.
const checkDegree = 4

func checkSemantics(p *Plan) error {
	l := min(p.Degree, checkDegree) + 1
	rng := rand.New(rand.NewPCG(0x636865636b, uint64(len(p.Kinds)))) // "check"
	data := make([]gfSeries, len(p.Kinds))
	for s, k := range p.Kinds {
		if isReadOnly(k) {
			v, err := seriesModQ(p.Values[Slot(s)], l)
			if err != nil {
				return fmt.Errorf("slot %d: %w", s, err)
			}
			data[s] = v
		} else {
			data[s] = make(gfSeries, l)
		}
	}
	for _, s := range p.Inputs {
		for k := range data[s] {
			data[s][k] = gf{rng.Uint64N(modQ), rng.Uint64N(modQ)}
		}
	}
	for _, layer := range p.ConvLayers {
		for _, job := range layer {
			data[job.Out].mul(data[job.A], data[job.B])
		}
	}
	for _, layer := range p.AddLayers {
		for _, job := range layer {
			data[job.Dst].addTo(data[job.Src])
		}
	}

	// Direct evaluation: Σ c·Π x_i^a_i and Σ a_i·c·x_i^(a_i-1)·Π_{j≠i} x_j^a_j,
	// the latter with prefix and suffix products over the factors.
	zero := make(gfSeries, l)
	inputs := make([]gfSeries, p.NumVars)
	for v, s := range p.Inputs {
		inputs[v] = data[s]
	}
	powCache := make(map[[2]int]gfSeries) // lookups only
	var power func(v, a int) gfSeries     // x_v^a by squaring, a >= 1
	power = func(v, a int) gfSeries {
		if a == 1 {
			return inputs[v]
		}
		if r, ok := powCache[[2]int{v, a}]; ok {
			return r
		}
		h := power(v, a/2)
		r := make(gfSeries, l)
		r.mul(h, h)
		if a%2 == 1 {
			tmp := make(gfSeries, l)
			tmp.mul(r, inputs[v])
			r = tmp
		}
		powCache[[2]int{v, a}] = r
		return r
	}
	// The direct derivatives of one polynomial, for its variables only:
	// at[v] indexes deriv (-1: the variable does not occur).
	at := make([]int32, p.NumVars)
	for v := range at {
		at[v] = -1
	}
	var derivVars []int
	var deriv []gfSeries
	for i := range p.System.Polys {
		poly := &p.System.Polys[i]
		value, err := seriesModQ(truncate(poly.Const, p.Degree), l)
		if err != nil {
			return fmt.Errorf("constant of polynomial %d: %w", i+1, err)
		}
		derivVars = derivVars[:0]
		deriv = deriv[:0]
		for _, t := range poly.Terms {
			c, err := seriesModQ(truncate(t.Coef, p.Degree), l)
			if err != nil {
				return fmt.Errorf("coefficient in polynomial %d: %w", i+1, err)
			}
			m := len(t.Vars)
			// pre[k] = c·Π_{j<k} x_j^a_j, suf[k] = Π_{j>=k} x_j^a_j
			pre := make([]gfSeries, m+1)
			suf := make([]gfSeries, m+1)
			pre[0] = c
			for k := range m {
				pre[k+1] = make(gfSeries, l)
				pre[k+1].mul(pre[k], power(t.Vars[k], t.Pows[k]))
			}
			suf[m] = make(gfSeries, l)
			suf[m][0] = gf{1, 0}
			for k := m - 1; k >= 0; k-- {
				suf[k] = make(gfSeries, l)
				suf[k].mul(suf[k+1], power(t.Vars[k], t.Pows[k]))
			}
			value.addTo(pre[m])
			tmp := make(gfSeries, l)
			for k, v := range t.Vars {
				a := t.Pows[k]
				tmp.mul(pre[k], suf[k+1])
				if a > 1 {
					d := make(gfSeries, l)
					d.mul(tmp, power(v, a-1))
					copy(tmp, d)
				}
				for j := range tmp {
					tmp[j] = tmp[j].mul(gf{uint64(a) % modQ, 0})
				}
				if at[v] < 0 {
					at[v] = int32(len(derivVars))
					derivVars = append(derivVars, v)
					deriv = append(deriv, make(gfSeries, l))
				}
				deriv[at[v]].addTo(tmp)
			}
		}
		get := func(s Slot) gfSeries {
			if s == NoSlot {
				return zero
			}
			return data[s]
		}
		if !equalSeries(get(p.Value[i]), value) {
			return fmt.Errorf("value of polynomial %d (slot %d) differs from the direct evaluation", i+1, p.Value[i])
		}
		for k, v := range derivVars {
			if s := p.DerivSlot(i, v); !equalSeries(get(s), deriv[k]) {
				return fmt.Errorf("derivative of polynomial %d in variable %d (slot %d) differs from the direct evaluation",
					i+1, v+1, s)
			}
		}
		// A derivative the plan lists in a variable the polynomial lacks
		// must be zero.
		var bad error
		p.forEachDeriv(i, func(v int, s Slot) {
			if bad == nil && at[v] < 0 && !equalSeries(get(s), zero) {
				bad = fmt.Errorf("derivative of polynomial %d in variable %d (slot %d) differs from the direct evaluation (zero)",
					i+1, v+1, s)
			}
		})
		if bad != nil {
			return bad
		}
		for _, v := range derivVars {
			at[v] = -1
		}
	}
	return nil
}

func equalSeries(a, b gfSeries) bool {
	for k := range a {
		if a[k] != b[k] {
			return false
		}
	}
	return true
}
