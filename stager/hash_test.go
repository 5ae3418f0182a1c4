package stager

import (
	"testing"

	"github.com/mdgen/mdgen/stager/families"
	"github.com/mdgen/mdgen/stager/poly"
)

// The hash is stable: these are the values emitted packages carry
// (generated/p1, p2, p3 and examples/evaldemo; computed by the hand-written
// serializer of gen/emitrt before it moved here). A change here breaks
// every emitted package (ErrStalePlan) until it is regenerated.
func TestPlanHashStable(t *testing.T) {
	for _, c := range []struct {
		name   string
		degree int
		want   uint64
	}{
		{"p1", 31, 0xd380bb9c230bdd2b},
		{"p2", 31, 0x20a31787f3e3974b},
		{"p3", 31, 0xbb41298c2892d31a},
	} {
		sys, err := families.BenchmarkSystem(c.name, 1)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Stage(sys, c.degree)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Hash(); got != c.want {
			t.Errorf("%s at degree %d: hash %#016x, want %#016x", c.name, c.degree, got, c.want)
		}
	}
	// examples/evaldemo: cyclic 4-roots with a parameter, 4 doubles, d = 16.
	sys, err := poly.ParseFile("../examples/systems/cyclic4t.txt", poly.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := Stage(sys, 16)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.Hash(), uint64(0x8c6ab022c4a94bdc); got != want {
		t.Errorf("cyclic4t at degree 16: hash %#016x, want %#016x", got, want)
	}
}

// The hash sees the degree, the job tables and the coefficients.
func TestPlanHashSensitive(t *testing.T) {
	sys, err := poly.Parse("tiny", []byte("2 3\n x*y - (1 + t)*x + 1/3;\n y^2 - t*x*y + 2;\n"), poly.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := Stage(sys, 4)
	h := p.Hash()
	if q, _ := Stage(sys, 4); q.Hash() != h {
		t.Fatal("the hash of the same plan differs")
	}
	if q, _ := Stage(sys, 5); q.Hash() == h {
		t.Error("degree not hashed")
	}
	p.ConvLayers[0][0].A, p.ConvLayers[0][0].B = p.ConvLayers[0][0].B, p.ConvLayers[0][0].A
	if p.Hash() == h {
		t.Error("job tables not hashed")
	}
	p, _ = Stage(sys, 4)
	for slot, v := range p.Values {
		w := make(poly.Series, len(v)) // the Values share the System's coefficients: replace, never write
		w[0].Re.SetFrac64(1, 5)
		for i := 1; i < len(v); i++ {
			w[i].Re.Set(&v[i].Re)
			w[i].Im.Set(&v[i].Im)
		}
		p.Values[slot] = w
		break
	}
	if p.Hash() == h {
		t.Error("coefficients not hashed")
	}
}
