package la

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// parallel calls f on ranges that cover [0, n), units of grain indices
// (the last one shorter), claimed one at a time from a shared counter by
// min(workers, units) goroutines: the caller and workers-1 others. A
// goroutine that starts late (waking an idle thread takes microseconds)
// then simply claims fewer units, or none: the caller returns when every
// unit is done, without waiting for helpers that found no work.
// workers <= 1 calls f(0, n) directly. Which goroutine runs a unit never
// changes what the unit computes.
func parallel(workers, n, grain int, f func(lo, hi int)) {
	units := (n + grain - 1) / grain
	w := min(workers, units)
	if w <= 1 {
		if n > 0 {
			f(0, n)
		}
		return
	}
	var next, done atomic.Int64
	var fin stepFlag
	run := func() {
		for {
			u := int(next.Add(1) - 1)
			if u >= units {
				return
			}
			f(u*grain, min((u+1)*grain, n))
			if done.Add(1) == int64(units) {
				fin.publish(1)
			}
		}
	}
	for p := 1; p < w; p++ {
		goHelp(run)
	}
	run()
	fin.wait(0)
}

// runTeam calls f(0), ..., f(w-1) concurrently, f(0) in the caller and the
// others on helper goroutines, and returns when all have returned.
func runTeam(w int, f func(p int)) {
	var left atomic.Int64
	var fin stepFlag
	left.Store(int64(w))
	one := func(p int) {
		f(p)
		if left.Add(-1) == 0 {
			fin.publish(1)
		}
	}
	for p := 1; p < w; p++ {
		goHelp(func() { one(p) })
	}
	one(0)
	fin.wait(0)
}

// The helpers: goroutines that outlive a parallel region and spin for a
// while (hotSpin) after each piece of work before they sleep, so that the
// next region starts on them within a microsecond; a fresh goroutine, or a
// sleeping one, takes tens of microseconds to start on an idle thread,
// which is the whole running time of a small MulSub. There are as many as
// the largest number of pieces of work ever in flight at once.
var team struct {
	mu   sync.Mutex
	idle []*helper
}

// hotSpin is how long an idle helper polls for work before it sleeps.
const hotSpin = 50 * time.Microsecond

type helper struct {
	job      atomic.Pointer[func()]
	sleeping atomic.Bool
	wake     chan struct{}
}

// goHelp runs f on a helper goroutine, an idle one if there is one.
func goHelp(f func()) {
	team.mu.Lock()
	var h *helper
	if k := len(team.idle); k > 0 {
		h = team.idle[k-1]
		team.idle = team.idle[:k-1]
	}
	team.mu.Unlock()
	if h == nil {
		h = &helper{wake: make(chan struct{}, 1)}
		go h.loop()
	}
	h.job.Store(&f)
	if h.sleeping.Load() {
		select {
		case h.wake <- struct{}{}:
		default:
		}
	}
}

func (h *helper) loop() {
	for {
		f := h.await()
		f()
		team.mu.Lock()
		team.idle = append(team.idle, h)
		team.mu.Unlock()
	}
}

// await returns the next piece of work: it polls for hotSpin, then sleeps
// until goHelp wakes it. (goHelp stores the job before it reads sleeping;
// await sets sleeping before it looks for the job: one of them sees the
// other.)
func (h *helper) await() func() {
	start := time.Now()
	for i := 1; ; i++ {
		if f := h.job.Swap(nil); f != nil {
			return *f
		}
		if i%256 == 0 && time.Since(start) > hotSpin {
			break
		}
	}
	for {
		h.sleeping.Store(true)
		if f := h.job.Swap(nil); f != nil {
			h.sleeping.Store(false)
			return *f
		}
		<-h.wake
		h.sleeping.Store(false)
		if f := h.job.Swap(nil); f != nil {
			return *f
		}
	}
}

// rowGrain is the number of rows MulSub hands out at a time.
const rowGrain = 16

// checkMatrix panics unless an m x n column-major matrix with leading
// dimension ld fits in l elements.
func checkMatrix(name string, m, n, l, ld int) {
	if m < 0 || n < 0 {
		panic(fmt.Sprintf("la: %s: negative dimension %d x %d", name, m, n))
	}
	if ld < max(1, m) {
		panic(fmt.Sprintf("la: %s: leading dimension %d < %d rows", name, ld, m))
	}
	if n > 0 && m > 0 && l < (n-1)*ld+m {
		panic(fmt.Sprintf("la: %s: %d elements hold no %d x %d matrix with leading dimension %d", name, l, m, n, ld))
	}
}

// as reinterprets v, w float64 limbs per element, as a []T (T is F<N> or
// C<N>, whose size is w float64s), sharing its memory.
func as[T any](v []float64, w int) []T {
	if len(v)%w != 0 {
		panic(fmt.Sprintf("la: buffer of %d float64s is not a whole number of %d-limb elements", len(v), w))
	}
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(v))), len(v)/w)
}

// flat reinterprets v (T is F<N> or C<N>, w float64s) as its float64 limbs.
func flat[T any](v []T, w int) []float64 {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(v))), len(v)*w)
}

// stepFlag publishes progress: the QR's reflectors 0..v-1 are done, or a
// parallel region is (v = 1), or a team's barrier or back substitution
// has got that far. A waiter polls, then yields, for up to yieldFor (the
// wait is usually microseconds, and waking a sleeping goroutine takes tens
// of them), then sleeps on a condition variable, so that a spinning
// goroutine does not starve the one it waits for on an oversubscribed
// machine.
type stepFlag struct {
	v        atomic.Int64
	sleepers atomic.Int32
	mu       sync.Mutex
	cond     sync.Cond
	team     bool // a single-vector team's: a sleep means congestion (teamCongested)
}

// The back-off of the single-vector teams (ApplyQH and SolveR on one
// vector, whose partners meet at every reflector or row). When a partner
// is held up (the machine has more runnable threads than processors:
// other tenants), every meeting waits for it, and a team call took 2 to 8
// times as long as one goroutine on the 2-core test machine; the routines
// that hand out pieces of work (MulSub, the QR, the Many variants) only
// lose the held-up goroutine's share. So a team member that has to sleep
// (its wait outlasted yieldFor) turns the teams off for teamBackoff: the
// calls in that time run in the calling goroutine (the same bits), and the
// first call after it tries again.
var (
	teamEpoch    = time.Now()
	teamOffUntil atomic.Int64 // time.Since(teamEpoch), in ns, before which no team is formed
	teamAlways   atomic.Int32 // > 0: no back-off (the tests of the team paths)
)

const teamBackoff = 100 * time.Millisecond

// teamsAllowed reports whether a single-vector team may be formed now.
func teamsAllowed() bool {
	return teamAlways.Load() > 0 || int64(time.Since(teamEpoch)) >= teamOffUntil.Load()
}

// teamCongested turns the single-vector teams off for teamBackoff.
func teamCongested() {
	teamOffUntil.Store(int64(time.Since(teamEpoch) + teamBackoff))
}

func (f *stepFlag) publish(v int64) {
	f.v.Store(v)
	f.wakeSleepers()
}

// arrive adds one to v (a barrier: w goroutines arrive at step s, then each
// waits until v > w*(s+1)-1).
func (f *stepFlag) arrive() {
	f.v.Add(1)
	f.wakeSleepers()
}

func (f *stepFlag) wakeSleepers() {
	if f.sleepers.Load() > 0 {
		f.mu.Lock()
		f.cond.Broadcast()
		f.mu.Unlock()
	}
}

// A waiter polls for spinFor, then polls and yields its thread (osYield,
// and now and then runtime.Gosched, for a partner goroutine without a
// thread of its own when there are more workers than GOMAXPROCS) until
// yieldFor, then sleeps. The partners of a team meet many times per call
// (ApplyQH and SolveR on one vector at every reflector or row), and a
// goroutine that sleeps is woken late, tens of microseconds on an idle
// core and more in a virtual machine, so that its partners then wait long
// enough to sleep in turn: measured on a 2-core KVM guest with a 50
// microsecond limit, a team that slept once slept at nearly every meeting,
// and ApplyQH with 2 workers took 2.4 times as long as with one. Yielding
// rather than spinning after spinFor lets a partner that shares our
// processor (other tenants) run; sleeping after yieldFor frees the
// processor for good when the partner is held up elsewhere.
const (
	spinFor  = 20 * time.Microsecond
	yieldFor = 300 * time.Microsecond
)

// wait returns once v > k.
func (f *stepFlag) wait(k int) {
	if f.v.Load() > int64(k) {
		return
	}
	start := time.Now()
	for i := 1; f.v.Load() <= int64(k); i++ {
		if i%128 != 0 {
			continue
		}
		d := time.Since(start)
		switch {
		case d > yieldFor:
			f.sleep(k)
			return
		case d > spinFor:
			if i%4096 == 0 {
				runtime.Gosched()
			} else {
				osYield()
			}
		}
	}
}

// sleep waits on the condition variable until v > k.
func (f *stepFlag) sleep(k int) {
	if f.team {
		teamCongested()
	}
	f.sleepers.Add(1)
	f.mu.Lock()
	if f.cond.L == nil {
		f.cond.L = &f.mu
	}
	for f.v.Load() <= int64(k) {
		f.cond.Wait()
	}
	f.mu.Unlock()
	f.sleepers.Add(-1)
}
