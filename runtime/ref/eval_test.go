package ref

import (
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/stager/poly"
)

// TestEvaluateNonFinite: the reference refuses infinite inputs with an
// error instead of panicking in math/big (issue 10).
func TestEvaluateNonFinite(t *testing.T) {
	sys, err := poly.Parse("s", []byte("2\nx^2 + y - 1;\nx*y - 3;\n"), poly.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	l := Layout{Prec: mdops.Prec{N: 2}, Degree: 4}
	in := make([][]float64, 2)
	for v := range in {
		in[v] = make([]float64, l.SlotLen())
		in[v][0] = 0.5
	}
	in[0][0] = math.Inf(1)
	clear(in[0][1:2])
	if _, err := SeriesFromLimbs(in, l); err == nil || !strings.Contains(err.Error(), "not finite") {
		t.Errorf("SeriesFromLimbs with +Inf: %v", err)
	}
	in[0][0] = math.NaN()
	if _, err := SeriesFromLimbs(in, l); err == nil || !strings.Contains(err.Error(), "not finite") {
		t.Errorf("SeriesFromLimbs with NaN: %v", err)
	}
	in[0][0] = 1
	bin, err := SeriesFromLimbs(in, l)
	if err != nil {
		t.Fatal(err)
	}
	bin[0].Re[0] = new(big.Float).SetInf(false)
	if _, err := Evaluate(sys, bin, 4, false, 200); err == nil || !strings.Contains(err.Error(), "not finite") {
		t.Errorf("Evaluate with +Inf: %v", err)
	}
	if _, err := Evaluate(sys, bin[:1], 4, false, 200); err == nil {
		t.Error("Evaluate with one input for two variables: no error")
	}
}

// TestOutputName: outputs are named with the system's variables and
// polynomials numbered from 1.
func TestOutputName(t *testing.T) {
	for _, c := range []struct {
		vars []string
		p, v int
		want string
	}{
		{[]string{"x", "y"}, 0, -1, "f1"},
		{[]string{"x", "y"}, 1, 1, "d f2/d y"},
		{nil, 0, 2, "d f1/d z3"},
	} {
		if got := OutputName(c.vars, c.p, c.v); got != c.want {
			t.Errorf("OutputName(%v, %d, %d) = %q, want %q", c.vars, c.p, c.v, got, c.want)
		}
	}
}
