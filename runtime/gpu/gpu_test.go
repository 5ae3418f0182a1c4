package gpu

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/stager"
	"github.com/mdgen/mdgen/stager/families"
	"github.com/mdgen/mdgen/stager/poly"
)

func testPlan(t *testing.T, name string, degree int, complex bool) *stager.Plan {
	t.Helper()
	var sys *poly.System
	var err error
	if complex {
		sys, err = families.BenchmarkSystemComplex(name, 7)
	} else {
		sys, err = families.BenchmarkSystem(name, 7)
	}
	if err != nil {
		t.Fatal(err)
	}
	plan, err := stager.Stage(sys, degree)
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// A range buffer of all slots is the device array of the contract, and
// fromRange inverts toRange.
func TestGPUGeometry(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, complex := range []bool{false, true} {
		for _, n := range []int{1, 2, 5} {
			plan := &stager.Plan{Degree: 4, Kinds: make([]stager.SlotKind, 7)}
			g := newGeometry(plan, n, complex)
			l := backend.Layout{Prec: mdops.Prec{N: n, Complex: complex}, Degree: plan.Degree}
			slots := make([][]float64, plan.NumSlots())
			all := make([]float64, g.rangeLen(plan.NumSlots()))
			for s := range slots {
				slots[s] = make([]float64, l.SlotLen())
				for i := range slots[s] {
					slots[s][i] = r.Float64()
				}
				g.toRange(all, plan.NumSlots(), s, slots[s])
			}
			if int64(len(all)) != gpuabi.Memory(plan, mdops.Prec{N: n, Complex: complex}).DataBytes/8 {
				t.Fatalf("range of all slots has %d doubles, GPUMemory says %d", len(all), gpuabi.Memory(plan, mdops.Prec{N: n, Complex: complex}).DataBytes/8)
			}
			w := l.W()
			for s := range slots {
				for k := 0; k <= plan.Degree; k++ {
					for q := 0; q < gpuabi.Parts(complex); q++ {
						for li := 0; li < n; li++ {
							// data[(q*N + l)*slotStride + s*(degree+1) + k]
							at := (q*n+li)*plan.NumSlots()*(plan.Degree+1) + s*(plan.Degree+1) + k
							if int64(at) != g.index(q, li, s, k) {
								t.Fatalf("index(%d,%d,%d,%d) = %d, want %d", q, li, s, k, g.index(q, li, s, k), at)
							}
							if all[at] != slots[s][k*w+q*n+li] {
								t.Fatalf("n=%d complex=%v: slot %d coefficient %d part %d limb %d misplaced", n, complex, s, k, q, li)
							}
						}
					}
				}
				back := make([]float64, l.SlotLen())
				g.fromRange(back, all, plan.NumSlots(), s)
				if !slices.Equal(back, slots[s]) {
					t.Fatalf("fromRange(toRange(x)) != x for slot %d", s)
				}
			}
			// A sub-range holds the same chunks, shorter.
			sub := make([]float64, g.rangeLen(3))
			for s := 2; s < 5; s++ {
				g.toRange(sub, 3, s-2, slots[s])
			}
			per := 3 * (plan.Degree + 1)
			for c := 0; c < g.chunks(); c++ {
				lo := int(g.index(c/n, c%n, 2, 0))
				if !slices.Equal(sub[c*per:(c+1)*per], all[lo:lo+per]) {
					t.Fatalf("chunk %d of a sub-range differs from the device array", c)
				}
			}
		}
	}
}

func TestOutputRuns(t *testing.T) {
	for _, name := range []string{"p1", "p3"} {
		for _, d := range []int{0, 8, 200} {
			plan := testPlan(t, name, d, false)
			slots, runs := outputRuns(plan)
			if !slices.IsSorted(slots) {
				t.Fatal("output slots not sorted")
			}
			want := 0
			for _, s := range plan.Value {
				if s != stager.NoSlot {
					want++
				}
			}
			plan.EachDeriv(func(_, _ int, s stager.Slot) {
				if s != stager.NoSlot {
					want++
				}
			})
			if len(slots) > want || len(slots) == 0 {
				t.Fatalf("%s d=%d: %d output slots for %d outputs", name, d, len(slots), want)
			}
			i := 0
			for k, r := range runs {
				if r.lo >= r.hi || k > 0 && runs[k-1].hi >= r.lo {
					t.Fatalf("runs %v not disjoint and increasing", runs)
				}
				for i < len(slots) && int(slots[i]) < r.hi {
					if int(slots[i]) < r.lo {
						t.Fatalf("slot %d outside every run", slots[i])
					}
					i++
				}
			}
			if i != len(slots) {
				t.Fatalf("slot %d outside every run", slots[i])
			}
			t.Logf("%s d=%d: %d output slots in %d runs", name, d, len(slots), len(runs))

		}
	}
}

// randomSeries and randomSystem make random systems (as runtime's CPU
// tests do): npolys polynomials in nvars variables, up to maxTerms
// monomials each, exponents up to maxExp, like terms combined.
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

// A random system stages and its plan passes the check (the helpers work
// without a GPU too).
func TestRandomSystem(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for _, complex := range []bool{false, true} {
		plan, err := stager.Stage(randomSystem(r, 2, 4, 6, 5, 3, complex), 4)
		if err != nil {
			t.Fatal(err)
		}
		if err := stager.Check(plan); err != nil {
			t.Fatal(err)
		}
	}
}
