package stager

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"reflect"
	goruntime "runtime"
	"testing"

	"github.com/mdgen/mdgen/stager/families"
	"github.com/mdgen/mdgen/stager/poly"
)

// chunked runs f with every Stage pass cut into as many chunks as there are
// polynomials and 4 workers, whatever the size of the system.
func chunked(t *testing.T, f func()) {
	t.Helper()
	old, procs := chunkTerms, goruntime.GOMAXPROCS(4)
	chunkTerms = 1
	defer func() { chunkTerms = old; goruntime.GOMAXPROCS(procs) }()
	f()
}

// stageOneChunk stages s as one sequential pass (no chunks, one worker).
func stageOneChunk(s *poly.System, degree int) (*Plan, error) {
	old := chunkTerms
	chunkTerms = 1 << 62
	defer func() { chunkTerms = old }()
	return Stage(s, degree)
}

// TestStageChunksGolden: the golden Plans (digests from before the chunked
// staging) come out the same when every polynomial is a chunk of its own.
func TestStageChunksGolden(t *testing.T) {
	chunked(t, func() { TestScaleGoldenPlans(t) })
}

// TestStageChunksSamePlan: Stage cut into one chunk per polynomial on 4
// workers gives a Plan deeply equal to the one-chunk Plan (job order within
// each layer included): random systems with powers and constants, the
// families, and the degrees that truncate coefficients away.
func TestStageChunksSamePlan(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var systems []*poly.System
	for n := 1; n <= 8; n++ {
		for range 10 {
			systems = append(systems, randomSystem(rng, n, rng.IntN(8)+1, 6))
		}
	}
	systems = append(systems, families.Cyclic(7), families.Katsura(6), families.Chandrasekhar(24, big.NewRat(33, 64)))
	for _, name := range []string{"p1", "p2", "p3"} {
		if s, err := benchmarkSystem(name, 3, true); err == nil {
			systems = append(systems, s)
		}
	}
	for k, s := range systems {
		for _, degree := range []int{0, 1, 3} {
			want, err1 := stageOneChunk(s, degree)
			var got *Plan
			var err2 error
			chunked(t, func() { got, err2 = Stage(s, degree) })
			if err1 != nil || err2 != nil {
				t.Fatalf("system %d degree %d: %v, %v", k, degree, err1, err2)
			}
			if !reflect.DeepEqual(got, want) || got.Hash() != want.Hash() {
				t.Fatalf("system %d (%d polynomials) degree %d: the chunked Plan differs", k, len(s.Polys), degree)
			}
		}
	}
}

// TestStageChunksFirstError: with errors in several polynomials, the
// chunked Stage reports the one a sequential pass stops at (validate's
// before survey's, the lowest polynomial first).
func TestStageChunksFirstError(t *testing.T) {
	one := poly.Series{{}}
	one[0].Re.SetInt64(1)
	good := poly.Polynomial{Terms: []poly.Monomial{{Coef: one, Vars: []int{0, 1}, Pows: []int{1, 1}}}}
	repeated := poly.Polynomial{Terms: []poly.Monomial{{Coef: one, Vars: []int{0}, Pows: []int{1}}, {Coef: one, Vars: []int{0}, Pows: []int{1}}}}
	constant := poly.Polynomial{Terms: []poly.Monomial{{Coef: one}}}
	huge := poly.Series{{}}
	huge[0].Re.SetFrac(new(big.Int).Lsh(big.NewInt(1), 2000), big.NewInt(1))
	outOfRange := poly.Polynomial{Terms: []poly.Monomial{{Coef: huge, Vars: []int{1}, Pows: []int{1}}}}
	for _, tc := range []struct {
		polys []poly.Polynomial
	}{
		{[]poly.Polynomial{good, good, repeated, good, repeated}},
		{[]poly.Polynomial{good, constant, good, repeated}},
		{[]poly.Polynomial{good, outOfRange, constant, good}},
		{[]poly.Polynomial{good, constant, outOfRange, good, repeated}},
	} {
		s := &poly.System{Vars: []string{"x", "y"}, Polys: tc.polys}
		_, want := stageOneChunk(s, 2)
		var got error
		chunked(t, func() { _, got = Stage(s, 2) })
		if want == nil || got == nil || got.Error() != want.Error() {
			t.Errorf("chunked: %v, one chunk: %v", got, want)
		}
	}
}

// TestDerivTable: DerivTable gives DerivSlot's entries, column-major, for
// dense and sparse plans, a plan with Deriv only, and tables larger than
// the plan (-1 outside it), on 1 and 4 workers.
func TestDerivTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var plans []*Plan
	for n := 1; n <= 6; n++ {
		p, err := Stage(randomSystem(rng, n, rng.IntN(6)+1, 3), 2)
		if err != nil {
			t.Fatal(err)
		}
		plans = append(plans, p)
	}
	// A sparse plan (no dense Deriv): a chain of 1500 linear equations.
	one := poly.Series{{}}
	one[0].Re.SetInt64(1)
	chain := &poly.System{}
	const nv = 1500
	for v := range nv {
		chain.Vars = append(chain.Vars, fmt.Sprintf("x%d", v))
		terms := []poly.Monomial{{Coef: one, Vars: []int{v}, Pows: []int{1}}}
		if v+1 < nv {
			terms = append(terms, poly.Monomial{Coef: one, Vars: []int{v + 1}, Pows: []int{2}})
		}
		chain.Polys = append(chain.Polys, poly.Polynomial{Terms: terms, Const: one})
	}
	p, err := Stage(chain, 1)
	if err != nil {
		t.Fatal(err)
	}
	if p.Deriv != nil {
		t.Fatal("the chain has a dense Deriv")
	}
	plans = append(plans, p, chandraPlan(t, 40))
	legacy := *plans[3]
	legacy.Partials = nil
	plans = append(plans, &legacy)
	for _, procs := range []int{1, 4} {
		old := goruntime.GOMAXPROCS(procs)
		for k, p := range plans {
			for _, sz := range [][2]int{{p.NumPolys, p.NumVars}, {p.NumPolys + 2, p.NumVars + 3}, {max(0, p.NumPolys-1), p.NumVars}} {
				m, n := sz[0], sz[1]
				ds := make([]int64, m*n+1)
				ds[m*n] = 77
				p.DerivTable(ds, m, n)
				for j := range n {
					for i := range m {
						want := int64(NoSlot)
						if i < p.NumPolys && j < p.NumVars {
							want = int64(p.DerivSlot(i, j))
						}
						if ds[i+j*m] != want {
							t.Fatalf("procs %d plan %d (%d×%d): entry (%d, %d) %d, DerivSlot %d", procs, k, m, n, i, j, ds[i+j*m], want)
						}
					}
				}
				if ds[m*n] != 77 {
					t.Fatalf("plan %d: DerivTable wrote past m·n", k)
				}
			}
		}
		goruntime.GOMAXPROCS(old)
	}
}

// chandraPlan stages Chandrasekhar's H-equation in n unknowns at degree 0.
func chandraPlan(t *testing.T, n int) *Plan {
	t.Helper()
	p, err := Stage(families.Chandrasekhar(n, big.NewRat(33, 64)), 0)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// BenchmarkDerivTable: the dense derivative table of chandra1024 (1 million
// entries) by DerivTable and by DerivSlot per entry, column by column (as
// the GPU Newton back end made it).
func BenchmarkDerivTable(b *testing.B) {
	const n = 1024
	p, err := Stage(families.Chandrasekhar(n, big.NewRat(33, 64)), 0)
	if err != nil {
		b.Fatal(err)
	}
	ds := make([]int64, n*n)
	b.Run("DerivTable", func(b *testing.B) {
		for b.Loop() {
			p.DerivTable(ds, n, n)
		}
	})
	b.Run("DerivSlot", func(b *testing.B) {
		for b.Loop() {
			for j := range n {
				for i := range n {
					ds[i+j*n] = int64(p.DerivSlot(i, j))
				}
			}
		}
	})
}
