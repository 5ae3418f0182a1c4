package stager

import (
	"bufio"
	"fmt"
	"math/big"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/mdgen/mdgen/stager/families"
	"github.com/mdgen/mdgen/stager/poly"
)

// PHCpack's own staging of the benchmark systems (arXiv:2101.10881).
var benchCounts = []struct {
	name                              string
	conv, add, convLayers, addLayers  int
	slots, work, coefs, consts, input int
}{
	{"p1", 16380, 9084, 4, 11, 18217, 16380, 1820, 1, 16},
	{"p2", 24192, 8192, 64, 8, 24449, 24192, 128, 1, 128},
	{"p3", 24384, 24256, 2, 13, 32641, 24384, 8128, 1, 128},
}

func TestStageBenchmarkCounts(t *testing.T) {
	for _, c := range benchCounts {
		for _, complex := range []bool{false, true} {
			var s *poly.System
			var err error
			if complex {
				s, err = families.BenchmarkSystemComplex(c.name, 7)
			} else {
				s, err = families.BenchmarkSystem(c.name, 7)
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, degree := range []int{0, 2, 8} {
				p, err := Stage(s, degree)
				if err != nil {
					t.Fatal(err)
				}
				got := [...]int{p.ConvJobs(), p.AddJobs(), len(p.ConvLayers), len(p.AddLayers)}
				want := [...]int{c.conv, c.add, c.convLayers, c.addLayers}
				if got != want {
					t.Errorf("%s degree %d: conv, add jobs, conv, add layers = %v, want %v", c.name, degree, got, want)
				}
				kinds := map[SlotKind]int{}
				for _, k := range p.Kinds {
					kinds[k]++
				}
				gotSlots := [...]int{p.NumSlots(), kinds[SlotWork], kinds[SlotCoef], kinds[SlotConst], kinds[SlotInput]}
				wantSlots := [...]int{c.slots, c.work, c.coefs, c.consts, c.input}
				if gotSlots != wantSlots {
					t.Errorf("%s: slots, work, coef, const, input = %v, want %v", c.name, gotSlots, wantSlots)
				}
				if err := Check(p); err != nil {
					t.Errorf("%s degree %d complex %v: %v", c.name, degree, complex, err)
				}
				if got, want := p.Bytes(2, complex), int64(degree+1)*int64(c.slots)*16*map[bool]int64{false: 1, true: 2}[complex]; got != want {
					t.Errorf("%s: Bytes = %d, want %d", c.name, got, want)
				}
			}
		}
	}
}

func TestBenchmarkSystemShape(t *testing.T) {
	for _, name := range families.BenchmarkNames {
		s, err := families.BenchmarkSystem(name, 1)
		if err != nil {
			t.Fatal(err)
		}
		s2, _ := families.BenchmarkSystem(name, 1)
		if !reflect.DeepEqual(s, s2) {
			t.Errorf("%s: not deterministic", name)
		}
		s3, _ := families.BenchmarkSystem(name, 2)
		if reflect.DeepEqual(s.Polys[0].Const, s3.Polys[0].Const) {
			t.Errorf("%s: seed ignored", name)
		}
		if len(s.Polys) != 1 || len(s.Polys[0].Const) != families.CoefTerms {
			t.Errorf("%s: %d polynomials, constant of %d terms", name, len(s.Polys), len(s.Polys[0].Const))
		}
		for _, m := range s.Polys[0].Terms {
			for _, c := range m.Coef {
				if !c.IsReal() || c.Re.Sign() == 0 || c.Re.Denom().Cmp(big.NewInt(1<<53)) > 0 {
					t.Fatalf("%s: coefficient %s", name, c.Re.RatString())
				}
			}
		}
		c, _ := families.BenchmarkSystemComplex(name, 1)
		if c.Polys[0].Terms[0].Coef[0].IsReal() {
			t.Errorf("%s: complex system has a real coefficient", name)
		}
	}
	if _, err := families.BenchmarkSystem("p4", 1); err == nil {
		t.Error("p4: no error")
	}
	// p2: monomial k is x_k..x_{k+63} cyclically.
	s, _ := families.BenchmarkSystem("p2", 1)
	for k, m := range s.Polys[0].Terms {
		if len(m.Vars) != 64 {
			t.Fatalf("p2 monomial %d has %d variables", k, len(m.Vars))
		}
		for j := range 64 {
			if !containsInt(m.Vars, (k+j)%128) {
				t.Fatalf("p2 monomial %d lacks x%d", k, (k+j)%128+1)
			}
		}
	}
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// randomSystem draws a system with n variables, each polynomial with 1..20
// monomials of 1..n variables with exponents 1..maxExp, constant terms
// present or absent, and series coefficients of up to 4 terms, some complex.
func randomSystem(rng *rand.Rand, n, npolys, maxExp int) *poly.System {
	s := &poly.System{Param: "t"}
	for v := range n {
		s.Vars = append(s.Vars, fmt.Sprintf("x%d", v+1))
	}
	randSeries := func() poly.Series {
		l := rng.IntN(4) + 1
		out := make(poly.Series, l)
		for k := range out {
			out[k].Re.SetFrac64(rng.Int64N(21)-10, rng.Int64N(5)+1)
			if rng.IntN(3) == 0 {
				out[k].Im.SetFrac64(rng.Int64N(21)-10, rng.Int64N(5)+1)
			}
		}
		if out[l-1].IsZero() {
			out[l-1].Re.SetInt64(1)
		}
		return out
	}
	for range npolys {
		var p poly.Polynomial
		if rng.IntN(2) == 0 {
			p.Const = randSeries()
		}
		seen := map[string]bool{}
		nm := rng.IntN(20) + 1
		for range nm {
			m := rng.IntN(n) + 1
			vars := rng.Perm(n)[:m]
			sortInts(vars)
			pows := make([]int, m)
			var key strings.Builder
			for k := range pows {
				pows[k] = 1
				if rng.IntN(3) == 0 {
					pows[k] = rng.IntN(maxExp) + 1
				}
				fmt.Fprintf(&key, "%d^%d ", vars[k], pows[k])
			}
			if seen[key.String()] {
				continue
			}
			seen[key.String()] = true
			p.Terms = append(p.Terms, poly.Monomial{Coef: randSeries(), Vars: vars, Pows: pows})
		}
		s.Polys = append(s.Polys, p)
	}
	return s
}

func sortInts(xs []int) {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && xs[j] < xs[j-1]; j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}

func TestStageRandomSystems(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	count := 0
	for n := 1; n <= 8; n++ {
		for trial := range 40 {
			s := randomSystem(rng, n, rng.IntN(3)+1, 5)
			for _, degree := range []int{0, 1, 3, 6} {
				p, err := Stage(s, degree)
				if err != nil {
					t.Fatalf("n %d trial %d degree %d: %v", n, trial, degree, err)
				}
				if err := Check(p); err != nil {
					t.Fatalf("n %d trial %d degree %d: %v", n, trial, degree, err)
				}
				checkMultilinearCount(t, s, p)
				count++
			}
		}
	}
	t.Logf("%d random plans checked", count)
}

// checkMultilinearCount checks the job count for systems whose exponents are
// all 1 and whose coefficients survive truncation: 3m-3 per monomial of m >=
// 2 variables, 1 for m = 1.
func checkMultilinearCount(t *testing.T, s *poly.System, p *Plan) {
	t.Helper()
	want := 0
	for _, poly := range s.Polys {
		for _, m := range poly.Terms {
			for _, a := range m.Pows {
				if a != 1 {
					return
				}
			}
			if len(truncate(m.Coef, p.Degree)) == 0 {
				continue
			}
			if len(m.Vars) == 1 {
				want++
			} else {
				want += 3*len(m.Vars) - 3
			}
		}
	}
	if got := p.ConvJobs(); got != want {
		t.Errorf("multilinear system: %d convolution jobs, want %d", got, want)
	}
}

func TestStageMultilinearLayers(t *testing.T) {
	// One monomial of m variables, coefficient read-only: m layers, 3m-3 jobs.
	for m := 1; m <= 70; m++ {
		s := &poly.System{Polys: []poly.Polynomial{{Terms: []poly.Monomial{{Coef: poly.Series{one()}}}}}}
		for v := range m {
			s.Vars = append(s.Vars, fmt.Sprintf("x%d", v))
			s.Polys[0].Terms[0].Vars = append(s.Polys[0].Terms[0].Vars, v)
			s.Polys[0].Terms[0].Pows = append(s.Polys[0].Terms[0].Pows, 1)
		}
		p, err := Stage(s, 1)
		if err != nil {
			t.Fatal(err)
		}
		wantJobs := 3*m - 3
		if m == 1 {
			wantJobs = 1
		}
		if p.ConvJobs() != wantJobs || len(p.ConvLayers) != m || p.AddJobs() != 0 {
			t.Errorf("m = %d: %d jobs in %d layers, %d additions; want %d in %d, 0", m, p.ConvJobs(),
				len(p.ConvLayers), p.AddJobs(), wantJobs, m)
		}
		if err := Check(p); err != nil {
			t.Fatalf("m = %d: %v", m, err)
		}
	}
}

func one() poly.Rational {
	var r poly.Rational
	r.Re.SetInt64(1)
	return r
}

func TestStageExponents(t *testing.T) {
	// 3·x^5·y^2 + 2·x·y^4: powers x^2, x^4 (for x^4 = CF of x^5), y^3 (from
	// y^2·y... the table makes y^3 = y^2·y); exponent slots 2, 4, 5.
	r := func(v int64) poly.Series { var x poly.Rational; x.Re.SetInt64(v); return poly.Series{x} }
	s := &poly.System{Vars: []string{"x", "y"}, Polys: []poly.Polynomial{{Terms: []poly.Monomial{
		{Coef: r(3), Vars: []int{0, 1}, Pows: []int{5, 2}},
		{Coef: r(2), Vars: []int{0, 1}, Pows: []int{1, 4}},
	}}}}
	p, err := Stage(s, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(p); err != nil {
		t.Fatal(err)
	}
	ncoef := 0
	for _, k := range p.Kinds {
		if k == SlotCoef {
			ncoef++
		}
	}
	if ncoef != 2+3 { // two monomials, exponents 2, 4, 5
		t.Errorf("%d coefficient slots, want 5", ncoef)
	}
	// Jobs: powers x^2, x^4, y^2, y^3 (4); c' for each monomial: 2 + 1 (3);
	// multilinear 3 + 3; exponent factors: 2 + 1 (3). Total 16.
	if p.ConvJobs() != 16 {
		t.Errorf("%d convolution jobs, want 16", p.ConvJobs())
	}
}

func TestStageOutputs(t *testing.T) {
	r := func(v int64) poly.Series { var x poly.Rational; x.Re.SetInt64(v); return poly.Series{x} }
	// p1 = 5 (constant only); p2 = 2x (linear); p3 = 0 (no terms);
	// p4 = 7 + x + y, p5 = t^3·x (zero after truncation at degree 2).
	tt := make(poly.Series, 4)
	tt[3].Re.SetInt64(1)
	s := &poly.System{Vars: []string{"x", "y"}, Polys: []poly.Polynomial{
		{Const: r(5)},
		{Terms: []poly.Monomial{{Coef: r(2), Vars: []int{0}, Pows: []int{1}}}},
		{},
		{Const: r(7), Terms: []poly.Monomial{{Coef: r(1), Vars: []int{0}, Pows: []int{1}}, {Coef: r(1), Vars: []int{1}, Pows: []int{1}}}},
		{Terms: []poly.Monomial{{Coef: tt, Vars: []int{0}, Pows: []int{1}}}},
	}}
	p, err := Stage(s, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(p); err != nil {
		t.Fatal(err)
	}
	if k := p.Kinds[p.Value[0]]; k != SlotConst {
		t.Errorf("value of a constant polynomial: slot kind %d", k)
	}
	if k := p.Kinds[p.Deriv[1][0]]; k != SlotCoef || p.Deriv[1][1] != NoSlot {
		t.Errorf("derivatives of 2x: kind %d, %d", k, p.Deriv[1][1])
	}
	if p.Value[2] != NoSlot || p.Value[4] != NoSlot || p.Deriv[4][0] != NoSlot {
		t.Errorf("zero polynomials: value slots %d, %d", p.Value[2], p.Value[4])
	}
	if p.ConvJobs() != 3 || p.AddJobs() != 2 || len(p.AddLayers) != 2 {
		t.Errorf("%d conv jobs, %d add jobs in %d layers; want 3, 2, 2", p.ConvJobs(), p.AddJobs(), len(p.AddLayers))
	}
}

func TestStageErrors(t *testing.T) {
	c := poly.Series{one()}
	for _, tc := range []struct {
		name string
		s    *poly.System
	}{
		{"repeated monomial", &poly.System{Vars: []string{"x"}, Polys: []poly.Polynomial{{Terms: []poly.Monomial{
			{Coef: c, Vars: []int{0}, Pows: []int{1}}, {Coef: c, Vars: []int{0}, Pows: []int{1}}}}}}},
		{"variable out of range", &poly.System{Vars: []string{"x"}, Polys: []poly.Polynomial{{Terms: []poly.Monomial{
			{Coef: c, Vars: []int{1}, Pows: []int{1}}}}}}},
		{"unsorted variables", &poly.System{Vars: []string{"x", "y"}, Polys: []poly.Polynomial{{Terms: []poly.Monomial{
			{Coef: c, Vars: []int{1, 0}, Pows: []int{1, 1}}}}}}},
		{"zero exponent", &poly.System{Vars: []string{"x"}, Polys: []poly.Polynomial{{Terms: []poly.Monomial{
			{Coef: c, Vars: []int{0}, Pows: []int{0}}}}}}},
		{"constant among terms", &poly.System{Vars: []string{"x"}, Polys: []poly.Polynomial{{Terms: []poly.Monomial{
			{Coef: c}}}}}},
	} {
		if _, err := Stage(tc.s, 2); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	s, _ := families.BenchmarkSystem("p1", 1)
	if _, err := Stage(s, -1); err == nil {
		t.Error("negative degree: no error")
	}
	if _, err := Stage(s, 1<<50); err == nil || !strings.Contains(err.Error(), "memory") && !strings.Contains(err.Error(), "overflow") {
		t.Errorf("degree 2^50: %v", err)
	}
}

func TestStageDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20 {
		s := randomSystem(rng, 6, 3, 5)
		p1, err1 := Stage(s, 4)
		p2, err2 := Stage(s, 4)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if !reflect.DeepEqual(p1, p2) {
			t.Fatal("two Stage calls differ")
		}
	}
}

// TestStageAddTrees checks the invariants of the addition trees directly:
// every work slot is a Dst or Src of at most one tree, read-only slots are
// never a Dst, and the number of addition layers is ceil(log2) of the longest
// list.
func TestStageAddTrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 100 {
		s := randomSystem(rng, rng.IntN(8)+1, 2, 5)
		p, err := Stage(s, 2)
		if err != nil {
			t.Fatal(err)
		}
		srcs := map[Slot]int{}
		for _, l := range p.AddLayers {
			for _, j := range l {
				if p.Kinds[j.Dst] != SlotWork {
					t.Fatalf("add job %v writes a slot of kind %d", j, p.Kinds[j.Dst])
				}
				srcs[j.Src]++
				if srcs[j.Src] > 1 {
					t.Fatalf("slot %d added twice", j.Src)
				}
			}
		}
	}
}

func TestCheckCatches(t *testing.T) {
	s, _ := families.BenchmarkSystem("p1", 3)
	fresh := func() *Plan {
		p, err := Stage(s, 3)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name   string
		mutate func(p *Plan)
	}{
		{"conv job moved a layer earlier", func(p *Plan) {
			j := p.ConvLayers[1][0]
			p.ConvLayers[1] = p.ConvLayers[1][1:]
			p.ConvLayers[0] = append(p.ConvLayers[0], j)
		}},
		{"two conv jobs write one slot", func(p *Plan) { p.ConvLayers[2][1].Out = p.ConvLayers[2][0].Out }},
		{"conv writes an input", func(p *Plan) { p.ConvLayers[0][0].Out = p.Inputs[0] }},
		{"conv factor replaced", func(p *Plan) {
			j := &p.ConvLayers[1][0]
			if j.B == p.Inputs[15] {
				j.B = p.Inputs[14]
			} else {
				j.B = p.Inputs[15]
			}
		}},
		{"conv job dropped", func(p *Plan) { p.ConvLayers[3] = p.ConvLayers[3][1:] }},
		{"add job moved a layer earlier", func(p *Plan) {
			j := p.AddLayers[1][0]
			p.AddLayers[1] = p.AddLayers[1][1:]
			p.AddLayers[0] = append(p.AddLayers[0], j)
		}},
		{"add job dropped", func(p *Plan) { p.AddLayers[5] = p.AddLayers[5][1:] }},
		{"add job duplicated", func(p *Plan) { p.AddLayers[0] = append(p.AddLayers[0], p.AddLayers[0][0]) }},
		{"add writes a constant", func(p *Plan) { p.AddLayers[0][0].Dst = 0 }},
		{"wrong coefficient", func(p *Plan) { p.Values[1] = poly.Series{one()} }},
		{"value slot off by one", func(p *Plan) { p.Value[0]++ }},
		{"derivative missing", func(p *Plan) { p.Deriv[0][3] = NoSlot }},
		{"kinds out of order", func(p *Plan) { p.Kinds[0], p.Kinds[len(p.Kinds)-1] = p.Kinds[len(p.Kinds)-1], p.Kinds[0] }},
		{"series too long", func(p *Plan) { p.Values[0] = append(p.Values[0], p.Values[0]...) }},
	} {
		p := fresh()
		if err := Check(p); err != nil {
			t.Fatalf("unmutated plan: %v", err)
		}
		tc.mutate(p)
		if err := Check(p); err == nil {
			t.Errorf("%s: Check found nothing", tc.name)
		} else {
			t.Logf("%s: %v", tc.name, err)
		}
	}
}

func TestPlanBytes(t *testing.T) {
	p := &Plan{Degree: 9, Kinds: make([]SlotKind, 100)}
	if got := p.Bytes(4, true); got != 10*100*8*4*2 {
		t.Errorf("Bytes = %d", got)
	}
	if got := p.DoublesPerLimb(); got != 1000 {
		t.Errorf("DoublesPerLimb = %d", got)
	}
	p.Degree = 1 << 60
	if got := p.Bytes(16, true); got != -1 {
		t.Errorf("overflow: Bytes = %d", got)
	}
	if err := p.CheckMemory(16, true); err == nil {
		t.Error("CheckMemory of an overflowing array: no error")
	}
	if v, ok := parseMemAvailable(bufio.NewScanner(strings.NewReader(
		"MemTotal:       1 kB\nMemAvailable:   2048 kB\n"))); !ok || v != 2048*1024 {
		t.Errorf("parseMemAvailable = %d, %v", v, ok)
	}
	if FormatBytes(1536) != "1.5 KiB" || FormatBytes(12) != "12 B" {
		t.Errorf("FormatBytes: %s, %s", FormatBytes(1536), FormatBytes(12))
	}
}

func BenchmarkStage(b *testing.B) {
	for _, name := range families.BenchmarkNames {
		s, err := families.BenchmarkSystem(name, 1)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Stage(s, 152); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkCheck(b *testing.B) {
	for _, name := range families.BenchmarkNames {
		s, _ := families.BenchmarkSystem(name, 1)
		p, err := Stage(s, 152)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if err := Check(p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestStageRepeatedTermsExact: validate's exact check (used when two
// exponent vectors' hashes collide) names the same terms as the hash.
func TestStageRepeatedTermsExact(t *testing.T) {
	one := poly.Series{{}}
	one[0].Re.SetInt64(1)
	s := &poly.System{Vars: []string{"x", "y"}, Polys: []poly.Polynomial{{Terms: []poly.Monomial{
		{Coef: one, Vars: []int{0}, Pows: []int{2}},
		{Coef: one, Vars: []int{0, 1}, Pows: []int{1, 1}},
		{Coef: one, Vars: []int{1}, Pows: []int{1}},
		{Coef: one, Vars: []int{0, 1}, Pows: []int{1, 1}},
		{Coef: one, Vars: []int{0}, Pows: []int{2}},
	}}}}
	_, err := Stage(s, 0)
	const want = "stager: polynomial 1: terms 2 and 4 have the same exponents (like terms must be combined)"
	if err == nil || err.Error() != want {
		t.Errorf("Stage: %v, want %s", err, want)
	}
	if err := repeatedTerms(s, 0); err == nil || err.Error() != want {
		t.Errorf("repeatedTerms: %v, want %s", err, want)
	}
	s.Polys[0].Terms = s.Polys[0].Terms[:3]
	if err := repeatedTerms(s, 0); err != nil {
		t.Errorf("repeatedTerms of distinct terms: %v", err)
	}
}
