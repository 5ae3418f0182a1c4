package la

import (
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Operation counts, in multiply-adds of the element type (a complex
// multiply-add is one C<N>.MulAdd, four real ones), of the dominant work:
//
//	QR of m x n:        sum_k 2 (m-k-1)(n-k-1)  (v^H c and c -= s v per trailing
//	                    column; about 2mn^2 - 2n^3/3; larfg's O(mn) not counted)
//	ApplyQH, one b:     sum_k 2 (m-k-1)         (about 2mn - n^2)
//	SolveR, one b:      n(n-1)/2
//	MulSub, m x n:      m n
//
// The rate is compared with the bare loop acc = acc.MulAdd(x[i], y[i]) of
// the same element type on one core (bare<T> in types_gen_test.go, as
// runtime's BenchmarkBareLoop), measured in the same run: the metric
// "of-bare" is the routine's rate over the bare rate.

func qrMadds(m, n int) float64 {
	s := 0.0
	for k := 0; k < n; k++ {
		s += 2 * float64(m-k-1) * float64(n-k-1)
	}
	return s
}

func applyMadds(m, n int) float64 {
	s := 0.0
	for k := 0; k < n; k++ {
		s += 2 * float64(m-k-1)
	}
	return s
}

// benchInts reads a comma-separated list from the environment, or returns def.
func benchInts(name string, def []int) []int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		if v, err := strconv.Atoi(strings.TrimSpace(f)); err == nil {
			out = append(out, v)
		}
	}
	return out
}

// BenchmarkLA measures every routine at n = 32, 64, 128 (square), N = 2, 4,
// 8, real and complex, with 1 and 2 workers. Narrow it with LA_BENCH_NS,
// LA_BENCH_SIZES, LA_BENCH_WORKERS (comma-separated lists).
func BenchmarkLA(b *testing.B) {
	ns := benchInts("LA_BENCH_NS", []int{2, 4, 8})
	sizes := benchInts("LA_BENCH_SIZES", []int{32, 64, 128})
	workers := benchInts("LA_BENCH_WORKERS", []int{1, 2})
	for _, N := range ns {
		k, _ := KernelsFor(N)
		tt := testTypes[N]
		for _, cplx := range []bool{false, true} {
			im := impl{N: N, Complex: cplx, W: N, K: k, tt: tt, prec: uint(64*N + 200)}
			if cplx {
				im.W = 2 * N
			}
			rng := rand.New(rand.NewPCG(1, 1))
			var bare float64
			b.Run(fmt.Sprintf("%s/bare", im), func(b *testing.B) {
				x, y := im.randMatrix(rng, 64, 1, 0), im.randMatrix(rng, 64, 1, 0)
				if cplx {
					tt.bareComplex(b, x, y)
				} else {
					tt.bare(b, x, y)
				}
				bare = 64 * float64(b.N) / b.Elapsed().Seconds()
			})
			report := func(b *testing.B, madds float64) {
				r := madds * float64(b.N) / b.Elapsed().Seconds()
				b.ReportMetric(r/1e6, "Mmadd/s")
				if bare > 0 {
					b.ReportMetric(r/bare, "of-bare")
				}
			}
			for _, n := range sizes {
				m := n
				a := im.randMatrix(rng, m, n, 0)
				f, err := im.newQR(m, n, a, m, 1)
				if err != nil {
					b.Fatal(err)
				}
				setTeamMinsFromEnv(f)
				const nrhs = 16
				rhs := im.randMatrix(rng, m, nrhs, 0)
				work := make([]float64, len(rhs))
				for _, w := range workers {
					b.Run(fmt.Sprintf("%s/QR/n%d/w%d", im, n, w), func(b *testing.B) {
						for b.Loop() {
							im.newQR(m, n, a, m, w)
						}
						report(b, qrMadds(m, n))
					})
					b.Run(fmt.Sprintf("%s/MulSub/n%d/w%d", im, n, w), func(b *testing.B) {
						x, y := rhs[:n*im.W], work[:m*im.W]
						for b.Loop() {
							im.mulSub(m, n, a, m, x, y, w)
						}
						report(b, float64(m*n))
					})
					b.Run(fmt.Sprintf("%s/ApplyQHMany%d/n%d/w%d", im, nrhs, n, w), func(b *testing.B) {
						for b.Loop() {
							copy(work, rhs)
							f.ApplyQHMany(nrhs, work, m, w)
						}
						report(b, nrhs*applyMadds(m, n))
					})
					b.Run(fmt.Sprintf("%s/SolveRMany%d/n%d/w%d", im, nrhs, n, w), func(b *testing.B) {
						for b.Loop() {
							copy(work, rhs)
							f.SolveRMany(nrhs, work, m, w)
						}
						report(b, nrhs*float64(n*(n-1)/2))
					})
					b.Run(fmt.Sprintf("%s/ApplyQH/n%d/w%d", im, n, w), func(b *testing.B) {
						y := work[:m*im.W]
						for b.Loop() {
							copy(y, rhs)
							f.ApplyQH(y, w)
						}
						report(b, applyMadds(m, n))
					})
					b.Run(fmt.Sprintf("%s/SolveR/n%d/w%d", im, n, w), func(b *testing.B) {
						y := work[:m*im.W]
						for b.Loop() {
							copy(y, rhs)
							f.SolveR(y, w)
						}
						report(b, float64(n*(n-1)/2))
					})
				}
			}
		}
	}
}

// setTeamMinsFromEnv overrides the team thresholds of f (qhMin, trMin) by
// LA_BENCH_QHMIN and LA_BENCH_TRMIN, and the lane group of ApplyQH's team
// by LA_BENCH_QHGROUP, for tuning laThresholds and laQHGroup in gen/la.go.
func setTeamMinsFromEnv(f Factorization) {
	tm := f.(teamMins)
	qh, tr := tm.teamMins()
	qh = benchInts("LA_BENCH_QHMIN", []int{qh})[0]
	tr = benchInts("LA_BENCH_TRMIN", []int{tr})[0]
	tm.setTeamMins(qh, tr)
	if g := benchInts("LA_BENCH_QHGROUP", nil); len(g) > 0 {
		f.(qhGroups).setQHGroup(g[0])
	}
}

// minTime returns the shortest of several timings of f (at least 3, more
// while the total stays under budget): robust against a noisy machine.
func minTime(f func(), budget time.Duration) time.Duration {
	best := time.Duration(1 << 62)
	start := time.Now()
	for k := 0; k < 3 || (k < 50 && time.Since(start) < budget); k++ {
		t0 := time.Now()
		f()
		best = min(best, time.Since(t0))
	}
	return best
}

// pairedSpeedup times run(1) and run(2) in alternation, pair after pair
// (at least 5 pairs, more within 2*budget), and returns the median of the
// ratios time(1)/time(2): a drift of the machine's speed between pairs
// (other tenants, clock changes) cancels out. With a control (not nil) each
// round also times control(1) and control(2), a loop with no
// synchronization on one and on two goroutines whose ratio is the most any
// routine can gain on the machine at that moment; ctl is the median of
// those ratios (0 without a control), and best the ratio of the shortest
// times of run(1) and run(2) (their quietest moments).
func pairedSpeedup(run func(w int), budget time.Duration, control func(w int)) (med, best, ctl float64) {
	var r, c []float64
	b1, b2 := time.Duration(1<<62), time.Duration(1<<62)
	start := time.Now()
	for k := 0; k < 5 || (k < 41 && time.Since(start) < 2*budget); k++ {
		t0 := time.Now()
		run(1)
		t1 := time.Since(t0)
		t0 = time.Now()
		run(2)
		t2 := time.Since(t0)
		r = append(r, t1.Seconds()/t2.Seconds())
		b1, b2 = min(b1, t1), min(b2, t2)
		if control != nil {
			t0 = time.Now()
			control(1)
			c1 := time.Since(t0)
			t0 = time.Now()
			control(2)
			c2 := time.Since(t0)
			c = append(c, c1.Seconds()/c2.Seconds())
		}
	}
	return median(r), b1.Seconds() / b2.Seconds(), median(c)
}

func median(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	sort.Float64s(x)
	return x[len(x)/2]
}

// BenchmarkRates is BenchmarkLA measured for a table: each case times the
// routine with 1 and 2 workers alternately and keeps the shortest time of
// each (and the bare loop the same way), and the speedup as the median
// ratio of paired timings, so that a noisy machine distorts the ratios
// less. Run it with -benchtime 1x; it reports Mmadd/s with 1 worker,
// of-bare (that rate over the bare rate), speedup (time with 1 worker over
// time with 2, the median of the pairs), speedup-best (the shortest time
// with 1 worker over the shortest with 2) and control (the median speedup
// of the bare loop on two goroutines, timed in the same rounds: what the
// machine gave two independent goroutines meanwhile). Narrow it as BenchmarkLA; LA_BENCH_BUDGET_MS
// (default 300) is the time spent on each timing of each case;
// LA_BENCH_COMPLEX=0 or 1 measures the real or the complex types only;
// LA_BENCH_QHMIN and LA_BENCH_TRMIN override the team thresholds of the
// single-vector ApplyQH and SolveR, LA_BENCH_QHGROUP the lane group of
// ApplyQH's team. ApplyQH and SolveR also report "bound", the most two
// workers could gain by the model of applyQHBound and solveRBound with
// the meeting and handoff costs measured at the start (meetingCosts).
func BenchmarkRates(b *testing.B) {
	ns := benchInts("LA_BENCH_NS", []int{2, 4, 8})
	sizes := benchInts("LA_BENCH_SIZES", []int{32, 64, 128})
	budget := time.Duration(benchInts("LA_BENCH_BUDGET_MS", []int{300})[0]) * time.Millisecond
	kinds := []bool{false, true}
	switch os.Getenv("LA_BENCH_COMPLEX") {
	case "0":
		kinds = kinds[:1]
	case "1":
		kinds = kinds[1:]
	}
	for _, N := range ns {
		k, _ := KernelsFor(N)
		tt := testTypes[N]
		for _, cplx := range kinds {
			im := impl{N: N, Complex: cplx, W: N, K: k, tt: tt, prec: uint(64*N + 200)}
			if cplx {
				im.W = 2 * N
			}
			rng := rand.New(rand.NewPCG(1, 1))
			x, y := im.randMatrix(rng, 64, 1, 0), im.randMatrix(rng, 64, 1, 0)
			run := tt.bareRun
			if cplx {
				run = tt.bareRunComplex
			}
			const reps = 200
			bare := 64 * reps / minTime(func() { run(x, y, reps) }, budget).Seconds()
			// The control: the bare loop for about a millisecond on one
			// goroutine, or half of it on each of two goroutines of a team
			// (the helpers of the routines): no synchronization but the
			// start and the end.
			x2, y2 := im.randMatrix(rng, 64, 1, 0), im.randMatrix(rng, 64, 1, 0)
			creps := int(bare/64/2000) + 1
			control := func(w int) {
				if w == 1 {
					run(x, y, 2*creps)
					return
				}
				runTeam(2, func(p int) {
					if p == 0 {
						run(x, y, creps)
					} else {
						run(x2, y2, creps)
					}
				})
			}
			meet, hand := meetingCosts()
			for _, n := range sizes {
				m := n
				a := im.randMatrix(rng, m, n, 0)
				f, _ := im.newQR(m, n, a, m, 1)
				setTeamMinsFromEnv(f)
				const nrhs = 16
				rhs := im.randMatrix(rng, m, nrhs, 0)
				work := make([]float64, len(rhs))
				cases := []struct {
					name  string
					madds float64
					run   func(w int)
					par   bool
				}{
					{"QR", qrMadds(m, n), func(w int) { im.newQR(m, n, a, m, w) }, true},
					{"MulSub", float64(m * n), func(w int) { im.mulSub(m, n, a, m, rhs[:n*im.W], work[:m*im.W], w) }, true},
					{"ApplyQHMany16", nrhs * applyMadds(m, n), func(w int) { copy(work, rhs); f.ApplyQHMany(nrhs, work, m, w) }, true},
					{"SolveRMany16", nrhs * float64(n*(n-1)/2), func(w int) { copy(work, rhs); f.SolveRMany(nrhs, work, m, w) }, true},
					{"ApplyQH", applyMadds(m, n), func(w int) { copy(work[:m*im.W], rhs); f.ApplyQH(work[:m*im.W], w) }, true},
					{"SolveR", float64(n * (n - 1) / 2), func(w int) { copy(work[:m*im.W], rhs); f.SolveR(work[:m*im.W], w) }, true},
				}
				for _, c := range cases {
					b.Run(fmt.Sprintf("%s/%s/n%d", im, c.name, n), func(b *testing.B) {
						// Each timing runs the routine back to back for at least a
						// millisecond, as a solver calls it (helpers stay hot).
						t := minTime(func() { c.run(1) }, budget/10)
						reps := int(time.Millisecond/t) + 1
						c.madds *= float64(reps)
						one := c.run
						c.run = func(w int) {
							for range reps {
								one(w)
							}
						}
						t1 := minTime(func() { c.run(1) }, budget)
						if c.par {
							med, best, ctl := pairedSpeedup(c.run, budget, control)
							b.ReportMetric(med, "speedup")
							b.ReportMetric(best, "speedup-best")
							b.ReportMetric(ctl, "control")
						}
						switch c.name {
						case "ApplyQH":
							b.ReportMetric(applyQHBound(m, n, t1/time.Duration(reps), meet), "bound")
						case "SolveR":
							b.ReportMetric(solveRBound(n, t1/time.Duration(reps), hand), "bound")
						}
						r := c.madds / t1.Seconds()
						b.ReportMetric(r/1e6, "Mmadd/s")
						b.ReportMetric(r/bare, "of-bare")
						b.ReportMetric(bare/1e6, "bare-Mmadd/s")
					})
				}
			}
		}
	}
}

// meetingCosts measures, on two goroutines of a team (runTeam, the
// helpers of the routines), the time of one meeting of the barrier that
// applyQHPar passes once per reflector (both arrive, both wait for the
// other), and of one handoff, the one-way latency of a value published
// by one goroutine and awaited by the other (half a ping-pong round trip:
// backsubPar's x_i). The shortest of several runs of 2000 meetings each;
// where the two goroutines run (which processors, SMT siblings or not)
// decides them. Computed once per process.
var meetingCosts = sync.OnceValues(func() (meet, hand time.Duration) {
	const rounds = 2000
	meet, hand = time.Duration(1<<62), time.Duration(1<<62)
	for range 7 {
		var bar stepFlag
		t0 := time.Now()
		runTeam(2, func(p int) {
			for s := range rounds {
				bar.arrive()
				bar.wait(2*(s+1) - 1)
			}
		})
		meet = min(meet, time.Since(t0)/rounds)
		var pp stepFlag
		t0 = time.Now()
		runTeam(2, func(p int) {
			for s := range rounds {
				if p == 0 {
					pp.publish(int64(2*s + 1))
					pp.wait(2*s + 1)
				} else {
					pp.wait(2 * s)
					pp.publish(int64(2*s + 2))
				}
			}
		})
		hand = min(hand, time.Since(t0)/(2*rounds))
	}
	return meet, hand
})

// applyQHBound is the most 2 workers can gain on ApplyQH (m x n factors)
// that takes t1 on one, by a model: the time is spread evenly over its
// 2(m-k-1) multiply-adds per reflector k (t1 over their sum: c each), and
// a team of two does reflector k in c (m-k-1) plus one meeting (meet),
// the least exchange by which each can learn the other's part of v^H c;
// reflectors for which that is slower run on one. Anything else the team
// does (combining lanes, cache misses on rows that change hands) only
// lowers the real speed-up below this bound.
func applyQHBound(m, n int, t1, meet time.Duration) float64 {
	c := t1.Seconds() / applyMadds(m, n)
	t2 := 0.0
	for k := 0; k < n; k++ {
		one := c * 2 * float64(m-k-1)
		t2 += min(one, one/2+meet.Seconds())
	}
	return t1.Seconds() / t2
}

// solveRBound is the model bound of applyQHBound for SolveR (n x n R)
// that takes t1 on one worker: two workers at best halve the work, and
// rows that alternate between them wait at least one handoff (hand) each
// for the x_i computed by the other, so that the time is at least
// max(t1/2, (n-1) hand).
func solveRBound(n int, t1, hand time.Duration) float64 {
	return t1.Seconds() / max(t1.Seconds()/2, float64(n-1)*hand.Seconds())
}

// BenchmarkMeeting reports the costs meetingCosts measures: ns per
// meeting of a two-goroutine barrier and ns per handoff. Run it pinned to
// the processors a benchmark of the routines uses (taskset), with
// -test.cpu 2 -benchtime 1x.
func BenchmarkMeeting(b *testing.B) {
	meet, hand := meetingCosts()
	b.ReportMetric(float64(meet.Nanoseconds()), "ns/meeting")
	b.ReportMetric(float64(hand.Nanoseconds()), "ns/handoff")
}

// BenchmarkBareScaling measures how the machine itself scales: the bare
// loop on one goroutine against the same loop on two at once (no sharing,
// no synchronization but the final join). Its "speedup" bounds what any
// 2-worker routine can reach (hyperthreads sharing a core, a lower clock
// with two busy cores). Run with -benchtime 1x.
func BenchmarkBareScaling(b *testing.B) {
	ns := benchInts("LA_BENCH_NS", []int{2, 4, 8})
	for _, N := range ns {
		tt := testTypes[N]
		for _, cplx := range []bool{false, true} {
			im := impl{N: N, Complex: cplx, W: N, tt: tt, prec: uint(64*N + 200)}
			run := tt.bareRun
			if cplx {
				im.W = 2 * N
				run = tt.bareRunComplex
			}
			rng := rand.New(rand.NewPCG(1, 1))
			x, y := im.randMatrix(rng, 64, 1, 0), im.randMatrix(rng, 64, 1, 0)
			x2, y2 := im.randMatrix(rng, 64, 1, 0), im.randMatrix(rng, 64, 1, 0)
			reps := 20000 / N / N
			b.Run(im.String(), func(b *testing.B) {
				t1 := minTime(func() { run(x, y, reps) }, 300*time.Millisecond)
				t2 := minTime(func() {
					done := make(chan bool)
					go func() { run(x2, y2, reps); done <- true }()
					run(x, y, reps)
					<-done
				}, 300*time.Millisecond)
				b.ReportMetric(2*t1.Seconds()/t2.Seconds(), "speedup")
			})
		}
	}
}

// BenchmarkCond measures Cond (the condition estimate, on the factors of
// a random square matrix; each iteration rebuilds the factorization with
// QRFromFactors, so that Cond is not the cached one) at n = LA_BENCH_SIZES
// (256), N = LA_BENCH_NS (8), real and complex, with LA_BENCH_WORKERS
// (1, 2) workers; FromFactors alone is the rebuild's share.
func BenchmarkCond(b *testing.B) {
	ns := benchInts("LA_BENCH_NS", []int{8})
	sizes := benchInts("LA_BENCH_SIZES", []int{256})
	workers := benchInts("LA_BENCH_WORKERS", []int{1, 2})
	for _, N := range ns {
		k, _ := KernelsFor(N)
		for _, cplx := range []bool{false, true} {
			im := impl{N: N, Complex: cplx, W: N, K: k, tt: testTypes[N], prec: uint(64*N + 200)}
			from := k.QRFromFactors
			if cplx {
				im.W = 2 * N
				from = k.QRFromFactorsComplex
			}
			rng := rand.New(rand.NewPCG(1, 1))
			for _, n := range sizes {
				f, err := im.newQR(n, n, im.randMatrix(rng, n, n, 0), n, 2)
				if err != nil {
					b.Fatal(err)
				}
				A, tau := factorsOf(f)
				b.Run(fmt.Sprintf("%s/FromFactors/n%d", im, n), func(b *testing.B) {
					for b.Loop() {
						from(n, n, A, tau)
					}
				})
				for _, w := range workers {
					b.Run(fmt.Sprintf("%s/Cond/n%d/w%d", im, n, w), func(b *testing.B) {
						for b.Loop() {
							g, _ := from(n, n, A, tau)
							g.CondWorkers(w)
						}
					})
				}
			}
		}
	}
}
