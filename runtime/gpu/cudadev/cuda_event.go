//go:build cuda

package cudadev

import (
	"errors"

	"gorgonia.org/cu"
)

// Event is one CUDA event on the device's stream: Record marks the point
// after the work queued so far, without waiting. A sequence of events
// recorded between launches splits the device's time line into intervals
// (the stage times of runtime/gpu's Newton driver) at no synchronization;
// Elapsed reads one interval once both events have completed.
type Event struct {
	d      *Device
	ev     cu.Event
	closed bool
}

// NewEvent creates an event (cuEventCreate with the default flags: timing
// enabled). Close releases it; closing the Device releases it too.
func (d *Device) NewEvent() (*Event, error) {
	e := &Event{d: d}
	err := d.Do(func() error {
		var err error
		e.ev, err = cu.MakeEvent(cu.DefaultEvent)
		return err
	})
	if err != nil {
		return nil, d.fail(err, "creating an event on %s", d.info)
	}
	return e, nil
}

// Record records the event after the work queued so far on the stream.
func (e *Event) Record() error {
	err := e.d.Do(func() error {
		if e.closed {
			return errors.New("the event is closed")
		}
		return e.ev.Record(e.d.stream)
	})
	if err != nil {
		return e.d.fail(err, "recording an event")
	}
	return nil
}

// Synchronize waits until the work before the event's last Record is done.
// Errors of the kernels before it surface here.
func (e *Event) Synchronize() error {
	err := e.d.Do(func() error { return e.ev.Synchronize() })
	if err != nil {
		return e.d.fail(err, "waiting for an event")
	}
	return nil
}

// Elapsed returns the milliseconds from start to e (both recorded and
// completed).
func (e *Event) Elapsed(start *Event) (float64, error) {
	var ms float64
	err := e.d.Do(func() error {
		var err error
		ms, err = start.ev.Elapsed(e.ev)
		return err
	})
	if err != nil {
		return 0, e.d.fail(err, "reading the time between two events")
	}
	return ms, nil
}

// Close destroys the event.
func (e *Event) Close() error {
	return e.d.Do(func() error {
		if e.closed {
			return nil
		}
		e.closed = true
		if err := cu.DestroyEvent(&e.ev); err != nil {
			return driverErr(err)
		}
		return nil
	})
}
