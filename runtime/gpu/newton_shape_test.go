package gpu

import (
	"testing"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
)

// TestNewtonVariant: the back end's LAVariant takes NewtonShape's shape
// (the pointer itself, so that a change between solves shows), the model
// without a hook or for a nil answer, and refuses an impossible shape.
func TestNewtonVariant(t *testing.T) {
	defer func() { NewtonShape = nil }()
	info := cudadev.Info{Name: "NVIDIA H200", Major: 9}
	c := backend.NewtonConfig{Prec: mdops.Prec{N: 4, Complex: true}, Vars: 300}
	if v := newtonVariant(info, c); v.Shape != nil || v.N != 4 || !v.Complex {
		t.Fatalf("no hook: %+v", v)
	}
	s := gpuabi.LAModelShape()
	s.MulSub = 2
	var asked []int
	NewtonShape = func(i cudadev.Info, p mdops.Prec, vars int) *gpuabi.LAShape {
		asked = append(asked, p.N, vars)
		if i.Name != info.Name || !p.Complex {
			return nil
		}
		return &s
	}
	v := newtonVariant(info, c)
	if v.Shape != &s || v.Teams(gpuabi.LAMulSub) != 2 || len(asked) != 2 || asked[0] != 4 || asked[1] != 300 {
		t.Fatalf("hook: %+v, asked %v", v, asked)
	}
	s.MulSub = 4
	if v.Teams(gpuabi.LAMulSub) != 4 {
		t.Fatal("a change of the shape does not show")
	}
	if v := newtonVariant(cudadev.Info{Name: "other"}, c); v.Shape != nil {
		t.Fatalf("nil answer: %+v", v)
	}
	s.QR = 9 // above LAMaxTeams(qr)
	if v := newtonVariant(info, c); v.Shape != nil {
		t.Fatalf("impossible shape taken: %+v", v)
	}
}
