package cudadev

import (
	"math"
	"strings"
	"testing"
)

func TestKernelArgs(t *testing.T) {
	b := Buffer{ptr: 0x7f0000001000, bytes: 64}
	words, err := kernelArgs([]any{b, &b, uintptr(0x1234), -3, int64(-5), uint(7), uint64(1 << 63), 1.5})
	if err != nil {
		t.Fatal(err)
	}
	want := []uint64{0x7f0000001000, 0x7f0000001000, 0x1234, uint64(math.MaxUint64 - 2), uint64(math.MaxUint64 - 4), 7, 1 << 63, math.Float64bits(1.5)}
	for i := range want {
		if words[i] != want[i] {
			t.Errorf("word %d = %#x, want %#x", i, words[i], want[i])
		}
	}
	for _, bad := range []any{int32(1), float32(1), uint32(1), true, int8(1), struct{}{}, []float64{1}, nil, (*Buffer)(nil)} {
		_, err := kernelArgs([]any{b, bad})
		if err == nil {
			t.Errorf("argument of type %T accepted", bad)
			continue
		}
		if !strings.Contains(err.Error(), "argument 1") {
			t.Errorf("error for %T does not name the argument: %v", bad, err)
		}
	}
	if _, err := kernelArgs([]any{int32(1)}); err == nil || !strings.Contains(err.Error(), "8 bytes") {
		t.Errorf("error for int32 does not explain the 8-byte rule: %v", err)
	}
}

func TestBufferSlice(t *testing.T) {
	b := Buffer{ptr: 1 << 20, bytes: 800}
	s := b.Slice(80, 160)
	if s.Ptr() != 1<<20+80 || s.Bytes() != 160 {
		t.Errorf("Slice = %v", s)
	}
	f := b.Float64Slice(10, 20)
	if f != s || f.Float64s() != 20 {
		t.Errorf("Float64Slice = %v, want %v", f, s)
	}
	if e := b.Slice(800, 0); e.Bytes() != 0 {
		t.Errorf("empty slice at the end = %v", e)
	}
	for _, r := range [][2]int64{{-1, 1}, {0, 801}, {801, 0}, {400, 401}, {0, -1}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Slice(%d, %d) of 800 bytes did not panic", r[0], r[1])
				}
			}()
			b.Slice(r[0], r[1])
		}()
	}
	if !(Buffer{}).IsNil() || b.IsNil() {
		t.Error("IsNil")
	}
}

func TestDim3(t *testing.T) {
	if n := (Dim3{256}).Count(); n != 256 {
		t.Errorf("Dim3{256}.Count() = %d", n)
	}
	if s := (Dim3{4, 0, 2}).String(); s != "(4,1,2)" {
		t.Errorf("String = %q", s)
	}
	g, b := Grid1D(1000, 128)
	if g != (Dim3{8, 1, 1}) || b != (Dim3{128, 1, 1}) {
		t.Errorf("Grid1D(1000, 128) = %v, %v", g, b)
	}
	if g, _ := Grid1D(0, 128); g != (Dim3{1, 1, 1}) {
		t.Errorf("Grid1D(0, 128) = %v", g)
	}
	if err := checkLaunchShape(Dim3{1 << 31}, Dim3{1}, 0); err == nil {
		t.Error("grid x of 2^31 accepted")
	}
	if err := checkLaunchShape(Dim3{1, 65536}, Dim3{1}, 0); err == nil {
		t.Error("grid y of 65536 accepted")
	}
	if err := checkLaunchShape(Dim3{1}, Dim3{-1}, 0); err == nil {
		t.Error("negative block accepted")
	}
	if err := checkLaunchShape(Dim3{1}, Dim3{1}, -1); err == nil {
		t.Error("negative shared memory accepted")
	}
	if err := checkLaunchShape(Dim3{1<<31 - 1, 65535, 65535}, Dim3{1024}, 0); err != nil {
		t.Errorf("largest grid refused: %v", err)
	}
}

func TestInfoString(t *testing.T) {
	i := Info{Ordinal: 0, Name: "NVIDIA H200", Major: 9, Minor: 0, SMs: 132, TotalMemory: 150 << 30, DriverVersion: 13000}
	want := "GPU 0: NVIDIA H200 (sm_90, 132 SMs, 150.0 GiB, driver CUDA 13.0)"
	if s := i.String(); s != want {
		t.Errorf("String = %q, want %q", s, want)
	}
}

func TestDriverErrorText(t *testing.T) {
	e := &DriverError{Code: 100, Name: "CUDA_ERROR_NO_DEVICE", Text: "no CUDA-capable device is detected", Hint: driverHint(100)}
	s := e.Error()
	for _, want := range []string{"CUDA_ERROR_NO_DEVICE", "(100)", "no CUDA-capable device", "CUDA_VISIBLE_DEVICES"} {
		if !strings.Contains(s, want) {
			t.Errorf("%q lacks %q", s, want)
		}
	}
	if e.Is(ErrClosed) {
		t.Error("DriverError matches ErrClosed")
	}
}
