package cudadev

import (
	"errors"
	"fmt"
	"math"
	"reflect"
)

// ErrNoCUDA is returned by every entry point of a build without the cuda tag.
var ErrNoCUDA = errors.New("mdgen was built without CUDA support; build with make gpu")

// ErrClosed is returned by the methods of a Device after Close.
var ErrClosed = errors.New("cudadev: device is closed")

// Buffer is a range of device memory: an allocation made by Device.Alloc or
// a part of one (Slice). It is a plain value; copying it copies the handle,
// not the memory. The zero Buffer is the null device pointer.
type Buffer struct {
	ptr   uintptr
	bytes int64
}

// Ptr returns the device address.
func (b Buffer) Ptr() uintptr { return b.ptr }

// Bytes returns the size in bytes.
func (b Buffer) Bytes() int64 { return b.bytes }

// Float64s returns how many float64 values fit in b.
func (b Buffer) Float64s() int64 { return b.bytes / 8 }

// IsNil reports whether b is the null device pointer.
func (b Buffer) IsNil() bool { return b.ptr == 0 }

// Slice returns the n bytes of b from byte offset off. Like slicing, it
// panics when the range lies outside b. A slice must not be passed to Free.
func (b Buffer) Slice(off, n int64) Buffer {
	if off < 0 || n < 0 || off > b.bytes || n > b.bytes-off {
		panic(fmt.Sprintf("cudadev: Buffer.Slice(%d, %d) out of range of a %d-byte buffer", off, n, b.bytes))
	}
	return Buffer{ptr: b.ptr + uintptr(off), bytes: n}
}

// Float64Slice returns the n float64 values of b from index i (Slice in
// units of 8 bytes).
func (b Buffer) Float64Slice(i, n int64) Buffer {
	if i < 0 || n < 0 || i > math.MaxInt64/8 || n > math.MaxInt64/8 {
		panic(fmt.Sprintf("cudadev: Buffer.Float64Slice(%d, %d) out of range", i, n))
	}
	return b.Slice(8*i, 8*n)
}

func (b Buffer) String() string { return fmt.Sprintf("Buffer(0x%x, %d bytes)", b.ptr, b.bytes) }

// Dim3 is a grid or block shape (x, y, z). Zero components count as 1, so
// Dim3{256} is a one-dimensional shape of 256.
type Dim3 [3]int

// normalized returns d with zero components replaced by 1.
func (d Dim3) normalized() Dim3 {
	for i := range d {
		if d[i] == 0 {
			d[i] = 1
		}
	}
	return d
}

// Count returns x·y·z (zeros counting as 1).
func (d Dim3) Count() int64 {
	n := d.normalized()
	return int64(n[0]) * int64(n[1]) * int64(n[2])
}

func (d Dim3) String() string {
	n := d.normalized()
	return fmt.Sprintf("(%d,%d,%d)", n[0], n[1], n[2])
}

// Grid1D returns the one-dimensional launch shape that covers n threads
// with blocks of block threads.
func Grid1D(n, block int) (grid, blk Dim3) {
	if block <= 0 {
		block = 1
	}
	g := (n + block - 1) / block
	if g < 1 {
		g = 1
	}
	return Dim3{g, 1, 1}, Dim3{block, 1, 1}
}

// Info describes a device, for messages and for sizing work.
type Info struct {
	Ordinal      int    // device number as given to Open
	Name         string // e.g. "NVIDIA H200"
	Major, Minor int    // compute capability
	SMs          int    // multiprocessors
	TotalMemory  int64  // bytes

	MaxThreadsPerBlock     int
	MaxSharedPerBlock      int // bytes a block gets without opting in
	MaxSharedPerBlockOptin int // bytes a block can get with Function.SetMaxDynamicShared
	WarpSize               int
	L2CacheBytes           int

	DriverVersion int // cuDriverGetVersion, e.g. 13000 for CUDA 13.0
	HeaderVersion int // CUDA_VERSION of the cuda.h the binary was built with
}

// Arch returns the SASS architecture name, e.g. "sm_90".
func (i Info) Arch() string { return fmt.Sprintf("sm_%d%d", i.Major, i.Minor) }

// String gives a one-line description, e.g.
// "GPU 0: NVIDIA H200 (sm_90, 132 SMs, 139.8 GiB, driver CUDA 13.0)".
func (i Info) String() string {
	return fmt.Sprintf("GPU %d: %s (%s, %d SMs, %.1f GiB, driver CUDA %s)",
		i.Ordinal, i.Name, i.Arch(), i.SMs, float64(i.TotalMemory)/(1<<30), cudaVersionString(i.DriverVersion))
}

// cudaVersionString formats a CUDA version number (1000*major + 10*minor).
func cudaVersionString(v int) string {
	if v <= 0 {
		return "unknown"
	}
	return fmt.Sprintf("%d.%d", v/1000, v%1000/10)
}

// FuncAttributes are a kernel's resource figures as the driver reports them
// for the loaded code.
type FuncAttributes struct {
	MaxThreadsPerBlock int // largest block this kernel can be launched with
	NumRegs            int // registers per thread
	SharedBytes        int // static shared memory per block
	LocalBytes         int // local memory per thread (register spills, stack)
	ConstBytes         int // user constant memory
	PTXVersion         int // e.g. 90 for compute_90
	BinaryVersion      int // e.g. 90 for sm_90
}

// kernelArgs converts launch arguments to the 8-byte words that
// gorgonia.org/cu passes to cuLaunchKernel, refusing every type that is not
// 8 bytes wide on the kernel side.
func kernelArgs(args []any) ([]uint64, error) {
	words := make([]uint64, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case Buffer:
			words[i] = uint64(v.ptr)
		case *Buffer:
			if v == nil {
				return nil, fmt.Errorf("argument %d is a nil *Buffer", i)
			}
			words[i] = uint64(v.ptr)
		case uintptr: // a raw device address
			words[i] = uint64(v)
		case int:
			words[i] = uint64(int64(v))
		case int64:
			words[i] = uint64(v)
		case uint:
			words[i] = uint64(v)
		case uint64:
			words[i] = v
		case float64:
			words[i] = math.Float64bits(v)
		case nil:
			return nil, fmt.Errorf("argument %d is nil; pass a zero Buffer for a null pointer", i)
		default:
			return nil, fmt.Errorf("argument %d has type %T: kernel parameters must be 8 bytes wide "+
				"(a Buffer for a pointer; int, int64, uint, uint64 for long long/int64_t/size_t; float64 for double)", i, a)
		}
	}
	return words, nil
}

// checkLaunchShape validates grid and block before a launch.
func checkLaunchShape(grid, block Dim3, sharedBytes int) error {
	for i, v := range grid {
		if v < 0 {
			return fmt.Errorf("grid %v: component %d is negative", grid, i)
		}
	}
	for i, v := range block {
		if v < 0 {
			return fmt.Errorf("block %v: component %d is negative", block, i)
		}
	}
	g := grid.normalized()
	if int64(g[0]) > math.MaxInt32 || g[1] > 65535 || g[2] > 65535 {
		return fmt.Errorf("grid %v exceeds the limits (2^31-1, 65535, 65535)", grid)
	}
	if sharedBytes < 0 {
		return fmt.Errorf("negative dynamic shared memory size %d", sharedBytes)
	}
	return nil
}

// DriverError is a failed CUDA driver call: its CUresult code, the driver's
// name and description of it, and a hint at the usual cause where one is
// known. errors.Is(err, cu.NoDevice) (or any other gorgonia.org/cu result
// value) matches on the code.
type DriverError struct {
	Code int    // CUresult
	Name string // e.g. "CUDA_ERROR_NO_DEVICE"
	Text string // e.g. "no CUDA-capable device is detected"
	Hint string // what usually causes it, or ""
	Err  error  // gorgonia.org/cu's error value, when the call went through it
}

func (e *DriverError) Error() string {
	s := fmt.Sprintf("%s (%d)", e.Name, e.Code)
	if e.Text != "" {
		s += ": " + e.Text
	}
	if e.Hint != "" {
		s += " [" + e.Hint + "]"
	}
	return s
}

// Unwrap returns gorgonia.org/cu's error value, if any.
func (e *DriverError) Unwrap() error { return e.Err }

// Is reports whether target is a gorgonia.org/cu result value with the same
// code (those are integers of an unexported type, compared here by value).
func (e *DriverError) Is(target error) bool {
	v := reflect.ValueOf(target)
	if !v.IsValid() || v.Kind() != reflect.Int || v.Type().PkgPath() != "gorgonia.org/cu" {
		return false
	}
	return v.Int() == int64(e.Code)
}

// driverHint returns the usual cause of a CUresult code, or "".
func driverHint(code int) string {
	switch code {
	case 2: // CUDA_ERROR_OUT_OF_MEMORY
		return "the device has not enough free memory: check FreeMemory before allocating"
	case 3: // CUDA_ERROR_NOT_INITIALIZED
		return "the CUDA driver is not initialized: cuInit failed, see Open's error"
	case 35: // CUDA_ERROR_INSUFFICIENT_DRIVER
		return "the installed NVIDIA driver is older than the CUDA version this program was built for"
	case 100: // CUDA_ERROR_NO_DEVICE
		return "no CUDA-capable GPU is visible: check nvidia-smi and CUDA_VISIBLE_DEVICES"
	case 101: // CUDA_ERROR_INVALID_DEVICE
		return "no GPU with that ordinal"
	case 201: // CUDA_ERROR_INVALID_CONTEXT
		return "a CUDA call ran on a thread where the context is not current: call gorgonia.org/cu only inside Device.Do"
	case 209: // CUDA_ERROR_NO_BINARY_FOR_GPU
		return "the module holds no code this GPU can run: compile with -gencode arch=compute_XY,code=sm_XY for its compute capability"
	case 222: // CUDA_ERROR_UNSUPPORTED_PTX_VERSION
		return "the PTX was made by a newer nvcc than this driver can compile: add SASS for this GPU or update the driver"
	case 500: // CUDA_ERROR_NOT_FOUND
		return "no such symbol: kernels need extern \"C\" to keep their names unmangled"
	case 701: // CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES
		return "the kernel needs more registers or shared memory than this block size allows: use smaller blocks or __launch_bounds__"
	case 700, 714, 715, 716, 717, 718, 719, 720: // illegal address, ..., launch failed
		return "a kernel faulted; the context is unusable from now on: Close the Device and Open it again, and run under compute-sanitizer to find the access"
	case 702: // CUDA_ERROR_LAUNCH_TIMEOUT
		return "a kernel ran into the display watchdog's time limit"
	}
	return ""
}

// Pitched is a strided block of float64s, the same in a device buffer and
// in a host slice but for the pitches: Rows rows of Width values, row i
// starting Pitch values after row i-1 (a window of columns of a
// row-major matrix); with Slices > 1, that many such blocks, block j
// starting SliceRows rows after block j-1 (a window of rows and columns
// of each matrix of a stack).
type Pitched struct {
	Rows, Width         int64
	DevPitch, HostPitch int64
	Slices, SliceRows   int64
}

// slices is the number of blocks (at least 1).
func (p Pitched) slices() int64 { return max(p.Slices, 1) }

// extent is the values from the first to the last one moved, at pitch.
func (p Pitched) extent(pitch int64) int64 {
	if p.Rows == 0 || p.Width == 0 {
		return 0
	}
	return ((p.slices()-1)*p.SliceRows+p.Rows-1)*pitch + p.Width
}

// DevExtent is the values of the device buffer the block spans.
func (p Pitched) DevExtent() int64 { return p.extent(p.DevPitch) }

// check reports whether the block fits a host slice of n values and a
// device buffer of bytes bytes.
func (p Pitched) check(n, bytes int64) error {
	if p.Rows < 0 || p.Width < 0 || p.DevPitch < p.Width || p.HostPitch < p.Width || p.Slices < 0 || (p.Slices > 1 && p.SliceRows < p.Rows) {
		return fmt.Errorf("cudadev: a pitched copy of %d x %d rows of %d values with pitches %d (device) and %d (host), %d rows a slice",
			p.slices(), p.Rows, p.Width, p.DevPitch, p.HostPitch, p.SliceRows)
	}
	if last := p.extent(p.HostPitch); last > n {
		return fmt.Errorf("cudadev: a pitched copy of %d x %d rows of %d values (pitch %d) overruns the host slice of %d values", p.slices(), p.Rows, p.Width, p.HostPitch, n)
	}
	if last := p.extent(p.DevPitch); 8*last > bytes {
		return fmt.Errorf("cudadev: a pitched copy of %d x %d rows of %d values (pitch %d) overruns the device buffer of %d bytes", p.slices(), p.Rows, p.Width, p.DevPitch, bytes)
	}
	return nil
}
