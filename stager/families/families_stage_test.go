package families

import (
	"testing"

	"github.com/mdgen/mdgen/stager"
)

// TestStageFamilies stages and checks the project's own systems, the
// ground that PHCpack's demo files cover (TestStageDemoSystems runs only
// where they are): every family at small sizes, plain and as homotopies,
// real and complex, at degrees 0 and 3.
func TestStageFamilies(t *testing.T) {
	for _, spec := range []string{"cyclic5", "cyclic7:newton", "katsura5", "katsura4:newton,complex",
		"chandra4", "chandra6:c=t", "noon3", "noon4:newton", "eco6", "eco5:newton,complex",
		"monomial8:degree=4", "monomial6:degree=3,columns=2,complex"} {
		inst, err := System(spec, Options{Seed: 1})
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		for _, degree := range []int{0, 3} {
			p, err := stager.Stage(inst.System, degree)
			if err != nil {
				t.Fatalf("%s degree %d: %v", spec, degree, err)
			}
			if err := stager.Check(p); err != nil {
				t.Errorf("%s degree %d: %v", spec, degree, err)
			}
		}
	}
}
