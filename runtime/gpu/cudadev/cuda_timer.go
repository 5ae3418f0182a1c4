//go:build cuda

package cudadev

import (
	"errors"
	"fmt"

	"gorgonia.org/cu"
)

// Timer measures device time between two CUDA events recorded on the
// device's stream around a sequence of launches (cuEventElapsedTime; the
// resolution is about half a microsecond).
type Timer struct {
	d           *Device
	start, stop cu.Event
	started     bool
	closed      bool
}

// NewTimer creates a Timer (two events). Close releases it, or Close of the
// Device does.
func (d *Device) NewTimer() (*Timer, error) {
	t := &Timer{d: d}
	err := d.Do(func() error {
		var err error
		if t.start, err = cu.MakeEvent(cu.DefaultEvent); err != nil {
			return err
		}
		if t.stop, err = cu.MakeEvent(cu.DefaultEvent); err != nil {
			_ = cu.DestroyEvent(&t.start)
			return err
		}
		d.timers[t] = struct{}{}
		return nil
	})
	if err != nil {
		return nil, d.fail(err, "creating timer events on %s", d.info)
	}
	return t, nil
}

// Start records the start event after the work queued so far.
func (t *Timer) Start() error {
	err := t.d.Do(func() error {
		if t.closed {
			return errors.New("the timer is closed")
		}
		if err := t.start.Record(t.d.stream); err != nil {
			return err
		}
		t.started = true
		return nil
	})
	if err != nil {
		return t.d.fail(err, "starting a timer")
	}
	return nil
}

// Stop records the stop event, waits for it and returns the milliseconds
// between Start and Stop. Errors of the kernels in between surface here.
func (t *Timer) Stop() (float64, error) {
	var ms float64
	err := t.d.Do(func() error {
		if t.closed {
			return errors.New("the timer is closed")
		}
		if !t.started {
			return errors.New("Stop without Start")
		}
		t.started = false
		if err := t.stop.Record(t.d.stream); err != nil {
			return err
		}
		if err := t.stop.Synchronize(); err != nil {
			return err
		}
		var err error
		ms, err = t.start.Elapsed(t.stop)
		return err
	})
	if err != nil {
		return 0, t.d.fail(err, "stopping a timer")
	}
	return ms, nil
}

// Close destroys the timer's events.
func (t *Timer) Close() error { return t.d.Do(t.destroy) }

// destroy runs on the owner goroutine.
func (t *Timer) destroy() error {
	if t.closed {
		return nil
	}
	t.closed = true
	delete(t.d.timers, t)
	var errs []error
	for _, e := range []*cu.Event{&t.start, &t.stop} {
		if err := cu.DestroyEvent(e); err != nil {
			errs = append(errs, fmt.Errorf("cudadev: destroying a timer event: %w", driverErr(err)))
		}
	}
	return errors.Join(errs...)
}

// Time runs f on the owner goroutine (as Do does) between the start and
// stop events of a fresh timer and returns the device milliseconds of the
// work f queued. It waits for that work to finish.
func (d *Device) Time(f func() error) (float64, error) {
	t, err := d.NewTimer()
	if err != nil {
		return 0, err
	}
	var ms float64
	err = d.Do(func() error {
		if err := t.Start(); err != nil {
			return err
		}
		if err := f(); err != nil {
			_, _ = t.Stop()
			return err
		}
		var err error
		ms, err = t.Stop()
		return err
	})
	return ms, errors.Join(err, t.Close())
}
