package families

import (
	"encoding/binary"
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/mdgen/mdgen/internal/par"
	"github.com/mdgen/mdgen/stager/poly"
	"github.com/mdgen/mdgen/stager/solutions"
)

// Families of test systems, with exact rational coefficients.
//
// Every family has a name and a size n; a few take options. A family member
// is named on the command line by a spec (see ApplySpec):
//
//	cyclic7                 cyclic 7-roots
//	katsura8                katsura 8 (9 equations)
//	chandra64:c=t           Chandrasekhar's H-equation, a series in c = t
//	monomial64:degree=32    the monomial homotopy x^A = b(t), b exact to t^32
//	cyclic7:newton,seed=3   the Newton homotopy f(x) - (1-t) f(z) for cyclic 7
//	p1                      the benchmark system p1 (BenchmarkSystem)
//
// The systems:
//
//   - cyclic n (variables x1..xn): for k = 1..n-1, the sum over i of the
//     products of k cyclically consecutive variables x_i···x_{i+k-1}; then
//     x1···xn - 1. n equations of n terms (the last: one term and a
//     constant); mixed volume 70 for n = 5, 924 for n = 7.
//   - katsura n (variables u0..un, n+1 equations): for m = 0..n-1,
//     sum_{l=-n..n} u_|l| u_|m-l| - u_m = 0 (u_k = 0 for k > n), and
//     u0 + 2 u1 + ... + 2 un - 1 = 0. Bezout number 2^n, all solutions
//     isolated (PHCpack's katsura5 is n = 5).
//   - chandra n (variables H1..Hn): Chandrasekhar's H-equation discretized
//     as in the 2014 paper, 2n H_i - c H_i sum_{j=1..n} i/(i+j) H_j - 2n = 0:
//     n equations of n+1 terms and a constant, n^2 + n monomials in all. c is
//     a fixed rational (default 33/64) or the series parameter t (c=t), in
//     which case H_i = 1 at t = 0 is the start solution.
//   - noon n (variables x1..xn): x_i sum_{j != i} x_j^2 - c x_i + 1 = 0, with
//     c = 11/10 (PHCpack's noon3); n equations of n terms and a constant.
//   - eco n (variables x1..xn): for k = 1..n-2,
//     (x_k + sum_{i=1..n-k-1} x_i x_{i+k}) x_n - k = 0; x_{n-1} x_n - (n-1) = 0;
//     x1 + ... + x_{n-1} + 1 = 0 (PHCpack's eco6 is n = 6).
//   - monomial n: the monomial homotopies of the Newton papers (PHCpack's
//     problem -1): the exponent matrix A is lower triangular with ones, one
//     column of monomials, row i: x1···x_i - b_i(t) = 0; with columns=2 a
//     second column x_i···x_n is added: x1···x_i + x_i···x_n - b_i(t) = 0
//     (the Jacobian at x = 1 is the all-ones matrix plus the identity). b(t)
//     is chosen so that x_i(t) = exp(c_i t) solves the system exactly:
//     b_i(t) = exp((c_1 + ... + c_i) t) (+ exp((c_i + ... + c_n) t)), as a
//     series truncated at degree d (degree=d, default 8). The rates c_i are
//     rationals from the seed: in [-2,-1] or [1,2] with denominator 8, or
//     with complex, exactly on the unit circle ((q²-p²) + 2pq i)/(q²+p²)
//     (MonomialRates); with balanced, the signs are chosen so that the
//     partial sums c_1 + ... + c_i stay in [-2, 2] (BalanceRates: b(t) then
//     has small coefficients and the problem is well conditioned; without
//     it the problem is PHCpack's, whose b loses bits to its own rounding).
//     The exact solution series, c_i^k / k!, is
//     Instance.Exact (MonomialSolution). Start point x(0) = 1. A degree
//     at which a coefficient of b(t) falls below the smallest normal
//     double (s^k/k! with a partial sum s of small modulus: from about
//     k = 118 for |s| = 1/8) is refused, with the largest degree that the
//     rates of the seed can pose.
//   - p1, p2, p3: the benchmark systems (BenchmarkSystem); their size is fixed.
//
// Newton homotopies (newton; for cyclic, katsura, chandra with a fixed c,
// noon and eco): f(x) - (1 - t) f(z) for a random exact point z from the
// seed (RandomPoint: real, or complex with complex), so that x(0) = z is a
// regular start solution for a generic z; only the constant terms depend on
// t (NewtonHomotopy).
//
// Instances that have a known start solution carry it (Instance.Start) for
// `mdgen system` to append as a PHCpack solution list.

// famDefaultDegree is the truncation degree of the monomial homotopies'
// right-hand sides when none is given.
const famDefaultDegree = 8

// Options selects a member of a family. Fields a family does not use
// are ignored by Family.Build (ApplySpec rejects them in a spec).
type Options struct {
	N       int    // size; 0: the family's default
	Degree  int    // monomial: truncation degree d >= 1 of b(t); 0: 8
	Columns int    // monomial: 1 or 2 columns of monomials; 0: 1
	C       string // chandra: the constant c, a rational ("33/64", "0.51234") or "t"; noon: a rational; "": default
	Seed    int64  // random data: p1..p3 coefficients, Newton start points, monomial rates
	Complex bool   // complex random data
	Newton  bool   // the Newton homotopy f(x) - (1-t) f(z)
	// Balanced (monomial): the signs of the rates are chosen so that the
	// partial sums c_1 + ... + c_i stay small (BalanceRates), which keeps
	// the coefficients of b(t) small and the problem well conditioned.
	Balanced bool
}

// Instance is one member of a family.
type Instance struct {
	Spec   string               // canonical spec, e.g. "cyclic7:newton,seed=3" (Spec)
	Title  string               // one line describing the system
	System *poly.System         // the system, exact
	Start  []solutions.Solution // known solutions at t = 0 (T = 0); nil when none is known
	// Exact is the exact solution series of a monomial homotopy: Exact[i][k]
	// is the coefficient of t^k of x_i, k = 0..Degree (nil for others).
	Exact [][]poly.Rational
}

// Family describes a family of systems.
type Family struct {
	Name     string
	Summary  string   // one line
	DefaultN int      // size when Options.N is 0
	MinN     int      // smallest size
	MaxN     int      // largest size (memory: see the family's doc); MinN == MaxN: fixed
	Options  []string // spec keys it takes besides n: seed, complex, c, degree, columns, newton
	build    func(n int, opt Options) (*Instance, error)
}

var famRegistry = []Family{
	{Name: "p1", Summary: "benchmark p1: one polynomial, all 1,820 products of 4 of 16 variables, random series coefficients",
		DefaultN: 16, MinN: 16, MaxN: 16, Options: []string{"seed", "complex"}, build: famBenchmark("p1")},
	{Name: "p2", Summary: "benchmark p2: one polynomial, 128 products of 64 cyclically consecutive of 128 variables",
		DefaultN: 128, MinN: 128, MaxN: 128, Options: []string{"seed", "complex"}, build: famBenchmark("p2")},
	{Name: "p3", Summary: "benchmark p3: one polynomial, all 8,128 products of 2 of 128 variables",
		DefaultN: 128, MinN: 128, MaxN: 128, Options: []string{"seed", "complex"}, build: famBenchmark("p3")},
	{Name: "cyclic", Summary: "cyclic n-roots: n equations, n^2-n+1 monomials",
		DefaultN: 5, MinN: 2, MaxN: 256, Options: []string{"newton", "seed", "complex"}, build: famPlain(Cyclic, "cyclic %d-roots")},
	{Name: "katsura", Summary: "katsura n: n+1 equations in u0..un, 2^n solutions",
		DefaultN: 5, MinN: 1, MaxN: 1024, Options: []string{"newton", "seed", "complex"}, build: famPlain(Katsura, "katsura %d")},
	{Name: "chandra", Summary: "Chandrasekhar's H-equation 2n H_i - c H_i sum_j i/(i+j) H_j - 2n, c = 33/64 or c=t",
		DefaultN: 4, MinN: 1, MaxN: 4096, Options: []string{"c", "newton", "seed", "complex"}, build: famChandra},
	{Name: "noon", Summary: "noon n: x_i sum_{j!=i} x_j^2 - c x_i + 1, c = 11/10",
		DefaultN: 3, MinN: 2, MaxN: 4096, Options: []string{"c", "newton", "seed", "complex"}, build: famNoon},
	{Name: "eco", Summary: "eco n: the economics problem, n equations",
		DefaultN: 6, MinN: 2, MaxN: 4096, Options: []string{"newton", "seed", "complex"}, build: famPlain(Eco, "eco %d, the economics problem")},
	{Name: "monomial", Summary: "monomial homotopy x^A = b(t), A lower triangular ones, exact solution x_i = exp(c_i t)",
		DefaultN: 8, MinN: 1, MaxN: 4096, Options: []string{"degree", "columns", "balanced", "seed", "complex"}, build: famMonomial},
}

// Families returns the registered families, in a fixed order.
func All() []Family { return slices.Clone(famRegistry) }

// Lookup returns the family named name.
func Lookup(name string) (Family, bool) {
	for _, f := range famRegistry {
		if f.Name == name {
			return f, true
		}
	}
	return Family{}, false
}

// Build returns the member of family name selected by opt.
func Build(name string, opt Options) (*Instance, error) {
	f, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("stager: unknown family %q (have %s)", name, famNames())
	}
	return f.Build(opt)
}

// Build returns the member of f selected by opt.
func (f Family) Build(opt Options) (*Instance, error) {
	n := opt.N
	if n == 0 {
		n = f.DefaultN
	}
	if n < f.MinN || n > f.MaxN {
		if f.MinN == f.MaxN {
			return nil, fmt.Errorf("stager: %s has the fixed size n = %d", f.Name, f.MinN)
		}
		return nil, fmt.Errorf("stager: %s: n = %d out of range %d..%d", f.Name, n, f.MinN, f.MaxN)
	}
	if opt.Newton && !slices.Contains(f.Options, "newton") {
		return nil, fmt.Errorf("stager: %s has no Newton homotopy", f.Name)
	}
	inst, err := f.build(n, opt)
	if err != nil {
		return nil, err
	}
	inst.Spec = Spec(f.Name, n, opt)
	// What a family builds, every reader reads: mdgen system must not
	// write a file that Parse then refuses.
	if err := inst.System.CheckDoubleRange(); err != nil {
		return nil, fmt.Errorf("stager: %s: %w", inst.Spec, err)
	}
	return inst, nil
}

func famNames() string {
	var names []string
	for _, f := range famRegistry {
		names = append(names, f.Name)
	}
	return strings.Join(names, ", ")
}

// IsSpec reports whether arg has the shape of a family spec: a
// registered family name, then optional digits (the size), then optionally
// ':' and options. It does not check the options (ApplySpec does), so
// that a command can tell a misspelt option from a missing file.
func IsSpec(arg string) bool {
	name, rest := famSplitName(arg)
	if _, ok := Lookup(name); !ok {
		return false
	}
	i := 0
	for i < len(rest) && '0' <= rest[i] && rest[i] <= '9' {
		i++
	}
	return i == len(rest) || rest[i] == ':'
}

// famSplitName splits a spec into its family name and the rest: the name is
// the longest registered name that is a prefix (p1 before p), else the
// leading letters.
func famSplitName(spec string) (name, rest string) {
	head := spec
	if k := strings.IndexByte(head, ':'); k >= 0 {
		head = head[:k]
	}
	for _, f := range famRegistry {
		if head == f.Name {
			return f.Name, spec[len(f.Name):]
		}
	}
	i := 0
	for i < len(spec) && ('a' <= spec[i] && spec[i] <= 'z' || 'A' <= spec[i] && spec[i] <= 'Z') {
		i++
	}
	return spec[:i], spec[i:]
}

// ApplySpec reads a family spec
//
//	NAME[N][:OPTION[,OPTION]...]
//
// where N is the size and an OPTION is key=value or a bare key for true:
// n=N, seed=S, complex (complex=false), c=RATIONAL|t, degree=D (d=D),
// columns=1|2, newton (newton=false). It returns the family name and base
// with the options the spec gives overriding it (so a command can pass its
// -seed and -complex as base). Options the family does not take are errors.
func ApplySpec(spec string, base Options) (string, Options, error) {
	name, rest := famSplitName(spec)
	f, ok := Lookup(name)
	if !ok {
		return "", base, fmt.Errorf("stager: %q: unknown family (have %s)", spec, famNames())
	}
	opt := base
	i := 0
	for i < len(rest) && '0' <= rest[i] && rest[i] <= '9' {
		i++
	}
	if i > 0 {
		n, err := strconv.Atoi(rest[:i])
		if err != nil || n < 1 || n > 1<<20 {
			return "", base, fmt.Errorf("stager: %q: size %s out of range", spec, rest[:i])
		}
		opt.N = n
	}
	rest = rest[i:]
	if rest == "" {
		return name, opt, nil
	}
	if rest[0] != ':' {
		return "", base, fmt.Errorf("stager: %q: want NAME[N][:option,...] after %s", spec, name)
	}
	for _, item := range strings.Split(rest[1:], ",") {
		key, val, hasVal := strings.Cut(item, "=")
		key = strings.TrimSpace(key)
		val = strings.TrimSpace(val)
		if key == "d" {
			key = "degree"
		}
		if key != "n" && !slices.Contains(f.Options, key) {
			return "", base, fmt.Errorf("stager: %q: %s takes no option %q (options: n, %s)", spec, name, key, strings.Join(f.Options, ", "))
		}
		boolVal := func() (bool, error) {
			if !hasVal {
				return true, nil
			}
			b, err := strconv.ParseBool(val)
			if err != nil {
				return false, fmt.Errorf("stager: %q: %s=%s: want true or false", spec, key, val)
			}
			return b, nil
		}
		intVal := func() (int, error) {
			v, err := strconv.Atoi(val)
			if err != nil || !hasVal {
				return 0, fmt.Errorf("stager: %q: %s=%s: want an integer", spec, key, val)
			}
			return v, nil
		}
		var err error
		switch key {
		case "n":
			opt.N, err = intVal()
			if err == nil && opt.N < 1 {
				err = fmt.Errorf("stager: %q: n=%d: want n >= 1", spec, opt.N)
			}
		case "degree":
			opt.Degree, err = intVal()
			if err == nil && opt.Degree < 1 {
				err = fmt.Errorf("stager: %q: degree=%d: want a degree >= 1", spec, opt.Degree)
			}
		case "columns":
			opt.Columns, err = intVal()
		case "seed":
			var v int64
			v, err = strconv.ParseInt(val, 10, 64)
			if err != nil || !hasVal {
				err = fmt.Errorf("stager: %q: seed=%s: want an integer", spec, val)
			}
			opt.Seed = v
		case "complex":
			opt.Complex, err = boolVal()
		case "newton":
			opt.Newton, err = boolVal()
		case "balanced":
			opt.Balanced, err = boolVal()
		case "c":
			if !hasVal || val == "" {
				err = fmt.Errorf("stager: %q: c wants a value (c=33/64 or c=t)", spec)
			}
			opt.C = val
		}
		if err != nil {
			return "", base, err
		}
	}
	return name, opt, nil
}

// Spec writes the canonical spec of the member n of family name with
// the options opt: NAME then N (left out for a fixed size), then the options
// that the family takes and that differ from their defaults, seed always when
// random data are drawn.
func Spec(name string, n int, opt Options) string {
	f, ok := Lookup(name)
	if !ok {
		return name
	}
	var b strings.Builder
	b.WriteString(name)
	if f.MinN != f.MaxN {
		if n == 0 {
			n = f.DefaultN
		}
		b.WriteString(strconv.Itoa(n))
	}
	var opts []string
	has := func(k string) bool { return slices.Contains(f.Options, k) }
	if has("c") && opt.C != "" {
		opts = append(opts, "c="+opt.C)
	}
	if has("degree") && opt.Degree != 0 && opt.Degree != famDefaultDegree {
		opts = append(opts, "degree="+strconv.Itoa(opt.Degree))
	}
	if has("columns") && opt.Columns > 1 {
		opts = append(opts, "columns="+strconv.Itoa(opt.Columns))
	}
	if has("newton") && opt.Newton {
		opts = append(opts, "newton")
	}
	if has("balanced") && opt.Balanced {
		opts = append(opts, "balanced")
	}
	random := opt.Newton || name == "monomial" || f.MinN == f.MaxN
	if random && has("seed") {
		opts = append(opts, "seed="+strconv.FormatInt(opt.Seed, 10))
	}
	if random && has("complex") && opt.Complex {
		opts = append(opts, "complex")
	}
	if len(opts) > 0 {
		b.WriteByte(':')
		b.WriteString(strings.Join(opts, ","))
	}
	return b.String()
}

// System builds the system of a spec, with base supplying the options
// the spec leaves out (a command's -seed and -complex).
func System(spec string, base Options) (*Instance, error) {
	name, opt, err := ApplySpec(spec, base)
	if err != nil {
		return nil, err
	}
	return Build(name, opt)
}

func famBenchmark(name string) func(int, Options) (*Instance, error) {
	return func(_ int, opt Options) (*Instance, error) {
		s, err := benchmarkSystem(name, opt.Seed, opt.Complex)
		if err != nil {
			return nil, err
		}
		kind := "real"
		if opt.Complex {
			kind = "complex"
		}
		return &Instance{System: s, Title: fmt.Sprintf("benchmark system %s, random %s series coefficients, seed %d", name, kind, opt.Seed)}, nil
	}
}

// famPlain builds a family without options but newton.
func famPlain(mk func(n int) *poly.System, title string) func(int, Options) (*Instance, error) {
	return func(n int, opt Options) (*Instance, error) {
		return famMaybeNewton(mk(n), fmt.Sprintf(title, n), opt)
	}
}

func famMaybeNewton(s *poly.System, title string, opt Options) (*Instance, error) {
	if !opt.Newton {
		return &Instance{System: s, Title: title}, nil
	}
	z := RandomPoint(len(s.Vars), opt.Seed, opt.Complex)
	h, err := NewtonHomotopy(s, z)
	if err != nil {
		return nil, err
	}
	kind := "real"
	if opt.Complex {
		kind = "complex"
	}
	return &Instance{
		System: h,
		Title:  fmt.Sprintf("Newton homotopy f(x) - (1-%s) f(z) for %s, random %s z (seed %d), x(0) = z", h.Param, title, kind, opt.Seed),
		Start:  []solutions.Solution{StartSolution(s.Vars, z)},
	}, nil
}

func famChandra(n int, opt Options) (*Instance, error) {
	cs := opt.C
	if cs == "" {
		cs = "33/64"
	}
	if cs == "t" {
		if opt.Newton {
			return nil, fmt.Errorf("stager: chandra with c=t is a homotopy already (no newton)")
		}
		s := Chandrasekhar(n, nil)
		ones := make([]poly.Rational, n)
		for i := range ones {
			ones[i].Re.SetInt64(1)
		}
		return &Instance{System: s, Title: fmt.Sprintf("Chandrasekhar's H-equation, n = %d, c = t (H_i = 1 at t = 0)", n),
			Start: []solutions.Solution{StartSolution(s.Vars, ones)}}, nil
	}
	c, err := poly.ParseNumber(cs)
	if err != nil {
		return nil, fmt.Errorf("stager: chandra: c=%s: %v (want a rational number, 33/64 or 0.51234, or t)", cs, err)
	}
	return famMaybeNewton(Chandrasekhar(n, c), fmt.Sprintf("Chandrasekhar's H-equation, n = %d, c = %s", n, c.RatString()), opt)
}

func famNoon(n int, opt Options) (*Instance, error) {
	c := big.NewRat(11, 10)
	if opt.C != "" {
		var err error
		if c, err = poly.ParseNumber(opt.C); err != nil {
			return nil, fmt.Errorf("stager: noon: c=%s: %v (want a rational number, 11/10)", opt.C, err)
		}
	}
	return famMaybeNewton(Noon(n, c), fmt.Sprintf("noon %d, c = %s", n, c.RatString()), opt)
}

func famMonomial(n int, opt Options) (*Instance, error) {
	d := opt.Degree
	if d == 0 {
		d = famDefaultDegree
	}
	if d < 1 || d > 1024 {
		return nil, fmt.Errorf("stager: monomial: degree %d out of range 1..1024", d)
	}
	cols := opt.Columns
	if cols == 0 {
		cols = 1
	}
	if cols != 1 && cols != 2 {
		return nil, fmt.Errorf("stager: monomial: columns=%d (want 1 or 2)", cols)
	}
	rates := MonomialRates(n, opt.Seed, opt.Complex)
	drawn := "random"
	if opt.Balanced {
		BalanceRates(rates)
		drawn = "balanced"
	}
	s := MonomialHomotopy(rates, cols, d)
	if err := monomialDegreeFits(s, d, opt.Seed); err != nil {
		return nil, err
	}
	ones := make([]poly.Rational, n)
	for i := range ones {
		ones[i].Re.SetInt64(1)
	}
	kind := "real"
	if opt.Complex {
		kind = "complex"
	}
	col := "one column"
	if cols == 2 {
		col = "two columns"
	}
	return &Instance{
		System: s,
		Title: fmt.Sprintf("monomial homotopy x^A = b(t), %s of monomials, n = %d, b exact to degree %d, solution x_i = exp(c_i t) with %s %s rational c_i (seed %d)",
			col, n, d, drawn, kind, opt.Seed),
		Start: []solutions.Solution{StartSolution(s.Vars, ones)},
		Exact: MonomialSolution(rates, d),
	}, nil
}

// monomialDegreeFits refuses a monomial homotopy whose right-hand side
// b_i(t) has a coefficient below the smallest normal double: s^k/k! for a
// partial sum s of the rates of small modulus (with real rates |s| >= 1/8
// unless s = 0, whose terms vanish exactly) falls below 2^-1022 from a
// degree on (about 118 for |s| = 1/8, 171 for |s| = 1), and no executor
// could hold it (poly's parser refuses such a coefficient the same way).
// The error names the largest degree that these rates can pose.
func monomialDegreeFits(s *poly.System, d int, seed int64) error {
	worst, row := d+1, 0
	var why string
	for i := range s.Polys {
		b := s.Polys[i].Const
		for k := 1; k < min(len(b), worst); k++ {
			if msg := b[k].DoubleRange(); msg != "" {
				worst, row, why = k, i+1, msg
			}
		}
	}
	if worst > d {
		return nil
	}
	return fmt.Errorf("stager: monomial: degree %d: the coefficient of t^%d of b_%d(t) %s; with these rates (seed %d) the largest degree that can be posed is %d",
		d, worst, row, why, seed, worst-1)
}

// StartSolution returns the solution at t = 0 with the coordinates x of the
// variables vars (M = 1, no diagnostics).
func StartSolution(vars []string, x []poly.Rational) solutions.Solution {
	sol := solutions.Solution{M: 1, Names: slices.Clone(vars), Values: make([]poly.Rational, len(x))}
	for i := range x {
		sol.Values[i].Re.Set(&x[i].Re)
		sol.Values[i].Im.Set(&x[i].Im)
	}
	return sol
}

// famVars returns prefix1..prefixN (from 0 when zero is true).
func famVars(prefix string, n int, zero bool) []string {
	vs := make([]string, n)
	for i := range vs {
		k := i + 1
		if zero {
			k = i
		}
		vs[i] = prefix + strconv.Itoa(k)
	}
	return vs
}

// famPoly collects the terms of one polynomial, combining like terms, in the
// order of their first appearance. Zero terms are dropped and series are
// trimmed when the polynomial is done, as poly.Parse does.
type famPoly struct {
	idx   map[string]int
	terms []poly.Monomial
	cnst  poly.Series
	key   []byte
	vars  []int
}

// add adds c·x_{vs[0]}·x_{vs[1]}··· (a variable may repeat: x·x = x^2).
func (p *famPoly) add(c poly.Series, vs ...int) {
	if len(vs) == 0 {
		p.cnst = famSeriesAdd(p.cnst, c)
		return
	}
	p.vars = append(p.vars[:0], vs...)
	slices.Sort(p.vars)
	var m poly.Monomial
	for i := 0; i < len(p.vars); {
		j := i
		for j < len(p.vars) && p.vars[j] == p.vars[i] {
			j++
		}
		m.Vars = append(m.Vars, p.vars[i])
		m.Pows = append(m.Pows, j-i)
		i = j
	}
	p.key = p.key[:0]
	for k := range m.Vars {
		p.key = binary.AppendUvarint(p.key, uint64(m.Vars[k]))
		p.key = binary.AppendUvarint(p.key, uint64(m.Pows[k]))
	}
	if p.idx == nil {
		p.idx = map[string]int{}
	}
	if k, ok := p.idx[string(p.key)]; ok {
		p.terms[k].Coef = famSeriesAdd(p.terms[k].Coef, c)
		return
	}
	p.idx[string(p.key)] = len(p.terms)
	m.Coef = famSeriesAdd(nil, c)
	p.terms = append(p.terms, m)
}

func (p *famPoly) done() poly.Polynomial {
	var q poly.Polynomial
	for _, m := range p.terms {
		m.Coef = m.Coef.Trim()
		if len(m.Coef) > 0 {
			q.Terms = append(q.Terms, m)
		}
	}
	q.Const = p.cnst.Trim()
	return q
}

// famSeriesAdd returns a + b in a fresh series (a may be nil).
func famSeriesAdd(a, b poly.Series) poly.Series {
	out := make(poly.Series, max(len(a), len(b)))
	for k := range out {
		if k < len(a) {
			out[k].Re.Set(&a[k].Re)
			out[k].Im.Set(&a[k].Im)
		}
		switch {
		case k >= len(b):
		case k >= len(a):
			// 0 + b: a copy (Rat.Add would reduce b by a gcd again)
			out[k].Re.Set(&b[k].Re)
			out[k].Im.Set(&b[k].Im)
		default:
			out[k].Re.Add(&out[k].Re, &b[k].Re)
			out[k].Im.Add(&out[k].Im, &b[k].Im)
		}
	}
	return out
}

// famConst returns the series of the real rational r (one coefficient).
func famConst(r *big.Rat) poly.Series {
	s := make(poly.Series, 1)
	s[0].Re.Set(r)
	return s
}

func famInt(v int64) poly.Series { return famConst(new(big.Rat).SetInt64(v)) }

// Cyclic returns the cyclic n-roots system in x1..xn.
func Cyclic(n int) *poly.System {
	s := &poly.System{Vars: famVars("x", n, false), Polys: make([]poly.Polynomial, n)}
	one := famInt(1)
	vs := make([]int, 0, n)
	for k := 1; k < n; k++ {
		var p famPoly
		for i := range n {
			vs = vs[:0]
			for j := range k {
				vs = append(vs, (i+j)%n)
			}
			p.add(one, vs...)
		}
		s.Polys[k-1] = p.done()
	}
	var p famPoly
	vs = vs[:0]
	for i := range n {
		vs = append(vs, i)
	}
	p.add(one, vs...)
	p.add(famInt(-1))
	s.Polys[n-1] = p.done()
	return s
}

// Katsura returns katsura n: n+1 equations in u0..un.
func Katsura(n int) *poly.System {
	s := &poly.System{Vars: famVars("u", n+1, true), Polys: make([]poly.Polynomial, n+1)}
	one := famInt(1)
	for m := range n {
		var p famPoly
		// the products u_a u_b with a = |l|, b = |m-l|, listed by (min, max)
		type pair struct{ a, b int }
		count := map[pair]int64{}
		var order []pair
		for l := -n; l <= n; l++ {
			a, b := max(l, -l), max(m-l, l-m)
			if b > n {
				continue
			}
			pr := pair{min(a, b), max(a, b)}
			if count[pr] == 0 {
				order = append(order, pr)
			}
			count[pr]++
		}
		slices.SortFunc(order, func(x, y pair) int {
			if x.a != y.a {
				return x.a - y.a
			}
			return x.b - y.b
		})
		for _, pr := range order {
			p.add(famInt(count[pr]), pr.a, pr.b)
		}
		p.add(famInt(-1), m)
		s.Polys[m] = p.done()
	}
	var p famPoly
	p.add(one, 0)
	for i := 1; i <= n; i++ {
		p.add(famInt(2), i)
	}
	p.add(famInt(-1))
	s.Polys[n] = p.done()
	return s
}

// Chandrasekhar returns Chandrasekhar's H-equation in H1..Hn,
//
//	2n H_i - c H_i sum_{j=1..n} i/(i+j) H_j - 2n = 0,  i = 1..n,
//
// with the rational c, or with c = t (the series parameter) when c is nil.
// Terms: H_i, then H_i H_j for j = 1..n, then the constant.
func Chandrasekhar(n int, c *big.Rat) *poly.System {
	s := &poly.System{Vars: famVars("H", n, false), Polys: make([]poly.Polynomial, n)}
	if c == nil {
		s.Param = "t"
	}
	// n^2 terms (16.7 million at n = 4096): each polynomial takes its
	// terms' variables, exponents and coefficients from a few arrays of its
	// own, and the polynomials are made in parallel (each is independent of
	// the others, so the System is the same for any number of workers).
	par.Run(n, func(_, i int) { s.Polys[i] = chandraPoly(n, i+1, c) })
	return s
}

// chandraPoly returns polynomial i (1-based) of Chandrasekhar(n, c).
func chandraPoly(n, i int, c *big.Rat) poly.Polynomial {
	twoN := int64(2 * n)
	p := poly.Polynomial{Terms: make([]poly.Monomial, 0, n+1), Const: famInt(-twoN)}
	vars := make([]int, 0, 2*n+1)
	pows := make([]int, 0, 2*n+1)
	// take appends x to *buf (whose capacity never runs out) and returns
	// the part appended, capped.
	take := func(buf *[]int, x ...int) []int {
		k := len(*buf)
		*buf = append(*buf, x...)
		return (*buf)[k:len(*buf):len(*buf)]
	}
	p.Terms = append(p.Terms, poly.Monomial{Coef: famInt(twoN), Vars: []int{i - 1}, Pows: []int{1}})
	clen := 1
	if c == nil {
		clen = 2
	}
	coefs := make(poly.Series, n*clen)
	// c = cn/cd in int64 when the products below cannot overflow: one
	// reduction per coefficient instead of a Rat product's. (|cn| < 2^31
	// as a range: -cn overflows at cn = -2^63.)
	small := c != nil && c.Num().IsInt64() && c.Denom().IsInt64() &&
		-1<<31 < c.Num().Int64() && c.Num().Int64() < 1<<31 && c.Denom().Int64() < 1<<31 && n < 1<<30
	var q big.Rat
	for j := 1; j <= n; j++ {
		coef := coefs[(j-1)*clen : j*clen : j*clen]
		switch {
		case c == nil:
			coef[1].Re.SetFrac64(int64(-i), int64(i+j)) // -i/(i+j)
		case small:
			coef[0].Re.SetFrac64(int64(-i)*c.Num().Int64(), int64(i+j)*c.Denom().Int64())
		default:
			q.SetFrac64(int64(-i), int64(i+j))
			coef[0].Re.Mul(&q, c)
		}
		if coef.Trim() == nil {
			continue
		}
		var m poly.Monomial
		switch {
		case j < i:
			m = poly.Monomial{Coef: coef, Vars: take(&vars, j-1, i-1), Pows: take(&pows, 1, 1)}
		case j == i:
			m = poly.Monomial{Coef: coef, Vars: take(&vars, i-1), Pows: take(&pows, 2)}
		default:
			m = poly.Monomial{Coef: coef, Vars: take(&vars, i-1, j-1), Pows: take(&pows, 1, 1)}
		}
		p.Terms = append(p.Terms, m)
	}
	return p
}

// Noon returns noon n in x1..xn: x_i sum_{j != i} x_j^2 - c x_i + 1 = 0.
func Noon(n int, c *big.Rat) *poly.System {
	s := &poly.System{Vars: famVars("x", n, false), Polys: make([]poly.Polynomial, n)}
	one := famInt(1)
	negC := famConst(new(big.Rat).Neg(c))
	for i := range n {
		var p famPoly
		for j := range n {
			if j != i {
				p.add(one, i, j, j)
			}
		}
		p.add(negC, i)
		p.add(one)
		s.Polys[i] = p.done()
	}
	return s
}

// Eco returns eco n in x1..xn.
func Eco(n int) *poly.System {
	s := &poly.System{Vars: famVars("x", n, false), Polys: make([]poly.Polynomial, n)}
	one := famInt(1)
	last := n - 1
	for k := 1; k <= n-2; k++ {
		var p famPoly
		p.add(one, k-1, last)
		for i := 1; i <= n-k-1; i++ {
			p.add(one, i-1, i+k-1, last)
		}
		p.add(famInt(int64(-k)))
		s.Polys[k-1] = p.done()
	}
	var p famPoly
	p.add(one, n-2, last)
	p.add(famInt(int64(-(n - 1))))
	s.Polys[n-2] = p.done()
	var q famPoly
	for i := 0; i < n-1; i++ {
		q.add(one, i)
	}
	q.add(one)
	s.Polys[n-1] = q.done()
	return s
}

// MonomialRates returns n rates c_i for the monomial homotopies, drawn from
// seed: real c_i = ±k/8 with k in 8..16 (|c_i| in [1, 2], as PHCpack draws
// them from [-2,-1] ∪ [1,2]); complex c_i = ((q²-p²) + 2pq i)/(q²+p²) with
// small integers p, q (exactly on the unit circle, as PHCpack's complex
// exponentials).
func MonomialRates(n int, seed int64, complex bool) []poly.Rational {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x6d6f6e6f)) // "mono"
	c := make([]poly.Rational, n)
	for i := range c {
		if !complex {
			k := 8 + rng.Int64N(9)
			if rng.IntN(2) == 0 {
				k = -k
			}
			c[i].Re.SetFrac64(k, 8)
			continue
		}
		p := rng.Int64N(17) - 8 // -8..8
		q := 1 + rng.Int64N(8)  // 1..8
		den := q*q + p*p
		c[i].Re.SetFrac64(q*q-p*p, den)
		c[i].Im.SetFrac64(2*p*q, den)
	}
	return c
}

// BalanceRates flips the signs of rates in place, in order, so that each
// partial sum s_i = c_1 + ... + c_i is the smaller in modulus of
// s_(i-1) + c_i and s_(i-1) - c_i (ties keep the sign drawn). With real
// rates of modulus in [1, 2] every |s_i| <= 2, so the coefficients of
// b_i(t) = exp(s_i t) stay below e^2 and the solution's sensitivity to the
// rounding of b stays near one unit in the last place; with PHCpack's
// random signs the partial sums wander like a random walk (|s_i| up to
// 12.5 at n = 256, seed 1) and rounding b to P doubles alone moves the
// exact solution by up to 2^-(53P-31) of its largest coefficient. Complex
// rates keep the smaller of the two moduli too (no bound is claimed).
func BalanceRates(rates []poly.Rational) {
	var s, plus, minus big.Rat
	mod2 := func(re, im *big.Rat) *big.Rat {
		var a, b big.Rat
		a.Mul(re, re)
		b.Mul(im, im)
		return a.Add(&a, &b)
	}
	var sIm, plusIm, minusIm big.Rat
	for i := range rates {
		c := &rates[i]
		plus.Add(&s, &c.Re)
		plusIm.Add(&sIm, &c.Im)
		minus.Sub(&s, &c.Re)
		minusIm.Sub(&sIm, &c.Im)
		if mod2(&minus, &minusIm).Cmp(mod2(&plus, &plusIm)) < 0 {
			c.Re.Neg(&c.Re)
			c.Im.Neg(&c.Im)
			s.Set(&minus)
			sIm.Set(&minusIm)
		} else {
			s.Set(&plus)
			sIm.Set(&plusIm)
		}
	}
}

// MonomialSolution returns the exact series of x_i(t) = exp(c_i t) to degree
// d: out[i][k] = c_i^k / k!.
func MonomialSolution(rates []poly.Rational, d int) [][]poly.Rational {
	out := make([][]poly.Rational, len(rates))
	for i := range rates {
		out[i] = famExpSeries(&rates[i], d)
	}
	return out
}

// famExpSeries returns exp(c t) mod t^(d+1): s_k = c^k/k!.
func famExpSeries(c *poly.Rational, d int) []poly.Rational {
	s := make([]poly.Rational, d+1)
	s[0].Re.SetInt64(1)
	var k big.Rat
	for j := 1; j <= d; j++ {
		s[j].Mul(&s[j-1], c)
		k.SetInt64(int64(j))
		s[j].Re.Quo(&s[j].Re, &k)
		s[j].Im.Quo(&s[j].Im, &k)
	}
	return s
}

// MonomialHomotopy returns the monomial homotopy with the given rates:
// row i (1-based) x1···x_i - b_i(t) = 0 (columns = 1), or
// x1···x_i + x_i···x_n - b_i(t) = 0 (columns = 2), with b_i the series of
// exp((c_1+...+c_i) t) (+ exp((c_i+...+c_n) t)) truncated at degree d, so
// that x_i(t) = exp(c_i t) (MonomialSolution) solves it mod t^(d+1).
// Variables x1..xn, parameter t.
func MonomialHomotopy(rates []poly.Rational, columns, d int) *poly.System {
	n := len(rates)
	s := &poly.System{Vars: famVars("x", n, false), Param: "t", Polys: make([]poly.Polynomial, n)}
	one := famInt(1)
	prefix := make([]poly.Rational, n) // c_1 + ... + c_i
	suffix := make([]poly.Rational, n) // c_i + ... + c_n
	for i := range n {
		if i > 0 {
			prefix[i].Add(&prefix[i-1], &rates[i])
		} else {
			prefix[i].Set(&rates[i])
		}
	}
	for i := n - 1; i >= 0; i-- {
		if i < n-1 {
			suffix[i].Add(&suffix[i+1], &rates[i])
		} else {
			suffix[i].Set(&rates[i])
		}
	}
	// The right-hand sides are exact series of growing rationals (most of
	// the time at n = 1024, d = 64, complex rates): made in parallel, each
	// independent of the others.
	bs := make([]poly.Series, n)
	par.Run(n, func(_, i int) {
		b := poly.Series(famExpSeries(&prefix[i], d))
		if columns == 2 {
			b = famSeriesAdd(b, famExpSeries(&suffix[i], d))
		}
		for k := range b {
			b[k].Re.Neg(&b[k].Re)
			b[k].Im.Neg(&b[k].Im)
		}
		bs[i] = b
	})
	vs := make([]int, 0, n)
	for i := range n {
		var p famPoly
		vs = vs[:0]
		for j := 0; j <= i; j++ {
			vs = append(vs, j)
		}
		p.add(one, vs...)
		if columns == 2 {
			vs = vs[:0]
			for j := i; j < n; j++ {
				vs = append(vs, j)
			}
			p.add(one, vs...)
		}
		p.add(bs[i])
		s.Polys[i] = p.done()
	}
	return s
}

// RandomPoint returns n random exact coordinates drawn from seed: r/2^20
// with r uniform in [-2^20, 2^20] \ {0} (exact doubles, exact short
// decimals), with a random imaginary part of the same kind when complex.
func RandomPoint(n int, seed int64, complex bool) []poly.Rational {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x7374617274)) // "start"
	z := make([]poly.Rational, n)
	draw := func(r *big.Rat) {
		const m = 1 << 20
		v := int64(0)
		for v == 0 {
			v = rng.Int64N(2*m+1) - m
		}
		r.SetFrac64(v, m)
	}
	for i := range z {
		draw(&z[i].Re)
		if complex {
			draw(&z[i].Im)
		}
	}
	return z
}

// NewtonHomotopy returns f(x) - (1 - t) f(z) = f(x) - f(z) + t f(z) for a
// system f without a parameter and a point z (one coordinate per variable):
// the constant term of polynomial i becomes the series
// (c_i - f_i(z)) + f_i(z) t, so that x(0) = z. The parameter is t (t0, t1,
// ... when a variable is named t).
func NewtonHomotopy(f *poly.System, z []poly.Rational) (*poly.System, error) {
	if f.Param != "" || f.MaxCoefDegree() > 0 {
		return nil, fmt.Errorf("stager: Newton homotopy of a system that has a parameter already")
	}
	if len(z) != len(f.Vars) {
		return nil, fmt.Errorf("stager: Newton homotopy: %d coordinates for %d variables", len(z), len(f.Vars))
	}
	param := "t"
	for k := 0; slices.Contains(f.Vars, param); k++ {
		param = "t" + strconv.Itoa(k)
	}
	var zero poly.Rational
	fz := f.EvalAt(z, &zero)
	h := &poly.System{Vars: slices.Clone(f.Vars), Param: param, Polys: make([]poly.Polynomial, len(f.Polys))}
	for i := range f.Polys {
		p := &f.Polys[i]
		q := &h.Polys[i]
		q.Terms = make([]poly.Monomial, len(p.Terms))
		for j, m := range p.Terms {
			q.Terms[j] = poly.Monomial{Coef: famSeriesAdd(nil, m.Coef), Vars: slices.Clone(m.Vars), Pows: slices.Clone(m.Pows)}
		}
		c := make(poly.Series, 2)
		if len(p.Const) > 0 {
			c[0].Set(&p.Const[0])
		}
		c[0].Re.Sub(&c[0].Re, &fz[i].Re)
		c[0].Im.Sub(&c[0].Im, &fz[i].Im)
		c[1].Set(&fz[i])
		q.Const = c.Trim()
	}
	return h, nil
}
