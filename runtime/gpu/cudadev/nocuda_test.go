//go:build !cuda

package cudadev

import (
	"errors"
	"strings"
	"testing"
)

func TestNoCUDA(t *testing.T) {
	if Enabled {
		t.Fatal("Enabled in a build without the cuda tag")
	}
	d, err := Open(0)
	if d != nil || !errors.Is(err, ErrNoCUDA) {
		t.Fatalf("Open(0) = %v, %v; want nil, ErrNoCUDA", d, err)
	}
	if !strings.Contains(err.Error(), "make gpu") {
		t.Errorf("ErrNoCUDA does not say how to build with CUDA: %q", err)
	}
	if _, err := Count(); !errors.Is(err, ErrNoCUDA) {
		t.Errorf("Count: %v", err)
	}
	// Methods on a (nil) Device also report ErrNoCUDA rather than panic.
	if _, err := d.Alloc(8); !errors.Is(err, ErrNoCUDA) {
		t.Errorf("Alloc: %v", err)
	}
	if err := d.Launch(nil, Dim3{1}, Dim3{1}, 0); !errors.Is(err, ErrNoCUDA) {
		t.Errorf("Launch: %v", err)
	}
	if _, err := d.LoadModule([]byte{1}); !errors.Is(err, ErrNoCUDA) {
		t.Errorf("LoadModule: %v", err)
	}
	if _, err := d.NewTimer(); !errors.Is(err, ErrNoCUDA) {
		t.Errorf("NewTimer: %v", err)
	}
	if _, err := d.NewStream(); !errors.Is(err, ErrNoCUDA) {
		t.Errorf("NewStream: %v", err)
	}
	var s *Stream
	if err := s.Launch(nil, Dim3{1}, Dim3{1}, 0); !errors.Is(err, ErrNoCUDA) {
		t.Errorf("Stream.Launch: %v", err)
	}
	if err := s.CopyHtoD(Buffer{}, []float64{1}); !errors.Is(err, ErrNoCUDA) {
		t.Errorf("Stream.CopyHtoD: %v", err)
	}
	if err := s.Synchronize(); !errors.Is(err, ErrNoCUDA) {
		t.Errorf("Stream.Synchronize: %v", err)
	}
	if err := d.Close(); !errors.Is(err, ErrNoCUDA) {
		t.Errorf("Close: %v", err)
	}
}
