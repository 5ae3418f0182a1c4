//go:build cuda

package cudadev

// Streams on the device (build and run as smoke_test.go says): a Stream's
// copies and launches are ordered among themselves, do not wait for the
// NULL stream (non-blocking), and wait for it where told (Wait).

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gorgonia.org/cu"
)

// spinIters makes fma_chain on one block of 32 threads run for a good
// fraction of a second (8 chains of dependent FMAs, 2^27 steps each), so
// that the NULL stream is certainly still busy while a Stream does a few
// copies and a small kernel.
const spinIters = 1 << 27

func TestStream(t *testing.T) {
	d := device(t)
	m := smokeModule(t, d)
	axpy, chain := function(t, m, "axpy"), function(t, m, "fma_chain")
	s, err := d.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	}()

	r := rand.New(rand.NewPCG(7, 8))
	const n = 1<<16 + 5
	const a = -0.3183098861837907
	x, y := randomFloat64s(r, n), randomFloat64s(r, n)
	want := make([]float64, n)
	for i := range want {
		want[i] = math.FMA(a, x[i], y[i])
	}
	xb, yb, cb := alloc(t, d, 8*n), alloc(t, d, 8*n), alloc(t, d, 8*32)
	grid, block := Grid1D(n, 256)
	check := func(what string, got []float64) {
		t.Helper()
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("%s: y[%d] = %v, want %v", what, i, got[i], want[i])
			}
		}
	}

	// 1. Non-blocking and ordered: the NULL stream spins (done marks its
	// end); meanwhile the Stream uploads x and y, runs axpy and downloads
	// y. Synchronize of the Stream returns with the right y while the NULL
	// stream is still busy: with a blocking stream, the Stream's work
	// would have waited for the spin.
	done, err := d.NewEvent()
	if err != nil {
		t.Fatal(err)
	}
	defer done.Close()
	if err := d.Launch(chain, Dim3{1}, Dim3{32}, 0, cb, 0.9999999, 1e-7, int64(spinIters)); err != nil {
		t.Fatal(err)
	}
	if err := done.Record(); err != nil {
		t.Fatal(err)
	}
	got := make([]float64, n)
	for _, err := range []error{
		s.CopyHtoD(xb, x), s.CopyHtoD(yb, y), s.Launch(axpy, grid, block, 0, yb, xb, a, int64(n)), s.CopyDtoH(got, yb), s.Synchronize(),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	check("axpy on the stream", got)
	var busy error
	if err := d.Do(func() error { busy = done.ev.Query(); return nil }); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(busy, cu.NotReady) {
		t.Errorf("the NULL stream's spin was over when the Stream's work was done (event query: %v): the Stream waited for it", busy)
	}
	if err := done.Synchronize(); err != nil {
		t.Fatal(err)
	}

	// 2. Wait: the NULL stream spins, then axpy writes y (from the
	// original y, uploaded again); the Stream waits for the event after
	// it and downloads y. Without the Wait the download would see the old
	// y, since the spin holds axpy back.
	if err := d.CopyHtoD(yb, y); err != nil {
		t.Fatal(err)
	}
	err = d.Do(func() error {
		if err := d.Launch(chain, Dim3{1}, Dim3{32}, 0, cb, 0.9999999, 1e-7, int64(spinIters)); err != nil {
			return err
		}
		if err := d.Launch(axpy, grid, block, 0, yb, xb, a, int64(n)); err != nil {
			return err
		}
		return done.Record()
	})
	if err != nil {
		t.Fatal(err)
	}
	clear(got)
	if err := s.Wait(done); err != nil {
		t.Fatal(err)
	}
	if err := s.CopyDtoH(got, yb); err != nil {
		t.Fatal(err)
	}
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
	check("download on the stream after Wait", got)

	// 3. Events on the stream time its work.
	e0, err := d.NewEvent()
	if err != nil {
		t.Fatal(err)
	}
	defer e0.Close()
	if err := e0.RecordOn(s); err != nil {
		t.Fatal(err)
	}
	if err := s.Launch(chain, Dim3{1}, Dim3{32}, 0, cb, 0.9999999, 1e-7, int64(1<<16)); err != nil {
		t.Fatal(err)
	}
	if err := done.RecordOn(s); err != nil {
		t.Fatal(err)
	}
	if err := done.Synchronize(); err != nil {
		t.Fatal(err)
	}
	if ms, err := done.Elapsed(e0); err != nil || ms <= 0 {
		t.Errorf("time of a kernel between two events on the stream: %v ms, %v", ms, err)
	}

	// 4. Refusals: sizes, a closed stream; closing twice is fine.
	if err := s.CopyHtoD(xb.Slice(0, 8), x[:2]); err == nil || !strings.Contains(err.Error(), "too small") {
		t.Errorf("copy into a too-small buffer: %v", err)
	}
	if err := s.CopyDtoH(make([]float64, n+1), xb); err == nil {
		t.Error("copy out of a too-small buffer accepted")
	}
	s2, err := d.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	if err := s2.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s2.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := s2.Launch(axpy, grid, block, 0, yb, xb, a, int64(n)); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("launch on a closed stream: %v", err)
	}
	if err := s2.Synchronize(); err == nil {
		t.Error("Synchronize of a closed stream accepted")
	}
}

// TestStreamAwait: many goroutines, a stream each, queue copies and a
// kernel and Await them at once (the owner polls them all); one stream
// spins for a while first, so the others finish while it is still
// awaited. Each gets its own exact result; Await inside Do, and Await of
// a closed stream, do not hang.
func TestStreamAwait(t *testing.T) {
	d := device(t)
	m := smokeModule(t, d)
	axpy, chain := function(t, m, "axpy"), function(t, m, "fma_chain")
	const streams, n = 16, 1<<12 + 3
	grid, block := Grid1D(n, 256)
	errs := make(chan error, streams)
	var bufs [streams][3]Buffer
	for k := range bufs {
		bufs[k] = [3]Buffer{alloc(t, d, 8*n), alloc(t, d, 8*n), alloc(t, d, 8*32)}
	}
	for k := range streams {
		go func() {
			errs <- func() error {
				s, err := d.NewStream()
				if err != nil {
					return err
				}
				defer s.Close()
				r := rand.New(rand.NewPCG(uint64(k), 9))
				a := r.Float64() - 0.5
				x, y := randomFloat64s(r, n), randomFloat64s(r, n)
				xb, yb, cb := bufs[k][0], bufs[k][1], bufs[k][2]
				if k == 0 {
					if err := s.Launch(chain, Dim3{1}, Dim3{32}, 0, cb, 0.9999999, 1e-7, int64(spinIters/4)); err != nil {
						return err
					}
				}
				got := make([]float64, n)
				for _, err := range []error{
					s.CopyHtoD(xb, x), s.CopyHtoD(yb, y), s.Launch(axpy, grid, block, 0, yb, xb, a, int64(n)), s.CopyDtoH(got, yb), s.Await(),
				} {
					if err != nil {
						return err
					}
				}
				for i := range got {
					if want := math.FMA(a, x[i], y[i]); math.Float64bits(got[i]) != math.Float64bits(want) {
						return fmt.Errorf("stream %d: y[%d] = %v, want %v", k, i, got[i], want)
					}
				}
				return nil
			}()
		}()
	}
	for range streams {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	s, err := d.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Do(s.Await); err != nil {
		t.Errorf("Await inside Do: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Await(); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Await of a closed stream: %v", err)
	}
}

// TestStreamClosedWithDevice: Close of the Device destroys its streams;
// their methods then say ErrClosed.
func TestStreamClosedWithDevice(t *testing.T) {
	device(t)
	d, err := Open(0)
	if err != nil {
		t.Fatal(err)
	}
	s, err := d.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	b, err := d.Alloc(64)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CopyHtoD(b, []float64{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatalf("Close with a stream open: %v", err)
	}
	if err := s.Synchronize(); !errors.Is(err, ErrClosed) {
		t.Errorf("Stream.Synchronize after the Device's Close: %v", err)
	}
}
