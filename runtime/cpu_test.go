package runtime

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/mdgen/mdgen/mdops/alg"
	"github.com/mdgen/mdgen/stager"
)

var testNs = []int{1, 2, 3, 4, 5, 8, 10, 16}

// randomSeries returns a random exact series of length terms, with complex
// parts when complex is set; values are dyadic rationals or thirds, so some
// are not exact in any precision.
func randomSeries(r *rand.Rand, terms int, complex bool) stager.Series {
	s := make(stager.Series, terms)
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
func randomSystem(r *rand.Rand, npolys, nvars, maxTerms, maxExp, coefTerms int, complex bool) *stager.System {
	sys := &stager.System{}
	for v := 0; v < nvars; v++ {
		sys.Vars = append(sys.Vars, fmt.Sprintf("x%d", v))
	}
	for p := 0; p < npolys; p++ {
		var poly stager.Polynomial
		if r.IntN(3) > 0 {
			poly.Const = randomSeries(r, 1+r.IntN(coefTerms), complex)
		}
		seen := map[string]bool{}
		for t := 0; t < 1+r.IntN(maxTerms); t++ {
			var m stager.Monomial
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
			poly.Terms = append(poly.Terms, m)
		}
		sys.Polys = append(sys.Polys, poly)
	}
	return sys
}

// checkAgainstBig runs sys on the CPU executor and compares every output
// coefficient with the math/big evaluation.
func checkAgainstBig(t *testing.T, sys *stager.System, degree, n int, complex bool, workers int, seed uint64) {
	t.Helper()
	plan, err := stager.Stage(sys, degree)
	if err != nil {
		t.Fatal(err)
	}
	if err := stager.Check(plan); err != nil {
		t.Fatal(err)
	}
	e, err := NewCPU(plan, n, complex, workers)
	if err != nil {
		t.Fatal(err)
	}
	l := Layout{N: n, Degree: degree, Complex: complex}
	in := RandomInputs(len(sys.Vars), l, seed)
	for v, s := range in {
		e.SetInput(v, s)
	}
	e.Run()
	ref := Evaluate(sys, InputsToBig(in, l), degree, complex, uint(64*n+200))
	got := Verify(e, ref, l)
	// Every output coefficient is a sum of products of a few series: its
	// error is a small multiple of one operation's (>= 53N-6 bits) relative
	// to the sum of the magnitudes of the terms.
	want := float64(53*n - 20)
	if got.WorstBits < want {
		t.Errorf("N=%d complex=%v degree %d: worst %.1f accurate bits at %s, want >= %.0f",
			n, complex, degree, got.WorstBits, got.Where, want)
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
					sys, err := stager.BenchmarkSystem(name, 1)
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
func complexify(sys *stager.System) *stager.System {
	out := *sys
	out.Polys = make([]stager.Polynomial, len(sys.Polys))
	shift := func(s stager.Series) stager.Series {
		c := make(stager.Series, len(s))
		for k := range s {
			c[k].Re.Set(&s[k].Re)
			c[k].Im.Mul(&s[k].Re, big.NewRat(1, 3))
		}
		return c
	}
	for p, poly := range sys.Polys {
		out.Polys[p].Const = shift(poly.Const)
		for _, m := range poly.Terms {
			m.Coef = shift(m.Coef)
			out.Polys[p].Terms = append(out.Polys[p].Terms, m)
		}
	}
	return &out
}

// TestWorkersBitIdentical checks that splitting layers over goroutines does
// not change a single bit.
func TestWorkersBitIdentical(t *testing.T) {
	sys, err := stager.BenchmarkSystem("p1", 2)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := stager.Stage(sys, 7)
	if err != nil {
		t.Fatal(err)
	}
	var sums []string
	for _, w := range []int{1, 2, 5} {
		e, err := NewCPU(plan, 2, false, w)
		if err != nil {
			t.Fatal(err)
		}
		in := RandomInputs(plan.NumVars, Layout{N: 2, Degree: 7}, 9)
		for v, s := range in {
			e.SetInput(v, s)
		}
		e.Run()
		e.Run() // a second run over reused buffers gives the same bits
		sums = append(sums, Checksum(e, plan.NumPolys, plan.NumVars))
	}
	if sums[0] != sums[1] || sums[0] != sums[2] {
		t.Errorf("checksums differ across worker counts: %v", sums)
	}
}

func TestRoundRatExact(t *testing.T) {
	third := big.NewRat(1, 3)
	for _, n := range testNs {
		dst := make([]float64, n)
		RoundRat(dst, third)
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
