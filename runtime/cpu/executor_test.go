package cpu

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/mdops/alg"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/ref"
	"github.com/mdgen/mdgen/stager"
	"github.com/mdgen/mdgen/stager/families"
	"github.com/mdgen/mdgen/stager/poly"
)

var testNs = []int{1, 2, 3, 4, 5, 8, 10, 16}

// randomSeries returns a random exact series of length terms, with complex
// parts when complex is set; values are dyadic rationals or thirds, so some
// are not exact in any precision.
func randomSeries(r *rand.Rand, terms int, complex bool) poly.Series {
	s := make(poly.Series, terms)
	for k := range s {
		s[k].Re.SetFrac64(r.Int64N(2001)-1000, int64(1+r.IntN(7)))
		if complex {
			s[k].Im.SetFrac64(r.Int64N(2001)-1000, int64(1+r.IntN(7)))
		}
	}
	if s[len(s)-1].IsZero() {
		s[len(s)-1].Re.SetInt64(1)
	}
	return s
}

// randomSystem builds a system with npolys polynomials in nvars variables,
// up to maxTerms monomials each, exponents up to maxExp, like terms
// combined.
func randomSystem(r *rand.Rand, npolys, nvars, maxTerms, maxExp, coefTerms int, complex bool) *poly.System {
	sys := &poly.System{}
	for v := 0; v < nvars; v++ {
		sys.Vars = append(sys.Vars, fmt.Sprintf("x%d", v))
	}
	for p := 0; p < npolys; p++ {
		var pol poly.Polynomial
		if r.IntN(3) > 0 {
			pol.Const = randomSeries(r, 1+r.IntN(coefTerms), complex)
		}
		seen := map[string]bool{}
		for t := 0; t < 1+r.IntN(maxTerms); t++ {
			var m poly.Monomial
			for v := 0; v < nvars; v++ {
				if r.IntN(2) == 0 {
					m.Vars = append(m.Vars, v)
					m.Pows = append(m.Pows, 1+r.IntN(maxExp))
				}
			}
			if len(m.Vars) == 0 {
				continue
			}
			key := fmt.Sprint(m.Vars, m.Pows)
			if seen[key] {
				continue
			}
			seen[key] = true
			m.Coef = randomSeries(r, 1+r.IntN(coefTerms), complex)
			pol.Terms = append(pol.Terms, m)
		}
		sys.Polys = append(sys.Polys, pol)
	}
	return sys
}

// checkAgainstBig runs sys on the CPU executor and compares every output
// coefficient with the math/big evaluation.
func checkAgainstBig(t *testing.T, sys *poly.System, degree, n int, complex bool, workers int, seed uint64) {
	t.Helper()
	plan, err := stager.Stage(sys, degree)
	if err != nil {
		t.Fatal(err)
	}
	if err := stager.Check(plan); err != nil {
		t.Fatal(err)
	}
	e, err := New(plan, mdops.Prec{N: n, Complex: complex}, workers)
	if err != nil {
		t.Fatal(err)
	}
	l := backend.Layout{Prec: mdops.Prec{N: n, Complex: complex}, Degree: degree}
	in := backend.RandomInputs(len(sys.Vars), l, seed)
	for v, s := range in {
		e.SetInput(v, s)
	}
	e.Run()
	bin, err := ref.SeriesFromLimbs(in, l)
	if err != nil {
		t.Fatal(err)
	}
	want, err := ref.Evaluate(sys, bin, degree, complex, uint(64*n+200))
	if err != nil {
		t.Fatal(err)
	}
	got := ref.Verify(e, want, l)
	// Every output coefficient is a sum of products of a few series: its
	// error is a small multiple of one operation's (>= 53N-6 bits) relative
	// to the sum of the magnitudes of the terms.
	target := float64(53*n - 20)
	if got.WorstBits < target {
		t.Errorf("N=%d complex=%v degree %d: worst %.1f accurate bits at %s, want >= %.0f",
			n, complex, degree, got.WorstBits, got.Where, target)
	}
	if got.Checked == 0 {
		t.Fatal("nothing compared")
	}
}

func TestCPUMatchesBigRandomSystems(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for _, n := range testNs {
		for _, complex := range []bool{false, true} {
			for trial := 0; trial < 3; trial++ {
				sys := randomSystem(r, 1+r.IntN(3), 1+r.IntN(5), 6, 5, 3, complex)
				degree := r.IntN(6)
				name := fmt.Sprintf("N%d/complex=%v/%d", n, complex, trial)
				t.Run(name, func(t *testing.T) {
					checkAgainstBig(t, sys, degree, n, complex, 1+trial%2, uint64(trial))
				})
			}
		}
	}
}

func TestCPUMatchesBigBenchmarkSystems(t *testing.T) {
	for _, name := range []string{"p1", "p2", "p3"} {
		for _, n := range testNs {
			for _, complex := range []bool{false, true} {
				if testing.Short() && n > 4 {
					continue
				}
				t.Run(fmt.Sprintf("%s/N%d/complex=%v", name, n, complex), func(t *testing.T) {
					sys, err := families.BenchmarkSystem(name, 1)
					if err != nil {
						t.Fatal(err)
					}
					if complex {
						sys = complexify(sys)
					}
					checkAgainstBig(t, sys, 2, n, complex, 2, 3)
				})
			}
		}
	}
}

// complexify gives every coefficient of sys an imaginary part (a copy).
func complexify(sys *poly.System) *poly.System {
	out := *sys
	out.Polys = make([]poly.Polynomial, len(sys.Polys))
	shift := func(s poly.Series) poly.Series {
		c := make(poly.Series, len(s))
		for k := range s {
			c[k].Re.Set(&s[k].Re)
			c[k].Im.Mul(&s[k].Re, big.NewRat(1, 3))
		}
		return c
	}
	for p, pol := range sys.Polys {
		out.Polys[p].Const = shift(pol.Const)
		for _, m := range pol.Terms {
			m.Coef = shift(m.Coef)
			out.Polys[p].Terms = append(out.Polys[p].Terms, m)
		}
	}
	return &out
}

// TestWorkersBitIdentical checks that splitting layers over goroutines does
// not change a single bit.
func TestWorkersBitIdentical(t *testing.T) {
	sys, err := families.BenchmarkSystem("p1", 2)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := stager.Stage(sys, 7)
	if err != nil {
		t.Fatal(err)
	}
	var sums []string
	for _, w := range []int{1, 2, 5} {
		e, err := New(plan, mdops.Prec{N: 2}, w)
		if err != nil {
			t.Fatal(err)
		}
		in := backend.RandomInputs(plan.NumVars, backend.Layout{Prec: mdops.Prec{N: 2}, Degree: 7}, 9)
		for v, s := range in {
			e.SetInput(v, s)
		}
		e.Run()
		e.Run() // a second run over reused buffers gives the same bits
		sums = append(sums, backend.Checksum(e, plan.NumPolys, plan.NumVars))
	}
	if sums[0] != sums[1] || sums[0] != sums[2] {
		t.Errorf("checksums differ across worker counts: %v", sums)
	}
}

func TestRoundRatExact(t *testing.T) {
	third := big.NewRat(1, 3)
	for _, n := range testNs {
		dst := make([]float64, n)
		backend.RoundRat(dst, third)
		got := alg.Exact(dst)
		want := new(big.Float).SetPrec(2200).SetRat(third)
		diff := new(big.Float).SetPrec(2200).Sub(got, want)
		diff.Abs(diff)
		// error at most half an ulp of the last limb
		bound := new(big.Float).SetFloat64(dst[n-1])
		bound.Abs(bound)
		bound.Mul(bound, new(big.Float).SetFloat64(0x1p-52))
		if diff.Cmp(bound) > 0 {
			t.Errorf("N=%d: 1/3 rounded with error %g > bound %g", n, diff, bound)
		}
	}
}

// writeInputs writes an input file for backend.ReadInputs into a temporary
// directory and returns its path.
func writeInputs(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "in.txt")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReadInputsOutOfRange: a value outside the float64 range is refused at
// its file:line:col; it never becomes an infinity (issue 10).
func TestReadInputsOutOfRange(t *testing.T) {
	vars := []string{"x", "y"}
	l := backend.Layout{Prec: mdops.Prec{N: 2}, Degree: 4}
	for _, c := range []struct{ text, pos, msg string }{
		{"x 0 1\ny 1 1e400\n", ":2:5: ", "outside the float64 range"},
		{"x 0 1\n  y  0  -1e400  # big\n", ":2:9: ", "outside the float64 range"},
		{"x 0 1.8e308\n", ":1:5: ", "outside the float64 range"},
		{"x 0 1e-400\n", ":1:5: ", "underflows to zero"},
		{"x 0 1e999999999\n", ":1:5: ", "outside the float64 range"},
		{"x 0 -1e-999999999\n", ":1:5: ", "underflows to zero"},
		{"x 0 Inf\n", ":1:5: ", "not a finite number"},
		{"x 0 nan\n", ":1:5: ", "malformed number"},
		{"x 9 1e400\n", ":1:5: ", "outside the float64 range"}, // past the degree: still checked
		{"x 0 1 1\n", ":1:7: ", "imaginary part given for real data"},
		{"z 0 1\n", ":1:1: ", "unknown variable"},
		{"x -1 1\n", ":1:3: ", "bad power"},
		{"x 0\n", ":1:1: ", "want `name k re [im]`"},
		{"x 0 1 2 3\n", ":1:9: ", "want `name k re [im]`"},
	} {
		path := writeInputs(t, c.text)
		_, err := backend.ReadInputs(path, vars, l)
		if err == nil || !strings.Contains(err.Error(), path+c.pos) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%q: error %v, want %s...%s", c.text, err, c.pos, c.msg)
		}
	}
	// The largest double and the smallest subnormal are in range; 1/3 is read exactly.
	path := writeInputs(t, "x 0 1.7976931348623157e308\ny 0 4.9e-324\ny 1 1/3")
	in, err := backend.ReadInputs(path, vars, l)
	if err != nil {
		t.Fatal(err)
	}
	if in[0][0] != math.MaxFloat64 || in[1][0] != math.SmallestNonzeroFloat64 || in[1][2] != 1.0/3 {
		t.Errorf("read %v %v", in[0][:2], in[1][:4])
	}
}

// TestReadInputsLongLine: a line longer than bufio.Scanner's 64 KiB token
// limit is read (issue 10).
func TestReadInputsLongLine(t *testing.T) {
	long := "0." + strings.Repeat("0", 100000) + "1e100000" // exactly 0.1, written long
	path := writeInputs(t, "x 0 1\n"+"y 0 "+long+strings.Repeat(" ", 70000)+"# pad\nx 1 2\n")
	in, err := backend.ReadInputs(path, []string{"x", "y"}, backend.Layout{Prec: mdops.Prec{N: 2}, Degree: 1})
	if err != nil {
		t.Fatal(err)
	}
	if in[1][0] != 0.1 || in[0][0] != 1 || in[0][2] != 2 {
		t.Errorf("read x %v, y %v", in[0], in[1])
	}
	// An error after a long line still has its position.
	path = writeInputs(t, strings.Repeat(" ", 70000)+"x 0 1e400\n")
	if _, err := backend.ReadInputs(path, []string{"x"}, backend.Layout{Prec: mdops.Prec{N: 1}}); err == nil || !strings.Contains(err.Error(), ":1:70005: ") {
		t.Errorf("error %v, want at 1:70005", err)
	}
}

// TestVerifyNames: accuracy locations use the system's variable names and
// polynomials numbered from 1 (issue 10).
func TestVerifyNames(t *testing.T) {
	sys, err := poly.Parse("s", []byte("2\nalpha^2 + beta - 1;\nalpha*beta - 3;\n"), poly.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := stager.Stage(sys, 2)
	if err != nil {
		t.Fatal(err)
	}
	l := backend.Layout{Prec: mdops.Prec{N: 2}, Degree: 2}
	e, err := New(plan, mdops.Prec{N: 2}, 1)
	if err != nil {
		t.Fatal(err)
	}
	in := backend.RandomInputs(2, l, 3)
	for v, s := range in {
		e.SetInput(v, s)
	}
	e.Run()
	bin, _ := ref.SeriesFromLimbs(in, l)
	want, err := ref.Evaluate(sys, bin, 2, false, 400)
	if err != nil {
		t.Fatal(err)
	}
	// Spoil one output: d f2/d beta, coefficient t^1.
	e.Deriv(1, 1)[2] += 1
	v := ref.Verify(e, want, l)
	if v.Where != "d f2/d beta coefficient t^1 (re)" || v.WorstBits > 10 {
		t.Errorf("worst %.1f bits at %q, want d f2/d beta coefficient t^1 (re)", v.WorstBits, v.Where)
	}
	e.Deriv(1, 1)[2] -= 1
	e.Value(0)[0] = math.Inf(1)
	if v := ref.Verify(e, want, l); v.NonFinite != 1 || v.WorstBits != 0 || v.Where != "f1 coefficient t^0 (re), not finite" {
		t.Errorf("with an infinite output: %+v", v)
	}
}

// TestCPUProgress: SetProgress reports every layer in order, the work
// fraction rising to 1.
func TestCPUProgress(t *testing.T) {
	sys, err := families.BenchmarkSystem("p1", 1)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := stager.Stage(sys, 3)
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(plan, mdops.Prec{N: 1}, 2)
	if err != nil {
		t.Fatal(err)
	}
	layers := len(plan.ConvLayers) + len(plan.AddLayers)
	var got []int
	last := 0.0
	e.SetProgress(func(layer, total int, work float64) {
		if total != layers || work < last || work > 1 {
			t.Errorf("layer %d/%d work %v after %v", layer, total, work, last)
		}
		got = append(got, layer)
		last = work
	})
	e.Run()
	if len(got) != layers || got[0] != 1 || got[layers-1] != layers || last != 1 {
		t.Errorf("progress calls %v (last work %v), want 1..%d ending at 1", got, last, layers)
	}
	e.SetProgress(nil)
	got = nil
	e.Run()
	if got != nil {
		t.Errorf("progress called after SetProgress(nil): %v", got)
	}
}

// TestNewCPUPrecisionError: the error lists the generated precisions and
// suggests mdgen generate only for an N it can make (issue 10).
func TestNewCPUPrecisionError(t *testing.T) {
	plan, err := stager.Stage(randomSystem(rand.New(rand.NewPCG(1, 2)), 1, 2, 2, 1, 1, false), 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, -1, 17, 7} {
		_, err := New(plan, mdops.Prec{N: n}, 1)
		if err == nil || !errors.Is(err, mdops.ErrPrecision) || !strings.Contains(err.Error(), "generated: 1,2,3,4,5,8,10,16") {
			t.Errorf("N=%d: %v", n, err)
			continue
		}
		if hint := strings.Contains(err.Error(), "mdgen generate"); hint != (n == 7) {
			t.Errorf("N=%d: %v", n, err)
		}
	}
}

// TestNewCPUCoefficientOutOfRange: a coefficient outside the float64 range
// is refused, never rounded to an infinity (stager.Stage refuses one too;
// this is NewCPU's own guard, for plans made or changed otherwise).
func TestNewCPUCoefficientOutOfRange(t *testing.T) {
	sys, err := poly.Parse("s", []byte("1\n3*x^2 - 1;\n"), poly.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := stager.Stage(sys, 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(plan, mdops.Prec{N: 2}, 1); err != nil {
		t.Fatal(err)
	}
	huge := poly.Series{{}}
	huge[0].Re.SetString("1e400")
	for s := range plan.Values {
		plan.Values[s] = huge
	}
	_, err = New(plan, mdops.Prec{N: 2}, 1)
	if err == nil || !regexp.MustCompile(`coefficient 1e\+0?400 outside the float64 range`).MatchString(err.Error()) {
		t.Errorf("NewCPU: %v", err)
	}
}

// TestRoundRatMatchesReduced: backend.RoundRat (unreduced rests) gives the bits of
// the definition with reduced big.Rat rests, for every limb count, on
// random fractions small and large, ties, integers, and values whose later
// limbs are subnormal, underflow to zero or come near the overflow.
func TestRoundRatMatchesReduced(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 34))
	var cases []*big.Rat
	add := func(x *big.Rat) { cases = append(cases, x, new(big.Rat).Neg(x)) }
	add(new(big.Rat))
	add(big.NewRat(1, 3))
	add(big.NewRat(33, 64))
	add(big.NewRat(1<<53+1, 1)) // a tie at the first limb
	add(big.NewRat(1<<54+3, 2)) // a tie again, odd mantissa
	add(big.NewRat(3, 1<<62))   // a power of two times 3
	add(new(big.Rat).SetFloat64(0x1p-1074))
	add(new(big.Rat).SetFloat64(math.MaxFloat64))
	huge := new(big.Rat).SetFloat64(math.MaxFloat64)
	add(huge.Add(huge, big.NewRat(1, 7))) // limbs near the overflow
	tiny := new(big.Rat).SetFloat64(0x1p-1000)
	add(tiny.Mul(tiny, big.NewRat(1, 3))) // later limbs subnormal, then zero
	add(big.NewRat(1<<53, 1))
	add(big.NewRat(1<<53-1, 1<<53))
	add(big.NewRat(1, 1<<53-1))
	add(big.NewRat(1<<53-1, 3))
	for range 100 {
		add(big.NewRat(r.Int64N(1<<53)+1, r.Int64N(1<<53)+1)) // RoundRat's int64 path
		add(big.NewRat(r.Int64()>>uint(r.IntN(63)), r.Int64N(1<<uint(1+r.IntN(62)))+1))
		a, b := randomBigInt(r, 1+r.IntN(900)), randomBigInt(r, 1+r.IntN(900))
		b.Add(b, big.NewInt(1))
		add(new(big.Rat).SetFrac(a, b))
		// a sum of doubles: exact ties and exact ends in later limbs
		x := new(big.Rat)
		for k := 0; k < 1+r.IntN(6); k++ {
			x.Add(x, new(big.Rat).SetFloat64(math.Ldexp(float64(r.Int64N(1<<53)), -53*k-r.IntN(4))))
		}
		add(x)
	}
	for _, x := range cases {
		for n := 1; n <= 20; n++ {
			got, want := make([]float64, n), make([]float64, n)
			for i := range got {
				got[i], want[i] = 7, 7 // backend.RoundRat writes every limb
			}
			backend.RoundRat(got, x)
			roundRatReduced(want, x)
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("RoundRat(%s) at %d limbs: limb %d is %g, want %g", x.RatString(), n, i, got[i], want[i])
				}
			}
		}
	}
}

// randomBigInt returns a random integer of at most bits bits.
func randomBigInt(r *rand.Rand, bits int) *big.Int {
	x := new(big.Int)
	for b := 0; b < bits; b += 64 {
		x.Lsh(x, 64)
		x.Or(x, new(big.Int).SetUint64(r.Uint64()))
	}
	return x.Rsh(x, uint((bits+63)/64*64-bits))
}

// BenchmarkSetupChandra is Newton's setup of chandra512 (262,656 terms) at
// degree 0 in complex double double: stage the plan and make the CPU
// executor (rounding every coefficient); ns/term is per term.
func BenchmarkSetupChandra(b *testing.B) {
	const n = 512
	inst, err := families.System(fmt.Sprintf("chandra%d", n), families.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		plan, err := stager.Stage(inst.System, 0)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := New(plan, mdops.Prec{N: 2, Complex: true}, 0); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n*n+n), "ns/term")
}

// roundRatReduced is RoundRat's definition with big.Rat arithmetic (each
// rest reduced): the reference the tests compare backend.RoundRat with.
func roundRatReduced(dst []float64, r *big.Rat) {
	var rest big.Rat
	rest.Set(r)
	var f big.Rat
	for i := range dst {
		v, _ := rest.Float64()
		dst[i] = v
		if v == 0 || math.IsInf(v, 0) {
			clear(dst[i+1:])
			return
		}
		f.SetFloat64(v)
		rest.Sub(&rest, &f)
	}
}
