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
