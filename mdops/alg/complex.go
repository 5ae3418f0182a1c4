package alg

// ComplexLibrary holds the complex operations for one precision: programs
// over (re, im) pairs of N-doubles built from calls to the real operations,
// so that Go and CUDA perform the same sequence of real operations.
type ComplexLibrary struct {
	N                       int
	Add, Sub, Mul, Div, Abs *Program
	MulAdd                  *Program // acc + x*y ("cmadd")
}

// ComplexOpNames lists the complex operations in the order of Programs.
var ComplexOpNames = []string{"cadd", "csub", "cmul", "cmadd", "cdiv", "cabs"}

// Programs returns the complex programs in dependency order.
func (c *ComplexLibrary) Programs() []*Program {
	return []*Program{c.Add, c.Sub, c.Mul, c.MulAdd, c.Div, c.Abs}
}

// Program returns the complex program of the named operation.
func (c *ComplexLibrary) Program(op string) *Program {
	for _, p := range c.Programs() {
		if p.Op == op {
			return p
		}
	}
	return nil
}

// BuildComplex returns the complex operations over the real library l.
// Results of the binary operations are 2N limbs: the real part, then the
// imaginary part.
func BuildComplex(l *Library) *ComplexLibrary {
	n := l.N
	two := md(n, "a.re", "a.im", "b.re", "b.im")
	c := &ComplexLibrary{N: n}
	cat := func(re, im []Value) []Value { return append(append([]Value(nil), re...), im...) }

	b, a := NewBuilder("cadd", n, two...)
	c.Add = b.Finish(cat(b.Call(l.Add, a[0], a[2]), b.Call(l.Add, a[1], a[3])))

	b, a = NewBuilder("csub", n, two...)
	c.Sub = b.Finish(cat(b.Call(l.Sub, a[0], a[2]), b.Call(l.Sub, a[1], a[3])))

	// (ar + i ai)(br + i bi) = (ar br - ai bi) + i (ar bi + ai br)
	b, a = NewBuilder("cmul", n, two...)
	re := b.Call(l.Sub, b.Call(l.Mul, a[0], a[2]), b.Call(l.Mul, a[1], a[3]))
	im := b.Call(l.Add, b.Call(l.Mul, a[0], a[3]), b.Call(l.Mul, a[1], a[2]))
	c.Mul = b.Finish(cat(re, im))

	// acc + x*y = (acc.re + x.re y.re - x.im y.im) + i (acc.im + x.re y.im + x.im y.re),
	// each part two real madds (the second with a negated factor, which is
	// exact): the error is about twice madd's, relative to |acc.re| +
	// |x.re y.re| + |x.im y.im| (resp. the imaginary terms). For N = 2 each
	// part is one three-term double-double sum (maddDD).
	b, a = NewBuilder("cmadd", n, md(n, "acc.re", "acc.im", "x.re", "x.im", "y.re", "y.im")...)
	nxi := make([]Value, n)
	for k, v := range a[3] {
		nxi[k] = b.Neg(v)
	}
	if n == 2 {
		// Both products and acc in one double-double sum per part.
		re = b.maddDD(a[0], [][2][]Value{{a[2], a[4]}, {nxi, a[5]}})
		im = b.maddDD(a[1], [][2][]Value{{a[2], a[5]}, {a[3], a[4]}})
	} else {
		re = b.Call(l.MulAdd, b.Call(l.MulAdd, a[0], a[2], a[4]), nxi, a[5])
		im = b.Call(l.MulAdd, b.Call(l.MulAdd, a[1], a[2], a[5]), a[3], a[4])
	}
	c.MulAdd = b.Finish(cat(re, im))

	// a / b = a conj(b) / |b|^2; the textbook formula, with the precision's
	// accuracy when |b|^2 neither overflows nor underflows.
	b, a = NewBuilder("cdiv", n, two...)
	d := b.Call(l.Add, b.Call(l.Sqr, a[2]), b.Call(l.Sqr, a[3]))
	re = b.Call(l.Add, b.Call(l.Mul, a[0], a[2]), b.Call(l.Mul, a[1], a[3]))
	im = b.Call(l.Sub, b.Call(l.Mul, a[1], a[2]), b.Call(l.Mul, a[0], a[3]))
	c.Div = b.Finish(cat(b.Call(l.Div, re, d), b.Call(l.Div, im, d)))

	b, a = NewBuilder("cabs", n, md(n, "a.re", "a.im")...)
	c.Abs = b.Finish(b.Call(l.Sqrt, b.Call(l.Add, b.Call(l.Sqr, a[0]), b.Call(l.Sqr, a[1]))))
	return c
}
