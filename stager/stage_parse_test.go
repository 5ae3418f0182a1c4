package stager

import (
	"fmt"
	"github.com/mdgen/mdgen/internal/phcdemo"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mdgen/mdgen/stager/families"
	"github.com/mdgen/mdgen/stager/poly"
)

// demoDir holds PHCpack's demo systems in the workspace (read in place,
// never copied into the repository); phcdemo falls back to Debian's
// phcpack package.
const demoDir = "../../shared/systems/phcpack-demo"

// benchmarkSystem is families.BenchmarkSystem or BenchmarkSystemComplex.
func benchmarkSystem(name string, seed int64, complex bool) (*poly.System, error) {
	if complex {
		return families.BenchmarkSystemComplex(name, seed)
	}
	return families.BenchmarkSystem(name, seed)
}

// TestBenchmarkSystemRoundTrip writes p1, p2, p3 in PHCpack's format and
// reads them back (what `mdgen system` prints is what `mdgen plan` stages).
func TestBenchmarkSystemRoundTrip(t *testing.T) {
	for _, name := range families.BenchmarkNames {
		for _, complex := range []bool{false, true} {
			s, err := benchmarkSystem(name, 11, complex)
			if err != nil {
				t.Fatal(err)
			}
			back, err := poly.Parse(name, poly.Format(s), poly.ParseOptions{})
			if err != nil {
				t.Fatalf("%s complex %v: %v", name, complex, err)
			}
			if systemKey(s) != systemKey(back) {
				t.Errorf("%s complex %v: the system read back differs", name, complex)
			}
		}
	}
}

// systemKey writes s (Source aside) as a string, so that big.Rat values of
// equal value compare equal.
func systemKey(s *poly.System) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%q %q\n", s.Vars, s.Param)
	series := func(x poly.Series) {
		for i := range x {
			fmt.Fprintf(&b, "%s,%s ", x[i].Re.RatString(), x[i].Im.RatString())
		}
	}
	for _, p := range s.Polys {
		series(p.Const)
		b.WriteString("\n")
		for _, m := range p.Terms {
			fmt.Fprintf(&b, "%v %v ", m.Vars, m.Pows)
			series(m.Coef)
			b.WriteString("\n")
		}
		b.WriteString(";\n")
	}
	return b.String()
}

// TestStageDemoSystems stages and checks PHCpack's demo systems.
func TestStageDemoSystems(t *testing.T) {
	files := phcdemo.Files(demoDir)
	if files == nil {
		t.Skipf("no demo systems under %s or %s", demoDir, phcdemo.Debian)
	}
	for _, file := range files {
		s, err := poly.ParseFile(file, poly.ParseOptions{})
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		for _, degree := range []int{0, 3} {
			p, err := Stage(s, degree)
			if err != nil {
				t.Fatalf("%s: %v", filepath.Base(file), err)
			}
			if err := Check(p); err != nil {
				t.Errorf("%s degree %d: %v", filepath.Base(file), degree, err)
			}
		}
		p, _ := Stage(s, 0)
		t.Logf("%s: %d polynomials in %d variables, %d/%d jobs in %d/%d layers", filepath.Base(file), p.NumPolys, p.NumVars,
			p.ConvJobs(), p.AddJobs(), len(p.ConvLayers), len(p.AddLayers))
	}
}
