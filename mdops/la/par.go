package la

import (
	"fmt"
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
// parallel region is (v = 1). A waiter polls for up to hotSpin (the wait is
// usually microseconds, and waking a sleeping goroutine takes tens of
// them), then sleeps on a condition variable, so that a spinning goroutine
// does not starve the one it waits for on an oversubscribed machine.
type stepFlag struct {
	v        atomic.Int64
	sleepers atomic.Int32
	mu       sync.Mutex
	cond     sync.Cond
}

func (f *stepFlag) publish(v int64) {
	f.v.Store(v)
	if f.sleepers.Load() > 0 {
		f.mu.Lock()
		f.cond.Broadcast()
		f.mu.Unlock()
	}
}

// wait returns once reflector k is published (v > k).
func (f *stepFlag) wait(k int) {
	start := time.Now()
	for i := 1; f.v.Load() <= int64(k); i++ {
		if i%256 == 0 && time.Since(start) > hotSpin {
			f.sleep(k)
			return
		}
	}
}

// sleep waits on the condition variable until v > k.
func (f *stepFlag) sleep(k int) {
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
