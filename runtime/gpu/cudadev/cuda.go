//go:build cuda

package cudadev

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"
	"unsafe"

	"gorgonia.org/cu"
)

// Enabled reports whether this build talks to the CUDA driver (build tag cuda).
const Enabled = true

// Device is one GPU with a CUDA context of its own, owned by a goroutine
// locked to its OS thread (see the package documentation). Its methods are
// safe for concurrent use.
type Device struct {
	info Info
	tid  uint64 // OS thread of the owner goroutine

	work      chan call
	quit      chan struct{}
	exited    chan struct{}
	closeOnce sync.Once
	closeErr  error

	// Used only on the owner goroutine.
	dev       cu.Device
	ctx       cu.CUContext
	stream    cu.Stream // the NULL stream: copies, launches and events are ordered
	allocs    map[uintptr]int64
	allocated int64
	hostAlloc map[unsafe.Pointer]int64 // page-locked host memory (AllocHost)
	modules   map[*Module]struct{}
	timers    map[*Timer]struct{}
	streams   map[*Stream]struct{}
	awaiting  []awaiter // streams that Stream.Await waits for
}

// awaiter is a Stream.Await in progress: done gets the stream's error
// (nil) once its work is done.
type awaiter struct {
	s    *Stream
	done chan error
}

// awaitPoll is the wait of the owner goroutine between two rounds of
// polling the awaited streams when no call comes: a batched solve takes a
// millisecond or more.
const awaitPoll = 20 * time.Microsecond

type call struct {
	f    func() error
	done chan callResult
}

type callResult struct {
	err      error
	panicked bool
	panicVal any
}

// Count returns the number of CUDA devices.
func Count() (int, error) {
	if err := initDriver(); err != nil {
		return 0, fmt.Errorf("cudadev: initializing the CUDA driver (cuInit): %w", err)
	}
	n, err := cu.NumDevices()
	if err != nil {
		return 0, fmt.Errorf("cudadev: counting CUDA devices (cuDeviceGetCount): %w", driverErr(err))
	}
	return n, nil
}

// Open initializes the driver, creates a context on device ordinal and
// starts the goroutine that owns it. Close releases it.
func Open(ordinal int) (*Device, error) {
	n, err := Count()
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, errors.New("cudadev: no CUDA device found (cuDeviceGetCount returned 0; check nvidia-smi and CUDA_VISIBLE_DEVICES)")
	}
	if ordinal < 0 || ordinal >= n {
		return nil, fmt.Errorf("cudadev: no CUDA device %d: %d present (ordinals 0..%d)", ordinal, n, n-1)
	}
	d := &Device{
		work:      make(chan call),
		quit:      make(chan struct{}),
		exited:    make(chan struct{}),
		allocs:    make(map[uintptr]int64),
		hostAlloc: make(map[unsafe.Pointer]int64),
		modules:   make(map[*Module]struct{}),
		timers:    make(map[*Timer]struct{}),
		streams:   make(map[*Stream]struct{}),
	}
	ready := make(chan error)
	go d.loop(ordinal, ready)
	if err := <-ready; err != nil {
		return nil, err
	}
	return d, nil
}

// loop is the owner goroutine: it creates the context on its locked OS
// thread, then executes calls until Close.
func (d *Device) loop(ordinal int, ready chan<- error) {
	runtime.LockOSThread()
	if err := d.setup(ordinal); err != nil {
		runtime.UnlockOSThread()
		ready <- err
		return
	}
	d.tid = threadID()
	ready <- nil
	// While streams are awaited, the owner polls them between calls and
	// every awaitPoll: one poller for every waiter of the device.
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		var tick <-chan time.Time
		if len(d.awaiting) > 0 {
			d.pollAwaiting()
			if len(d.awaiting) > 0 {
				timer.Reset(awaitPoll)
				tick = timer.C
			}
		}
		select {
		case c := <-d.work:
			c.done <- d.execute(c.f)
		case <-tick:
		case <-d.quit:
			d.closeErr = d.teardown()
			close(d.exited)
			runtime.UnlockOSThread()
			return
		}
	}
}

// execute runs f, turning a panic into a result for the caller to re-raise.
func (d *Device) execute(f func() error) (r callResult) {
	defer func() {
		if p := recover(); p != nil {
			r = callResult{panicked: true, panicVal: p}
		}
	}()
	return callResult{err: f()}
}

func (d *Device) setup(ordinal int) error {
	dev, err := cu.GetDevice(ordinal)
	if err != nil {
		return fmt.Errorf("cudadev: getting CUDA device %d (cuDeviceGet): %w", ordinal, driverErr(err))
	}
	d.dev = dev
	name, err := dev.Name()
	if err != nil {
		return fmt.Errorf("cudadev: reading the name of CUDA device %d: %w", ordinal, driverErr(err))
	}
	total, err := dev.TotalMem()
	if err != nil {
		return fmt.Errorf("cudadev: reading the memory size of %s: %w", name, driverErr(err))
	}
	attrs, err := dev.Attributes(cu.ComputeCapabilityMajor, cu.ComputeCapabilityMinor, cu.MultiprocessorCount,
		cu.MaxThreadsPerBlock, cu.MaxSharedMemoryPerBlock, attrMaxSharedPerBlockOptin, cu.WarpSize, cu.L2CacheSize)
	if err != nil {
		return fmt.Errorf("cudadev: reading the attributes of %s: %w", name, driverErr(err))
	}
	d.info = Info{
		Ordinal: ordinal, Name: name, Major: attrs[0], Minor: attrs[1], SMs: attrs[2], TotalMemory: total,
		MaxThreadsPerBlock: attrs[3], MaxSharedPerBlock: attrs[4], MaxSharedPerBlockOptin: attrs[5],
		WarpSize: attrs[6], L2CacheBytes: attrs[7],
		DriverVersion: cu.Version(), HeaderVersion: headerVersion,
	}
	// cuCtxCreate makes the new context current on this (locked) thread.
	ctx, err := dev.MakeContext(cu.SchedAuto)
	if err != nil {
		return fmt.Errorf("cudadev: creating a CUDA context on %s (cuCtxCreate): %w", d.info, driverErr(err))
	}
	d.ctx = ctx
	return nil
}

// teardown releases everything the Device still holds, on the owner thread.
func (d *Device) teardown() error {
	var errs []error
	if err := cu.Synchronize(); err != nil {
		errs = append(errs, fmt.Errorf("cudadev: waiting for the device before closing: %w", driverErr(err)))
	}
	for t := range d.timers {
		errs = append(errs, t.destroy())
	}
	for s := range d.streams {
		errs = append(errs, s.destroy())
	}
	for m := range d.modules {
		errs = append(errs, m.unload())
	}
	for p, n := range d.allocs {
		if err := cu.MemFree(cu.DevicePtr(p)); err != nil {
			errs = append(errs, fmt.Errorf("cudadev: freeing %d bytes at 0x%x while closing: %w", n, p, driverErr(err)))
		}
	}
	d.allocs, d.allocated = nil, 0
	for p, n := range d.hostAlloc {
		if err := freeHost(p); err != nil {
			errs = append(errs, fmt.Errorf("cudadev: freeing %d bytes of page-locked host memory at %p while closing: %w", n, p, err))
		}
	}
	d.hostAlloc = nil
	if err := d.ctx.Destroy(); err != nil {
		errs = append(errs, fmt.Errorf("cudadev: destroying the CUDA context on %s: %w", d.info, driverErr(err)))
	}
	return errors.Join(errs...)
}

// Close waits for the device, releases every buffer, module, timer and stream of
// the Device, destroys the context and ends the owner goroutine (unlocking
// its thread). Later calls return ErrClosed. Close must not be called
// inside Do.
func (d *Device) Close() error {
	if d.onOwnerThread() {
		return errors.New("cudadev: Close called inside Device.Do")
	}
	d.closeOnce.Do(func() {
		close(d.quit)
		<-d.exited
	})
	return d.closeErr
}

func (d *Device) isClosed() bool {
	select {
	case <-d.exited:
		return true
	default:
		return false
	}
}

// onOwnerThread reports whether the caller is the owner goroutine (the only
// one that runs on its locked thread while the Device is open).
func (d *Device) onOwnerThread() bool {
	return threadID() == d.tid && !d.isClosed()
}

// Do runs f on the goroutine that owns the context and returns its error.
// Calls from other goroutines wait their turn; calls made inside f (Device
// methods, nested Do) run directly. A panic in f is re-raised in the caller.
// Code that calls gorgonia.org/cu directly must run inside Do.
func (d *Device) Do(f func() error) error {
	if threadID() == d.tid {
		if d.isClosed() {
			return ErrClosed
		}
		return f()
	}
	c := call{f: f, done: make(chan callResult, 1)}
	select {
	case d.work <- c:
	case <-d.exited:
		return ErrClosed
	}
	r := <-c.done
	if r.panicked {
		panic(r.panicVal)
	}
	return r.err
}

// Info describes the device.
func (d *Device) Info() Info { return d.info }

func (d *Device) String() string { return d.info.String() }

// FreeMemory returns the bytes of device memory free now (cuMemGetInfo).
func (d *Device) FreeMemory() (int64, error) {
	var free int64
	err := d.Do(func() error {
		f, _, err := cu.MemInfo()
		free = f
		return err
	})
	if err != nil {
		return 0, d.fail(err, "querying free memory on %s", d.info)
	}
	return free, nil
}

// Fits returns nil when bytes of device memory are free now, and otherwise
// an error that says how much is needed and how much is free, for refusing
// oversize work before anything is allocated or launched.
func (d *Device) Fits(bytes int64) error {
	free, err := d.FreeMemory()
	if err != nil {
		return err
	}
	if bytes > free {
		return fmt.Errorf("cudadev: %d bytes (%.2f GiB) of device memory needed, %.2f GiB free of %.2f GiB on %s",
			bytes, gib(bytes), gib(free), gib(d.info.TotalMemory), d.info)
	}
	return nil
}

// Allocated returns the bytes allocated through this Device and not freed.
func (d *Device) Allocated() int64 {
	var n int64
	if d.Do(func() error { n = d.allocated; return nil }) != nil {
		return 0
	}
	return n
}

// Synchronize waits until all work queued on the device is done. Errors of
// kernels launched earlier surface here.
func (d *Device) Synchronize() error {
	if err := d.Do(func() error { return cu.Synchronize() }); err != nil {
		return d.fail(err, "waiting for %s (cuCtxSynchronize)", d.info)
	}
	return nil
}

func gib(n int64) float64 { return float64(n) / (1 << 30) }

// fail wraps err with what was being done; ErrClosed passes unchanged.
func (d *Device) fail(err error, format string, args ...any) error {
	if err == ErrClosed {
		return err
	}
	return fmt.Errorf("cudadev: "+format+": %w", append(args, driverErr(err))...)
}
