//go:build cuda

package cudadev

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"gorgonia.org/cu"
)

// Stream is a CUDA stream of its own next to the device's NULL stream (the
// one every Device method queues on). It is created non-blocking
// (CU_STREAM_NON_BLOCKING): its work neither waits for the NULL stream's
// nor holds it up, so a kernel on a Stream runs at the same time as the
// NULL stream's kernels where the SMs allow it (two one-block kernels do).
// Within a Stream, copies and launches run in the order queued. Ordering
// against the NULL stream is explicit: Wait for an Event recorded there,
// or RecordOn the Stream and have the NULL side wait on the host
// (Event.Synchronize).
//
// The copies of a Stream are asynchronous (cuMemcpyHtoDAsync,
// cuMemcpyDtoHAsync) from and to ordinary (pageable) Go memory: the driver
// stages them, and they stay ordered in the stream. The host slice of a
// copy must not be read (CopyDtoH) or changed (CopyHtoD) until Synchronize
// returns; the Stream keeps a reference to it until then, so that the
// garbage collector does not free it under the copy (Go's heap does not
// move).
type Stream struct {
	d      *Device
	s      cu.Stream
	closed bool
	keep   [][]float64 // host slices of the copies queued since the last Synchronize
}

// NewStream creates a non-blocking stream. Close releases it; closing the
// Device releases it too.
func (d *Device) NewStream() (*Stream, error) {
	s := &Stream{d: d}
	err := d.Do(func() error {
		var err error
		if s.s, err = cu.MakeStream(cu.NonBlocking); err != nil {
			return err
		}
		d.streams[s] = struct{}{}
		return nil
	})
	if err != nil {
		return nil, d.fail(err, "creating a stream on %s (cuStreamCreate)", d.info)
	}
	return s, nil
}

// Launch queues kernel fn on the stream; see Device.Launch for the
// arguments.
func (s *Stream) Launch(fn *Function, grid, block Dim3, sharedBytes int, args ...any) error {
	return s.d.launch(s, fn, grid, block, sharedBytes, args)
}

// CopyHtoD queues the copy of src to the start of dst on the stream. src
// must stay unchanged until Synchronize returns.
func (s *Stream) CopyHtoD(dst Buffer, src []float64) error {
	n := 8 * int64(len(src))
	if n > dst.bytes {
		return fmt.Errorf("cudadev: copying %d bytes to the device on a stream: the destination %v is too small", n, dst)
	}
	if n == 0 {
		return nil
	}
	if dst.ptr == 0 {
		return fmt.Errorf("cudadev: copying %d bytes to the device on a stream: the destination is the null Buffer", n)
	}
	err := s.d.Do(func() error {
		if s.closed {
			return errors.New("the stream is closed")
		}
		s.keep = append(s.keep, src)
		return cu.MemcpyHtoDAsync(cu.DevicePtr(dst.ptr), unsafe.Pointer(&src[0]), n, s.s)
	})
	runtime.KeepAlive(src)
	if err != nil {
		return s.d.fail(err, "copying %d bytes to the device on a stream (%v)", n, dst)
	}
	return nil
}

// CopyDtoH queues the copy of the first len(dst) float64 values of src
// into dst on the stream: dst holds them once Synchronize returns.
func (s *Stream) CopyDtoH(dst []float64, src Buffer) error {
	n := 8 * int64(len(dst))
	if n > src.bytes {
		return fmt.Errorf("cudadev: copying %d bytes from the device on a stream: the source %v is too small", n, src)
	}
	if n == 0 {
		return nil
	}
	if src.ptr == 0 {
		return fmt.Errorf("cudadev: copying %d bytes from the device on a stream: the source is the null Buffer", n)
	}
	err := s.d.Do(func() error {
		if s.closed {
			return errors.New("the stream is closed")
		}
		s.keep = append(s.keep, dst)
		return cu.MemcpyDtoHAsync(unsafe.Pointer(&dst[0]), cu.DevicePtr(src.ptr), n, s.s)
	})
	runtime.KeepAlive(dst)
	if err != nil {
		return s.d.fail(err, "copying %d bytes from the device on a stream (%v)", n, src)
	}
	return nil
}

// Wait makes the work queued on the stream after it wait for the work
// before e's last Record (cuStreamWaitEvent; the host does not wait).
func (s *Stream) Wait(e *Event) error {
	err := s.d.Do(func() error {
		if s.closed {
			return errors.New("the stream is closed")
		}
		if e.closed {
			return errors.New("the event is closed")
		}
		if e.d != s.d {
			return errors.New("the event belongs to another Device")
		}
		return s.s.Wait(e.ev, 0)
	})
	if err != nil {
		return s.d.fail(err, "making a stream wait for an event")
	}
	return nil
}

// Synchronize waits until the work queued on the stream is done (only
// this stream's). Errors of its kernels surface here; afterwards the host
// slices of its copies are the caller's again.
func (s *Stream) Synchronize() error {
	err := s.d.Do(func() error {
		if s.closed {
			return errors.New("the stream is closed")
		}
		err := s.s.Synchronize()
		clear(s.keep)
		s.keep = s.keep[:0]
		return err
	})
	if err != nil {
		return s.d.fail(err, "waiting for a stream (cuStreamSynchronize)")
	}
	return nil
}

// Await waits until the work queued on the stream is done, as Synchronize
// does, without holding the device's thread meanwhile and without a
// hand-off to it per poll: the owner goroutine polls every awaited stream
// of the Device (cuStreamQuery) between the calls it runs and every
// awaitPoll, and wakes each waiter once. Many streams awaited at once (a
// tracker's pipelined solves on several GPUs of one process) cost one
// poller per device, where each waiter polling cuStreamQuery itself costs
// it a hand-off to the owner per poll. Errors of the stream's kernels
// surface here; afterwards the host slices of its copies are the
// caller's again.
func (s *Stream) Await() error {
	if s.d.onOwnerThread() {
		return s.Synchronize() // inside Do: nobody else would poll
	}
	done := make(chan error, 1)
	err := s.d.Do(func() error {
		if s.closed {
			return errors.New("the stream is closed")
		}
		s.d.awaiting = append(s.d.awaiting, awaiter{s: s, done: done})
		return nil
	})
	if err == nil {
		select {
		case err = <-done:
		case <-s.d.exited:
			return ErrClosed
		}
	}
	if err != nil {
		return s.d.fail(err, "waiting for a stream (cuStreamQuery)")
	}
	return nil
}

// pollAwaiting runs on the owner goroutine: it wakes the waiters of the
// awaited streams whose work is done (or failed, or that were closed).
func (d *Device) pollAwaiting() {
	kept := d.awaiting[:0]
	for _, a := range d.awaiting {
		if a.s.closed {
			a.done <- errors.New("the stream is closed")
			continue
		}
		err := a.s.s.Query()
		if err == cu.NotReady {
			kept = append(kept, a)
			continue
		}
		if err == nil {
			err = a.s.s.Synchronize() // done: returns at once, with any error
		}
		clear(a.s.keep)
		a.s.keep = a.s.keep[:0]
		a.done <- err
	}
	clear(d.awaiting[len(kept):])
	d.awaiting = kept
}

// Close waits for the stream's work and destroys it.
func (s *Stream) Close() error { return s.d.Do(s.destroy) }

// destroy runs on the owner goroutine.
func (s *Stream) destroy() error {
	if s.closed {
		return nil
	}
	s.closed = true
	delete(s.d.streams, s)
	var errs []error
	if err := s.s.Synchronize(); err != nil {
		errs = append(errs, fmt.Errorf("cudadev: waiting for a stream before destroying it: %w", driverErr(err)))
	}
	s.keep = nil
	if err := s.s.Destroy(); err != nil {
		errs = append(errs, fmt.Errorf("cudadev: destroying a stream: %w", driverErr(err)))
	}
	return errors.Join(errs...)
}

// RecordOn records the event after the work queued so far on stream s
// (Record records it on the device's NULL stream).
func (e *Event) RecordOn(s *Stream) error {
	err := e.d.Do(func() error {
		if e.closed {
			return errors.New("the event is closed")
		}
		if s.closed {
			return errors.New("the stream is closed")
		}
		if e.d != s.d {
			return errors.New("the stream belongs to another Device")
		}
		return e.ev.Record(s.s)
	})
	if err != nil {
		return e.d.fail(err, "recording an event on a stream")
	}
	return nil
}
