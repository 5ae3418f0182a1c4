// Package stats holds the summary statistics that the timing code of the
// benchmarks, the tuner and the command share, so that each reports its
// runs the same way.
package stats

import (
	"math"
	"slices"
)

// Median returns the median of xs (NaN for none), leaving xs as it is:
// the middle value, or the mean of the two middle values, (a + b) / 2.
func Median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n == 0 {
		return math.NaN()
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
