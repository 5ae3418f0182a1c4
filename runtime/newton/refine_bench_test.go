package newton_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/newton"
	"github.com/mdgen/mdgen/stager/families"
	"github.com/mdgen/mdgen/stager/poly"
	"github.com/mdgen/mdgen/stager/solutions"
)

// BenchmarkRefineCyclic7 refines the 924 roots of cyclic 7-roots that
// PHCpack's blackbox solver (phc -b, run once here: about 10 s) writes, at
// 2 and 8 doubles with 1 and 2 workers (newton.SolveEach, one root per
// worker; mdgen solve FILE -degree 0 -workers k), and reports the seconds
// of the whole list. Skipped without phc on the PATH:
//
//	go test ./runtime/newton -run '^$' -bench RefineCyclic7 -benchtime 1x
func BenchmarkRefineCyclic7(b *testing.B) {
	sys, starts := cyclic7Roots(b)
	for _, prec := range []int{2, 8} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("%dd/w=%d", prec, workers), func(b *testing.B) {
				opt := newton.Options{Prec: mdops.Prec{N: prec, Complex: true}, Degree: 0, Workers: workers}
				for b.Loop() {
					batch, err := newton.SolveEach(sys, opt, starts, nil)
					if err != nil {
						b.Fatal(err)
					}
					for k, res := range batch.Results {
						if !res.Converged {
							b.Fatalf("root %d: %v", k+1, res.Err)
						}
					}
				}
				b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/list")
			})
		}
	}
}

// cyclic7Roots returns cyclic 7-roots and its 924 roots from phc -b.
func cyclic7Roots(b *testing.B) (*poly.System, [][]poly.Rational) {
	phc, err := exec.LookPath("phc")
	if err != nil {
		b.Skipf("SKIPPED: no phc on the PATH (apt-get install phcpack): %v", err)
	}
	inst, err := families.System("cyclic7", families.Options{})
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	in := filepath.Join(dir, "cyclic7")
	if err := os.WriteFile(in, poly.Format(inst.System), 0o644); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(phc, "-b", in, filepath.Join(dir, "cyclic7.out"))
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("phc -b: %v\n%s", err, out)
	}
	// phc -b appends the solution list to its input file.
	sys, sols, err := solutions.ParseWithSystemFile(in, poly.ParseOptions{})
	if err != nil {
		b.Fatal(err)
	}
	if len(sols) != 924 {
		b.Fatalf("phc -b gave %d roots of cyclic 7-roots, want 924", len(sols))
	}
	starts := make([][]poly.Rational, len(sols))
	for k := range sols {
		starts[k] = sols[k].Values
	}
	return sys, starts
}
