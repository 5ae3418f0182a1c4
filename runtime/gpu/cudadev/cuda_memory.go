//go:build cuda

package cudadev

import (
	"fmt"
	"runtime"
	"unsafe"

	"gorgonia.org/cu"
)

// Alloc allocates bytes of device memory (cuMemAlloc: 256-byte aligned,
// not initialized). Free it with Free, or let Close free it.
func (d *Device) Alloc(bytes int64) (Buffer, error) {
	if bytes <= 0 {
		return Buffer{}, fmt.Errorf("cudadev: allocating %d bytes: size must be positive", bytes)
	}
	var b Buffer
	var free int64 = -1
	err := d.Do(func() error {
		p, err := cu.MemAlloc(bytes)
		if err != nil {
			if f, _, e := cu.MemInfo(); e == nil {
				free = f
			}
			return err
		}
		b = Buffer{ptr: uintptr(p), bytes: bytes}
		d.allocs[b.ptr] = bytes
		d.allocated += bytes
		return nil
	})
	if err != nil {
		if free >= 0 {
			return Buffer{}, d.fail(err, "allocating %d bytes (%.3f GiB) on %s with %.3f GiB free", bytes, gib(bytes), d.info, gib(free))
		}
		return Buffer{}, d.fail(err, "allocating %d bytes (%.3f GiB) on %s", bytes, gib(bytes), d.info)
	}
	return b, nil
}

// AllocFloat64s allocates room for n float64 values.
func (d *Device) AllocFloat64s(n int64) (Buffer, error) {
	if n <= 0 || n > (1<<62)/8 {
		return Buffer{}, fmt.Errorf("cudadev: allocating %d float64 values: count out of range", n)
	}
	return d.Alloc(8 * n)
}

// Free releases an allocation made by Alloc. Freeing the zero Buffer does
// nothing; freeing a Slice, or freeing twice, is an error.
func (d *Device) Free(b Buffer) error {
	if b.ptr == 0 {
		return nil
	}
	err := d.Do(func() error {
		n, ok := d.allocs[b.ptr]
		if !ok {
			return fmt.Errorf("not a live allocation of this device (freed already, or a Slice of one)")
		}
		if n != b.bytes {
			return fmt.Errorf("the allocation at this address has %d bytes (pass the Buffer that Alloc returned, not a Slice)", n)
		}
		if err := cu.MemFree(cu.DevicePtr(b.ptr)); err != nil {
			return err
		}
		delete(d.allocs, b.ptr)
		d.allocated -= n
		return nil
	})
	if err != nil {
		return d.fail(err, "freeing %v", b)
	}
	return nil
}

// copyIn copies n bytes from host memory at p to dst.
func (d *Device) copyIn(dst Buffer, p unsafe.Pointer, n int64) error {
	if n > dst.bytes {
		return fmt.Errorf("cudadev: copying %d bytes to the device: the destination %v is too small", n, dst)
	}
	if n == 0 {
		return nil
	}
	if dst.ptr == 0 {
		return fmt.Errorf("cudadev: copying %d bytes to the device: the destination is the null Buffer", n)
	}
	if err := d.Do(func() error { return cu.MemcpyHtoD(cu.DevicePtr(dst.ptr), p, n) }); err != nil {
		return d.fail(err, "copying %d bytes to the device (%v)", n, dst)
	}
	return nil
}

// copyOut copies n bytes from src to host memory at p.
func (d *Device) copyOut(p unsafe.Pointer, src Buffer, n int64) error {
	if n > src.bytes {
		return fmt.Errorf("cudadev: copying %d bytes from the device: the source %v is too small", n, src)
	}
	if n == 0 {
		return nil
	}
	if src.ptr == 0 {
		return fmt.Errorf("cudadev: copying %d bytes from the device: the source is the null Buffer", n)
	}
	if err := d.Do(func() error { return cu.MemcpyDtoH(p, cu.DevicePtr(src.ptr), n) }); err != nil {
		return d.fail(err, "copying %d bytes from the device (%v)", n, src)
	}
	return nil
}

// CopyHtoD copies src to the start of dst (synchronous: when it returns,
// src may be reused). dst must hold at least 8·len(src) bytes.
func (d *Device) CopyHtoD(dst Buffer, src []float64) error {
	if len(src) == 0 {
		return nil
	}
	err := d.copyIn(dst, unsafe.Pointer(&src[0]), 8*int64(len(src)))
	runtime.KeepAlive(src)
	return err
}

// CopyDtoH copies the first len(dst) float64 values of src into dst
// (synchronous: it waits for the work queued before it).
func (d *Device) CopyDtoH(dst []float64, src Buffer) error {
	if len(dst) == 0 {
		return nil
	}
	err := d.copyOut(unsafe.Pointer(&dst[0]), src, 8*int64(len(dst)))
	runtime.KeepAlive(dst)
	return err
}

// AllocHost allocates n float64s of page-locked host memory
// (cuMemHostAlloc, zeroed here): copies to and from it run at the bus's
// speed, and a pitched copy (CopyHtoD2D) is one transfer. It is no Go
// memory: free it with FreeHost before the Device closes (Close frees what
// is left, and the slice must not be used after that).
func (d *Device) AllocHost(n int64) ([]float64, error) {
	if n <= 0 || n > (1<<62)/8 {
		return nil, fmt.Errorf("cudadev: allocating %d float64s of page-locked host memory: count out of range", n)
	}
	var s []float64
	err := d.Do(func() error {
		p, err := allocHost(8 * n)
		if err != nil {
			return err
		}
		s = unsafe.Slice((*float64)(p), n)
		d.hostAlloc[p] = 8 * n
		return nil
	})
	if err != nil {
		return nil, d.fail(err, "allocating %d bytes (%.3f GiB) of page-locked host memory", 8*n, gib(8*n))
	}
	clear(s)
	return s, nil
}

// FreeHost frees a slice of AllocHost (the whole slice it returned).
func (d *Device) FreeHost(s []float64) error {
	if len(s) == 0 {
		return nil
	}
	p := unsafe.Pointer(&s[0])
	err := d.Do(func() error {
		if _, ok := d.hostAlloc[p]; !ok {
			return fmt.Errorf("not page-locked memory of this device (freed already, or a part of a slice of AllocHost)")
		}
		if err := freeHost(p); err != nil {
			return err
		}
		delete(d.hostAlloc, p)
		return nil
	})
	if err != nil {
		return d.fail(err, "freeing %d float64s of page-locked host memory", len(s))
	}
	return nil
}

// CopyHtoDPitched copies the block p from src to dst (synchronous, as
// CopyHtoD): the columns of a window of paths of an interleaved array in
// one copy.
func (d *Device) CopyHtoDPitched(dst Buffer, src []float64, p Pitched) error {
	return d.copyPitched(true, dst, src, p)
}

// CopyDtoHPitched copies the block p from src to dst (synchronous, as
// CopyDtoH).
func (d *Device) CopyDtoHPitched(dst []float64, src Buffer, p Pitched) error {
	return d.copyPitched(false, src, dst, p)
}

func (d *Device) copyPitched(toDevice bool, dev Buffer, host []float64, p Pitched) error {
	if err := p.check(int64(len(host)), dev.bytes); err != nil {
		return err
	}
	if p.Rows == 0 || p.Width == 0 {
		return nil
	}
	if dev.ptr == 0 {
		return fmt.Errorf("cudadev: a pitched copy with the null Buffer")
	}
	err := d.Do(func() error {
		return copyPitched(toDevice, dev.ptr, 8*p.DevPitch, unsafe.Pointer(&host[0]), 8*p.HostPitch, 8*p.Width, p.Rows, p.slices(), p.SliceRows)
	})
	runtime.KeepAlive(host)
	if err != nil {
		return d.fail(err, "copying %d x %d rows of %d values between the host and %v", p.slices(), p.Rows, p.Width, dev)
	}
	return nil
}

// CopyHtoDInt32 copies int32 values (job tables) to the start of dst.
func (d *Device) CopyHtoDInt32(dst Buffer, src []int32) error {
	if len(src) == 0 {
		return nil
	}
	err := d.copyIn(dst, unsafe.Pointer(&src[0]), 4*int64(len(src)))
	runtime.KeepAlive(src)
	return err
}

// CopyDtoHInt32 copies the first len(dst) int32 values of src into dst.
func (d *Device) CopyDtoHInt32(dst []int32, src Buffer) error {
	if len(dst) == 0 {
		return nil
	}
	err := d.copyOut(unsafe.Pointer(&dst[0]), src, 4*int64(len(dst)))
	runtime.KeepAlive(dst)
	return err
}

// CopyHtoDInt64 copies int64 values to the start of dst.
func (d *Device) CopyHtoDInt64(dst Buffer, src []int64) error {
	if len(src) == 0 {
		return nil
	}
	err := d.copyIn(dst, unsafe.Pointer(&src[0]), 8*int64(len(src)))
	runtime.KeepAlive(src)
	return err
}

// CopyDtoHInt64 copies the first len(dst) int64 values of src into dst.
func (d *Device) CopyDtoHInt64(dst []int64, src Buffer) error {
	if len(dst) == 0 {
		return nil
	}
	err := d.copyOut(unsafe.Pointer(&dst[0]), src, 8*int64(len(dst)))
	runtime.KeepAlive(dst)
	return err
}

// CopyHtoDBytes copies raw bytes to the start of dst.
func (d *Device) CopyHtoDBytes(dst Buffer, src []byte) error {
	if len(src) == 0 {
		return nil
	}
	err := d.copyIn(dst, unsafe.Pointer(&src[0]), int64(len(src)))
	runtime.KeepAlive(src)
	return err
}

// CopyDtoHBytes copies the first len(dst) bytes of src into dst.
func (d *Device) CopyDtoHBytes(dst []byte, src Buffer) error {
	if len(dst) == 0 {
		return nil
	}
	err := d.copyOut(unsafe.Pointer(&dst[0]), src, int64(len(dst)))
	runtime.KeepAlive(dst)
	return err
}

// CopyDtoD copies src.Bytes() bytes from src to the start of dst.
func (d *Device) CopyDtoD(dst, src Buffer) error {
	n := src.bytes
	if n > dst.bytes {
		return fmt.Errorf("cudadev: copying %d bytes on the device: the destination %v is too small", n, dst)
	}
	if n == 0 {
		return nil
	}
	if err := d.Do(func() error { return cu.MemcpyDtoD(cu.DevicePtr(dst.ptr), cu.DevicePtr(src.ptr), n) }); err != nil {
		return d.fail(err, "copying %d bytes on the device (%v to %v)", n, src, dst)
	}
	return nil
}

// Memset sets every byte of b to v. Memset(b, 0) zeroes b;
// Memset(b, 0xFF) fills float64 data with NaN (all bits set), a guard
// value that shows up any slot a kernel failed to write.
func (d *Device) Memset(b Buffer, v byte) error {
	if b.bytes == 0 {
		return nil
	}
	if err := d.Do(func() error { return cu.MemsetD8(cu.DevicePtr(b.ptr), v, b.bytes) }); err != nil {
		return d.fail(err, "setting %d bytes of %v to 0x%02x", b.bytes, b, v)
	}
	return nil
}

// MemsetD32 sets every 32-bit word of b to v; b's address and size must be
// multiples of 4.
func (d *Device) MemsetD32(b Buffer, v uint32) error {
	if b.bytes%4 != 0 || b.ptr%4 != 0 {
		return fmt.Errorf("cudadev: setting 32-bit words of %v: address and size must be multiples of 4", b)
	}
	if b.bytes == 0 {
		return nil
	}
	if err := d.Do(func() error { return cu.MemsetD32(cu.DevicePtr(b.ptr), v, b.bytes/4) }); err != nil {
		return d.fail(err, "setting %d 32-bit words of %v to 0x%08x", b.bytes/4, b, v)
	}
	return nil
}
