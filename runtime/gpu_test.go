package runtime

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mdgen/mdgen/stager"
)

func gpuTestPlan(t *testing.T, name string, degree int, complex bool) *stager.Plan {
	t.Helper()
	var sys *stager.System
	var err error
	if complex {
		sys, err = stager.BenchmarkSystemComplex(name, 7)
	} else {
		sys, err = stager.BenchmarkSystem(name, 7)
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

// RoundSeries stores what NewCPU stores in every read-only slot.
func TestRoundSeriesMatchesCPU(t *testing.T) {
	for _, complex := range []bool{false, true} {
		for _, n := range []int{1, 3, 10} {
			plan := gpuTestPlan(t, "p1", 2, complex)
			cpu, err := NewCPU(plan, n, complex, 1)
			if err != nil {
				t.Fatal(err)
			}
			l := Layout{N: n, Degree: plan.Degree, Complex: complex}
			got := make([]float64, l.SlotLen())
			for s, v := range plan.Values {
				if err := RoundSeries(got, v, l); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, cpu.slot(s)) {
					t.Fatalf("n=%d complex=%v slot %d: RoundSeries %v, CPU %v", n, complex, s, got, cpu.slot(s))
				}
			}
		}
	}
	// Real data refuses complex coefficients.
	plan := gpuTestPlan(t, "p1", 1, true)
	l := Layout{N: 2, Degree: 1}
	for _, v := range plan.Values {
		if err := RoundSeries(make([]float64, l.SlotLen()), v, l); err == nil || !strings.Contains(err.Error(), "complex") {
			t.Fatalf("complex coefficient into real data: err = %v", err)
		}
		break
	}
}

// A range buffer of all slots is the device array of gpulayout.go, and
// fromRange inverts toRange.
func TestGPUGeometry(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, complex := range []bool{false, true} {
		for _, n := range []int{1, 2, 5} {
			plan := &stager.Plan{Degree: 4, Kinds: make([]stager.SlotKind, 7)}
			g := newGPUGeometry(plan, n, complex)
			l := Layout{N: n, Degree: plan.Degree, Complex: complex}
			slots := make([][]float64, plan.NumSlots())
			all := make([]float64, g.rangeLen(plan.NumSlots()))
			for s := range slots {
				slots[s] = make([]float64, l.SlotLen())
				for i := range slots[s] {
					slots[s][i] = r.Float64()
				}
				g.toRange(all, plan.NumSlots(), s, slots[s])
			}
			if int64(len(all)) != GPUMemory(plan, n, complex).DataBytes/8 {
				t.Fatalf("range of all slots has %d doubles, GPUMemory says %d", len(all), GPUMemory(plan, n, complex).DataBytes/8)
			}
			w := l.W()
			for s := range slots {
				for k := 0; k <= plan.Degree; k++ {
					for q := 0; q < gpuParts(complex); q++ {
						for li := 0; li < n; li++ {
							// data[(q*N + l)*slotStride + s*(degree+1) + k]
							at := (q*n+li)*plan.NumSlots()*(plan.Degree+1) + s*(plan.Degree+1) + k
							if int64(at) != g.index(q, li, s, k) {
								t.Fatalf("index(%d,%d,%d,%d) = %d, want %d", q, li, s, k, g.index(q, li, s, k), at)
							}
							if all[at] != slots[s][k*w+q*n+li] {
								t.Fatalf("n=%d complex=%v: slot %d coefficient %d part %d limb %d misplaced", n, complex, s, k, q, li)
							}
						}
					}
				}
				back := make([]float64, l.SlotLen())
				g.fromRange(back, all, plan.NumSlots(), s)
				if !slices.Equal(back, slots[s]) {
					t.Fatalf("fromRange(toRange(x)) != x for slot %d", s)
				}
			}
			// A sub-range holds the same chunks, shorter.
			sub := make([]float64, g.rangeLen(3))
			for s := 2; s < 5; s++ {
				g.toRange(sub, 3, s-2, slots[s])
			}
			per := 3 * (plan.Degree + 1)
			for c := 0; c < g.chunks(); c++ {
				lo := int(g.index(c/n, c%n, 2, 0))
				if !slices.Equal(sub[c*per:(c+1)*per], all[lo:lo+per]) {
					t.Fatalf("chunk %d of a sub-range differs from the device array", c)
				}
			}
		}
	}
}

func TestOutputRunsAndTables(t *testing.T) {
	for _, name := range []string{"p1", "p3"} {
		for _, d := range []int{0, 8, 200} {
			plan := gpuTestPlan(t, name, d, false)
			slots, runs := outputRuns(plan)
			if !slices.IsSorted(slots) {
				t.Fatal("output slots not sorted")
			}
			want := 0
			for _, s := range plan.Value {
				if s != stager.NoSlot {
					want++
				}
			}
			for _, row := range plan.Deriv {
				for _, s := range row {
					if s != stager.NoSlot {
						want++
					}
				}
			}
			if len(slots) > want || len(slots) == 0 {
				t.Fatalf("%s d=%d: %d output slots for %d outputs", name, d, len(slots), want)
			}
			i := 0
			for k, r := range runs {
				if r.lo >= r.hi || k > 0 && runs[k-1].hi >= r.lo {
					t.Fatalf("runs %v not disjoint and increasing", runs)
				}
				for i < len(slots) && int(slots[i]) < r.hi {
					if int(slots[i]) < r.lo {
						t.Fatalf("slot %d outside every run", slots[i])
					}
					i++
				}
			}
			if i != len(slots) {
				t.Fatalf("slot %d outside every run", slots[i])
			}
			t.Logf("%s d=%d: %d output slots in %d runs", name, d, len(slots), len(runs))

			conv, add, cl, al := GPUJobTables(plan)
			if len(conv) != 3*plan.ConvJobs() || len(add) != 2*plan.AddJobs() || len(cl) != len(plan.ConvLayers) || len(al) != len(plan.AddLayers) {
				t.Fatalf("job tables: %d conv words, %d add words, %d/%d layers", len(conv), len(add), len(cl), len(al))
			}
			for li, l := range cl {
				for j, job := range plan.ConvLayers[li] {
					at := 3 * (l[0] + j)
					if conv[at] != int32(job.Out) || conv[at+1] != int32(job.A) || conv[at+2] != int32(job.B) {
						t.Fatalf("conv layer %d job %d misplaced", li, j)
					}
				}
			}
			for li, l := range al {
				for j, job := range plan.AddLayers[li] {
					at := 2 * (l[0] + j)
					if add[at] != int32(job.Dst) || add[at+1] != int32(job.Src) {
						t.Fatalf("add layer %d job %d misplaced", li, j)
					}
				}
			}
		}
	}
}

func TestGPUMemory(t *testing.T) {
	plan := gpuTestPlan(t, "p1", 152, true)
	s := GPUMemory(plan, 10, true)
	if s.DataBytes != int64(plan.NumSlots())*153*10*2*8 {
		t.Fatalf("data bytes %d", s.DataBytes)
	}
	if s.TableBytes != int64(3*16380+2*9084)*4 {
		t.Fatalf("table bytes %d (conv %d, add %d jobs)", s.TableBytes, plan.ConvJobs(), plan.AddJobs())
	}
	msg := describeSizes(plan, 10, true, s)
	for _, want := range []string{"degree 152", "10-double complex", "153 coefficients", "20 doubles", "16380 convolution"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q lacks %q", msg, want)
		}
	}
}

// A fake nvcc: the compiler caches by content and passes the flags.
func TestFatbinCompilerCache(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "nvcc")
	script := `#!/bin/sh
if [ "$1" = "--version" ]; then echo "fake nvcc 1.0"; exit 0; fi
out=""; prev=""
for a in "$@"; do
  if [ "$prev" = "-o" ]; then out="$a"; fi
  prev="$a"
done
src="$a"
grep -q FAIL "$src" && { echo "error: asked to fail" >&2; exit 1; }
echo "ptxas info: Used 42 registers"
{ echo FATBIN; echo "$@"; cat "$src"; } > "$out"
`
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	c := &FatbinCompiler{NVCC: fake, Dir: filepath.Join(dir, "cache"), Archs: []string{"sm_90"}, Log: &log}
	srcs := []FatbinSource{
		{Name: "md2", Source: []byte(`#include "md2.cuh"` + "\n"), Headers: map[string][]byte{"md2.cuh": []byte("// two\n")}},
		{Name: "md3", Source: []byte("// three\n")},
	}
	res, err := c.Build(srcs)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if r.Cached || !strings.HasPrefix(string(r.Fatbin), "FATBIN") || !strings.Contains(r.Report, "42 registers") {
			t.Fatalf("first build of %s: %+v", srcs[i].Name, r)
		}
		for _, flag := range []string{"-fatbin", "arch=compute_90,code=sm_90", "arch=compute_90,code=compute_90", "-fmad=false"} {
			if !strings.Contains(string(r.Fatbin), flag) {
				t.Errorf("nvcc was not given %s: %s", flag, r.Fatbin)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(strings.TrimSuffix(res[0].Path, ".fatbin")+".src", "md2.cuh")); err != nil {
		t.Fatalf("header not written next to the source: %v", err)
	}
	res2, err := c.Build(srcs)
	if err != nil {
		t.Fatal(err)
	}
	for i := range res2 {
		if !res2[i].Cached || res2[i].Path != res[i].Path || !strings.Contains(res2[i].Report, "42 registers") {
			t.Fatalf("second build of %s not from the cache: %+v", srcs[i].Name, res2[i])
		}
	}
	// Any change of a header or of the flags is a new key.
	srcs[0].Headers["md2.cuh"] = []byte("// two, changed\n")
	c.Flags = []string{"-O1"}
	res3, err := c.Build(srcs[:1])
	if err != nil {
		t.Fatal(err)
	}
	if res3[0].Cached || res3[0].Path == res[0].Path {
		t.Fatalf("changed header and flags hit the cache: %+v", res3[0])
	}
	// A failure names the source and keeps the log.
	_, err = c.Build([]FatbinSource{{Name: "bad", Source: []byte("FAIL\n")}})
	if err == nil || !strings.Contains(err.Error(), "bad.cu") || !strings.Contains(err.Error(), "asked to fail") {
		t.Fatalf("failed build: err = %v", err)
	}
	if !strings.Contains(log.String(), "md2 cached") || !strings.Contains(log.String(), "bad FAILED") {
		t.Errorf("progress log:\n%s", log.String())
	}
}

func TestGPUReferenceKernelsCU(t *testing.T) {
	src := string(GPUReferenceKernelsCU(8))
	for _, want := range []string{`#include "md8.cuh"`, GPUKernelName("conv", 8, false), GPUKernelName("conv", 8, true),
		GPUKernelName("add", 8, false), GPUKernelName("add", 8, true), GPULayoutSymbol, "md8_madd", "md8_sub", "cmd8_add"} {
		if !strings.Contains(src, want) {
			t.Errorf("reference kernels lack %q", want)
		}
	}
	if b, s := GPUReferenceShape("conv", 8, false, 0); b != 32 || s != 0 {
		t.Errorf("shape at d=0: %d, %d", b, s)
	}
	if b, _ := GPUReferenceShape("conv", 8, false, 500); b != 128 {
		t.Errorf("shape at d=500: %d", b)
	}
}
