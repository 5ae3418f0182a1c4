// Package cudadev is mdgen's thin layer over the CUDA driver API: one device,
// one context, device buffers, fatbin modules, kernel launches, event
// timers and streams. It is what the GPU executor (runtime/gpu) builds on; nothing else in
// mdgen talks to the driver.
//
// # Builds
//
// The real implementation is behind the build tag cuda and uses
// gorgonia.org/cu v0.9.6 (cgo, libcuda). Without the tag (the default, CI,
// machines without a toolkit) the same API compiles and every entry point
// returns ErrNoCUDA, so callers need no tags of their own; Enabled tells the
// two builds apart. Build the tagged code with
//
//	make gpu
//
// or by hand, with mdgen's compatibility header first on the include path
// (see runtime/gpu/cudacompat/mdgen_cuda_compat.h, installed as build/cudacompat/cuda.h by make cudacompat: it makes gorgonia.org/cu v0.9.6 compile
// against CUDA 13's cuda.h):
//
//	CGO_CFLAGS="-I$PWD/build/cudacompat -I$CUDA_PATH/include" \
//	CGO_LDFLAGS="-L$CUDA_PATH/lib64/stubs" go build -tags cuda ./...
//
// A cuda-tagged binary links libcuda.so.1 dynamically: it starts only where
// the NVIDIA driver is installed. Where the driver is installed but no GPU is
// usable, it starts and Open returns the driver's error (cuInit, device
// count), so the caller can fall back to the CPU: the compatibility header
// defers gorgonia.org/cu's cuInit-or-exit at package init to Open.
//
// # Threads
//
// A CUDA context is current per OS thread. Open starts one goroutine, locked
// to its OS thread, that creates the context and then executes every CUDA
// call of that Device: each method hands its work to that goroutine and
// waits. Device is therefore safe for concurrent use, and calls are
// serialized. Device.Do runs a whole function there; inside it, the Device's
// methods run directly (no hand-off), so a sequence of launches costs one
// hand-off in all:
//
//	err := dev.Do(func() error {
//		for _, l := range layers {
//			if err := dev.Launch(l.Fn, l.Grid, l.Block, 0, l.Args...); err != nil {
//				return err
//			}
//		}
//		return nil
//	})
//
// Code that calls gorgonia.org/cu directly must do so inside Do.
//
// # Streams
//
// Every Device method queues on the context's NULL stream, so launches,
// copies and events run in the order they are called. Device.NewStream
// makes a second, non-blocking stream for work that may run at the same
// time as the NULL stream's (two one-block kernels on different SMs):
// Stream.Launch, the asynchronous copies Stream.CopyHtoD and
// Stream.CopyDtoH (ordinary Go memory, untouched until
// Stream.Synchronize), Stream.Wait for an Event recorded on the NULL
// stream, Event.RecordOn to time or mark the stream's work. Stream.Await
// waits for a stream without holding the owner goroutine: the owner
// polls every awaited stream between the calls it runs, so many
// goroutines awaiting their streams cost one poller a device.
//
// # Kernel parameters
//
// gorgonia.org/cu's Launch copies every kernel argument as one 8-byte word.
// Kernels launched through this package must therefore take 8-byte
// parameters only: pointers (pass a Buffer), 64-bit integers (long long,
// int64_t, size_t; pass int, int64, uint64 or uint) and doubles (float64).
// Launch refuses any other Go type (int32, float32, bool, structs) with an
// error before anything is launched, rather than let the kernel read garbage.
//
// # Errors
//
// Every error says what was being done ("cudadev: copying 8192 bytes to the
// device: ...") and wraps the driver's error, so errors.Is works with
// gorgonia.org/cu's result values (cu.OutOfMemory, cu.NoDevice, ...).
// Kernel launches are asynchronous: a kernel that faults is reported by the
// next call that waits for the device (Synchronize, a copy, Timer.Stop).
package cudadev
