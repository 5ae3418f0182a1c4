//go:build libqd

// Command ratio is the timing half of `make bench-qd` (bench/qd/run.sh): it
// times the Go ring loops of package bench/qd/ring and libqd's
// (bench/qd/qdbench.cpp, linked twice: the vectorized and the scalar build)
// in this one process, on the same operands, and prints ns/op and the
// ratios ours / libqd.
//
// A ratio of two times taken in different processes, seconds apart, divides
// whatever load came and went between them; a 3 ns operation (dd add) is
// the most sensitive. So the loops of one operation (the Go loop and every
// libqd variant of both builds) run in rounds, interleaved, the order
// rotated from round to round; each round gives one ratio per libqd
// variant (the two times a few tens of milliseconds apart), and the
// report is the median of the rounds' ratios, with their range. Every loop
// runs on one locked thread and is timed by that thread's CPU time
// (CLOCK_THREAD_CPUTIME_ID), the same clock for both sides: time when
// another process has the core is not counted, though a process on the
// core's other hardware thread still slows the loop.
//
// It builds only with the libqd tag and the two libraries that run.sh
// builds (cgo; CGO_LDFLAGS names their folder):
//
//	go build -tags libqd -o ratio ./bench/qd/ratio
//
// Output, one line per number (run.sh reads them):
//
//	ns <src> <type> <op> <ns/op>           median over the rounds; src go, vec or sca
//	ratio <build> <type> <variant> <median> <min> <max>
//	                                       Go's <type> op / libqd's <variant> in <build>
package main

/*
#cgo LDFLAGS: -lqdb_vec -lqdb_sca -lqd
void qdb_vec_init(const double *ddx, const double *ddy, const double *qdx, const double *qdy);
int qdb_vec_count(void);
const char *qdb_vec_name(int k);
void qdb_vec_run(int k, long iters);
int qdb_vec_fma(void);
void qdb_sca_init(const double *ddx, const double *ddy, const double *qdx, const double *qdy);
int qdb_sca_count(void);
const char *qdb_sca_name(int k);
void qdb_sca_run(int k, long iters);

#include <time.h>

// thread_seconds is the CPU time of the calling thread.
static double thread_seconds(void) {
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
*/
import "C"

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/mdgen/mdgen/bench/qd/ring"
	"github.com/mdgen/mdgen/internal/stats"
)

// build is one build of qdbench.cpp, through its prefixed functions.
type build struct {
	name  string // "vec" or "sca"
	init  func(ddx, ddy, qdx, qdy *C.double)
	count func() C.int
	kname func(k C.int) *C.char
	run   func(k C.int, iters C.long)
}

var builds = []build{
	{"vec", func(a, b, c, d *C.double) { C.qdb_vec_init(a, b, c, d) }, func() C.int { return C.qdb_vec_count() },
		func(k C.int) *C.char { return C.qdb_vec_name(k) }, func(k C.int, n C.long) { C.qdb_vec_run(k, n) }},
	{"sca", func(a, b, c, d *C.double) { C.qdb_sca_init(a, b, c, d) }, func() C.int { return C.qdb_sca_count() },
		func(k C.int) *C.char { return C.qdb_sca_name(k) }, func(k C.int, n C.long) { C.qdb_sca_run(k, n) }},
}

// loop is one timed ring loop: Go's or one libqd variant of one build.
type loop struct {
	src, typ, op string                  // "go dd add", "sca dd add_ieee"
	run          func(iters int) float64 // CPU seconds of one run
	iters        int
	ns           []float64 // ns/op of each round
}

func main() {
	rounds := flag.Int("rounds", 11, "interleaved rounds per operation")
	runTime := flag.Duration("run", 30*time.Millisecond, "least CPU time of one timed run")
	flag.Parse()
	if *rounds < 1 || *runTime <= 0 {
		fmt.Fprintln(os.Stderr, "ratio: -rounds and -run must be positive")
		os.Exit(2)
	}
	// One thread for every loop, Go's and libqd's alike.
	runtime.LockOSThread()

	ddx, ddy := ring.Limbs(2)
	qdx, qdy := ring.Limbs(4)
	for _, b := range builds {
		b.init(ptr(ddx), ptr(ddy), ptr(qdx), ptr(qdy))
	}
	if C.qdb_vec_fma() != 0 {
		fmt.Fprintln(os.Stderr, "ratio: libqd two_prod uses QD_FMA")
	} else {
		fmt.Fprintln(os.Stderr, "ratio: libqd two_prod uses Dekker split (no QD_FMA)")
	}
	fmt.Printf("# %d interleaved rounds per operation, runs of at least %v\n", *rounds, *runTime)
	for _, g := range ring.Loops {
		loops := []*loop{{src: "go", typ: g.Type, op: g.Op, run: func(iters int) float64 {
			t0 := C.thread_seconds()
			g.Run(iters)
			return float64(C.thread_seconds() - t0)
		}}}
		for _, b := range builds {
			for k := range int(b.count()) {
				typ, variant, _ := strings.Cut(C.GoString(b.kname(C.int(k))), " ")
				if typ != g.Type || (variant != g.Op && !strings.HasPrefix(variant, g.Op+"_")) {
					continue
				}
				loops = append(loops, &loop{src: b.name, typ: typ, op: variant, run: func(iters int) float64 {
					t0 := C.thread_seconds()
					b.run(C.int(k), C.long(iters))
					return float64(C.thread_seconds() - t0)
				}})
			}
		}
		measure(loops, *rounds, runTime.Seconds())
		report(loops)
	}
}

// ptr passes the limbs to C, which copies them before returning.
func ptr(x []float64) *C.double { return (*C.double)(unsafe.Pointer(&x[0])) }

// measure calibrates each loop to runs of at least minSeconds, then times
// them in rounds, each loop once per round, the order rotated by one from
// round to round so that no loop always follows the same one.
func measure(loops []*loop, rounds int, minSeconds float64) {
	for _, l := range loops {
		l.iters = ring.Pairs
		for l.run(l.iters) < minSeconds {
			l.iters *= 2
		}
	}
	for r := range rounds {
		for i := range loops {
			l := loops[(r+i)%len(loops)]
			l.ns = append(l.ns, l.run(l.iters)*1e9/float64(l.iters))
		}
	}
}

// report prints the median ns/op of every loop and, for each libqd loop,
// the median and range over the rounds of Go's time / its time.
func report(loops []*loop) {
	for _, l := range loops {
		fmt.Printf("ns %s %s %s %.3f\n", l.src, l.typ, l.op, stats.Median(l.ns))
	}
	ours := loops[0]
	for _, l := range loops[1:] {
		r := make([]float64, len(l.ns))
		for i := range r {
			r[i] = ours.ns[i] / l.ns[i]
		}
		fmt.Printf("ratio %s %s %s %.3f %.3f %.3f\n", l.src, l.typ, l.op, stats.Median(r), slices.Min(r), slices.Max(r))
	}
}
