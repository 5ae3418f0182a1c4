package alg

import (
	"math"
	"math/big"
	"math/rand/v2"
)

// ComplexOpsMeasured lists the complex operations with an accuracy corpus
// (cadd and csub are two real additions each).
var ComplexOpsMeasured = []string{"cmul", "cmadd", "cdiv", "cabs"}

// ComplexCase is one input of a complex accuracy corpus: a = A[0] + i A[1],
// b = B[0] + i B[1] (cmul, cdiv; the factors x = a and y = b of cmadd) and
// the accumulator acc = C[0] + i C[1] of cmadd. cabs reads a only.
type ComplexCase struct {
	Kind    string
	A, B, C [2][]float64
}

// ComplexCorpus returns count cases for the complex operation op (cmul,
// cmadd, cdiv, cabs) on n-doubles, with exponents over the whole range in
// which every quantity that a part's accuracy is measured against (see
// ComplexReference) stays in ResultExpRange(n) = [rlo, rhi] and no
// intermediate of the formulas overflows. With ea and eb the leading
// exponents of a's and b's larger parts, and da, db >= 0 how far below them
// the smaller parts lie:
//
//   - cmul, cmadd: every product of parts is below 2^(ea+eb+2), the sum of
//     two (three with acc, which is drawn below 2^(rhi-1)) below 2^(rhi+1):
//     ea+eb <= rhi-2 (cmadd: rhi-3). Each part's scale |ar br| + |ai bi|
//     (resp. |ar bi| + |ai br|) is at least 2^(ea+eb-max(da,db)) >= 2^rlo.
//   - cdiv (a conj(b) / |b|^2 on operands scaled exactly so that |b| is
//     near 1/2, which cannot overflow when the quotient is finite): b
//     anywhere in float64's range, eb in [-1074+db, rhi]; the quotient's
//     scale |a|/|b| in (2^(ea-eb-1.5), 2^(ea-eb+1.5)): ea-eb in [rlo+1,
//     rhi-1].
//   - cabs (sqrt(ar^2 + ai^2) on a scaled exactly so that its larger part
//     is near 1): |a| in [2^ea, 2^(ea+1.5)): ea in [rlo, rhi-1].
//
// Every part's leading exponent is at least -1074 (subnormal leading limbs
// of small parts included). The kinds: random parts (da, db in 0..60),
// far (the smaller part far below the larger one's last limb), cancel (the
// real part of a*b, or acc + x*y, cancels to far below its terms), sparse
// limbs, powers of two, and a zero part.
func ComplexCorpus(op string, n, count int, seed uint64) []ComplexCase {
	g := &corpusGen{n: n, rng: rand.New(rand.NewPCG(seed, uint64(n)*0xD1B54A32D192ED03+uint64(len(op))))}
	kinds := []string{"random", "far", "cancel", "sparse", "pow2", "zero"}
	var cs []ComplexCase
	for i := 0; len(cs) < count; i++ {
		c := g.complexCase(op, kinds[i%len(kinds)])
		cs = append(cs, c)
	}
	return cs
}

// complexExps draws ea, eb, da, db for op and kind (see ComplexCorpus),
// retrying until the constraints have a solution.
func (g *corpusGen) complexExps(op, kind string) (ea, eb, da, db int) {
	n, r := g.n, g.rng
	rlo, rhi := ResultExpRange(n)
	for {
		gap := func() int {
			if kind == "far" && r.IntN(2) == 0 {
				return 53*n + r.IntN(100)
			}
			return r.IntN(61)
		}
		da, db = gap(), gap()
		dm := max(da, db)
		switch op {
		case "cabs":
			ea = g.uniform(rlo, rhi-1)
			if ea-da < MinSubnormalExp {
				continue
			}
			return ea, ea, da, db
		case "cdiv":
			eb = g.uniform(MinSubnormalExp+db, rhi)
			lo := max(rlo+1+eb, MinSubnormalExp+da)
			hi := min(rhi-1+eb, rhi)
			if lo > hi {
				continue
			}
			return g.uniform(lo, hi), eb, da, db
		default: // cmul, cmadd
			top := rhi - 2
			if op == "cmadd" {
				top = rhi - 3
			}
			if rlo+dm > top {
				continue
			}
			s := g.uniform(rlo+dm, top) // ea + eb
			lo := max(MinSubnormalExp+da, s-rhi)
			hi := min(rhi, s-MinSubnormalExp-db)
			if lo > hi {
				continue
			}
			ea = g.uniform(lo, hi)
			return ea, s - ea, da, db
		}
	}
}

// complexValue draws a complex N-double whose larger part has leading
// exponent e and whose smaller part lies d binades below, shaped by kind.
func (g *corpusGen) complexValue(kind string, e, d int) [2][]float64 {
	n, r := g.n, g.rng
	part := func(e int) []float64 {
		switch kind {
		case "sparse":
			return g.sparse(e)
		case "pow2":
			v := make([]float64, n)
			v[0] = math.Ldexp(1, e)
			if r.IntN(2) == 0 {
				v[0] = -v[0]
			}
			return RoundToN(Exact(v), n)
		}
		return g.random(e)
	}
	v := [2][]float64{part(e), part(e - d)}
	if kind == "zero" {
		v[1] = make([]float64, n)
	}
	if r.IntN(2) == 0 {
		v[0], v[1] = v[1], v[0]
	}
	return v
}

func (g *corpusGen) complexCase(op, kind string) ComplexCase {
	n, r := g.n, g.rng
	ea, eb, da, db := g.complexExps(op, kind)
	c := ComplexCase{Kind: kind, A: g.complexValue(kind, ea, da)}
	if op == "cabs" {
		return c
	}
	c.B = g.complexValue(kind, eb, db)
	if kind == "cancel" && op != "cmadd" {
		// b = 2^(eb-ea) (p + t, q) with t near p's last limb: for cmul
		// (p, q) = (ai, ar), so that re(a b) = ar br - ai bi = 2^(eb-ea) ar t
		// cancels deeply; for cdiv (p, q) = (ar, ai), so that b is nearly a
		// real multiple of a and the quotient's imaginary part,
		// 2^(eb-ea) ai t / |b|^2, is tiny against |a|/|b|.
		p, q := c.A[1], c.A[0]
		if op == "cdiv" {
			p, q = c.A[0], c.A[1]
		}
		et := ea - 53*n - r.IntN(60)
		if p[0] != 0 {
			_, fe := math.Frexp(p[0])
			et = fe - 1 - 53*n + 20 - r.IntN(80)
		}
		t := new(big.Float).SetPrec(8000).Add(Exact(p), Exact(g.random(max(et, MinSubnormalExp))))
		c.B[0] = g.scaled(RoundToN(t, n), eb-ea)
		c.B[1] = g.scaled(q, eb-ea)
	}
	if op == "cmadd" {
		c.C = g.complexAcc(kind, c.A, c.B)
	}
	return c
}

// complexAcc draws cmadd's accumulator for factors x and y: near the
// product's parts, or (kind cancel) cancelling them down to a remainder far
// below, or zero.
func (g *corpusGen) complexAcc(kind string, x, y [2][]float64) [2][]float64 {
	n, r := g.n, g.rng
	_, rhi := ResultExpRange(n)
	re, im := complexProduct(x, y)
	var acc [2][]float64
	for k, p := range []*big.Float{re, im} {
		ep := MinSubnormalExp
		if p.Sign() != 0 {
			ep = p.MantExp(nil) - 1
		}
		switch {
		case kind == "zero":
			acc[k] = make([]float64, n)
		case kind == "cancel":
			t := new(big.Float).SetPrec(8000).Set(Exact(g.random(max(ep-1-r.IntN(53*n+40), MinSubnormalExp))))
			acc[k] = RoundToN(t.Sub(t, p), n)
		default:
			acc[k] = g.random(min(ep-r.IntN(60)+30, rhi-2))
		}
	}
	return acc
}

// complexProduct returns the exact parts of x*y.
func complexProduct(x, y [2][]float64) (re, im *big.Float) {
	m := func(u, v []float64) *big.Float { return new(big.Float).SetPrec(8000).Mul(Exact(u), Exact(v)) }
	re = m(x[0], y[0])
	re.Sub(re, m(x[1], y[1]))
	im = m(x[0], y[1])
	im.Add(im, m(x[1], y[0]))
	return re, im
}

// ComplexReference returns the exact (cmul, cmadd) or prec-bit (cdiv, cabs)
// parts of op's result on c and the magnitudes each part's error is
// measured against: the sum of the magnitudes of its terms for cmul
// (|ar br| + |ai bi|, |ar bi| + |ai br|) and cmadd (plus |acc|'s part),
// |a|/|b| for both parts of cdiv, and the result for cabs (im is nil).
func ComplexReference(op string, c ComplexCase, prec uint) (re, im, scaleRe, scaleIm *big.Float) {
	m := func(u, v []float64) *big.Float { return new(big.Float).SetPrec(8000).Mul(Exact(u), Exact(v)) }
	abs := func(v *big.Float) *big.Float { return new(big.Float).Abs(v) }
	sum := func(vs ...*big.Float) *big.Float {
		s := new(big.Float).SetPrec(8000)
		for _, v := range vs {
			s.Add(s, v)
		}
		return s
	}
	ar, ai, br, bi := c.A[0], c.A[1], c.B[0], c.B[1]
	switch op {
	case "cmul", "cmadd":
		rr, ii, ri, ir := m(ar, br), m(ai, bi), m(ar, bi), m(ai, br)
		re, im = sum(rr, new(big.Float).Neg(ii)), sum(ri, ir)
		scaleRe, scaleIm = sum(abs(rr), abs(ii)), sum(abs(ri), abs(ir))
		if op == "cmadd" {
			re.Add(re, Exact(c.C[0]))
			im.Add(im, Exact(c.C[1]))
			scaleRe.Add(scaleRe, abs(Exact(c.C[0])))
			scaleIm.Add(scaleIm, abs(Exact(c.C[1])))
		}
		return re, im, scaleRe, scaleIm
	case "cdiv":
		d := sum(m(br, br), m(bi, bi))
		re = new(big.Float).SetPrec(prec).Quo(sum(m(ar, br), m(ai, bi)), d)
		im = new(big.Float).SetPrec(prec).Quo(sum(m(ai, br), new(big.Float).Neg(m(ar, bi))), d)
		na := sum(m(ar, ar), m(ai, ai))
		s := new(big.Float).SetPrec(prec).Quo(na, d)
		s.Sqrt(s)
		return re, im, s, s
	case "cabs":
		re = new(big.Float).SetPrec(prec).Sqrt(sum(m(ar, ar), m(ai, ai)))
		return re, nil, nil, nil
	}
	panic("alg: no complex reference for " + op)
}

// ComplexArgs returns the interpreter arguments of the complex program op
// for case c.
func ComplexArgs(op string, c ComplexCase) [][]float64 {
	switch op {
	case "cabs":
		return [][]float64{c.A[0], c.A[1]}
	case "cmadd":
		return [][]float64{c.C[0], c.C[1], c.A[0], c.A[1], c.B[0], c.B[1]}
	}
	return [][]float64{c.A[0], c.A[1], c.B[0], c.B[1]}
}
