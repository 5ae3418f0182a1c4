package gpuabi

import (
	"strings"
	"testing"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/stager"
	"github.com/mdgen/mdgen/stager/families"
	"github.com/mdgen/mdgen/stager/poly"
)

func testPlan(t *testing.T, name string, degree int, complex bool) *stager.Plan {
	t.Helper()
	var sys *poly.System
	var err error
	if complex {
		sys, err = families.BenchmarkSystemComplex(name, 7)
	} else {
		sys, err = families.BenchmarkSystem(name, 7)
	}
	if err != nil {
		t.Fatal(err)
	}
	plan, err := stager.Stage(sys, degree)
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

func TestJobTables(t *testing.T) {
	for _, name := range []string{"p1", "p3"} {
		plan := testPlan(t, name, 3, false)
		conv, add, cl, al := JobTables(plan)
		if len(conv) != 3*plan.ConvJobs() || len(add) != 2*plan.AddJobs() || len(cl) != len(plan.ConvLayers) || len(al) != len(plan.AddLayers) {
			t.Fatalf("job tables: %d conv words, %d add words, %d/%d layers", len(conv), len(add), len(cl), len(al))
		}
		for li, l := range cl {
			for j, job := range plan.ConvLayers[li] {
				at := 3 * (l[0] + j)
				if l[1] != len(plan.ConvLayers[li]) || conv[at] != int32(job.Out) || conv[at+1] != int32(job.A) || conv[at+2] != int32(job.B) {
					t.Fatalf("conv layer %d job %d misplaced", li, j)
				}
			}
		}
		for li, l := range al {
			for j, job := range plan.AddLayers[li] {
				at := 2 * (l[0] + j)
				if l[1] != len(plan.AddLayers[li]) || add[at] != int32(job.Dst) || add[at+1] != int32(job.Src) {
					t.Fatalf("add layer %d job %d misplaced", li, j)
				}
			}
		}
	}
}

func TestMemory(t *testing.T) {
	plan := testPlan(t, "p1", 152, true)
	s := Memory(plan, mdops.Prec{N: 10, Complex: true})
	if s.DataBytes != int64(plan.NumSlots())*153*10*2*8 || s.SlotStride != int64(plan.NumSlots())*153 {
		t.Fatalf("data bytes %d", s.DataBytes)
	}
	if s.TableBytes != int64(3*16380+2*9084)*4 || s.Total() != s.DataBytes+s.TableBytes {
		t.Fatalf("table bytes %d (conv %d, add %d jobs)", s.TableBytes, plan.ConvJobs(), plan.AddJobs())
	}
	msg := s.Describe(plan, mdops.Prec{N: 10, Complex: true})
	for _, want := range []string{"degree 152", "10-double complex", "153 coefficients", "20 doubles", "16380 convolution"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q lacks %q", msg, want)
		}
	}
}

func TestKernelName(t *testing.T) {
	if got := KernelName(Conv, mdops.Prec{N: 8, Complex: true}); got != "mdgen_conv_c8" {
		t.Error(got)
	}
	if got := KernelName(Add, mdops.Prec{N: 10}); got != "mdgen_add_r10" {
		t.Error(got)
	}
}

func TestReferenceKernelsCU(t *testing.T) {
	src := string(ReferenceKernelsCU(8))
	for _, want := range []string{`#include "md8.cuh"`, KernelName(Conv, mdops.Prec{N: 8}), KernelName(Conv, mdops.Prec{N: 8, Complex: true}),
		KernelName(Add, mdops.Prec{N: 8}), KernelName(Add, mdops.Prec{N: 8, Complex: true}), LayoutSymbol, "md8_madd", "md8_sub", "cmd8_add"} {
		if !strings.Contains(src, want) {
			t.Errorf("reference kernels lack %q", want)
		}
	}
	if strings.Contains(src, "{{") || strings.Contains(src, "%!") {
		t.Error("template residue in the reference kernels")
	}
	if b, s := ReferenceShape(Conv, 8, false, 0); b != 32 || s != 0 {
		t.Errorf("shape at d=0: %d, %d", b, s)
	}
	if b, _ := ReferenceShape(Conv, 8, false, 500); b != 128 {
		t.Errorf("shape at d=500: %d", b)
	}
}
