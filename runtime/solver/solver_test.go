package solver

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/cpu"
	"github.com/mdgen/mdgen/runtime/gpu"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
	"github.com/mdgen/mdgen/stager"
)

const testSystem = `2 3
 x*y - (1 + t)*x + 1/3;
 y^2 - t*x*y + 2;
`

func testSpec(t *testing.T) *Spec {
	t.Helper()
	s := &Spec{Name: "tiny", Prec: mdops.Prec{N: 2}, Degree: 4, Text: testSystem, FatbinName: "tiny.fatbin"}
	sys, err := s.System()
	if err != nil {
		t.Fatal(err)
	}
	plan, err := stager.Stage(sys, s.Degree)
	if err != nil {
		t.Fatal(err)
	}
	s.PlanHash = plan.Hash()
	return s
}

func TestStalePlan(t *testing.T) {
	s := testSpec(t)
	s.PlanHash++
	if _, err := New(s); !errors.Is(err, ErrStalePlan) {
		t.Fatalf("error %v, want ErrStalePlan", err)
	}
}

func run(t *testing.T, s *Solver) string {
	t.Helper()
	if err := s.SetInputs(backend.RandomInputs(s.NumVars(), s.Layout(), 3)); err != nil {
		t.Fatal(err)
	}
	if err := s.Run(); err != nil {
		t.Fatal(err)
	}
	return s.Checksum()
}

func TestFallbackWithoutCUDA(t *testing.T) {
	if gpu.Enabled {
		t.Skip("a cuda build")
	}
	s, err := New(testSpec(t))
	if err != nil {
		t.Fatal(err)
	}
	if s.Backend() != CPU || !errors.Is(s.FallbackReason(), cudadev.ErrNoCUDA) {
		t.Fatalf("backend %s, reason %v", s.Backend(), s.FallbackReason())
	}
	if _, err := New(testSpec(t), RequireGPU()); err == nil || !strings.Contains(err.Error(), "required") {
		t.Fatalf("RequireGPU: %v", err)
	}
	c, err := New(testSpec(t), WithCPU())
	if err != nil || c.FallbackReason() != nil {
		t.Fatalf("WithCPU: %v, %v", err, c.FallbackReason())
	}
	if run(t, s) != run(t, c) {
		t.Error("two CPU solvers differ")
	}
}

// TestGPUChoice replaces the GPU back end with a CPU executor to check what
// New hands it and how it falls back.
func TestGPUChoice(t *testing.T) {
	var got struct {
		fatbin string
		cfg    GPUConfig
	}
	fake := func(fail error) func(*stager.Plan, []byte, GPUConfig) (backend.Executor, error) {
		return func(plan *stager.Plan, fatbin []byte, cfg GPUConfig) (backend.Executor, error) {
			got.fatbin, got.cfg = string(fatbin), cfg
			if fail != nil {
				return nil, fail
			}
			return cpu.New(plan, cfg.Prec, 1)
		}
	}
	embedded := fstest.MapFS{"fatbin/tiny.fatbin": {Data: []byte("embedded")}, "fatbin/README.txt": {Data: []byte("x")}}

	s := testSpec(t)
	s.Fatbins, s.gpuTest = embedded, fake(nil)
	g, err := New(s, WithDevice(2))
	if err != nil {
		t.Fatal(err)
	}
	if g.Backend() != GPU || g.FallbackReason() != nil || got.fatbin != "embedded" ||
		got.cfg != (GPUConfig{Prec: mdops.Prec{N: 2}, Device: 2, ModuleTables: true}) {
		t.Fatalf("embedded: backend %s, reason %v, fatbin %q, cfg %+v", g.Backend(), g.FallbackReason(), got.fatbin, got.cfg)
	}
	c, _ := New(s, WithCPU())
	if run(t, g) != run(t, c) {
		t.Error("checksums differ")
	}

	path := filepath.Join(t.TempDir(), "k.fatbin")
	os.WriteFile(path, []byte("from a file"), 0o644)
	if _, err := New(s, WithFatbin(path)); err != nil || got.fatbin != "from a file" || got.cfg.ModuleTables {
		t.Fatalf("WithFatbin: %v, fatbin %q, cfg %+v", err, got.fatbin, got.cfg)
	}
	if _, err := New(s, WithFatbin(path), WithModuleTables(true)); err != nil || !got.cfg.ModuleTables {
		t.Fatalf("WithModuleTables: %v, cfg %+v", err, got.cfg)
	}
	f, err := New(s, WithFatbin(filepath.Join(t.TempDir(), "missing")))
	if err != nil || f.Backend() != CPU || !errors.Is(f.FallbackReason(), os.ErrNotExist) {
		t.Fatalf("missing fatbin file: %v, %s, %v", err, f.Backend(), f.FallbackReason())
	}

	s2 := testSpec(t)
	s2.gpuTest, s2.NVCC = fake(nil), "nvcc -o fatbin/tiny.fatbin tiny.cu"
	n, err := New(s2)
	if err != nil || n.Backend() != CPU || !errors.Is(n.FallbackReason(), ErrNoFatbin) ||
		!strings.Contains(n.FallbackReason().Error(), "nvcc -o fatbin/tiny.fatbin tiny.cu") {
		t.Fatalf("no fatbin: %v, %s, %v", err, n.Backend(), n.FallbackReason())
	}

	s3 := testSpec(t)
	s3.Fatbins, s3.gpuTest = embedded, fake(errors.New("no device here"))
	d, err := New(s3)
	if err != nil || d.Backend() != CPU || !strings.Contains(d.FallbackReason().Error(), "no device here") {
		t.Fatalf("device error: %v, %s, %v", err, d.Backend(), d.FallbackReason())
	}
	if _, err := New(s3, RequireGPU()); err == nil || !strings.Contains(err.Error(), "no device here") {
		t.Fatalf("RequireGPU: %v", err)
	}
}

func TestSetInputsChecks(t *testing.T) {
	s, err := New(testSpec(t), WithCPU())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetInputs(nil); err == nil {
		t.Error("no error for missing inputs")
	}
	in := backend.RandomInputs(s.NumVars(), s.Layout(), 1)
	in[1] = in[1][:3]
	if err := s.SetInputs(in); err == nil {
		t.Error("no error for a short series")
	}
}

// A stamp next to the embedded fatbin that names another source keeps the
// fatbin from loading; one that names this source, or none, does not.
func TestStaleFatbin(t *testing.T) {
	s := testSpec(t)
	s.SourceHash = "aaaa"
	var loaded bool
	s.gpuTest = func(plan *stager.Plan, fatbin []byte, cfg GPUConfig) (backend.Executor, error) {
		loaded = true
		return cpu.New(plan, cfg.Prec, 1)
	}
	for _, c := range []struct {
		stamp string // "": none
		ok    bool
	}{{"", true}, {"aaaa  tiny.cu\n", true}, {"bbbb  tiny.cu\n", false}, {"\n", false}} {
		fsys := fstest.MapFS{"fatbin/tiny.fatbin": {Data: []byte("k")}}
		if c.stamp != "" {
			fsys["fatbin/tiny.fatbin.sha256"] = &fstest.MapFile{Data: []byte(c.stamp)}
		}
		s.Fatbins, loaded = fsys, false
		g, err := New(s)
		if err != nil {
			t.Fatal(err)
		}
		if loaded != c.ok || (g.Backend() == GPU) != c.ok || !c.ok && !errors.Is(g.FallbackReason(), ErrStaleFatbin) {
			t.Errorf("stamp %q: loaded %v, backend %s, reason %v", c.stamp, loaded, g.Backend(), g.FallbackReason())
		}
	}
}
