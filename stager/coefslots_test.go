package stager_test

import (
	"testing"

	"github.com/mdgen/mdgen/stager"
	"github.com/mdgen/mdgen/stager/families"
	"github.com/mdgen/mdgen/stager/poly"
)

// TestCoefSlots: the slot CoefSlots names for each constant and term holds
// that coefficient in Plan.Values (truncated to the degree), and every
// constant and coefficient slot is named once.
func TestCoefSlots(t *testing.T) {
	for _, spec := range []string{"cyclic5:newton", "katsura4:newton,complex", "noon4:newton", "chandra4:c=t"} {
		inst, err := families.System(spec, families.Options{Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range []int{0, 1, 3} {
			plan, err := stager.Stage(inst.System, d)
			if err != nil {
				t.Fatal(err)
			}
			cs := plan.CoefSlots()
			seen := map[stager.Slot]bool{}
			check := func(s stager.Slot, c poly.Series, what string) {
				if s == stager.NoSlot {
					return
				}
				seen[s] = true
				v := plan.Values[s]
				if len(c) > d+1 {
					c = c[:d+1]
				}
				for k := range v {
					if v[k].Re.Cmp(&c[k].Re) != 0 || v[k].Im.Cmp(&c[k].Im) != 0 {
						t.Fatalf("%s d=%d: %s: slot %d holds another coefficient", spec, d, what, s)
					}
				}
			}
			for i, p := range inst.System.Polys {
				check(cs.Const[i], p.Const, "constant")
				for j := range p.Terms {
					check(cs.Terms[i][j], p.Terms[j].Coef, "term")
				}
			}
			for s, k := range plan.Kinds {
				if k == stager.SlotConst && !seen[stager.Slot(s)] {
					t.Errorf("%s d=%d: constant slot %d not named", spec, d, s)
				}
			}
			if err := stager.SameMonomials(inst.System, inst.System); err != nil {
				t.Error(err)
			}
		}
	}
	a, _ := families.System("cyclic5", families.Options{})
	b, _ := families.System("katsura4", families.Options{})
	if stager.SameMonomials(a.System, b.System) == nil {
		t.Error("cyclic5 and katsura4 have the same monomials")
	}
}
