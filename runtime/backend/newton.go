package backend

import (
	"math"
	"time"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/stager/poly"
)

// The stage clock and the configuration of Newton's back ends: the driver
// (runtime/newton) and every back end that it runs on (runtime/cpu,
// runtime/gpu) share them.

// Times holds the time spent in the six kinds of work of the driver, summed
// over the Newton steps of one Solve (see the package documentation for
// what each one covers).
type Times struct {
	Evaluate time.Duration // inputs in, evaluation and differentiation, b = -G and the A_k gathered
	QR       time.Duration // Householder QR of A_0, its condition estimate and ||A_0||_1; in phase 2 forming -R^-1 Q^H
	QHB      time.Duration // skip tests, and y = Q^H b_k in phase 1
	BackSub  time.Duration // back substitution R dx_k = y in phase 1, dx_k = R^-1 Q^H b_k (one product) in phase 2
	Update   time.Duration // b_j -= A_(j-k) dx_k, and x += dx
	Residual time.Duration // sum over k of ||b_k - A_0 dx_k||_1
}

// Total returns the sum of the six times.
func (t Times) Total() time.Duration {
	return t.Evaluate + t.QR + t.QHB + t.BackSub + t.Update + t.Residual
}

// Add returns t + u.
func (t Times) Add(u Times) Times {
	return Times{t.Evaluate + u.Evaluate, t.QR + u.QR, t.QHB + u.QHB, t.BackSub + u.BackSub,
		t.Update + u.Update, t.Residual + u.Residual}
}

// Stage is one of the six kinds of timed work (see Times).
type Stage int

const (
	StageEvaluate Stage = iota
	StageQR
	StageQHB
	StageBackSub
	StageUpdate
	StageResidual
)

var stageNames = [...]string{"evaluate", "QR", "Q^H b", "back substitution", "update", "residual"}

func (s Stage) String() string {
	if s >= 0 && int(s) < len(stageNames) {
		return stageNames[s]
	}
	return "unknown stage"
}

// AddStage adds d to stage s of t.
func (t *Times) AddStage(s Stage, d time.Duration) {
	// In the order of the Stage constants.
	fields := [...]*time.Duration{&t.Evaluate, &t.QR, &t.QHB, &t.BackSub, &t.Update, &t.Residual}
	if s >= 0 && int(s) < len(fields) {
		*fields[s] += d
	}
}

// StageClock is the stage clock of a Newton back end that computes on the
// host, its Mark, Lap and Times (runtime/newton.Backend's): embedded, it
// gives a back end those methods. It reads time.Since from the solve's
// start (the monotonic clock alone: half the cost of time.Now); last is
// the time of the last Mark or Lap.
type StageClock struct {
	times Times
	start time.Time
	last  time.Duration
}

// StartClock zeroes the stage times and starts the clock (at a solve's
// Reset).
func (c *StageClock) StartClock() {
	c.times, c.start, c.last = Times{}, time.Now(), 0
}

// Mark starts a new interval, attributed to no stage.
func (c *StageClock) Mark() { c.last = time.Since(c.start) }

// Lap attributes the time since the last Mark or Lap to stage s.
func (c *StageClock) Lap(s Stage) {
	now := time.Since(c.start)
	c.times.AddStage(s, now-c.last)
	c.last = now
}

// Times returns the stage times since StartClock.
func (c *StageClock) Times() (Times, error) { return c.times, nil }

// NewtonConfig is what a Newton back end (runtime/newton.Backend) is made for: one Solver's system,
// precision and degree, and its executors.
type NewtonConfig struct {
	Sys     *poly.System
	Prec    mdops.Prec
	Degree  int // d
	Vars    int // n unknowns
	Eqs     int // m equations
	Workers int
	// Exec returns the executor of working degree w (staged on first
	// use; Solver.Prepare stages every degree before the first Solve).
	Exec func(w int) (Executor, error)
}

// MaxAbs returns the largest magnitude of the leading limbs of the numbers
// in x (p.Width() doubles each, real and imaginary leading limbs at 0 and
// p.N for complex): the max-norm used by every tolerance of the driver. A
// max is exact and independent of the order, so every back end gets the
// same float64. NaN when a leading limb is NaN.
func MaxAbs(x []float64, p mdops.Prec) float64 {
	// Written out per layout with plain comparisons: math.Max's NaN and
	// signed-zero cases cost more than the loop (a tenth of a path
	// tracker's time at one double); magnitudes have no signed zeros,
	// and the NaN cases keep math.Max's answers.
	w, m := p.Width(), 0.0
	if !p.Complex {
		for e := 0; e < len(x)-w+1; e += w {
			a := math.Abs(x[e])
			if a != a {
				return math.NaN()
			}
			if a > m {
				m = a
			}
		}
		return m
	}
	for e := 0; e < len(x)-w+1; e += w {
		re, im := math.Abs(x[e]), math.Abs(x[e+p.N])
		if re != re || im != im {
			// math.Max(+Inf, NaN) is +Inf: the element's magnitude
			// was taken so, and stays so.
			if re != math.Inf(1) && im != math.Inf(1) {
				return math.NaN()
			}
			m = math.Inf(1)
			continue
		}
		if re > m {
			m = re
		}
		if im > m {
			m = im
		}
	}
	return m
}
