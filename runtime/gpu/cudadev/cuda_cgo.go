//go:build cuda

package cudadev

/*
#cgo LDFLAGS: -lcuda
#include <cuda.h>
#include <pthread.h>
#include <stdint.h>

// The real cuInit: with mdgen's compatibility header (runtime/gpu/cudacompat)
// first on the include path, cuInit is deferred (see there) and this is the
// call that reports its result.
static CUresult mdgen_init(void) {
#ifdef MDGEN_CUDACOMPAT_DEFERRED_INIT
	return mdgen_cudacompat_cuInit_real(0);
#else
	return cuInit(0);
#endif
}

static int mdgen_compat_header(void) {
#ifdef MDGEN_CUDACOMPAT
	return 1;
#else
	return 0;
#endif
}

static uint64_t mdgen_thread_id(void) { return (uint64_t)(uintptr_t)pthread_self(); }

static const char *mdgen_error_name(int r) {
	const char *s = 0;
	if (cuGetErrorName((CUresult)r, &s) != CUDA_SUCCESS) return 0;
	return s;
}

static const char *mdgen_error_string(int r) {
	const char *s = 0;
	if (cuGetErrorString((CUresult)r, &s) != CUDA_SUCCESS) return 0;
	return s;
}

static int mdgen_func_set_max_dynamic_shared(CUfunction f, int bytes) {
	return (int)cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes);
}

// Pitched copies between host memory and a device buffer: depth slices
// of height rows of width bytes, row i of slice j at (j·sliceRows + i)·pitch
// on either side (cuMemcpy2D for one slice, cuMemcpy3D for more; the host
// pointer is an argument, not a field of a Go struct, so that cgo's
// pointer rules hold).
static int mdgen_copy_pitched(int toDevice, CUdeviceptr dev, size_t dpitch, void *host, size_t hpitch,
                              size_t width, size_t height, size_t depth, size_t sliceRows) {
	if (depth <= 1) {
		CUDA_MEMCPY2D c = {0};
		c.WidthInBytes = width;
		c.Height = height;
		if (toDevice) {
			c.srcMemoryType = CU_MEMORYTYPE_HOST; c.srcHost = host; c.srcPitch = hpitch;
			c.dstMemoryType = CU_MEMORYTYPE_DEVICE; c.dstDevice = dev; c.dstPitch = dpitch;
		} else {
			c.srcMemoryType = CU_MEMORYTYPE_DEVICE; c.srcDevice = dev; c.srcPitch = dpitch;
			c.dstMemoryType = CU_MEMORYTYPE_HOST; c.dstHost = host; c.dstPitch = hpitch;
		}
		return (int)cuMemcpy2D(&c);
	}
	CUDA_MEMCPY3D c = {0};
	c.WidthInBytes = width;
	c.Height = height;
	c.Depth = depth;
	if (toDevice) {
		c.srcMemoryType = CU_MEMORYTYPE_HOST; c.srcHost = host; c.srcPitch = hpitch; c.srcHeight = sliceRows;
		c.dstMemoryType = CU_MEMORYTYPE_DEVICE; c.dstDevice = dev; c.dstPitch = dpitch; c.dstHeight = sliceRows;
	} else {
		c.srcMemoryType = CU_MEMORYTYPE_DEVICE; c.srcDevice = dev; c.srcPitch = dpitch; c.srcHeight = sliceRows;
		c.dstMemoryType = CU_MEMORYTYPE_HOST; c.dstHost = host; c.dstPitch = hpitch; c.dstHeight = sliceRows;
	}
	return (int)cuMemcpy3D(&c);
}

// Page-locked host memory (cuMemHostAlloc), returned as a C pointer.
static void *mdgen_host_alloc(size_t bytes, int *err) {
	void *p = 0;
	*err = (int)cuMemHostAlloc(&p, bytes, 0);
	return p;
}

static int mdgen_host_free(void *p) { return (int)cuMemFreeHost(p); }

static int mdgen_occupancy(CUfunction f, int block, size_t shared, int *blocks) {
	return (int)cuOccupancyMaxActiveBlocksPerMultiprocessor(blocks, f, block, shared);
}
*/
import "C"

import (
	"fmt"
	"reflect"
	"unsafe"

	"gorgonia.org/cu"
)

// headerVersion is CUDA_VERSION of the cuda.h this package was compiled with.
const headerVersion = int(C.CUDA_VERSION)

// attrMaxSharedPerBlockOptin is not among gorgonia.org/cu v0.9.6's constants.
const attrMaxSharedPerBlockOptin = cu.DeviceAttribute(C.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)

// compatHeader reports whether the compatibility header (runtime/gpu/cudacompat, installed as build/cudacompat/cuda.h) was first on the
// include path when this package was compiled.
func compatHeader() bool { return C.mdgen_compat_header() != 0 }

// initDriver calls the real cuInit(0).
func initDriver() error {
	if r := int(C.mdgen_init()); r != 0 {
		return newDriverError(r, nil)
	}
	return nil
}

// threadID identifies the calling OS thread.
func threadID() uint64 { return uint64(C.mdgen_thread_id()) }

// driverErr turns an error from gorgonia.org/cu into a *DriverError with the
// driver's own name and description; other errors pass through.
func driverErr(err error) error {
	if err == nil {
		return nil
	}
	v := reflect.ValueOf(err)
	if v.Kind() != reflect.Int || v.Type().PkgPath() != "gorgonia.org/cu" {
		return err
	}
	return newDriverError(int(v.Int()), err)
}

func newDriverError(code int, orig error) *DriverError {
	e := &DriverError{Code: code, Hint: driverHint(code), Err: orig}
	if s := C.mdgen_error_name(C.int(code)); s != nil {
		e.Name = C.GoString(s)
	} else if orig != nil {
		e.Name = orig.Error()
	} else {
		e.Name = fmt.Sprintf("CUresult %d", code)
	}
	if s := C.mdgen_error_string(C.int(code)); s != nil {
		e.Text = C.GoString(s)
	}
	return e
}

// cFunction extracts the CUfunction handle from gorgonia.org/cu's Function
// (a struct holding just that pointer).
func cFunction(f *cu.Function) C.CUfunction {
	return *(*C.CUfunction)(unsafe.Pointer(f))
}

func setMaxDynamicShared(f *cu.Function, bytes int) error {
	if r := int(C.mdgen_func_set_max_dynamic_shared(cFunction(f), C.int(bytes))); r != 0 {
		return newDriverError(r, nil)
	}
	return nil
}

func maxActiveBlocks(f *cu.Function, block, shared int) (int, error) {
	var n C.int
	if r := int(C.mdgen_occupancy(cFunction(f), C.int(block), C.size_t(shared), &n)); r != 0 {
		return 0, newDriverError(r, nil)
	}
	return int(n), nil
}

// copyPitched is mdgen_copy_pitched (on the device's thread).
func copyPitched(toDevice bool, dev uintptr, dpitch int64, host unsafe.Pointer, hpitch, width, height, depth, sliceRows int64) error {
	to := C.int(0)
	if toDevice {
		to = 1
	}
	r := C.mdgen_copy_pitched(to, C.CUdeviceptr(dev), C.size_t(dpitch), host, C.size_t(hpitch),
		C.size_t(width), C.size_t(height), C.size_t(depth), C.size_t(sliceRows))
	if r != 0 {
		return newDriverError(int(r), nil)
	}
	return nil
}

// allocHost is mdgen_host_alloc (on the device's thread).
func allocHost(bytes int64) (unsafe.Pointer, error) {
	var code C.int
	p := C.mdgen_host_alloc(C.size_t(bytes), &code)
	if code != 0 {
		return nil, newDriverError(int(code), nil)
	}
	return p, nil
}

// freeHost is mdgen_host_free (on the device's thread).
func freeHost(p unsafe.Pointer) error {
	if r := C.mdgen_host_free(p); r != 0 {
		return newDriverError(int(r), nil)
	}
	return nil
}
