package par

import (
	"testing"
)

// TestRunOn: every chunk runs once, on a worker below the bound, and the
// bound is what RunOn reports (at most the chunks, at least one).
func TestRunOn(t *testing.T) {
	for _, tc := range []struct{ workers, n, want int }{
		{1, 10, 1}, {2, 10, 2}, {3, 2, 2}, {4, 0, 1},
	} {
		seen := make([]int, tc.n)
		maxW := make([]int, tc.n)
		got := RunOn(tc.workers, tc.n, func(w, k int) { seen[k]++; maxW[k] = w })
		if got != tc.want {
			t.Errorf("RunOn(%d, %d) = %d workers, want %d", tc.workers, tc.n, got, tc.want)
		}
		for k := range seen {
			if seen[k] != 1 || maxW[k] >= got {
				t.Errorf("RunOn(%d, %d): chunk %d ran %d times, last on worker %d", tc.workers, tc.n, k, seen[k], maxW[k])
			}
		}
	}
}
