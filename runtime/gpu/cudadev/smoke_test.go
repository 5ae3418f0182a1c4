//go:build cuda

package cudadev

// The GPU smoke test: run on a machine with an NVIDIA GPU and driver, and
// nvcc where gen/nvcc's Find looks (which compiles
// testdata/smoke.cu for the GPU at hand). Build here, run there:
//
//	make gpu    # also writes .gpu/cudadev.test
//	cd runtime/gpu/cudadev && ../../.gpu/cudadev.test -test.v -test.count=1
//
// Without a GPU these tests fail (Open's error says why); without nvcc the
// kernel tests skip.

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mdgen/mdgen/gen/nvcc"
	"gorgonia.org/cu"
)

var (
	smokeDir     string // temporary folder for the fatbin
	sharedDevice *Device
	sharedErr    error
	sharedOnce   sync.Once
	fatbinOnce   sync.Once
	fatbinPath   string
	fatbinErr    error
	fatbinSkip   string
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "cudadev-smoke-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	smokeDir = dir
	code := m.Run()
	if sharedDevice != nil {
		// In the fault test's own process, the fault may have taken the
		// shared device's context down with it: that is expected there.
		if err := sharedDevice.Close(); err != nil && os.Getenv(faultChildEnv) == "" {
			fmt.Fprintln(os.Stderr, "closing the device:", err)
			code = 1
		}
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// device returns the Device shared by the tests (GPU 0).
func device(t testing.TB) *Device {
	t.Helper()
	sharedOnce.Do(func() {
		sharedDevice, sharedErr = Open(0)
		if sharedErr == nil {
			fmt.Printf("cudadev: %s; built with cuda.h %s, compatibility header %v; %.2f GiB free\n",
				sharedDevice.Info(), cudaVersionString(headerVersion), compatHeader(), gibFree(sharedDevice))
		}
	})
	if sharedErr != nil {
		t.Fatalf("opening GPU 0 (this cuda-tagged test needs a GPU and its driver): %v", sharedErr)
	}
	return sharedDevice
}

func gibFree(d *Device) float64 {
	f, err := d.FreeMemory()
	if err != nil {
		return -1
	}
	return gib(f)
}

// smokeModule compiles testdata/smoke.cu for the device (once) and loads it.
func smokeModule(t testing.TB, d *Device) *Module {
	t.Helper()
	fatbinOnce.Do(func() {
		nv, err := nvcc.Find("")
		if err != nil {
			fatbinSkip = err.Error() + ": the kernel tests compile testdata/smoke.cu with it"
			return
		}
		cc := fmt.Sprintf("%d%d", d.Info().Major, d.Info().Minor)
		fatbinPath = filepath.Join(smokeDir, "smoke.fatbin")
		args := nvcc.FatbinArgs([]string{cc}, fatbinPath, filepath.Join("testdata", "smoke.cu"), nvcc.ReportFlags...)
		start := time.Now()
		out, err := exec.Command(nv, args...).CombinedOutput()
		if err != nil {
			fatbinErr = fmt.Errorf("%s %s: %v\n%s", nv, strings.Join(args, " "), err, out)
			return
		}
		fmt.Printf("cudadev: nvcc built %s for sm_%s in %.1f s\n", fatbinPath, cc, time.Since(start).Seconds())
	})
	if fatbinSkip != "" {
		t.Skip(fatbinSkip)
	}
	if fatbinErr != nil {
		t.Fatal(fatbinErr)
	}
	m, err := d.LoadModuleFile(fatbinPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// In the fault test's own process the fault takes the context
		// down with it, and the module with it: expected there.
		if err := m.Unload(); err != nil && os.Getenv(faultChildEnv) == "" {
			t.Error(err)
		}
	})
	return m
}

func function(t testing.TB, m *Module, name string) *Function {
	t.Helper()
	f, err := m.Function(name)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func alloc(t testing.TB, d *Device, bytes int64) Buffer {
	t.Helper()
	b, err := d.Alloc(bytes)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Free(b); err != nil && !errors.Is(err, ErrClosed) {
			t.Error(err)
		}
	})
	return b
}

func randomFloat64s(r *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = (r.Float64()*2 - 1) * math.Ldexp(1, r.IntN(40)-20)
	}
	return x
}

func TestDeviceInfo(t *testing.T) {
	d := device(t)
	info := d.Info()
	t.Logf("%s; L2 %d MiB; max %d threads/block; shared %d/%d (opt-in) bytes/block; warp %d",
		info, info.L2CacheBytes>>20, info.MaxThreadsPerBlock, info.MaxSharedPerBlock, info.MaxSharedPerBlockOptin, info.WarpSize)
	if info.Name == "" || info.SMs <= 0 || info.TotalMemory <= 0 || info.Major <= 0 {
		t.Errorf("implausible info %+v", info)
	}
	if info.HeaderVersion != headerVersion || info.DriverVersion < 1000 {
		t.Errorf("versions: driver %d, header %d", info.DriverVersion, info.HeaderVersion)
	}
	if !compatHeader() {
		t.Errorf("built without the compatibility header (make cudacompat: build/cudacompat) first on the include path")
	}
	n, err := Count()
	if err != nil || n < 1 {
		t.Errorf("Count() = %d, %v", n, err)
	}
	free, err := d.FreeMemory()
	if err != nil || free <= 0 || free > info.TotalMemory {
		t.Errorf("FreeMemory() = %d, %v (total %d)", free, err, info.TotalMemory)
	}
	if err := d.Fits(1 << 20); err != nil {
		t.Errorf("Fits(1 MiB): %v", err)
	}
	err = d.Fits(2 * info.TotalMemory)
	if err == nil || !strings.Contains(err.Error(), "GiB free") {
		t.Errorf("Fits(2×total) = %v", err)
	} else {
		t.Logf("refusal reads: %v", err)
	}
	if _, err := Open(n); err == nil || !strings.Contains(err.Error(), "no CUDA device") {
		t.Errorf("Open(%d) = %v", n, err)
	}
}

func TestMemory(t *testing.T) {
	d := device(t)
	r := rand.New(rand.NewPCG(1, 2))
	before := d.Allocated()

	const n = 1<<16 + 7
	x := randomFloat64s(r, n)
	x[0], x[1], x[2] = math.NaN(), math.Inf(-1), math.Copysign(0, -1)
	x[3] = math.Float64frombits(0x7ff4000000000001) // signalling NaN payload
	b := alloc(t, d, 8*n)
	if got := d.Allocated() - before; got != 8*n {
		t.Errorf("Allocated grew by %d, want %d", got, 8*n)
	}
	if err := d.CopyHtoD(b, x); err != nil {
		t.Fatal(err)
	}
	y := make([]float64, n)
	if err := d.CopyDtoH(y, b); err != nil {
		t.Fatal(err)
	}
	for i := range x {
		if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
			t.Fatalf("round trip: element %d is %x, want %x", i, math.Float64bits(y[i]), math.Float64bits(x[i]))
		}
	}

	// Slices, device-to-device copies, memsets.
	c := alloc(t, d, 8*n)
	if err := d.Memset(c, 0xFF); err != nil {
		t.Fatal(err)
	}
	if err := d.CopyDtoD(c.Float64Slice(10, 100), b.Float64Slice(20, 100)); err != nil {
		t.Fatal(err)
	}
	if err := d.CopyDtoH(y, c); err != nil {
		t.Fatal(err)
	}
	for i := range y {
		switch {
		case i >= 10 && i < 110:
			if y[i] != x[i+10] {
				t.Fatalf("CopyDtoD: element %d is %g, want %g", i, y[i], x[i+10])
			}
		case !math.IsNaN(y[i]):
			t.Fatalf("Memset 0xFF: element %d is %g, want NaN", i, y[i])
		}
	}
	if err := d.MemsetD32(c, 0x3ff00000); err != nil { // high words 1.0: doubles 0x3ff000003ff00000
		t.Fatal(err)
	}
	if err := d.CopyDtoH(y[:4], c); err != nil {
		t.Fatal(err)
	}
	if math.Float64bits(y[0]) != 0x3ff000003ff00000 {
		t.Errorf("MemsetD32: %x", math.Float64bits(y[0]))
	}

	// Integer and byte variants.
	ints := []int32{-1, 0, 1, math.MaxInt32, math.MinInt32}
	longs := []int64{-1, 0, math.MaxInt64, math.MinInt64}
	raw := []byte("cudadev\x00\xff")
	ib, lb, rb := alloc(t, d, 4*int64(len(ints))), alloc(t, d, 8*int64(len(longs))), alloc(t, d, int64(len(raw)))
	gotInts, gotLongs, gotRaw := make([]int32, len(ints)), make([]int64, len(longs)), make([]byte, len(raw))
	for _, err := range []error{
		d.CopyHtoDInt32(ib, ints), d.CopyHtoDInt64(lb, longs), d.CopyHtoDBytes(rb, raw),
		d.CopyDtoHInt32(gotInts, ib), d.CopyDtoHInt64(gotLongs, lb), d.CopyDtoHBytes(gotRaw, rb),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(ints, gotInts) || !slices.Equal(longs, gotLongs) || !slices.Equal(raw, gotRaw) {
		t.Errorf("integer/byte round trips: %v %v %q", gotInts, gotLongs, gotRaw)
	}

	// Refusals.
	if err := d.CopyHtoD(b.Slice(0, 8), x[:2]); err == nil || !strings.Contains(err.Error(), "copying 16 bytes to the device") {
		t.Errorf("copy into a too-small buffer: %v", err)
	}
	if err := d.CopyDtoH(make([]float64, n+1), b); err == nil {
		t.Error("copy out of a too-small buffer accepted")
	}
	if err := d.Free(b.Slice(8, 8)); err == nil {
		t.Error("Free of a Slice accepted")
	}
	tmp, err := d.Alloc(4096)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Free(tmp); err != nil {
		t.Fatal(err)
	}
	if err := d.Free(tmp); err == nil {
		t.Error("double Free accepted")
	}
	huge := d.Info().TotalMemory * 4
	_, err = d.Alloc(huge)
	if err == nil {
		t.Fatal("allocating 4× the device memory succeeded")
	}
	if !errors.Is(err, cu.OutOfMemory) || !strings.Contains(err.Error(), fmt.Sprint(huge)) {
		t.Errorf("oversize Alloc error should wrap cu.OutOfMemory and give the size: %v", err)
	}
	t.Logf("oversize Alloc reads: %v", err)
}

// TestThreads checks that the context works from any goroutine (through the
// owner goroutine), and that it is indeed bound to one thread.
func TestThreads(t *testing.T) {
	d := device(t)
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for g := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := []float64{float64(g), float64(g) + 0.5}
			b, err := d.Alloc(16)
			if err != nil {
				errs <- err
				return
			}
			defer d.Free(b)
			for range 50 {
				y := make([]float64, 2)
				if err := d.CopyHtoD(b, x); err != nil {
					errs <- err
					return
				}
				if err := d.CopyDtoH(y, b); err != nil {
					errs <- err
					return
				}
				if y[0] != x[0] || y[1] != x[1] {
					errs <- fmt.Errorf("goroutine %d read %v", g, y)
					return
				}
				runtime.Gosched()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	// A direct gorgonia.org/cu call outside Do runs on a thread without the
	// context; inside Do it works.
	runtime.LockOSThread()
	_, _, err := cu.MemInfo()
	runtime.UnlockOSThread()
	if !errors.Is(err, cu.InvalidContext) {
		t.Errorf("cu.MemInfo outside Do: %v, want InvalidContext", err)
	}
	if err := d.Do(func() error { _, _, err := cu.MemInfo(); return err }); err != nil {
		t.Errorf("cu.MemInfo inside Do: %v", err)
	}
	// Nested Do and Device methods inside Do run directly (no deadlock).
	err = d.Do(func() error {
		return d.Do(func() error { _, err := d.FreeMemory(); return err })
	})
	if err != nil {
		t.Error(err)
	}
	err = d.Do(func() error {
		if err := d.Close(); err == nil || !strings.Contains(err.Error(), "inside") {
			return fmt.Errorf("Close inside Do: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
	// A panic inside Do reaches the caller.
	func() {
		defer func() {
			if p := recover(); p != "boom" {
				t.Errorf("recovered %v, want boom", p)
			}
		}()
		d.Do(func() error { panic("boom") })
	}()
	if _, err := d.FreeMemory(); err != nil {
		t.Errorf("device unusable after a panic in Do: %v", err)
	}
}

// TestOpenClose checks a second Device, timers without kernels, module load
// errors and the state after Close.
func TestOpenClose(t *testing.T) {
	device(t)
	d, err := Open(0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := d.Alloc(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.LoadModule([]byte("this is not a module")); err == nil {
		t.Error("garbage module loaded")
	} else {
		t.Logf("garbage module reads: %v", err)
	}
	if _, err := d.LoadModuleFile(filepath.Join(smokeDir, "missing.fatbin")); err == nil {
		t.Error("missing module file loaded")
	}
	timer, err := d.NewTimer()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := timer.Stop(); err == nil {
		t.Error("Stop without Start accepted")
	}
	if err := timer.Start(); err != nil {
		t.Fatal(err)
	}
	if err := d.Memset(b, 0); err != nil {
		t.Fatal(err)
	}
	if ms, err := timer.Stop(); err != nil || ms < 0 {
		t.Errorf("Timer around a memset: %v ms, %v", ms, err)
	}
	if ms, err := d.Time(func() error { return d.Memset(b, 1) }); err != nil || ms < 0 {
		t.Errorf("Time around a memset: %v ms, %v", ms, err)
	}
	// Close frees the buffer and the timer; afterwards everything says ErrClosed.
	if err := d.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := d.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := d.Alloc(8); !errors.Is(err, ErrClosed) {
		t.Errorf("Alloc after Close: %v", err)
	}
	if err := d.Do(func() error { return nil }); !errors.Is(err, ErrClosed) {
		t.Errorf("Do after Close: %v", err)
	}
	if err := timer.Start(); !errors.Is(err, ErrClosed) {
		t.Errorf("Timer.Start after Close: %v", err)
	}
	if err := d.CopyHtoD(b, []float64{1}); !errors.Is(err, ErrClosed) {
		t.Errorf("CopyHtoD after Close: %v", err)
	}
}

func TestKernels(t *testing.T) {
	d := device(t)
	m := smokeModule(t, d)
	axpy := function(t, m, "axpy")
	t.Logf("axpy: %+v", axpy.Attributes())

	if _, err := m.Function("no_such_kernel"); err == nil || !errors.Is(err, cu.NotFound) ||
		!strings.Contains(err.Error(), "no_such_kernel") || !strings.Contains(err.Error(), "smoke.fatbin") {
		t.Errorf("missing kernel: %v", err)
	}

	// A __device__ global.
	gb, err := m.Global("smoke_version")
	if err != nil {
		t.Fatal(err)
	}
	ver := make([]int64, 1)
	if err := d.CopyDtoHInt64(ver, gb); err != nil || gb.Bytes() != 8 || ver[0] != 20250101 {
		t.Errorf("global smoke_version: %v (%d bytes), %v", ver, gb.Bytes(), err)
	}
	if _, err := m.Global("no_such_global"); !errors.Is(err, cu.NotFound) {
		t.Errorf("missing global: %v", err)
	}

	// axpy on a size that is not a multiple of the block, against math.FMA.
	r := rand.New(rand.NewPCG(3, 4))
	const n = 1<<20 + 3
	const a = 0.7390851332151607
	x, y := randomFloat64s(r, n), randomFloat64s(r, n)
	xb, yb := alloc(t, d, 8*n), alloc(t, d, 8*n)
	if err := d.CopyHtoD(xb, x); err != nil {
		t.Fatal(err)
	}
	if err := d.CopyHtoD(yb, y); err != nil {
		t.Fatal(err)
	}
	grid, block := Grid1D(n, 256)
	if err := d.Launch(axpy, grid, block, 0, yb, xb, a, int64(n)); err != nil {
		t.Fatal(err)
	}
	got := make([]float64, n)
	if err := d.CopyDtoH(got, yb); err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if want := math.FMA(a, x[i], y[i]); math.Float64bits(got[i]) != math.Float64bits(want) {
			t.Fatalf("axpy: y[%d] = %v, want %v (bit-identical to math.FMA)", i, got[i], want)
		}
	}

	// Refused before launching: 4-byte arguments, oversize blocks, too much
	// shared memory. y must be unchanged.
	if err := d.Launch(axpy, grid, block, 0, yb, xb, a, int32(n)); err == nil || !strings.Contains(err.Error(), "8 bytes") {
		t.Errorf("int32 argument: %v", err)
	}
	if err := d.Launch(axpy, grid, block, 0, yb, xb, float32(a), int64(n)); err == nil {
		t.Error("float32 argument accepted")
	}
	if err := d.Launch(axpy, Dim3{1}, Dim3{2048}, 0, yb, xb, a, int64(n)); err == nil || !strings.Contains(err.Error(), "2048") {
		t.Errorf("block of 2048: %v", err)
	}
	if err := d.Launch(axpy, grid, block, 1<<20, yb, xb, a, int64(n)); err == nil {
		t.Error("1 MiB of dynamic shared memory accepted")
	}
	if err := d.CopyDtoH(y[:16], yb); err != nil {
		t.Fatal(err)
	}
	for i := range 16 {
		if y[i] != got[i] {
			t.Fatalf("a refused launch changed y[%d]", i)
		}
	}

	// A launch sequence inside one Do, int32 output, dynamic shared memory.
	iota := function(t, m, "iota32")
	sum := function(t, m, "block_sum")
	const blocks = 1000
	ib := alloc(t, d, 4*n)
	sb := alloc(t, d, 8*blocks)
	err = d.Do(func() error {
		if err := d.Launch(iota, grid, block, 0, ib, int64(n), int64(-5)); err != nil {
			return err
		}
		return d.Launch(sum, Dim3{blocks}, Dim3{256}, 256*8, sb, xb, int64(n))
	})
	if err != nil {
		t.Fatal(err)
	}
	ints := make([]int32, n)
	if err := d.CopyDtoHInt32(ints, ib); err != nil {
		t.Fatal(err)
	}
	for i, v := range ints {
		if v != int32(i-5) {
			t.Fatalf("iota32: out[%d] = %d", i, v)
		}
	}
	sums := make([]float64, blocks)
	if err := d.CopyDtoH(sums, sb); err != nil {
		t.Fatal(err)
	}
	for blk := range blocks {
		acc := 0.0
		for _, v := range x[256*blk : 256*blk+256] {
			acc += v
		}
		if math.Float64bits(acc) != math.Float64bits(sums[blk]) {
			t.Fatalf("block_sum: block %d = %v, want %v", blk, sums[blk], acc)
		}
	}
	if err := sum.SetMaxDynamicShared(d.Info().MaxSharedPerBlockOptin); err != nil {
		t.Errorf("SetMaxDynamicShared(%d): %v", d.Info().MaxSharedPerBlockOptin, err)
	}
	if err := d.Synchronize(); err != nil {
		t.Fatal(err)
	}
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// TestTiming times kernels with the event Timer and prints a short table:
// memory bandwidth (axpy), the FMA rate (fma_chain) and launch overhead.
func TestTiming(t *testing.T) {
	d := device(t)
	m := smokeModule(t, d)
	axpy, chain, empty := function(t, m, "axpy"), function(t, m, "fma_chain"), function(t, m, "empty")

	const n = 1 << 25 // 256 MiB per array
	if err := d.Fits(3 * 8 * n); err != nil {
		t.Skip(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	xb, yb := alloc(t, d, 8*n), alloc(t, d, 8*n)
	if err := d.CopyHtoD(xb, randomFloat64s(r, n)); err != nil {
		t.Fatal(err)
	}
	if err := d.CopyHtoD(yb, randomFloat64s(r, n)); err != nil {
		t.Fatal(err)
	}
	grid, block := Grid1D(n, 256)
	timer, err := d.NewTimer()
	if err != nil {
		t.Fatal(err)
	}
	defer timer.Close()
	var axpyMS []float64
	for rep := range 21 {
		if err := timer.Start(); err != nil {
			t.Fatal(err)
		}
		if err := d.Launch(axpy, grid, block, 0, yb, xb, 1e-3, int64(n)); err != nil {
			t.Fatal(err)
		}
		ms, err := timer.Stop()
		if err != nil {
			t.Fatal(err)
		}
		if rep > 0 { // the first is the warm-up
			axpyMS = append(axpyMS, ms)
		}
	}

	info := d.Info()
	threads := int64(info.SMs) * 2048
	const iters = 1 << 14
	cb := alloc(t, d, 8*threads)
	var chainMS []float64
	for rep := range 6 {
		ms, err := d.Time(func() error {
			return d.Launch(chain, Dim3{int(threads / 256)}, Dim3{256}, 0, cb, 0.9999999, 1e-7, int64(iters))
		})
		if err != nil {
			t.Fatal(err)
		}
		if rep > 0 {
			chainMS = append(chainMS, ms)
		}
	}
	check := make([]float64, 4)
	if err := d.CopyDtoH(check, cb); err != nil {
		t.Fatal(err)
	}
	if math.IsNaN(check[0]) || check[0] == 0 {
		t.Errorf("fma_chain wrote %v", check)
	}

	// Launch overhead: 2000 empty launches from this goroutine (one hand-off
	// to the owner goroutine each) and inside one Do.
	const launches = 2000
	overhead := func(inside bool) float64 {
		loop := func() error {
			for range launches {
				if err := d.Launch(empty, Dim3{1}, Dim3{32}, 0); err != nil {
					return err
				}
			}
			return nil
		}
		start := time.Now()
		var err error
		if inside {
			err = d.Do(loop)
		} else {
			err = loop()
		}
		if err == nil {
			err = d.Synchronize()
		}
		if err != nil {
			t.Fatal(err)
		}
		return float64(time.Since(start).Microseconds()) / launches
	}
	overhead(true) // warm-up
	outside, inside := overhead(false), overhead(true)

	axpyMed, chainMed := median(axpyMS), median(chainMS)
	fmt.Printf("cudadev timing on %s\n", info)
	fmt.Printf("  %-34s %10.3f ms  %8.1f GB/s (3 × 8 × 2^25 bytes)\n", "axpy, 2^25 doubles, median of 20", axpyMed, 3*8*n/axpyMed/1e6)
	fmt.Printf("  %-34s %10.3f ms  %8.2f T FMA/s\n", "fma_chain, median of 5", chainMed, float64(threads)*8*iters/chainMed/1e9)
	fmt.Printf("  %-34s %10.2f µs per launch, from another goroutine\n", "empty kernel, wall clock", outside)
	fmt.Printf("  %-34s %10.2f µs per launch, inside one Do\n", "", inside)
}

// faultChildEnv marks the process in which TestFaultIsReported faults.
const faultChildEnv = "MDGEN_CUDADEV_FAULT_CHILD"

// TestFaultIsReported: a kernel that writes to a bogus address must be
// reported by the next wait, with the hint, and a Device opened afterwards
// in a new process must work. The fault runs in a process of its own (this test binary,
// run again for this test alone): a sticky CUDA error can take every
// context of its process down, and the tests that run after this one
// (stream_test.go's, say) must not inherit it.
func TestFaultIsReported(t *testing.T) {
	if testing.Short() {
		t.Skip("faults the context")
	}
	if os.Getenv(faultChildEnv) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestFaultIsReported$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), faultChildEnv+"=1")
		out, err := cmd.CombinedOutput()
		t.Logf("the fault's own process:\n%s", out)
		if err != nil {
			t.Fatalf("the fault's own process: %v", err)
		}
		// The way back from a fault is a new process: this one opens the
		// device and uses it.
		d, err := Open(0)
		if err != nil {
			t.Fatalf("Open after a fault in another process: %v", err)
		}
		defer d.Close()
		b, err := d.Alloc(64)
		if err == nil {
			err = d.CopyHtoD(b, []float64{1, 2})
		}
		if err != nil {
			t.Errorf("a Device after a fault in another process: %v", err)
		}
		return
	}
	shared := device(t)
	smokeModule(t, shared) // builds the fatbin (or skips)
	d, err := Open(0)
	if err != nil {
		t.Fatal(err)
	}
	m, err := d.LoadModuleFile(fatbinPath)
	if err != nil {
		t.Fatal(err)
	}
	poke, err := m.Function("poke")
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Launch(poke, Dim3{1}, Dim3{32}, 0, uintptr(0x10)); err != nil {
		t.Fatalf("launch itself failed: %v", err)
	}
	err = d.Synchronize()
	var de *DriverError
	if !errors.As(err, &de) || de.Hint == "" {
		t.Errorf("fault not reported with a hint: %v", err)
	}
	t.Logf("fault reads: %v", err)
	t.Logf("closing the faulted device: %v", d.Close())

	// A sticky error takes every context of the process down on this
	// driver (the H200's 580: cuCtxCreate then fails with the same error),
	// so recovery in-process is not asserted: log what it does.
	if _, err := shared.FreeMemory(); err != nil {
		t.Logf("the other context after the fault: %v", err)
	}
	if d2, err := Open(0); err != nil {
		t.Logf("Open after a fault, in the same process: %v", err)
	} else {
		t.Logf("Open after a fault, in the same process: works; closing: %v", d2.Close())
	}
}
