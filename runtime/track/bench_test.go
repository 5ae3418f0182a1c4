package track

import (
	"fmt"
	"testing"
)

// BenchmarkTrack tracks every total-degree path of a family in one
// worker; it reports paths per second, steps and Newton steps per path.
//
//	go test ./runtime/track -run '^$' -bench Track -benchtime 3x
func BenchmarkTrack(b *testing.B) {
	for _, c := range []struct {
		name string
		n    int
	}{{"katsura", 6}, {"noon", 4}, {"cyclic", 5}} {
		for _, prec := range []int{1, 2, 4, 0} {
			b.Run(fmt.Sprintf("%s%d/prec%d", c.name, c.n, prec), func(b *testing.B) {
				f := family(b, c.name, c.n)
				h, err := NewTotalDegree(f, gammaTest, true, 1)
				if err != nil {
					b.Fatal(err)
				}
				var run *Run
				for b.Loop() {
					if run, err = Track(h, Options{Prec: prec, Workers: 1}, 0, 0); err != nil {
						b.Fatal(err)
					}
				}
				steps, newton := 0, 0
				for _, p := range run.Paths {
					steps += p.Steps
					newton += p.Newton
				}
				np := float64(len(run.Paths))
				b.ReportMetric(np*float64(b.N)/b.Elapsed().Seconds(), "paths/s")
				b.ReportMetric(float64(steps)/np, "steps/path")
				b.ReportMetric(float64(newton)/np, "newton/path")
			})
		}
	}
}
