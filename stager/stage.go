package stager

import (
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// Stage stages the evaluation and differentiation of s at truncated power
// series of degree degree (Degree+1 coefficients per series) into a Plan,
// following Verschelde's data staging (arXiv:2101.10881, PHCpack
// src/GPU/Polynomials).
//
// Slots are numbered [constants | coefficients | inputs | work]: one constant
// slot per polynomial with a nonzero constant term, one coefficient slot per
// monomial, then one slot per distinct exponent a >= 2 holding the constant
// series a (SlotCoef as well), then the inputs z[0..n-1], then the work slots
// in the order their jobs are made.
//
// Convolutions. A monomial c·x_{i1}···x_{im} with all exponents 1 takes
// 3m-3 jobs for m >= 2: forward products f_0 = c·x_{i1}, f_j = f_{j-1}·x_{i(j+1)}
// (f_{m-1} is the value, f_{m-2} = ∂/∂x_{im}); backward products
// b_0 = x_{im}·x_{i(m-1)}, b_j = b_{j-1}·x_{i(m-1-j)} up to b_{m-3} =
// x_{im}···x_{i2}, and b_{m-3}·c = ∂/∂x_{i1}; cross products
// ∂/∂x_{ik} = f_{k-2}·(x_{i(k+1)}···x_{im}) for k = 2..m-1, the second factor
// being a backward product or x_{im} itself. For m = 2 that is f_0 = c·x_{i1}
// (= ∂/∂x_{i2}), f_1 = f_0·x_{i2} (value) and c·x_{i2} (= ∂/∂x_{i1}); for
// m = 1 one job c·x (value) and the derivative is the coefficient slot itself.
//
// Exponents above 1 write the monomial as c·CF·x_{i1}···x_{im} with the
// common factor CF = Π x_i^(a_i−1). The powers x_v^k (k >= 2) come from one
// table shared by every monomial of every polynomial: x^k = x^⌈k/2⌉·x^⌊k/2⌋,
// made only for the powers needed and the powers they need. c' = c·CF is a
// product tree over c and the powers (the two factors available earliest are
// multiplied first), the multilinear scheme runs with c', and each ∂/∂x_i with
// a_i >= 2 takes one more job: the multilinear derivative times the slot
// holding the constant series a_i.
//
// Every convolution goes in the earliest layer after the layers of the jobs
// that made its inputs (ASAP); constants, coefficients and inputs are
// available before layer 0.
//
// Additions. Each output (the value of each polynomial: every monomial value
// and the constant term; and each nonzero ∂p/∂z_v: the derivative slots of
// the monomials of p that contain v) sums its list of term slots by a pairwise
// tree in place: in addition layer L, terms[i] += terms[i+2^L] for every i a
// multiple of 2^(L+1), so the sum lands in terms[0]. A read-only slot (the
// constant, or the coefficient of a linear term c·x_v standing for its
// derivative) is put last in its list, a position that is never a Dst; a
// list holds at most one of them because like terms are combined (Stage
// returns an error for a polynomial with repeated exponent vectors). Every
// work slot belongs to at most one list. All outputs' trees share the
// addition layers. An output of one term needs no job and an output of no
// terms is NoSlot.
//
// Coefficients are truncated after t^degree; a monomial whose truncated
// coefficient is zero is left out. Stage refuses a degree whose data array
// (one limb, real data) would not fit in the available memory; executors
// should check p.Bytes(n, complex) against MemAvailable themselves.
//
// The Plan is deterministic: the same System and degree give the same Plan.
func Stage(s *System, degree int) (*Plan, error) {
	if s == nil {
		return nil, errors.New("stager: Stage of a nil system")
	}
	if degree < 0 {
		return nil, fmt.Errorf("stager: negative degree %d", degree)
	}
	if err := validate(s); err != nil {
		return nil, err
	}
	n := len(s.Vars)
	b := &builder{
		plan: &Plan{
			Degree:   degree,
			NumVars:  n,
			NumPolys: len(s.Polys),
			Values:   make(map[Slot]Series),
			System:   s,
		},
	}

	// Read-only slots: constants, then coefficients, then exponent factors.
	type mono struct {
		coef       Slot
		vars, pows []int
	}
	consts := make([]Slot, len(s.Polys))
	monos := make([][]mono, len(s.Polys))
	for i := range s.Polys {
		consts[i] = NoSlot
		if c := truncate(s.Polys[i].Const, degree); len(c) > 0 {
			consts[i] = b.readOnly(SlotConst, c)
		}
	}
	maxPow := make([]int, n) // largest exponent of each variable
	maxExp := 0
	for i := range s.Polys {
		for _, t := range s.Polys[i].Terms {
			c := truncate(t.Coef, degree)
			if len(c) == 0 {
				continue
			}
			if len(t.Vars) == 0 {
				return nil, fmt.Errorf("stager: %s: constant term among the monomials", polyName(s, i))
			}
			monos[i] = append(monos[i], mono{coef: b.readOnly(SlotCoef, c), vars: t.Vars, pows: t.Pows})
			for k, v := range t.Vars {
				maxPow[v] = max(maxPow[v], t.Pows[k])
				maxExp = max(maxExp, t.Pows[k])
			}
		}
	}
	// One slot per distinct exponent a >= 2 that occurs, in increasing order.
	expSlot := make([]Slot, maxExp+1)
	usedExp := make([]bool, maxExp+1)
	for i := range monos {
		for _, m := range monos[i] {
			for _, a := range m.pows {
				usedExp[a] = true
			}
		}
	}
	for a := 2; a <= maxExp; a++ {
		expSlot[a] = NoSlot
		if usedExp[a] {
			var r Rational
			r.Re.SetInt64(int64(a))
			expSlot[a] = b.readOnly(SlotCoef, Series{r})
		}
	}

	// Inputs.
	b.plan.Inputs = make([]Slot, n)
	for v := range n {
		b.plan.Inputs[v] = b.newSlot(SlotInput)
	}

	// Table of powers: pow[v][k] = x_v^k for the k needed (pow[v][1] = z_v).
	pow := make([][]Slot, n)
	for v := range n {
		if maxPow[v] < 3 {
			continue
		}
		need := make([]bool, maxPow[v]) // powers k = a-1 <= maxPow-1
		for i := range monos {
			for _, m := range monos[i] {
				for k, w := range m.vars {
					if w == v && m.pows[k] >= 3 {
						need[m.pows[k]-1] = true
					}
				}
			}
		}
		for k := len(need) - 1; k >= 2; k-- {
			if need[k] {
				need[(k+1)/2] = true
				need[k/2] = true
			}
		}
		pow[v] = make([]Slot, len(need))
		pow[v][1] = b.plan.Inputs[v]
		for k := 2; k < len(need); k++ {
			if need[k] {
				pow[v][k] = b.conv(pow[v][(k+1)/2], pow[v][k/2])
			}
		}
	}

	// Monomials, and the term lists of the outputs.
	b.plan.Value = make([]Slot, len(s.Polys))
	b.plan.Deriv = make([][]Slot, len(s.Polys))
	valueTerms := make([][]Slot, len(s.Polys))
	derivTerms := make([][][]Slot, len(s.Polys))
	for i := range s.Polys {
		derivTerms[i] = make([][]Slot, n)
		for _, m := range monos[i] {
			c := m.coef
			var factors []Slot
			for k, v := range m.vars {
				switch a := m.pows[k]; {
				case a == 2:
					factors = append(factors, b.plan.Inputs[v])
				case a > 2:
					factors = append(factors, pow[v][a-1])
				}
			}
			if len(factors) > 0 {
				c = b.productTree(append([]Slot{c}, factors...))
			}
			xs := make([]Slot, len(m.vars))
			for k, v := range m.vars {
				xs[k] = b.plan.Inputs[v]
			}
			val, ders := b.multilinear(c, xs)
			valueTerms[i] = append(valueTerms[i], val)
			for k, v := range m.vars {
				d := ders[k]
				if a := m.pows[k]; a >= 2 {
					d = b.conv(d, expSlot[a])
				}
				derivTerms[i][v] = append(derivTerms[i][v], d)
			}
		}
		if consts[i] != NoSlot {
			valueTerms[i] = append(valueTerms[i], consts[i])
		}
	}

	// Additions: one tree per output, all trees sharing the layers.
	inSum := make([]bool, len(b.plan.Kinds))
	for i := range s.Polys {
		out, err := b.sum(valueTerms[i], inSum)
		if err != nil {
			return nil, fmt.Errorf("stager: value of %s: %w", polyName(s, i), err)
		}
		b.plan.Value[i] = out
		b.plan.Deriv[i] = make([]Slot, n)
		for v := range n {
			out, err := b.sum(derivTerms[i][v], inSum)
			if err != nil {
				return nil, fmt.Errorf("stager: ∂%s/∂%s: %w", polyName(s, i), s.Vars[v], err)
			}
			b.plan.Deriv[i][v] = out
		}
	}
	b.plan.ConvLayers = b.convs
	b.plan.AddLayers = b.adds

	if err := b.plan.CheckMemory(1, false); err != nil {
		return nil, fmt.Errorf("stager: %w", err)
	}
	return b.plan, nil
}

// builder accumulates a Plan.
type builder struct {
	plan  *Plan
	avail []int // per slot: the first conv layer that may read it
	convs [][]ConvJob
	adds  [][]AddJob
}

func (b *builder) newSlot(k SlotKind) Slot {
	b.plan.Kinds = append(b.plan.Kinds, k)
	b.avail = append(b.avail, 0)
	return Slot(len(b.plan.Kinds) - 1)
}

// readOnly makes a read-only slot holding a deep copy of v, so that a Plan
// shares no memory with its System.
func (b *builder) readOnly(k SlotKind, v Series) Slot {
	s := b.newSlot(k)
	c := make(Series, len(v))
	for i := range v {
		c[i].Re.Set(&v[i].Re)
		c[i].Im.Set(&v[i].Im)
	}
	b.plan.Values[s] = c
	return s
}

// conv makes the job Out = A*B in the earliest layer where A and B are
// available and returns Out.
func (b *builder) conv(a, c Slot) Slot {
	out := b.newSlot(SlotWork)
	l := max(b.avail[a], b.avail[c])
	for len(b.convs) <= l {
		b.convs = append(b.convs, nil)
	}
	b.convs[l] = append(b.convs[l], ConvJob{Out: out, A: a, B: c})
	b.avail[out] = l + 1
	return out
}

// productTree multiplies the factors (at least two), always the two that are
// available earliest first (ties: the first in the list), and returns the
// slot of the product.
func (b *builder) productTree(fs []Slot) Slot {
	fs = append([]Slot(nil), fs...)
	for len(fs) > 1 {
		i := 0
		for k := range fs {
			if b.avail[fs[k]] < b.avail[fs[i]] {
				i = k
			}
		}
		j := -1
		for k := range fs {
			if k != i && (j < 0 || b.avail[fs[k]] < b.avail[fs[j]]) {
				j = k
			}
		}
		if j < i {
			i, j = j, i
		}
		fs[i] = b.conv(fs[i], fs[j])
		fs = append(fs[:j], fs[j+1:]...)
	}
	return fs[0]
}

// multilinear stages c·x[0]···x[m-1] and returns the slot of its value and
// the slots of its derivatives with respect to each x[k].
func (b *builder) multilinear(c Slot, x []Slot) (Slot, []Slot) {
	m := len(x)
	d := make([]Slot, m)
	switch m {
	case 1:
		d[0] = c
		return b.conv(c, x[0]), d
	case 2:
		f0 := b.conv(c, x[0])
		val := b.conv(f0, x[1])
		d[0] = b.conv(c, x[1])
		d[1] = f0
		return val, d
	}
	f := make([]Slot, m)
	f[0] = b.conv(c, x[0])
	for j := 1; j < m; j++ {
		f[j] = b.conv(f[j-1], x[j])
	}
	bw := make([]Slot, m-2) // bw[j] = x[m-1]···x[m-2-j], j+2 factors
	bw[0] = b.conv(x[m-1], x[m-2])
	for j := 1; j <= m-3; j++ {
		bw[j] = b.conv(bw[j-1], x[m-2-j])
	}
	d[0] = b.conv(bw[m-3], c)
	d[m-1] = f[m-2]
	for k := 1; k <= m-2; k++ {
		tail := x[m-1] // x[k+1]···x[m-1], m-1-k factors
		if k < m-2 {
			tail = bw[m-k-3]
		}
		d[k] = b.conv(f[k-1], tail)
	}
	return f[m-1], d
}

// sum stages the pairwise tree sum of terms in place and returns the slot of
// the result (NoSlot for no terms). A read-only term goes last, the one
// position that is never a Dst; there may be at most one. Every work term may
// belong to one sum only.
func (b *builder) sum(terms []Slot, inSum []bool) (Slot, error) {
	if len(terms) == 0 {
		return NoSlot, nil
	}
	ro := NoSlot
	work := make([]Slot, 0, len(terms))
	for _, t := range terms {
		if b.plan.Kinds[t] != SlotWork {
			if ro != NoSlot {
				return NoSlot, fmt.Errorf("two read-only terms, slots %d and %d (repeated monomials?)", ro, t)
			}
			ro = t
			continue
		}
		if inSum[t] {
			return NoSlot, fmt.Errorf("internal error: work slot %d in two sums", t)
		}
		inSum[t] = true
		work = append(work, t)
	}
	if ro != NoSlot {
		work = append(work, ro)
	}
	terms = work
	for l, step := 0, 1; step < len(terms); l, step = l+1, step*2 {
		for len(b.adds) <= l {
			b.adds = append(b.adds, nil)
		}
		for i := 0; i+step < len(terms); i += 2 * step {
			b.adds[l] = append(b.adds[l], AddJob{Dst: terms[i], Src: terms[i+step]})
		}
	}
	return terms[0], nil
}

// truncate returns s without the coefficients of t^k for k > degree and
// without trailing zeros.
func truncate(s Series, degree int) Series {
	if len(s) > degree+1 {
		s = s[:degree+1]
	}
	for len(s) > 0 && s[len(s)-1].IsZero() {
		s = s[:len(s)-1]
	}
	return s
}

// validate checks the invariants of a System that Stage relies on.
func validate(s *System) error {
	n := len(s.Vars)
	for i := range s.Polys {
		seen := make(map[string]int) // exponent vector → term index; lookups only
		for j, t := range s.Polys[i].Terms {
			if len(t.Pows) != len(t.Vars) {
				return fmt.Errorf("stager: %s, term %d: %d variables but %d exponents",
					polyName(s, i), j+1, len(t.Vars), len(t.Pows))
			}
			var key strings.Builder
			for k, v := range t.Vars {
				if v < 0 || v >= n {
					return fmt.Errorf("stager: %s, term %d: variable index %d out of range [0, %d)",
						polyName(s, i), j+1, v, n)
				}
				if k > 0 && v <= t.Vars[k-1] {
					return fmt.Errorf("stager: %s, term %d: variable indices not strictly increasing",
						polyName(s, i), j+1)
				}
				if t.Pows[k] < 1 {
					return fmt.Errorf("stager: %s, term %d: exponent %d of %s is below 1",
						polyName(s, i), j+1, t.Pows[k], s.Vars[v])
				}
				if t.Pows[k] > maxExponent {
					return fmt.Errorf("stager: %s, term %d: exponent %d of %s is above %d",
						polyName(s, i), j+1, t.Pows[k], s.Vars[v], maxExponent)
				}
				key.WriteString(strconv.Itoa(v))
				key.WriteByte('^')
				key.WriteString(strconv.Itoa(t.Pows[k]))
				key.WriteByte(' ')
			}
			if prev, ok := seen[key.String()]; ok {
				return fmt.Errorf("stager: %s: terms %d and %d have the same exponents (like terms must be combined)",
					polyName(s, i), prev+1, j+1)
			}
			seen[key.String()] = j
		}
	}
	return nil
}

// maxExponent bounds exponents so that the table of powers stays small.
const maxExponent = 1 << 20

func polyName(s *System, i int) string {
	if s.Source != "" {
		return fmt.Sprintf("%s: polynomial %d", s.Source, i+1)
	}
	return fmt.Sprintf("polynomial %d", i+1)
}

// Bytes returns the size in bytes of the data array of p at n limbs per
// coefficient (×2 for complex data): (Degree+1)·NumSlots·8·n, or -1 when
// that overflows an int64.
func (p *Plan) Bytes(n int, complex bool) int64 {
	f := new(big.Int).SetInt64(int64(p.Degree) + 1)
	f.Mul(f, big.NewInt(int64(p.NumSlots())))
	f.Mul(f, big.NewInt(8*int64(n)))
	if complex {
		f.Lsh(f, 1)
	}
	if !f.IsInt64() {
		return -1
	}
	return f.Int64()
}

// DoublesPerLimb returns the number of doubles in the data array of one limb
// (and one part, real or imaginary): (Degree+1)·NumSlots, or -1 when that
// overflows an int64.
func (p *Plan) DoublesPerLimb() int64 {
	b := p.Bytes(1, false)
	if b < 0 {
		return -1
	}
	return b / 8
}
