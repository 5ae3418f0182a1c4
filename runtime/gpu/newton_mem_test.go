package gpu

import (
	"errors"
	"strings"
	"testing"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
)

// TestNewtonFits: the back end's memory check against a fake capacity:
// issue 12's largest sizes (degree 1023, 2048 unknowns, 16 doubles
// complex) are refused with ErrMemory and the sizes; a small case fits;
// the need grows with the degree, the size and the precision.
func TestNewtonFits(t *testing.T) {
	cfg := func(n, d, N int, complex bool) backend.NewtonConfig {
		return backend.NewtonConfig{Prec: mdops.Prec{N: N, Complex: complex}, Degree: d, Vars: n, Eqs: n}
	}
	need := func(c backend.NewtonConfig) int64 {
		sizes, tables := newtonBuffers(c)
		if len(sizes) != nbOwned {
			t.Fatalf("%d buffer sizes, want %d", len(sizes), nbOwned)
		}
		s := 8 * tables
		for _, x := range sizes {
			s += 8 * x
		}
		return s
	}
	const h200 = 140 << 30
	big := cfg(2048, 1023, 16, true)
	err := newtonFits(big, h200, "fake H200")
	if !errors.Is(err, ErrMemory) {
		t.Fatalf("n = 2048, d = 1023, 16d complex on 140 GiB: %v, want ErrMemory", err)
	}
	for _, s := range []string{"2048 equations in 2048 unknowns, degree 1023, 16-double complex", "fake H200", "A_0..A_d"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("the error does not say %q: %v", s, err)
		}
	}
	small := cfg(12, 8, 2, false)
	if err := newtonFits(small, h200, "fake H200"); err != nil {
		t.Errorf("n = 12, d = 8: %v", err)
	}
	// The boundary: exactly the need plus the reserve fits, a byte less does not.
	c := cfg(256, 64, 8, false)
	if err := newtonFits(c, need(c)+memoryReserve, "x"); err != nil {
		t.Errorf("need + reserve: %v", err)
	}
	if err := newtonFits(c, need(c)+memoryReserve-1, "x"); !errors.Is(err, ErrMemory) {
		t.Errorf("need + reserve - 1: %v, want ErrMemory", err)
	}
	// A_0..A_d dominates: (d+1) n^2 W doubles.
	if a := need(cfg(1024, 64, 8, false)); a < 65*1024*1024*8*8 {
		t.Errorf("n = 1024, d = 64, 8d: need %d bytes, less than A_0..A_d", a)
	}
	if need(cfg(256, 64, 8, true)) <= need(cfg(256, 64, 8, false)) || need(cfg(256, 65, 8, false)) <= need(cfg(256, 64, 8, false)) {
		t.Error("the need does not grow with complex data or the degree")
	}
}

// TestNewtonFitsBeforeStaging: NewtonFits (what `mdgen solve -gpu` asks
// before it builds kernels or stages) is newtonFits of the same sizes.
func TestNewtonFitsBeforeStaging(t *testing.T) {
	const h200 = 140 << 30
	err := NewtonFits(2048, 2048, 1023, mdops.Prec{N: 16, Complex: true}, h200, "fake H200")
	if !errors.Is(err, ErrMemory) || !strings.Contains(err.Error(), "degree 1023, 16-double complex") {
		t.Fatalf("n = 2048, d = 1023, 16d complex: %v, want ErrMemory with the sizes", err)
	}
	if err := NewtonFits(7, 7, 1023, mdops.Prec{N: 8}, h200, "fake H200"); err != nil {
		t.Errorf("cyclic7 at degree 1023, 8 doubles: %v", err)
	}
	// Least squares: m > n counts m rows.
	c := backend.NewtonConfig{Prec: mdops.Prec{N: 4, Complex: true}, Degree: 32, Vars: 100, Eqs: 150}
	if a, b := NewtonFits(150, 100, 32, mdops.Prec{N: 4, Complex: true}, 1<<40, "x"), newtonFits(c, 1<<40, "x"); (a == nil) != (b == nil) {
		t.Errorf("NewtonFits %v, newtonFits %v", a, b)
	}
	sizes, _ := newtonBuffers(c)
	if sizes[nbE] != 150*150*8 {
		t.Errorf("E of a 150 x 100 system: %d doubles, want %d", sizes[nbE], 150*150*8)
	}
}
