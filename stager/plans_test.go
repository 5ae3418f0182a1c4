package stager

import (
	"math"
	"sync"
	"testing"

	"github.com/mdgen/mdgen/stager/families"
)

// TestPlansShared: concurrent callers of one degree get one Plan, equal to
// a fresh Stage's; other degrees get their own.
func TestPlansShared(t *testing.T) {
	inst, err := families.System("katsura4:newton,complex", families.Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	ps := NewPlans(inst.System)
	var wg sync.WaitGroup
	got := make([]*Plan, 16)
	for i := range got {
		wg.Go(func() {
			p, err := ps.Stage(i % 2 * 3)
			if err != nil {
				t.Error(err)
			}
			got[i] = p
		})
	}
	wg.Wait()
	for i := range got {
		if got[i] != got[i%2] {
			t.Fatalf("caller %d got another Plan of degree %d", i, i%2*3)
		}
	}
	if got[0] == got[1] || got[0].Degree != 0 || got[1].Degree != 3 {
		t.Fatalf("degrees 0 and 3: plans of degrees %d and %d", got[0].Degree, got[1].Degree)
	}
	fresh, err := Stage(inst.System, 3)
	if err != nil {
		t.Fatal(err)
	}
	if h, f := got[1].Hash(), fresh.Hash(); h != f {
		t.Fatalf("the cached plan's hash %x, a fresh Stage's %x", h, f)
	}
}

// TestPlansCheckMemory: the Plans' check passes where the package's does,
// and refuses what it refuses (a degree near math.MaxInt), every time.
func TestPlansCheckMemory(t *testing.T) {
	inst, err := families.System("cyclic5:newton", families.Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	ps := NewPlans(inst.System)
	for range 2 {
		if err := ps.CheckMemoryTogether([]int{0, 1, 3}, 2, true); err != nil {
			t.Fatal(err)
		}
		huge := []int{0, math.MaxInt / 2}
		want := CheckMemoryTogether(inst.System, huge, 2, true)
		if err := ps.CheckMemoryTogether(huge, 2, true); err == nil || want == nil || err.Error() != want.Error() {
			t.Fatalf("degree MaxInt/2: %v, the package's %v", err, want)
		}
	}
}
