package gen

import (
	"bytes"
	"testing"

	"github.com/mdgen/mdgen/mdops"
)

// The evaluation kernels have one source: the Newton driver's first source
// is EvalCUSource, and the reference kernels come with the same headers.
func TestCUSources(t *testing.T) {
	eval, err := EvalCUSource(4)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := ReferenceCUSource(4)
	if err != nil {
		t.Fatal(err)
	}
	nt, err := NewtonCUSources(mdops.Prec{N: 4, Complex: true})
	if err != nil {
		t.Fatal(err)
	}
	if eval.Name != "md4-eval" || ref.Name != "md4-ref" || len(nt) != 2 || nt[1].Name != "md4-la-c" {
		t.Fatalf("names %s, %s, %d Newton sources", eval.Name, ref.Name, len(nt))
	}
	if nt[0].Name != eval.Name || !bytes.Equal(nt[0].Source, eval.Source) || len(nt[0].Headers) != len(eval.Headers) {
		t.Error("the Newton driver's evaluation source is not EvalCUSource")
	}
	for name, h := range eval.Headers {
		if !bytes.Equal(ref.Headers[name], h) || !bytes.Equal(nt[0].Headers[name], h) {
			t.Errorf("header %s differs", name)
		}
	}
	if bytes.Equal(ref.Source, eval.Source) {
		t.Error("the reference source is the generated one")
	}
	for _, n := range []int{0, 17} {
		if _, err := EvalCUSource(n); err == nil {
			t.Errorf("EvalCUSource(%d): no error", n)
		}
	}
}
