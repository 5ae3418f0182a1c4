package families

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strconv"

	"github.com/mdgen/mdgen/stager/poly"
)

// The benchmark systems of Verschelde (arXiv:2101.10881, PHCpack
// src/GPU/Polynomials), each one polynomial in n variables with a constant
// term:
//
//	p1: n = 16, all 1,820 products of 4 distinct variables;
//	p2: n = 128, 128 monomials, monomial k the product of the 64 consecutive
//	    variables x_k..x_{k+63} taken cyclically;
//	p3: n = 128, all 8,128 products of 2 distinct variables.
//
// Every coefficient (of each monomial and of the constant term) is a random
// series in the parameter t of CoefTerms terms: c_0 + c_1 t + ... + c_{K-1}
// t^{K-1}, each c_k a random rational r/2^53 with r uniform in
// [-2^53, 2^53] \ {0}, like a random double in [-1, 1] but exact in every
// precision. The paper draws coefficient series of the full degree; a short
// fixed length keeps the System independent of the evaluation degree, and
// the convolutions cost the same either way (executors do not skip zeros).
// The complex variants draw the real and imaginary parts independently.
//
// Variables are named x1..xn and the parameter t. Monomials are listed in
// lexicographic order of their variable sets (p2: by first variable k), so
// that the variables appear in the order x1, x2, ....
var BenchmarkNames = []string{"p1", "p2", "p3"}

// CoefTerms is the length of the random coefficient series of the benchmark
// systems.
const CoefTerms = 4

// BenchmarkSystem returns the benchmark system name ("p1", "p2" or "p3")
// with random real series coefficients drawn from seed.
func BenchmarkSystem(name string, seed int64) (*poly.System, error) {
	return benchmarkSystem(name, seed, false)
}

// BenchmarkSystemComplex is BenchmarkSystem with random complex coefficients.
func BenchmarkSystemComplex(name string, seed int64) (*poly.System, error) {
	return benchmarkSystem(name, seed, true)
}

// IsBenchmarkName reports whether name is one of BenchmarkNames.
func IsBenchmarkName(name string) bool {
	for _, b := range BenchmarkNames {
		if b == name {
			return true
		}
	}
	return false
}

func benchmarkSystem(name string, seed int64, complex bool) (*poly.System, error) {
	var n int
	var supports [][]int
	switch name {
	case "p1":
		n = 16
		supports = combinations(n, 4)
	case "p2":
		n = 128
		for k := range n {
			vars := make([]int, 0, 64)
			// x_k..x_{k+63} cyclically, as increasing indices
			for v := range n {
				if (v-k+n)%n < 64 {
					vars = append(vars, v)
				}
			}
			supports = append(supports, vars)
		}
	case "p3":
		n = 128
		supports = combinations(n, 2)
	default:
		return nil, fmt.Errorf("stager: unknown benchmark system %q (want p1, p2 or p3)", name)
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x6d6467656e)) // "mdgen"
	s := &poly.System{Param: "t", Vars: make([]string, n), Polys: make([]poly.Polynomial, 1)}
	for v := range n {
		s.Vars[v] = "x" + strconv.Itoa(v+1)
	}
	p := &s.Polys[0]
	p.Terms = make([]poly.Monomial, len(supports))
	for j, vars := range supports {
		pows := make([]int, len(vars))
		for k := range pows {
			pows[k] = 1
		}
		p.Terms[j] = poly.Monomial{Coef: randomSeries(rng, complex), Vars: vars, Pows: pows}
	}
	p.Const = randomSeries(rng, complex)
	return s, nil
}

// combinations returns all k-subsets of 0..n-1 in lexicographic order.
func combinations(n, k int) [][]int {
	var out [][]int
	c := make([]int, k)
	for i := range c {
		c[i] = i
	}
	for {
		out = append(out, append([]int(nil), c...))
		i := k - 1
		for i >= 0 && c[i] == n-k+i {
			i--
		}
		if i < 0 {
			return out
		}
		c[i]++
		for j := i + 1; j < k; j++ {
			c[j] = c[j-1] + 1
		}
	}
}

func randomSeries(rng *rand.Rand, complex bool) poly.Series {
	s := make(poly.Series, CoefTerms)
	for k := range s {
		setRandom(&s[k].Re, rng)
		if complex {
			setRandom(&s[k].Im, rng)
		}
	}
	return s
}

// setRandom sets r to a random nonzero r/2^53 with |r| <= 2^53.
func setRandom(r *big.Rat, rng *rand.Rand) {
	const two53 = 1 << 53
	num := int64(0)
	for num == 0 {
		num = rng.Int64N(2*two53+1) - two53
	}
	r.SetFrac(big.NewInt(num), big.NewInt(two53))
}
