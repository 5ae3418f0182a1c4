package tune

import (
	"math"

	"github.com/mdgen/mdgen/gen/gpuabi"
)

// Measure times the convolution kernel launched with shape s: the median
// kernel ms, and whether the outputs are bit-identical to the model
// shape's (the first shape Search measures, whose own answer is taken as
// the reference). With screen > 0 a shape whose first run is slower than
// screen ms may be returned after that run alone.
type Measure func(s Shape, screen float64) (ms float64, same bool, err error)

// Found is what Search found for one case.
type Found struct {
	Model, Best     Shape
	ModelMs, BestMs float64
	Tried           int     // shapes timed, the model included
	Differs         []Shape // shapes whose outputs differ from the model's
	Failed          []Shape // shapes whose launch failed (not counted in Tried)
	Errs            []error // Failed's errors
}

// Gain is the time the best shape saves against the model's, in percent.
func (f Found) Gain() float64 { return 100 * (f.ModelMs - f.BestMs) / f.ModelMs }

// Search finds the fastest launch shape of the convolution kernel of n
// doubles, real or complex data, at degree, among: the model's
// (gpuabi.LaunchShape); every staging choice that fits maxShared bytes
// (SetsFitting) at the model's block; every block (Blocks) at the best
// staging so far; the staging again at the best block. A shape replaces
// the model only when it is at least minGain percent faster (a tie of a
// few runs is noise), so Best is never slower than Model as measured;
// shapes whose outputs differ from the model's are never chosen. An error
// of the model's own measurement is returned.
func Search(n int, complex bool, degree, maxShared int, minGain float64, measure Measure) (Found, error) {
	f := Found{Model: ModelShape(n, complex, degree)}
	ms, _, err := measure(f.Model, 0)
	if err != nil {
		return f, err
	}
	f.ModelMs, f.Best, f.BestMs = ms, f.Model, ms
	seen := map[Shape]bool{f.Model: true}
	try := func(s Shape) {
		if seen[s] || s.Check(n, complex) != nil || s.Sets*gpuabi.SetBytes(n, degree) > maxShared {
			return
		}
		seen[s] = true
		ms, same, err := measure(s, 1.5*f.BestMs)
		switch {
		case err != nil:
			f.Failed, f.Errs = append(f.Failed, s), append(f.Errs, err)
			return
		case !same:
			f.Differs = append(f.Differs, s)
		case ms < f.BestMs:
			f.Best, f.BestMs = s, ms
		}
		f.Tried++
	}
	f.Tried = 1
	sets := SetsFitting(n, complex, degree, maxShared)
	for _, s := range sets {
		try(MakeShape(n, complex, f.Model.Block, s))
	}
	for _, b := range Blocks(n, complex) {
		try(MakeShape(n, complex, b, f.Best.Sets))
	}
	for _, s := range sets {
		try(MakeShape(n, complex, f.Best.Block, s))
	}
	if !(f.BestMs <= f.ModelMs*(1-minGain/100)) || math.IsNaN(f.BestMs) {
		f.Best, f.BestMs = f.Model, f.ModelMs
	}
	return f, nil
}
