package solutions

import (
	"fmt"

	"github.com/mdgen/mdgen/stager/poly"
)

// ParseStarts reads a system file with ParseWithSystem and returns
// the system and its listed solutions as start points of Newton's method
// on Taylor series: the coordinates of each, in the order of the system's
// variables, exact. Every solution must have one coordinate per unknown
// and, when the system has a series parameter, be at that parameter = 0
// (the series are expanded there). An emitted package's Starts and the
// emitter, which runs its Example, read the list here, so that both take
// the same starts and give the same reasons; name names the file in the
// errors.
func ParseStarts(name string, src []byte, opt poly.ParseOptions) (*poly.System, [][]poly.Rational, error) {
	sys, sols, err := ParseWithSystem(name, src, opt)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: reading the start solutions: %w", name, err)
	}
	out := make([][]poly.Rational, len(sols))
	for k := range sols {
		if len(sols[k].Values) != len(sys.Vars) {
			return nil, nil, fmt.Errorf("%s: start solution %d has %d coordinates, the system %d unknowns", name, k+1, len(sols[k].Values), len(sys.Vars))
		}
		if sys.Param != "" && !sols[k].T.IsZero() {
			return nil, nil, fmt.Errorf("%s: start solution %d is at %s = %s, not at %s = 0 (the series are expanded at %s = 0)",
				name, k+1, sys.Param, sols[k].T.Re.RatString(), sys.Param, sys.Param)
		}
		out[k] = sols[k].Values
	}
	return sys, out, nil
}
