package track

import "testing"

func BenchmarkZZK20(b *testing.B) {
	f := family(b, "katsura", 20)
	h, err := NewTotalDegree(f, gammaTest, true, 1)
	if err != nil {
		b.Fatal(err)
	}
	var run *Run
	for b.Loop() {
		if run, err = Track(h, Options{Prec: 2, Workers: 1}, 0, 24); err != nil {
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
}
