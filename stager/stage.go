package stager

import (
	"container/heap"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/mdgen/mdgen/internal/par"
	"github.com/mdgen/mdgen/stager/poly"
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
// coefficient is zero is left out.
//
// Cost: Stage takes time and memory linear in the size of s (its terms and
// their variables) plus the sizes of the job tables it makes; nothing is
// sized by NumPolys·NumVars except the optional dense table Plan.Deriv (see
// denseDeriv). Before it allocates anything big, Stage counts the slots and
// jobs exactly and refuses, with the sizes, a plan whose tables and data
// array at one limb of real data (the least any executor needs) would not
// fit in the available memory. Executors check their precision with
// p.CheckMemory(n, complex).
//
// Stage's passes over the polynomials run on every core (GOMAXPROCS), on
// contiguous chunks of polynomials whose results are merged in polynomial
// order (see stage_par.go): the Plan, and the error of an invalid system,
// do not depend on the number of cores.
//
// The Plan is deterministic: the same System and degree give the same Plan.
func Stage(s *poly.System, degree int) (*Plan, error) {
	if s == nil {
		return nil, errors.New("stager: Stage of a nil system")
	}
	if degree < 0 {
		return nil, fmt.Errorf("stager: negative degree %d", degree)
	}
	if err := validate(s); err != nil {
		return nil, err
	}
	sv, err := survey(s, degree)
	if err != nil {
		return nil, err
	}
	// Refuse before allocating: every table Stage makes, and the data array
	// at one limb of real data (the least any executor needs).
	if err := sv.estimate(1, false).check(true); err != nil {
		return nil, fmt.Errorf("stager: %w", err)
	}
	n := len(s.Vars)
	np := len(s.Polys)
	plan := &Plan{
		Degree:   degree,
		NumVars:  n,
		NumPolys: np,
		System:   s,
	}

	// Slots: [constants | coefficients | exponent factors | inputs | work],
	// each kind a range known from the survey.
	nro := sv.consts + sv.monos + len(sv.exps)
	workBase := nro + n
	plan.Kinds = make([]SlotKind, sv.slots)
	for k := range plan.Kinds {
		switch {
		case k < sv.consts:
			plan.Kinds[k] = SlotConst
		case k < nro:
			plan.Kinds[k] = SlotCoef
		case k < workBase:
			plan.Kinds[k] = SlotInput
		default:
			plan.Kinds[k] = SlotWork
		}
	}
	chunks := polyChunks(np, func(i int) int { return len(sv.polys[i]) + 1 })
	nch := len(chunks) - 1

	// Read-only slots: constants, then coefficients (term j of the
	// surviving terms of polynomial i in slot coefBase[i]+j), then exponent
	// factors. The Plan shares their coefficients with the System (see
	// readOnly).
	values := make([]poly.Series, nro)
	consts := make([]Slot, np)
	next := 0
	for i := range consts {
		consts[i] = NoSlot
		if c := sv.constOf[i]; len(c) > 0 {
			consts[i] = Slot(next)
			values[next] = readOnly(c)
			next++
		}
	}
	coefBase := make([]Slot, np)
	for i := range coefBase {
		coefBase[i] = Slot(next)
		next += len(sv.polys[i])
	}
	par.Run(nch, func(_, k int) {
		for i := chunks[k]; i < chunks[k+1]; i++ {
			for j, tj := range sv.polys[i] {
				values[int(coefBase[i])+j] = readOnly(truncate(s.Polys[i].Terms[tj].Coef, degree))
			}
		}
	})
	// One slot per distinct exponent a >= 2 that occurs, in increasing order.
	expSlot := make(map[int]Slot, len(sv.exps))
	for _, a := range sv.exps {
		var r poly.Rational
		r.Re.SetInt64(int64(a))
		expSlot[a] = Slot(next)
		values[next] = poly.Series{r}
		next++
	}

	// The Values map (millions of entries for a large system) is filled by
	// a goroutine of its own while the jobs are staged: they never read it.
	valuesDone := make(chan map[Slot]poly.Series, 1)
	go func(ro []poly.Series) {
		m := make(map[Slot]poly.Series, len(ro))
		for s, v := range ro {
			m[Slot(s)] = v
		}
		valuesDone <- m
	}(values)
	values = nil // (an error return leaves the goroutine to finish into the buffered channel)

	// Inputs.
	plan.Inputs = make([]Slot, n)
	for v := range n {
		plan.Inputs[v] = Slot(nro + v)
	}

	// The jobs are staged in two passes over the same code. Every monomial
	// makes its work slots and jobs from its own inputs: its slot numbers
	// are known from the survey (a base per chunk) and the layer of each
	// job depends only on the availability of the slots it reads, which are
	// read-only, powers (staged first) or made by the same polynomial. The
	// first pass, on every core, counts each chunk's jobs per layer; the
	// layers are then allocated at their exact sizes, each chunk's jobs
	// placed after those of the chunks before it (the powers first); the
	// second pass writes them there. That is the order in which one
	// sequential pass appends them, so the Plan does not depend on the
	// workers.
	avail := make([]int32, sv.slots)
	pb := &builder{plan: plan, avail: avail, next: Slot(workBase)}
	// Table of powers: x_v^k for the k needed, by variable and then k
	// increasing (x_v^1 is z_v).
	pow := make(map[powKey]Slot, sv.powJobs)
	powOf := func(v, k int) Slot {
		if k == 1 {
			return plan.Inputs[v]
		}
		return pow[powKey{v, k}]
	}
	stagePowers := func() {
		for _, vp := range sv.powers {
			for _, k := range vp.ks {
				pow[powKey{vp.v, k}] = pb.conv(powOf(vp.v, (k+1)/2), powOf(vp.v, k/2))
			}
		}
	}
	stagePowers()
	cb := make([]*builder, nch)
	base := int64(workBase + sv.powJobs)
	for k := range cb {
		cb[k] = &builder{plan: plan, avail: avail, next: Slot(base), first: Slot(base)}
		for i := chunks[k]; i < chunks[k+1]; i++ {
			base += sv.polyConv[i]
		}
	}
	if base != int64(sv.slots) {
		return nil, fmt.Errorf("stager: internal error: %d slots numbered, %d counted", base, sv.slots)
	}

	// Monomials, and the term lists of the outputs. The derivative lists of
	// a polynomial are kept for its variables only: pos[v] indexes the list
	// of variable v in the polynomial being staged (-1: none yet).
	inSum := make([]bool, sv.slots)
	scr := make([]*stageScratch, par.Workers(nch))
	scratch := func(w int) *stageScratch {
		if scr[w] == nil {
			sc := &stageScratch{pos: make([]int32, n)}
			for v := range sc.pos {
				sc.pos[v] = -1
			}
			scr[w] = sc
		}
		return scr[w]
	}
	stagePolys := func(b *builder, lo, hi int) error {
		sc := b.sc
		for i := lo; i < hi; i++ {
			ms := sv.polys[i]
			valueTerms := sc.valueTerms[:0]
			derivVars := sc.derivVars[:0]
			derivTerms := sc.derivTerms
			for j, tj := range ms {
				m := &s.Polys[i].Terms[tj]
				c := coefBase[i] + Slot(j)
				sc.factors = append(sc.factors[:0], c)
				for k, v := range m.Vars {
					if a := m.Pows[k]; a >= 2 {
						sc.factors = append(sc.factors, powOf(v, a-1))
					}
				}
				if len(sc.factors) > 1 {
					c = b.productTree(sc.factors)
				}
				sc.xs = sc.xs[:0]
				for _, v := range m.Vars {
					sc.xs = append(sc.xs, plan.Inputs[v])
				}
				val, ders := b.multilinear(c, sc.xs)
				valueTerms = append(valueTerms, val)
				for k, v := range m.Vars {
					d := ders[k]
					if a := m.Pows[k]; a >= 2 {
						d = b.conv(d, expSlot[a])
					}
					if sc.pos[v] < 0 {
						sc.pos[v] = int32(len(derivVars))
						derivVars = append(derivVars, v)
						if len(derivTerms) < len(derivVars) {
							derivTerms = append(derivTerms, nil)
						}
						derivTerms[sc.pos[v]] = derivTerms[sc.pos[v]][:0]
					}
					derivTerms[sc.pos[v]] = append(derivTerms[sc.pos[v]], d)
				}
			}
			sc.valueTerms, sc.derivVars, sc.derivTerms = valueTerms, derivVars, derivTerms
			if consts[i] != NoSlot {
				valueTerms = append(valueTerms, consts[i])
				sc.valueTerms = valueTerms
			}

			// Additions: one tree per output, all trees sharing the layers;
			// the value first, then the derivatives by increasing variable.
			out, err := b.sum(valueTerms, inSum)
			if err != nil {
				sc.reset()
				return fmt.Errorf("stager: value of %s: %w", polyName(s, i), err)
			}
			slices.Sort(derivVars)
			var row []Partial
			if b.write {
				plan.Value[i] = out
				row = make([]Partial, 0, len(derivVars))
			}
			for _, v := range derivVars {
				out, err := b.sum(derivTerms[sc.pos[v]], inSum)
				if err != nil {
					sc.reset()
					return fmt.Errorf("stager: ∂%s/∂%s: %w", polyName(s, i), s.Vars[v], err)
				}
				if b.write {
					row = append(row, Partial{Var: int32(v), Slot: out})
				}
				sc.pos[v] = -1
			}
			if b.write {
				plan.Partials[i] = row
			}
		}
		return nil
	}
	errs := make([]error, nch)
	par.Run(nch, func(w, k int) {
		cb[k].sc = scratch(w)
		errs[k] = stagePolys(cb[k], chunks[k], chunks[k+1])
	})
	if err := firstErr(errs); err != nil {
		return nil, err
	}

	// The layers at their exact sizes, and where each builder writes.
	plan.ConvLayers = placeJobs[ConvJob](append([]*builder{pb}, cb...),
		func(b *builder) *[]int { return &b.convN }, func(b *builder) *[]int { return &b.convAt })
	plan.AddLayers = placeJobs[AddJob](cb,
		func(b *builder) *[]int { return &b.addN }, func(b *builder) *[]int { return &b.addAt })

	// The second pass.
	pb.write, pb.next = true, Slot(workBase)
	stagePowers()
	plan.Value = make([]Slot, np)
	plan.Partials = make([][]Partial, np)
	par.Run(nch, func(w, k int) {
		b := cb[k]
		b.write, b.next, b.sc = true, Slot(b.first), scratch(w)
		errs[k] = stagePolys(b, chunks[k], chunks[k+1])
	})
	if err := firstErr(errs); err != nil {
		return nil, fmt.Errorf("stager: internal error in the second pass: %w", err)
	}
	nnz := 0
	for _, row := range plan.Partials {
		nnz += len(row)
	}
	if denseDeriv(np, n, nnz) {
		plan.Deriv = make([][]Slot, np)
		for i, row := range plan.Partials {
			d := make([]Slot, n)
			for v := range d {
				d[v] = NoSlot
			}
			for _, e := range row {
				d[e.Var] = e.Slot
			}
			plan.Deriv[i] = d
		}
	}
	if plan.ConvJobs() != sv.convJobs || plan.AddJobs() != sv.addJobs {
		return nil, fmt.Errorf("stager: internal error: %d slots, %d/%d jobs staged, %d slots, %d/%d jobs counted",
			len(plan.Kinds), plan.ConvJobs(), plan.AddJobs(), sv.slots, sv.convJobs, sv.addJobs)
	}
	plan.Values = <-valuesDone
	return plan, nil
}

// placeJobs allocates job layers at the sizes the builders counted (count
// returns a builder's counts per layer) and gives each builder, in order,
// its first position in every layer (at returns where to store them).
func placeJobs[J any](bs []*builder, count, at func(*builder) *[]int) [][]J {
	nl := 0
	for _, b := range bs {
		nl = max(nl, len(*count(b)))
	}
	pos := make([]int, nl)
	for _, b := range bs {
		a := make([]int, len(*count(b)))
		for l, c := range *count(b) {
			a[l] = pos[l]
			pos[l] += c
		}
		*at(b) = a
	}
	if nl == 0 {
		return nil
	}
	layers := make([][]J, nl)
	for l, c := range pos {
		if c > 0 {
			layers[l] = make([]J, c)
		}
	}
	return layers
}

// denseDeriv reports whether Stage fills the dense table Plan.Deriv for np
// polynomials in nv variables with nnz nonzero derivatives: when the table
// is small (at most 2^20 entries) or at most 4 times the sparse lists.
func denseDeriv(np, nv, nnz int) bool {
	cells := int64(np) * int64(nv)
	return cells <= denseDerivCells || cells <= 4*int64(nnz)
}

const denseDerivCells = 1 << 20

type powKey struct{ v, k int }

// stageSurvey is what Stage learns from one pass over a System before it
// allocates the Plan: the monomials that survive truncation, the exponent
// slots and powers they need, and the exact numbers of slots and jobs.
type stageSurvey struct {
	degree   int
	constOf  []poly.Series // truncated constant terms, per polynomial
	polys    [][]int32     // the terms that survive truncation, per polynomial (indices into Terms)
	polyConv []int64       // convolution jobs (= work slots) of the monomials, per polynomial
	exps     []int         // distinct exponents a >= 2, increasing
	powers   []stagePowers // powers x_v^k (k >= 2) to make, by variable
	powJobs  int           // jobs of the table of powers
	consts   int           // constant slots
	monos    int           // coefficient slots (monomials)
	slots    int           // all slots
	convJobs int
	addJobs  int
	partials int   // nonzero derivatives over all polynomials
	layers   int   // an upper bound on the number of layers, for the estimate
	valueMem int64 // bytes of the exact read-only Values
	npolys   int
	nvars    int
	// Stage's temporary tables at their largest: term lists and indices.
	staging int64
}

type stagePowers struct {
	v  int
	ks []int // increasing, each >= 2
}

// seriesRange checks that every coefficient of c rounds to a finite,
// normal double, as Parse does with positions: a System made in code (not
// read) gets the same guarantee before any executor rounds it.
func seriesRange(c poly.Series) error {
	for k := range c {
		if msg := c[k].DoubleRange(); msg != "" {
			return fmt.Errorf("coefficient %s of t^%d %s", c[k].Text(), k, msg)
		}
	}
	return nil
}

// survey makes the first pass of Stage over a validated s, on every core:
// each chunk of polynomials counts into a surveyPart of its own, and the
// parts are added up in order.
func survey(s *poly.System, degree int) (*stageSurvey, error) {
	n := len(s.Vars)
	sv := &stageSurvey{degree: degree, npolys: len(s.Polys), nvars: n}
	sv.constOf = make([]poly.Series, len(s.Polys))
	sv.polys = make([][]int32, len(s.Polys))
	sv.polyConv = make([]int64, len(s.Polys))
	chunks := polyChunks(len(s.Polys), func(i int) int { return len(s.Polys[i].Terms) })
	parts := make([]surveyPart, len(chunks)-1)
	type scratch struct{ pos, cnt []int32 }
	scr := make([]scratch, par.Workers(len(parts)))
	par.Run(len(parts), func(w, k int) {
		if scr[w].pos == nil {
			// pos: variable → last polynomial (1-based) that used it; cnt:
			// variable → terms of its derivative list there. Polynomials
			// are distinct, so a worker never resets them.
			scr[w] = scratch{make([]int32, n), make([]int32, n)}
		}
		parts[k].err = sv.surveyPolys(s, chunks[k], chunks[k+1], &parts[k], scr[w].pos, scr[w].cnt)
	})
	usedExp := map[int]bool{}
	need := map[int][]int{} // variable → powers k = a-1 >= 2 that monomials need
	var maxTerms int
	for k := range parts {
		pt := &parts[k]
		if pt.err != nil {
			return nil, pt.err
		}
		sv.consts += pt.consts
		sv.monos += pt.monos
		sv.valueMem += pt.valueMem
		sv.convJobs += pt.convJobs
		sv.addJobs += pt.addJobs
		sv.partials += pt.partials
		sv.layers = max(sv.layers, pt.layers)
		maxTerms = max(maxTerms, pt.maxTerms)
		for a := range pt.usedExp {
			usedExp[a] = true
		}
		for v, ks := range pt.need {
			need[v] = append(need[v], ks...)
		}
	}
	for a := range usedExp {
		sv.exps = append(sv.exps, a)
	}
	slices.Sort(sv.exps)
	for range sv.exps {
		sv.valueMem += seriesBytes(poly.Series{{}}) + 8
	}
	// The powers x^k = x^⌈k/2⌉·x^⌊k/2⌋ needed, closed under halving.
	vars := make([]int, 0, len(need))
	for v := range need {
		vars = append(vars, v)
	}
	slices.Sort(vars)
	maxPowJobs := 0
	for _, v := range vars {
		set := map[int]bool{}
		stack := need[v]
		for len(stack) > 0 {
			k := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if k < 2 || set[k] {
				continue
			}
			set[k] = true
			stack = append(stack, (k+1)/2, k/2)
		}
		ks := make([]int, 0, len(set))
		for k := range set {
			ks = append(ks, k)
		}
		slices.Sort(ks)
		sv.powers = append(sv.powers, stagePowers{v: v, ks: ks})
		sv.powJobs += len(ks)
		maxPowJobs = max(maxPowJobs, bits.Len(uint(ks[len(ks)-1])))
	}
	sv.convJobs += sv.powJobs
	sv.slots = sv.consts + sv.monos + len(sv.exps) + n + sv.convJobs
	if sv.slots > math.MaxInt32 {
		return nil, fmt.Errorf("stager: %d slots, more than a Slot (int32) can number", sv.slots)
	}
	// Convolution layers: at most the longest chain (powers, the product
	// tree of c', the forward products, the exponent factor); addition
	// layers: ⌈log2⌉ of the longest list.
	sv.layers += 2*maxPowJobs + 64 + bits.Len(uint(maxTerms))
	// Stage's temporaries: per slot its layer (4 bytes) and a flag (1), the
	// Values map's own table and the list it is made from (a slice header
	// per read-only slot), the coefficient slots and the surviving terms'
	// indices (4 bytes each), and the term lists of one polynomial at a
	// time (bounded by the whole).
	sv.staging = int64(sv.slots)*5 + int64(sv.monos)*8 + int64(n)*4 +
		int64(sv.consts+sv.monos+len(sv.exps))*(valueEntryBytes+sliceHeaderBytes) +
		int64(sv.powJobs)*powEntryBytes + 4*int64(maxTerms+sv.addJobs)
	return sv, nil
}

// surveyPart is what survey learns from one chunk of polynomials.
type surveyPart struct {
	consts, monos, convJobs, addJobs, partials, layers, maxTerms int
	valueMem                                                     int64
	usedExp                                                      map[int]bool
	need                                                         map[int][]int
	err                                                          error
}

// surveyPolys surveys polynomials [lo, hi) of s into pt and sv's
// per-polynomial tables; it stops at the first error.
func (sv *stageSurvey) surveyPolys(s *poly.System, lo, hi int, pt *surveyPart, pos, cnt []int32) error {
	degree := sv.degree
	pt.usedExp = map[int]bool{}
	pt.need = map[int][]int{}
	for i := lo; i < hi; i++ {
		maxList := 0
		if c := truncate(s.Polys[i].Const, degree); len(c) > 0 {
			if err := seriesRange(c); err != nil {
				return fmt.Errorf("stager: %s, constant term: %w", polyName(s, i), err)
			}
			sv.constOf[i] = c
			pt.consts++
			pt.valueMem += seriesBytes(c)
		}
		conv := 0
		for j, t := range s.Polys[i].Terms {
			c := truncate(t.Coef, degree)
			if len(c) == 0 {
				continue
			}
			if len(t.Vars) == 0 {
				return fmt.Errorf("stager: %s: constant term among the monomials", polyName(s, i))
			}
			if err := seriesRange(c); err != nil {
				return fmt.Errorf("stager: %s, term %d: %w", polyName(s, i), j+1, err)
			}
			if sv.polys[i] == nil {
				sv.polys[i] = make([]int32, 0, len(s.Polys[i].Terms)-j)
			}
			sv.polys[i] = append(sv.polys[i], int32(j))
			pt.monos++
			pt.valueMem += seriesBytes(c)
			m := len(t.Vars)
			switch m {
			case 1:
				conv++
			case 2:
				conv += 3
			default:
				conv += 3*m - 3
			}
			pt.addJobs += m // one more term in each derivative list
			for k, v := range t.Vars {
				a := t.Pows[k]
				if a >= 2 {
					pt.usedExp[a] = true
					conv += 2 // a factor of c' and the exponent factor
					if a >= 3 {
						pt.need[v] = append(pt.need[v], a-1)
					}
				}
				if pos[v] != int32(i+1) {
					pos[v] = int32(i + 1)
					cnt[v] = 0
					pt.partials++
					pt.addJobs-- // a list of L terms takes L-1 additions
				}
				cnt[v]++
				maxList = max(maxList, int(cnt[v]))
			}
			pt.layers = max(pt.layers, m)
		}
		sv.polyConv[i] = int64(conv)
		pt.convJobs += conv
		terms := len(sv.polys[i])
		if sv.constOf[i] != nil {
			terms++
		}
		if terms > 0 {
			pt.addJobs += terms - 1
		}
		pt.maxTerms = max(pt.maxTerms, terms, maxList)
	}
	return nil
}

// builder stages the jobs of the table of powers or of one chunk of
// polynomials: it numbers their work slots from first on, and either counts
// its jobs per layer (the first pass) or writes them at the places
// placeJobs gave it (write, the second pass).
type builder struct {
	plan   *Plan
	avail  []int32 // per slot: the first conv layer that may read it (shared; a builder writes its own slots' only)
	first  Slot    // the builder's first work slot
	next   Slot    // the next work slot
	write  bool
	convN  []int // jobs per layer, counted
	addN   []int
	convAt []int // where the next job of each layer goes, when writing
	addAt  []int
	sc     *stageScratch
}

// stageScratch is one worker's scratch space for staging polynomials.
type stageScratch struct {
	pos            []int32 // variable → its derivative list in the polynomial being staged, or -1
	derivVars      []int
	derivTerms     [][]Slot
	valueTerms     []Slot
	factors, xs    []Slot
	d, f, bw, work []Slot
}

// reset marks every variable of the polynomial being staged as having no
// derivative list (after an error, for the next polynomial of the worker).
func (sc *stageScratch) reset() {
	for _, v := range sc.derivVars {
		sc.pos[v] = -1
	}
}

// readOnly returns v for a read-only slot. The Plan shares v's
// coefficients with its System (Plan.System is kept for Check anyway):
// neither Stage nor an executor writes them, and a copy would double the
// memory of a large system (16.7 million coefficients for chandra4096).
// The slice is capped so that an append to it cannot write into the
// System.
func readOnly(v poly.Series) poly.Series { return v[:len(v):len(v)] }

// conv makes the job Out = A*B in the earliest layer where A and B are
// available and returns Out.
func (b *builder) conv(a, c Slot) Slot {
	out := b.next
	b.next++
	l := int(max(b.avail[a], b.avail[c]))
	if b.write {
		b.plan.ConvLayers[l][b.convAt[l]] = ConvJob{Out: out, A: a, B: c}
		b.convAt[l]++
	} else {
		for len(b.convN) <= l {
			b.convN = append(b.convN, 0)
		}
		b.convN[l]++
	}
	b.avail[out] = int32(l + 1)
	return out
}

// productTree multiplies the factors (at least two), always the two that are
// available earliest first (ties: the first in the list; the product takes
// the place of the first of the two), and returns the slot of the product.
// A heap ordered by (layer, place) makes that O(f log f) for f factors.
func (b *builder) productTree(fs []Slot) Slot {
	h := make(factorHeap, len(fs))
	for k, s := range fs {
		h[k] = factorItem{avail: int(b.avail[s]), place: k, slot: s}
	}
	heap.Init(&h)
	for h.Len() > 1 {
		x := heap.Pop(&h).(factorItem)
		y := heap.Pop(&h).(factorItem)
		if y.place < x.place {
			x, y = y, x
		}
		out := b.conv(x.slot, y.slot)
		heap.Push(&h, factorItem{avail: int(b.avail[out]), place: x.place, slot: out})
	}
	return h[0].slot
}

type factorItem struct {
	avail, place int
	slot         Slot
}

type factorHeap []factorItem

func (h factorHeap) Len() int { return len(h) }
func (h factorHeap) Less(i, j int) bool {
	return h[i].avail < h[j].avail || h[i].avail == h[j].avail && h[i].place < h[j].place
}
func (h factorHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *factorHeap) Push(x any)   { *h = append(*h, x.(factorItem)) }
func (h *factorHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// multilinear stages c·x[0]···x[m-1] and returns the slot of its value and
// the slots of its derivatives with respect to each x[k].
func (b *builder) multilinear(c Slot, x []Slot) (Slot, []Slot) {
	m := len(x)
	sc := b.sc
	sc.d = slices.Grow(sc.d[:0], m)[:m]
	d := sc.d
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
	sc.f = slices.Grow(sc.f[:0], m)[:m]
	f := sc.f
	f[0] = b.conv(c, x[0])
	for j := 1; j < m; j++ {
		f[j] = b.conv(f[j-1], x[j])
	}
	sc.bw = slices.Grow(sc.bw[:0], m-2)[:m-2]
	bw := sc.bw // bw[j] = x[m-1]···x[m-2-j], j+2 factors
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
	work := b.sc.work[:0]
	for _, t := range terms {
		if b.plan.Kinds[t] != SlotWork {
			if ro != NoSlot {
				return NoSlot, fmt.Errorf("two read-only terms, slots %d and %d (repeated monomials?)", ro, t)
			}
			ro = t
			continue
		}
		if !b.write { // (the second pass finds the flags of the first)
			if inSum[t] {
				return NoSlot, fmt.Errorf("internal error: work slot %d in two sums", t)
			}
			inSum[t] = true
		}
		work = append(work, t)
	}
	if ro != NoSlot {
		work = append(work, ro)
	}
	b.sc.work = work
	terms = work
	for l, step := 0, 1; step < len(terms); l, step = l+1, step*2 {
		if !b.write {
			for len(b.addN) <= l {
				b.addN = append(b.addN, 0)
			}
			b.addN[l] += (len(terms) - step + 2*step - 1) / (2 * step) // the i below
			continue
		}
		at := b.addAt[l]
		for i := 0; i+step < len(terms); i += 2 * step {
			b.plan.AddLayers[l][at] = AddJob{Dst: terms[i], Src: terms[i+step]}
			at++
		}
		b.addAt[l] = at
	}
	return terms[0], nil
}

// truncate returns s without the coefficients of t^k for k > degree and
// without trailing zeros.
func truncate(s poly.Series, degree int) poly.Series {
	if len(s)-1 > degree { // not degree+1: it overflows at math.MaxInt
		s = s[:degree+1]
	}
	for len(s) > 0 && s[len(s)-1].IsZero() {
		s = s[:len(s)-1]
	}
	return s
}

// validate checks the invariants of a System that Stage relies on.
//
// Repeated exponent vectors are found by a 64-bit hash of each term's
// vector in one map per worker, reused by its polynomials (a string key per term was
// most of validate's time and memory on 16.7 million terms); a hash that
// matches a different vector sends that polynomial to the exact check by
// string keys, so the error names the same terms either way.
func validate(s *poly.System) error {
	chunks := polyChunks(len(s.Polys), func(i int) int { return len(s.Polys[i].Terms) })
	errs := make([]error, len(chunks)-1)
	seen := make([]map[uint64]int32, par.Workers(len(errs)))
	par.Run(len(errs), func(w, k int) {
		if seen[w] == nil {
			seen[w] = make(map[uint64]int32)
		}
		for i := chunks[k]; i < chunks[k+1]; i++ {
			if err := validatePoly(s, i, seen[w]); err != nil {
				errs[k] = err
				return
			}
		}
	})
	return firstErr(errs)
}

// validatePoly checks polynomial i of s; seen is a map it may clear and use.
func validatePoly(s *poly.System, i int, seen map[uint64]int32) error {
	n := len(s.Vars)
	clear(seen)
	collision := false
	for j, t := range s.Polys[i].Terms {
		if len(t.Pows) != len(t.Vars) {
			return fmt.Errorf("stager: %s, term %d: %d variables but %d exponents",
				polyName(s, i), j+1, len(t.Vars), len(t.Pows))
		}
		h := uint64(14695981039346656037)
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
			h = (h ^ uint64(v)) * 1099511628211
			h = (h ^ uint64(t.Pows[k])) * 1099511628211
		}
		if collision {
			continue
		}
		if prev, ok := seen[h]; ok {
			q := s.Polys[i].Terms[prev]
			if slices.Equal(q.Vars, t.Vars) && slices.Equal(q.Pows, t.Pows) {
				return fmt.Errorf("stager: %s: terms %d and %d have the same exponents (like terms must be combined)",
					polyName(s, i), prev+1, j+1)
			}
			collision = true
			continue
		}
		seen[h] = int32(j)
	}
	if collision {
		return repeatedTerms(s, i)
	}
	return nil
}

// repeatedTerms finds repeated exponent vectors in polynomial i (whose terms
// validate checked otherwise) by exact string keys.
func repeatedTerms(s *poly.System, i int) error {
	seen := make(map[string]int) // exponent vector → term index; lookups only
	var key strings.Builder
	for j, t := range s.Polys[i].Terms {
		key.Reset()
		for k, v := range t.Vars {
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
	return nil
}

// maxExponent bounds exponents so that the table of powers stays small.
const maxExponent = 1 << 20

// polyName names polynomial i of s in a message: with the file and the
// line and column where it begins when s was read from a file.
func polyName(s *poly.System, i int) string {
	if s.Source != "" && i < len(s.PolyPos) && len(s.PolyPos) == len(s.Polys) {
		return fmt.Sprintf("%s:%d:%d: polynomial %d", s.Source, s.PolyPos[i].Line, s.PolyPos[i].Col, i+1)
	}
	if s.Source != "" {
		return fmt.Sprintf("%s: polynomial %d", s.Source, i+1)
	}
	return fmt.Sprintf("polynomial %d", i+1)
}

// Bytes returns the size in bytes of the data array of p at n limbs per
// coefficient (×2 for complex data): (Degree+1)·NumSlots·8·n, or -1 when
// that overflows an int64.
func (p *Plan) Bytes(n int, complex bool) int64 {
	return bytesOf(p.Degree, p.NumSlots(), n, complex)
}

// bytesOf is (degree+1)·slots·8·n (×2 complex), or -1 on overflow.
func bytesOf(degree, slots, n int, complex bool) int64 {
	f := new(big.Int).SetInt64(int64(degree) + 1)
	f.Mul(f, big.NewInt(int64(slots)))
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
