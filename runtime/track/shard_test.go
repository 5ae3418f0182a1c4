package track

import (
	goreflect "reflect"
	"testing"

	"github.com/mdgen/mdgen/stager/poly"
)

// TestClassifyAgain: the paths of a run with their multiplicities and
// statuses undone (as shards keep them) classify into the same run: paths,
// summary, every field.
func TestClassifyAgain(t *testing.T) {
	for _, f := range []*poly.System{family(t, "noon", 3), parse(t, "2\nx^3 - 4*x^2 + 5*x - 2;\ny^2 - 1;\n")} {
		classifyAgain(t, f)
	}
}

func classifyAgain(t *testing.T, f *poly.System) {
	h, err := NewTotalDegree(f, complex(0.6, 0.8), true, 1)
	if err != nil {
		t.Fatal(err)
	}
	run, err := Track(h, Options{Prec: 2, Workers: 2}, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	again := &Run{Paths: make([]Path, len(run.Paths))}
	for k, p := range run.Paths {
		p.Status, p.Multiplicity = p.Tracked, 7
		again.Paths[k] = p
	}
	Classify(again)
	if !goreflect.DeepEqual(again.Paths, run.Paths) || again.Summary != run.Summary {
		t.Errorf("classified again: %+v, %+v; Track: %+v", again.Summary, again.Paths, run.Summary)
	}
	if run.Summary.Infinite+run.Summary.Singular == 0 {
		t.Errorf("no path at infinity, none singular: %+v", run.Summary)
	}
	if h.Hash() == "" || SystemHash(f) == "" {
		t.Fatal("no hash")
	}
	g, _ := NewTotalDegree(f, complex(0.8, 0.6), true, 1)
	if g.Hash() == h.Hash() {
		t.Errorf("another gamma, the same hash %s", h.Hash())
	}
}
