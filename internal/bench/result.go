package bench

import (
	"math"
	"slices"
	"strings"
)

// PeakOps is the H200's FP64 instruction rate, measured with an FMA chain
// (runtime/gpu/cudadev's smoke test; docs/gpu.md): 15.7e12 FMA/s.
const PeakOps = 15.7e12

// Result is one case of the table (writeJSON writes it; NaN
// marks a number that does not exist).
type Result struct {
	System  string
	Prec    int
	Degree  int
	Complex bool
	Backend string // "gpu" or "cpu"

	Skipped string // why the case did not run

	Repeat     int
	KernelMs   float64 // median; NaN on the CPU
	WallMs     float64 // median
	KernelMsLo float64
	WallMsLo   float64

	PHCKernelMs float64 // NaN where PHCpack has none
	PHCWallMs   float64

	ConvJobs    int
	AddJobs     int
	Launches    int
	DeviceBytes int64
	DoubleOps   float64

	Seed        uint64
	Checksum    string
	Check       string // identical, DIFFERS, not checked, reference, error: ...
	CPUChecksum string
}

// OpRate returns double operations per second over the kernel time (the
// wall time on the CPU).
func (r *Result) OpRate() float64 {
	t := r.KernelMs
	if r.Backend == "cpu" || isNaN(t) {
		t = r.WallMs
	}
	if t <= 0 || isNaN(t) {
		return math.NaN()
	}
	return r.DoubleOps / (t / 1e3)
}

// PeakFraction is OpRate over the H200's FP64 instruction rate.
func (r *Result) PeakFraction() float64 { return r.OpRate() / PeakOps }

// SpeedUp is PHCpack's wall clock over ours.
func (r *Result) SpeedUp() float64 {
	if isNaN(r.PHCWallMs) || r.WallMs <= 0 || isNaN(r.WallMs) {
		return math.NaN()
	}
	return r.PHCWallMs / r.WallMs
}

func isNaN(x float64) bool { return math.IsNaN(x) }

func (r *Result) dataName() string {
	if r.Complex {
		return "complex"
	}
	return "real"
}

func (r *Result) ran() bool { return r.Skipped == "" }

// setPHC fills PHCpack's numbers for the case, NaN where it has none.
func (r *Result) setPHC() {
	r.PHCKernelMs, r.PHCWallMs = math.NaN(), math.NaN()
	if t, ok := phcTable[phcKey{r.Prec, r.System, r.Complex, r.Degree}]; ok {
		r.PHCKernelMs, r.PHCWallMs = t.Kern, t.Wall
	}
}

// sortResults orders real before complex, then precision, system, degree.
func sortResults(rs []Result) {
	slices.SortStableFunc(rs, func(a, b Result) int {
		switch {
		case a.Complex != b.Complex:
			if !a.Complex {
				return -1
			}
			return 1
		case a.Prec != b.Prec:
			return a.Prec - b.Prec
		case a.System != b.System:
			return strings.Compare(a.System, b.System)
		}
		return a.Degree - b.Degree
	})
}
