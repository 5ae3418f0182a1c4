package mdops

import "math"

// The branch-free selections of the IR. They are tiny so that the Go
// compiler inlines them; the CUDA headers define the same four.

// selNonZero returns x when c is non-zero (NaN included), else y.
func selNonZero(c, x, y float64) float64 {
	if c != 0 {
		return x
	}
	return y
}

// selFinite returns x when c is finite, else y. c-c is 0 exactly for finite
// c and NaN otherwise, the same test the CUDA headers use.
func selFinite(c, x, y float64) float64 {
	if c-c == 0 {
		return x
	}
	return y
}

// selNegative returns x when c < 0, else y.
func selNegative(c, x, y float64) float64 {
	if c < 0 {
		return x
	}
	return y
}

// selAbsLess returns x when |a| < |b|, else y.
func selAbsLess(a, b, x, y float64) float64 {
	if math.Abs(a) < math.Abs(b) {
		return x
	}
	return y
}
