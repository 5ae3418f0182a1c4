package gpuabi

import "testing"

var schedDegrees = func() []int {
	var ds []int
	for d := 0; d <= 260; d++ {
		ds = append(ds, d)
	}
	return append(ds, 300, 383, 384, 437, 511, 512, 700, 1023, 1024, 2047)
}()

var schedThreads = []int{1, 2, 3, 7, 16, 31, 32, 33, 64, 96, 128, 160, 192, 256, 384, 512}

// Every coefficient 1..d goes to exactly one thread, no thread's chains sum
// to more than the steps, and strict never takes more steps than pairs.
func TestThreadChainsCover(t *testing.T) {
	for _, d := range schedDegrees {
		seen := make([]int, d+1)
		for _, T := range schedThreads {
			for mode := 0; mode < 3; mode++ { // pairs, complement, strict
				complement, strict := mode >= 1, mode == 2
				steps, comp := Schedule(d, T, complement, strict)
				clear(seen)
				for th := 0; th < T; th++ {
					load := 0
					for _, k := range ThreadChains(d, T, th, complement, strict) {
						if k < 1 || k > d {
							t.Fatalf("d=%d T=%d mode=%d thread %d: chain %d", d, T, mode, th, k)
						}
						seen[k]++
						load += k
					}
					if load > steps {
						t.Fatalf("d=%d T=%d mode=%d thread %d: load %d > steps %d", d, T, mode, th, load, steps)
					}
				}
				for k := 1; k <= d; k++ {
					if seen[k] != 1 {
						t.Fatalf("d=%d T=%d mode=%d: chain %d run %d times", d, T, mode, k, seen[k])
					}
				}
				pairs, _ := Schedule(d, T, false, false)
				if steps > pairs || comp && !complement {
					t.Fatalf("d=%d T=%d mode=%d: steps %d (complement %v), pairs %d", d, T, mode, steps, comp, pairs)
				}
				if strict && comp && 4*steps > 3*pairs {
					t.Fatalf("d=%d T=%d strict: complement bins save less than a quarter (%d of %d)", d, T, steps, pairs)
				}
			}
		}
	}
}

// With one pair per thread the schedule is the pairs (d-t, t).
func TestThreadChainsPairs(t *testing.T) {
	d, T := 10, 6
	for th, want := range [][]int{{10}, {9, 1}, {8, 2}, {7, 3}, {6, 4}, {5}} {
		got := ThreadChains(d, T, th, true, false)
		if len(got) != len(want) {
			t.Fatalf("thread %d: %v, want %v", th, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("thread %d: %v, want %v", th, got, want)
			}
		}
	}
	if s, comp := Schedule(d, T, true, false); s != d || comp {
		t.Errorf("steps %d, complement %v", s, comp)
	}
}
