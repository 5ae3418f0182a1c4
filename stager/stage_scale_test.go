package stager

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"runtime"
	"strings"
	"testing"

	"github.com/mdgen/mdgen/stager/families"
	"github.com/mdgen/mdgen/stager/poly"
)

// allocated returns the bytes that f allocates on the heap (freed or not):
// a measure of work that, unlike time, does not depend on the machine. The
// scale tests bound it by a multiple of the input size, so that a quadratic
// path fails them (or runs out of memory) instead of passing slowly.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// linearSystem writes n linear equations in n variables, x_i + 2 x_{i+1} - 3
// (cyclically): 2.4 MB at n = 10^5.
func linearSystem(n int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "%d\n", n)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, " x%d + 2*x%d - 3;\n", i, i%n+1)
	}
	return []byte(b.String())
}

// productSystem writes the one equation x1^a*x2^a*...*xn^a - 1 (689 KB at
// n = 10^5, a = 1).
func productSystem(n, a int) []byte {
	var b strings.Builder
	b.WriteString("1\n ")
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteByte('*')
		}
		fmt.Fprintf(&b, "x%d", i)
		if a > 1 {
			fmt.Fprintf(&b, "^%d", a)
		}
	}
	b.WriteString(" - 1;\n")
	return []byte(b.String())
}

// stageAndCheck parses, stages at degree and checks src, and returns the
// bytes each step allocated.
func stageAndCheck(t *testing.T, src []byte, degree int) (*poly.System, *Plan, [3]uint64) {
	t.Helper()
	var s *poly.System
	var p *Plan
	var err error
	var alloc [3]uint64
	alloc[0] = allocated(func() { s, err = poly.Parse("scale", src, poly.ParseOptions{}) })
	if err != nil {
		t.Fatal(err)
	}
	alloc[1] = allocated(func() { p, err = Stage(s, degree) })
	if err != nil {
		t.Fatal(err)
	}
	alloc[2] = allocated(func() { err = Check(p) })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d bytes: parse, stage, check allocate %s, %s, %s; plan %v", len(src),
		FormatBytes(int64(alloc[0])), FormatBytes(int64(alloc[1])), FormatBytes(int64(alloc[2])), p.Memory(1, false))
	return s, p, alloc
}

// TestScaleLinearSystem: 10^5 linear equations (2.4 MB) used to take a
// dense table of 10^10 derivative slots in Stage (14 GB, then out of
// memory) and a dense walk of it in Check. Now Stage keeps sparse
// derivative lists and everything is linear in the input.
func TestScaleLinearSystem(t *testing.T) {
	const n = 100_000
	src := linearSystem(n)
	s, p, alloc := stageAndCheck(t, src, 2)
	if len(s.Polys) != n || len(s.Vars) != n || s.Param != "" {
		t.Fatalf("%d polynomials in %d variables, parameter %q", len(s.Polys), len(s.Vars), s.Param)
	}
	if got := [...]int{p.ConvJobs(), p.AddJobs(), len(p.ConvLayers), len(p.AddLayers)}; got != [...]int{2 * n, 2 * n, 1, 2} {
		t.Errorf("conv, add jobs, conv, add layers = %v", got)
	}
	if p.Deriv != nil {
		t.Errorf("a dense derivative table of %d×%d for a sparse system", n, n)
	}
	for _, i := range []int{0, 1, n / 2, n - 1} {
		if len(p.Partials[i]) != 2 {
			t.Fatalf("polynomial %d: %d derivatives, want 2", i+1, len(p.Partials[i]))
		}
		// ∂p_i/∂x_i is the coefficient 1, ∂p_i/∂x_{i+1} the coefficient 2.
		for _, v := range []int{i, (i + 1) % n} {
			d := p.DerivSlot(i, v)
			if d == NoSlot || p.Kinds[d] != SlotCoef {
				t.Errorf("∂p%d/∂x%d: slot %d", i+1, v+1, d)
			}
		}
		if d := p.DerivSlot(i, (i+2)%n); d != NoSlot {
			t.Errorf("∂p%d/∂x%d: slot %d, want NoSlot", i+1, (i+2)%n+1, d)
		}
	}
	// Linear work: a few hundred bytes allocated per byte of input (the
	// dense table alone was 40 GB).
	for k, what := range []string{"Parse", "Stage", "Check"} {
		if limit := uint64(300 * len(src)); alloc[k] > limit {
			t.Errorf("%s allocated %s for %d bytes of input, more than %s", what,
				FormatBytes(int64(alloc[k])), len(src), FormatBytes(int64(limit)))
		}
	}
	if m := p.Memory(1, false); m.Outputs > 64*n {
		t.Errorf("outputs take %s", FormatBytes(m.Outputs))
	}
}

// TestScaleProduct: the product x1*x2*...*xn of 10^5 variables (689 KB)
// took 160 s to read, multiplied out left to right (O(n²)); the power
// product x1^2*...*xn^2 also took a quadratic product tree in Stage.
func TestScaleProduct(t *testing.T) {
	const n = 100_000
	for _, a := range []int{1, 2} {
		src := productSystem(n, a)
		s, p, alloc := stageAndCheck(t, src, 1)
		if len(s.Polys) != 1 || len(s.Polys[0].Terms) != 1 || len(s.Vars) != n {
			t.Fatalf("a = %d: %d polynomials, %d variables", a, len(s.Polys), len(s.Vars))
		}
		m := s.Polys[0].Terms[0]
		if len(m.Vars) != n || m.Vars[n-1] != n-1 || m.Pows[0] != a || m.Pows[n-1] != a {
			t.Fatalf("a = %d: the monomial has %d variables", a, len(m.Vars))
		}
		// 3n-3 multilinear jobs; with squares, n more for c·x1···xn and n
		// exponent factors.
		want := 3*n - 3
		if a == 2 {
			want += 2 * n
		}
		if p.ConvJobs() != want || p.AddJobs() != 1 {
			t.Errorf("a = %d: %d conv, %d add jobs, want %d, 1", a, p.ConvJobs(), p.AddJobs(), want)
		}
		// The old reader allocated about 16·n²/2 = 80 GB here.
		for k, what := range []string{"Parse", "Stage", "Check"} {
			if limit := uint64(600 * len(src)); alloc[k] > limit {
				t.Errorf("a = %d: %s allocated %s for %d bytes of input, more than %s", a, what,
					FormatBytes(int64(alloc[k])), len(src), FormatBytes(int64(limit)))
			}
		}
	}
}

// TestScaleHighPowers: x_i^65536 for 10^4 variables (137 KB). The old
// table of powers was dense (65,536 slots per variable: 2.6 GB) and found
// its powers by a scan of every monomial per variable (quadratic); Check
// raised to the power by 65,536 multiplications per variable.
func TestScaleHighPowers(t *testing.T) {
	const n = 10_000
	var b strings.Builder
	b.WriteString("1\n ")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "x%d^65536 + ", i)
	}
	b.WriteString("1;\n")
	src := []byte(b.String())
	_, p, alloc := stageAndCheck(t, src, 1)
	// Per variable: the powers 2, 4, ..., 2^15 and 65535 = x^32768·x^32767
	// with 32767, 16383, ..., 3 (14 more) = 30 powers, then c·x^65535,
	// the value and the exponent factor: 33 jobs.
	if p.ConvJobs() != 33*n {
		t.Errorf("%d conv jobs, want %d", p.ConvJobs(), 33*n)
	}
	for k, what := range []string{"Parse", "Stage", "Check"} {
		if limit := uint64(1000 * len(src)); alloc[k] > limit {
			t.Errorf("%s allocated %s for %d bytes of input, more than %s", what,
				FormatBytes(int64(alloc[k])), len(src), FormatBytes(int64(limit)))
		}
	}
}

// TestScaleMemoryEstimate: the estimate Stage makes before it allocates
// counts the same job tables, slot tables and outputs as Plan.Memory of the
// Plan it makes, and the data array.
func TestScaleMemoryEstimate(t *testing.T) {
	check := func(name string, s *poly.System, degree int) {
		t.Helper()
		sv, err := survey(s, degree)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Stage(s, degree)
		if err != nil {
			t.Fatal(err)
		}
		est, got := sv.estimate(3, true), p.Memory(3, true)
		if est.Data != got.Data || est.Series != got.Series || est.Slots != got.Slots || est.Outputs != got.Outputs ||
			est.Jobs < got.Jobs || est.Staging <= 0 || got.Staging != 0 {
			t.Errorf("%s: estimate %+v, plan %+v", name, est, got)
		}
		// Every part counts; the job tables are 12 bytes a convolution
		// and 8 an addition.
		if got.Jobs < int64(12*p.ConvJobs()+8*p.AddJobs()) || got.Slots < int64(len(p.Kinds)) ||
			got.Total() != got.Data+got.Jobs+got.Slots+got.Outputs {
			t.Errorf("%s: %+v", name, got)
		}
	}
	for _, name := range families.BenchmarkNames {
		s, _ := families.BenchmarkSystem(name, 1)
		check(name, s, 5)
	}
	s, err := poly.Parse("hand", []byte(goldenHand[0].src), poly.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	check("hand", s, 4)
	s, err = poly.Parse("linear", linearSystem(3000), poly.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	check("linear", s, 0)
}

// fakeMemory makes memAvailable report avail bytes until the test ends.
func fakeMemory(t *testing.T, avail int64) {
	saved := memAvailable
	memAvailable = func() (int64, bool) { return avail, true }
	t.Cleanup(func() { memAvailable = saved })
}

// TestScaleMemoryMessages: `mdgen plan p1 -degree 100000000 -prec 16` said
// "× 1 limbs (real)": Stage refuses a degree whose data array does not fit
// even at one limb of real data, and its message read as if that were the
// precision asked for. Now Stage says it is the least any precision needs,
// CheckMemory states the precision it checked, and both give the parts.
func TestScaleMemoryMessages(t *testing.T) {
	fakeMemory(t, 1<<30)
	s, _ := families.BenchmarkSystem("p1", 1)
	_, err := Stage(s, 100_000_000)
	if err == nil {
		t.Fatal("p1 at degree 10^8 in 1 GiB: no error")
	}
	msg := err.Error()
	for _, want := range []string{"degree 100000000, even at 1 limb, real (the least any precision needs)",
		"more than the 1.0 GiB of memory available", "data array 13.3 TiB (18,217 series × 100,000,001 coefficients × 1 limb × 8 bytes)",
		"job tables", "slot tables", "outputs", "staging"} {
		if !strings.Contains(msg, want) {
			t.Errorf("Stage: %s\nwant %q", msg, want)
		}
	}
	if strings.Contains(msg, "1 limbs") {
		t.Errorf("Stage: %s", msg)
	}

	// A plan that Stage makes but that does not fit at 16 limbs.
	p, err := Stage(s, 400)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckMemory(1, false); err != nil {
		t.Errorf("p1 at degree 400, 1 limb: %v", err)
	}
	err = p.CheckMemory(16, true)
	if err == nil {
		t.Fatal("p1 at degree 400, 16 limbs, complex, in 1 GiB: no error")
	}
	msg = err.Error()
	for _, want := range []string{"degree 400 at 16 limbs, complex: the plan and its data array need 1.7 GiB",
		"data array 1.7 GiB (18,217 series × 401 coefficients × 16 limbs × 2 parts × 8 bytes) + job tables 263.3 KiB + slot tables"} {
		if !strings.Contains(msg, want) {
			t.Errorf("CheckMemory: %s\nwant %q", msg, want)
		}
	}
	t.Log(msg)

	// The tables count, not only the data array: 10^5 linear equations at
	// degree 0 have a 4.6 MiB data array and over 60 MiB of tables.
	fakeMemory(t, 16<<20)
	ls, err := poly.Parse("linear", linearSystem(100_000), poly.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Stage(ls, 0)
	if err == nil || !strings.Contains(err.Error(), "data array 4.6 MiB (600,000 series × 1 coefficient × 1 limb × 8 bytes) + job tables 3.8 MiB") {
		t.Errorf("10^5 equations in 16 MiB: %v", err)
	}

	// Overflow.
	big := &Plan{Degree: 1 << 60, Kinds: make([]SlotKind, 100)}
	if err := big.CheckMemory(16, true); err == nil || !strings.Contains(err.Error(), "overflows") {
		t.Errorf("overflow: %v", err)
	}
}

// TestScaleDerivSlot: DerivSlot agrees with the dense Deriv where Stage
// makes both, and reads a hand-made Plan that has only Deriv.
func TestScaleDerivSlot(t *testing.T) {
	s, err := poly.Parse("hand", []byte(goldenHand[2].src), poly.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := Stage(s, 2)
	if err != nil {
		t.Fatal(err)
	}
	if p.Deriv == nil {
		t.Fatal("no dense Deriv for a small system")
	}
	for i := range p.NumPolys {
		for v := range p.NumVars {
			if p.DerivSlot(i, v) != p.Deriv[i][v] {
				t.Errorf("p%d x%d: DerivSlot %d, Deriv %d", i+1, v+1, p.DerivSlot(i, v), p.Deriv[i][v])
			}
		}
	}
	legacy := *p
	legacy.Partials = nil
	if err := Check(&legacy); err != nil {
		t.Errorf("a plan with Deriv only: %v", err)
	}
	if legacy.DerivSlot(0, 3) != p.Deriv[0][3] {
		t.Error("DerivSlot of a plan with Deriv only")
	}
	// Check sees a derivative list that disagrees with Deriv, or lists a
	// wrong slot.
	bad := *p
	bad.Partials = append([][]Partial(nil), p.Partials...)
	bad.Partials[0] = append([]Partial(nil), p.Partials[0]...)
	bad.Partials[0][0].Slot = p.Value[0]
	if err := Check(&bad); err == nil {
		t.Error("Partials and Deriv disagree: Check found nothing")
	}
	bad.Deriv = nil
	if err := Check(&bad); err == nil {
		t.Error("wrong derivative slot: Check found nothing")
	}
	none := *p
	none.Partials, none.Deriv = nil, nil
	if err := Check(&none); err == nil {
		t.Error("no derivatives at all: Check found nothing")
	}
	var pe *poly.ParseError
	if errors.As(err, &pe) {
		t.Error("unexpected ParseError")
	}
}

// TestStageDoubleRange: a System made in code, not read, with a coefficient
// that would round to Inf or to a subnormal double is refused by Stage too.
func TestStageDoubleRange(t *testing.T) {
	for _, v := range []string{"1e400", "-1e400", "1e-400", "1e-310"} {
		var c poly.Rational
		c.Re.SetString(v)
		for _, sys := range []*poly.System{
			{Vars: []string{"x"}, Polys: []poly.Polynomial{{Terms: []poly.Monomial{{Coef: poly.Series{c}, Vars: []int{0}, Pows: []int{1}}}}}},
			{Vars: []string{"x"}, Polys: []poly.Polynomial{{Const: poly.Series{one(), c}}}, Param: "t"},
		} {
			_, err := Stage(sys, 3)
			if err == nil || !strings.Contains(err.Error(), "for a double") {
				t.Errorf("%s: %v", v, err)
			}
		}
	}
	// Truncated away: not used, not refused.
	var c poly.Rational
	c.Re.SetString("1e400")
	sys := &poly.System{Vars: []string{"x"}, Param: "t", Polys: []poly.Polynomial{{Const: poly.Series{one(), c}}}}
	if _, err := Stage(sys, 0); err != nil {
		t.Errorf("truncated coefficient: %v", err)
	}
}

// TestScaleChandraBytesPerTerm: making Chandrasekhar's H-equation (n^2
// terms, 16.7 million at n = 4096) and staging it allocate a bounded number
// of bytes per term, the same at n = 256 and n = 512: setup memory linear
// in the terms. Before the generator took its variable lists and
// coefficients from per-polynomial arrays and Stage shared the System's
// coefficients, they took about 380 and 990 bytes per term (now about 285
// and 200: Stage allocates its job layers at their exact sizes).
func TestScaleChandraBytesPerTerm(t *testing.T) {
	if testing.Short() {
		t.Skip("stages 330,000 terms")
	}
	c := big.NewRat(33, 64)
	perTerm := map[int][2]float64{}
	for _, n := range []int{256, 512} {
		var s *poly.System
		var p *Plan
		var err error
		sysBytes := allocated(func() { s = families.Chandrasekhar(n, c) })
		stageBytes := allocated(func() { p, err = Stage(s, 0) })
		if err != nil {
			t.Fatal(err)
		}
		terms := float64(n*n + n)
		if p.NumSlots() != 4*n*n+4*n+1 || p.ConvJobs() != 3*n*n+n {
			t.Fatalf("n = %d: %d slots, %d convolutions", n, p.NumSlots(), p.ConvJobs())
		}
		perTerm[n] = [2]float64{float64(sysBytes) / terms, float64(stageBytes) / terms}
		t.Logf("n = %d: the system %.0f B/term, Stage %.0f B/term", n, perTerm[n][0], perTerm[n][1])
		for k, limit := range [2]float64{320, 400} {
			if perTerm[n][k] > limit {
				t.Errorf("n = %d: %s allocated %.0f bytes per term, more than %.0f", n, []string{"Chandrasekhar", "Stage"}[k], perTerm[n][k], limit)
			}
		}
	}
	for k := range 2 {
		if a, b := perTerm[256][k], perTerm[512][k]; b > 1.2*a {
			t.Errorf("%s: %.0f bytes per term at n = 512, %.0f at n = 256: not linear", []string{"Chandrasekhar", "Stage"}[k], b, a)
		}
	}
}

// BenchmarkStageChandra makes and stages chandra512 (262,656 terms) at
// degree 0, as Newton's setup does; ns/term and B/term are per term.
func BenchmarkStageChandra(b *testing.B) {
	const n = 512
	c := big.NewRat(33, 64)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Stage(families.Chandrasekhar(n, c), 0); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n*n+n), "ns/term")
}

// BenchmarkStageOnlyChandra stages chandraN (N = 1024, 2048) at degree 0,
// the System made once outside the timing: Stage alone, on GOMAXPROCS
// cores (-cpu 1,2,...); ns/term is per term.
func BenchmarkStageOnlyChandra(b *testing.B) {
	for _, n := range []int{1024, 2048} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			s := families.Chandrasekhar(n, big.NewRat(33, 64))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := Stage(s, 0); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n*n+n), "ns/term")
		})
	}
}

// TestCheckMemoryTogether: the plans of Newton's working degrees must fit
// together (-degree 1000000000 passed the check of each degree alone, then
// ran out of memory); a degree near math.MaxInt is refused, not a panic.
func TestCheckMemoryTogether(t *testing.T) {
	s, err := poly.Parse("x", []byte("2 3\nx*y - t;\ny^2 - x + t;\n"), poly.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	degrees := []int{0, 1, 2, 4, 7, 11, 17, 26, 40, 61, 64, 1 << 20}
	one, err := Stage(s, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	alone := one.Memory(4, false).Total()
	fakeMemory(t, alone*3/2) // each fits alone; not all of them
	if err := one.CheckMemory(4, false); err != nil {
		t.Fatalf("alone: %v", err)
	}
	err = CheckMemoryTogether(s, append(degrees, 700000, 500000), 4, false)
	if err == nil || !strings.Contains(err.Error(), "the 14 working degrees") || !strings.Contains(err.Error(), "degree 1048576 ") {
		t.Errorf("together: %v", err)
	}
	fakeMemory(t, 1<<62)
	if err := CheckMemoryTogether(s, degrees, 4, false); err != nil {
		t.Errorf("with room: %v", err)
	}
	if _, err := Stage(s, math.MaxInt); err == nil || !strings.Contains(err.Error(), "2^63 coefficients") {
		t.Errorf("Stage at MaxInt: %v", err)
	}
	if err := CheckMemoryTogether(s, []int{0, math.MaxInt}, 1, false); err == nil || !strings.Contains(err.Error(), "overflows") {
		t.Errorf("together at MaxInt: %v", err)
	}
}
