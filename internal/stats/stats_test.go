package stats

import (
	"math"
	"slices"
	"testing"
)

func TestMedian(t *testing.T) {
	if got := Median(nil); !math.IsNaN(got) {
		t.Errorf("Median(nil) = %v, want NaN", got)
	}
	xs := []float64{3, 1, 2}
	if got := Median(xs); got != 2 {
		t.Errorf("Median(%v) = %v, want 2", xs, got)
	}
	if !slices.Equal(xs, []float64{3, 1, 2}) {
		t.Errorf("Median reordered its argument: %v", xs)
	}
	if got := Median([]float64{4, 1, 2, 3}); got != 2.5 {
		t.Errorf("Median of 1..4 = %v, want 2.5", got)
	}
}
