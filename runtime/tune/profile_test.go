package tune

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/gpu"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
	"github.com/mdgen/mdgen/stager"
	"github.com/mdgen/mdgen/stager/families"
)

var h200 = Device{Name: "NVIDIA H200", CC: "9.0"}

const h200Shared = 232448 // cudadev.Info.MaxSharedPerBlockOptin of the H200

// sample returns a profile with entries that differ from the model.
func sample() *Profile {
	p := New()
	add := func(n int, complex bool, d int, jobs string, block, sets int) {
		e := Entry{Prec: n, Data: DataName(complex), Degrees: DegreeClass(d), Jobs: jobs,
			Shape: MakeShape(n, complex, block, sets), Model: ModelShape(n, complex, d),
			System: "p1", Degree: d, Ms: 1.5, ModelMs: 2, Tried: 9, Check: "cpu"}
		p.Put(h200, h200Shared, "2026-11-24T19:00:00Z", e)
	}
	add(8, true, 152, Medium, 192, 7)
	add(8, true, 63, Narrow, 96, 1)
	add(4, false, 191, Wide, 64, 0)
	add(10, true, 191, Medium, 256, 4)
	return p
}

func TestRoundTrip(t *testing.T) {
	p := sample()
	path := filepath.Join(t.TempDir(), "sub", "tune.json")
	if err := p.Write(path); err != nil {
		t.Fatal(err)
	}
	q, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	want := p.clone()
	want.sort()
	if !reflect.DeepEqual(q, want) {
		t.Fatalf("read back\n%+v\nwant\n%+v", q, want)
	}
	// Writing what was read gives the same bytes.
	a, _ := os.ReadFile(path)
	b, err := q.Marshal()
	if err != nil || string(a) != string(b) {
		t.Fatalf("second write differs (%v)", err)
	}
	if _, err := os.Stat(path + ".tmp"); !os.IsNotExist(err) {
		t.Fatalf("temporary file left: %v", err)
	}
}

func TestPutReplaces(t *testing.T) {
	p := sample()
	n := p.Entries()
	e := p.GPUs[0].Entries[0]
	e.Shape = MakeShape(e.Prec, e.Data == "complex", 128, 4)
	p.Put(h200, h200Shared, "later", e)
	if p.Entries() != n {
		t.Fatalf("%d entries after replacing one, want %d", p.Entries(), n)
	}
	if got, _ := p.For(h200).Lookup(e.Key()); got.Shape != e.Shape {
		t.Fatalf("entry not replaced: %v", got.Shape)
	}
}

// TestBadProfiles: a corrupt profile, one of another layout version or of
// other kernels is refused with an error that says so.
func TestBadProfiles(t *testing.T) {
	good, err := sample().Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(good); err != nil {
		t.Fatal(err)
	}
	edit := func(old, new string) []byte {
		if !strings.Contains(string(good), old) {
			t.Fatalf("sample lacks %q", old)
		}
		return []byte(strings.Replace(string(good), old, new, 1))
	}
	for _, c := range []struct {
		name string
		data []byte
		want error
		say  string
	}{
		{"empty", nil, ErrCorrupt, ""},
		{"not JSON", []byte("block=96\n"), ErrCorrupt, ""},
		{"truncated", good[:len(good)/2], ErrCorrupt, ""},
		{"no version", []byte(`{"gpus": []}`), ErrCorrupt, "no layout version"},
		{"old layout", edit(`"layout": 2`, `"layout": 0`), ErrVersion, "layout version 0"},
		{"new layout", edit(`"layout": 2`, `"layout": 3, "future": true`), ErrVersion, "layout version 3"},
		{"other kernels", edit(`"kernels": `, `"kernels": 99`), ErrVersion, "GPU layout version 99"},
		{"unknown field", edit(`"prec": 4`, `"prec": 4, "colour": 1`), ErrCorrupt, "colour"},
		{"trailing data", append(append([]byte{}, good...), []byte("{}")...), ErrCorrupt, "after"},
		{"block not a multiple of 32", edit(`"block": 64`, `"block": 65`), ErrCorrupt, "multiple of 32"},
		{"block above the bound", edit(`"block": 64`, `"block": 1024`), ErrCorrupt, "multiple of 32"},
		{"sets", edit(`"sets": 7`, `"sets": 3`), ErrCorrupt, "sets"},
		{"split", edit(`"split": true`, `"split": false`), ErrCorrupt, "split"},
		{"data", edit(`"data": "real"`, `"data": "quaternion"`), ErrCorrupt, "quaternion"},
		{"degree band", edit(`"degrees": "160-191"`, `"degrees": "150-200"`), ErrCorrupt, "band"},
		{"degree outside its band", edit(`"degree": 63`, `"degree": 64`), ErrCorrupt, "outside"},
		{"jobs class", edit(`"jobs": "wide"`, `"jobs": "huge"`), ErrCorrupt, "huge"},
		{"precision", edit(`"prec": 4`, `"prec": 0`), ErrCorrupt, "precision"},
		{"shared memory", edit(`"max_shared": 232448`, `"max_shared": 1000`), ErrCorrupt, "exceed"},
		{"no name", edit(`"name": "NVIDIA H200"`, `"name": ""`), ErrCorrupt, "no name"},
	} {
		_, err := Parse(c.data)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.say) {
			t.Errorf("%s: error %v, want %v saying %q", c.name, err, c.want, c.say)
		}
	}
	// Two entries of one key.
	p := sample()
	p.GPUs[0].Entries = append(p.GPUs[0].Entries, p.GPUs[0].Entries[0])
	if _, err := p.Marshal(); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "twice") {
		t.Errorf("duplicate key: %v", err)
	}
	// A missing file is the file system's error.
	if _, err := Read(filepath.Join(t.TempDir(), "none.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestClasses(t *testing.T) {
	for d, want := range map[int]string{0: "0-31", 31: "0-31", 32: "32-63", 63: "32-63", 152: "128-159", 191: "160-191", 192: "192-223"} {
		if got := DegreeClass(d); got != want || !validDegreeClass(got) {
			t.Errorf("DegreeClass(%d) = %q, want %q", d, got, want)
		}
	}
	for _, s := range []string{"", "0-30", "1-32", "32-64", "a-b", "-32--1", "64"} {
		if validDegreeClass(s) {
			t.Errorf("%q taken for a degree class", s)
		}
	}
	// The benchmark systems fall in the three jobs classes.
	for name, want := range map[string]string{"p1": Medium, "p2": Narrow, "p3": Wide} {
		sys, err := families.BenchmarkSystem(name, 1)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := stager.Stage(sys, 63)
		if err != nil {
			t.Fatal(err)
		}
		if k := PlanKey(plan, mdops.Prec{N: 8, Complex: true}); k.Jobs != want || k.Degrees != "32-63" || k.Prec != 8 || !k.Complex {
			t.Errorf("%s: key %v, want jobs class %s", name, k, want)
		}
	}
	if JobsClass(1023, 1) != Narrow || JobsClass(1024, 1) != Medium || JobsClass(8191, 1) != Medium || JobsClass(8192, 1) != Wide || JobsClass(5, 0) != Narrow {
		t.Error("JobsClass boundaries")
	}
}

// TestModelShapesValid: the fitted model's shapes are shapes a profile may
// hold, so that the model is always one of mdgen tune's candidates.
func TestModelShapesValid(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 5, 8, 10, 16} {
		for _, complex := range []bool{false, true} {
			for d := 0; d <= 300; d++ {
				m := ModelShape(n, complex, d)
				if err := m.Check(n, complex); err != nil {
					t.Fatalf("%dd complex=%v d=%d: model %v: %v", n, complex, d, m, err)
				}
				if m.Sets*gpuabi.SetBytes(n, d) > gpuabi.StageLimit {
					t.Fatalf("%dd complex=%v d=%d: model above the stage limit", n, complex, d)
				}
			}
		}
	}
}

func TestCandidateSets(t *testing.T) {
	for _, n := range []int{4, 8, 10} {
		for _, complex := range []bool{false, true} {
			bs := Blocks(n, complex)
			if bs[0] != 32 || bs[len(bs)-1] != gpuabi.ConvMaxThreads(n, complex) {
				t.Errorf("%dd complex=%v: blocks %v", n, complex, bs)
			}
			for _, d := range []int{63, 152, 191} {
				m := ModelShape(n, complex, d)
				ss := SetsFitting(n, complex, d, h200Shared)
				if !contains(ss, m.Sets) || !contains(bs, m.Block) {
					t.Errorf("%dd complex=%v d=%d: the model %v is not among blocks %v, sets %v", n, complex, d, m, bs, ss)
				}
				for _, s := range ss {
					if s*gpuabi.SetBytes(n, d) > h200Shared {
						t.Errorf("%d sets do not fit", s)
					}
				}
			}
		}
	}
	// 10d complex at d = 191: 7 sets are 107520 bytes, above the model's
	// 96 KiB but within the H200's opt-in limit.
	if ss := SetsFitting(10, true, 191, h200Shared); !contains(ss, 7) {
		t.Errorf("10d complex d=191: sets %v", ss)
	}
	if ss := SetsFitting(10, true, 191, 48<<10); contains(ss, 4) || !contains(ss, 1) {
		t.Errorf("10d complex d=191 in 48 KiB: sets %v", ss)
	}
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestShapes: the shape of a key the profile has is the profile's, of
// every other key the model's.
func TestShapes(t *testing.T) {
	p := sample()
	g := p.For(h200)
	medium := g.Shapes(16380, 4) // p1: 4095 jobs per layer
	narrow := g.Shapes(24192, 64)
	model := func(n int, complex bool, d int) (int, int) { return gpuabi.LaunchShape(gpuabi.Conv, n, complex, d) }
	check := func(what string, f gpuabi.ShapeFunc, n int, complex bool, d, wantB, wantSh int) {
		t.Helper()
		b, sh := f(gpuabi.Conv, n, complex, d)
		if b != wantB || sh != wantSh {
			t.Errorf("%s: %dd complex=%v d=%d: (%d, %d), want (%d, %d)", what, n, complex, d, b, sh, wantB, wantSh)
		}
	}
	// The entry, at the degree it was tuned at and elsewhere in its band.
	check("entry", medium, 8, true, 152, 192, 7*gpuabi.SetBytes(8, 152))
	check("entry in band", medium, 8, true, 130, 192, 7*gpuabi.SetBytes(8, 130))
	check("entry 10d", medium, 10, true, 191, 256, 4*gpuabi.SetBytes(10, 191))
	check("narrow entry", narrow, 8, true, 40, 96, gpuabi.SetBytes(8, 40))
	// Keys it lacks.
	for _, c := range []struct {
		what    string
		f       gpuabi.ShapeFunc
		n       int
		complex bool
		d       int
	}{
		{"other band", medium, 8, true, 160},
		{"other jobs class", narrow, 8, true, 152},
		{"other precision", medium, 5, true, 152},
		{"real data", medium, 8, false, 152},
	} {
		b, sh := model(c.n, c.complex, c.d)
		check(c.what, c.f, c.n, c.complex, c.d, b, sh)
	}
	// The addition kernel keeps the model's shape.
	for _, d := range []int{63, 152} {
		b, sh := medium(gpuabi.Add, 8, true, d)
		wb, wsh := gpuabi.LaunchShape(gpuabi.Add, 8, true, d)
		if b != wb || sh != wsh {
			t.Errorf("add d=%d: (%d, %d), want the model's (%d, %d)", d, b, sh, wb, wsh)
		}
	}
	// Another GPU: the model everywhere.
	other := p.For(Device{Name: "NVIDIA H100 80GB HBM3", CC: "9.0"}).Shapes(16380, 4)
	b, sh := model(8, true, 152)
	check("other GPU", other, 8, true, 152, b, sh)
	// Same name, other compute capability.
	if p.For(Device{Name: h200.Name, CC: "10.0"}) != nil {
		t.Error("an entry of another compute capability")
	}
	// Shared memory that does not fit at a degree of the band: the model.
	q := sample()
	q.GPUs[0].MaxShared = 7 * gpuabi.SetBytes(8, 152)
	tight := q.For(h200).Shapes(16380, 4)
	check("fits at its degree", tight, 8, true, 152, 192, 7*gpuabi.SetBytes(8, 152))
	b, sh = model(8, true, 159)
	check("too big higher in the band", tight, 8, true, 159, b, sh)
}

func TestSubset(t *testing.T) {
	s := sample().Subset(mdops.Prec{N: 8, Complex: true})
	if s.Entries() != 2 || len(s.Devices()) != 1 {
		t.Fatalf("subset: %d entries, devices %v", s.Entries(), s.Devices())
	}
	for _, e := range s.GPUs[0].Entries {
		if e.Prec != 8 || e.Data != "complex" {
			t.Fatalf("subset holds %v", e.Key())
		}
	}
	if New().Subset(mdops.Prec{N: 4}).Entries() != 0 || (*Profile)(nil).Subset(mdops.Prec{N: 4}).Entries() != 0 {
		t.Fatal("subset of an empty profile")
	}
}

// TestInstall: an installed profile gives runtime/gpu's executors their
// shapes on the device it names, and nothing on another.
func TestInstall(t *testing.T) {
	defer Uninstall()
	if gpu.DeviceShape != nil {
		t.Fatal("a profile installed before the test")
	}
	Install(New()) // empty: nothing
	if gpu.DeviceShape != nil || Installed() != nil {
		t.Fatal("an empty profile installed")
	}
	Install(sample())
	sys, err := families.BenchmarkSystemComplex("p1", 1)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := stager.Stage(sys, 152)
	if err != nil {
		t.Fatal(err)
	}
	info := cudadev.Info{Name: "NVIDIA H200", Major: 9, Minor: 0}
	f := gpu.DeviceShape(info, plan)
	if f == nil {
		t.Fatal("no shape for the H200")
	}
	if b, sh := f(gpuabi.Conv, 8, true, 152); b != 192 || sh != 7*gpuabi.SetBytes(8, 152) {
		t.Fatalf("installed shape (%d, %d)", b, sh)
	}
	if gpu.DeviceShape(cudadev.Info{Name: "NVIDIA A100-SXM4-80GB", Major: 8, Minor: 0}, plan) != nil {
		t.Fatal("a shape for another GPU")
	}
	// A second profile adds to the first; its entry of the same key wins.
	p := New()
	e := sample().GPUs[0].Entries[0]
	e.Shape = MakeShape(e.Prec, e.Data == "complex", 32, 0)
	p.Put(h200, h200Shared, "", e)
	Install(p)
	if Installed().Entries() != sample().Entries() {
		t.Fatalf("%d entries installed", Installed().Entries())
	}
	got, _ := Installed().For(h200).Lookup(e.Key())
	if got.Shape != e.Shape {
		t.Fatalf("installed %v, want %v", got.Shape, e.Shape)
	}
	Uninstall()
	if gpu.DeviceShape != nil || Installed() != nil {
		t.Fatal("Uninstall left a profile")
	}
	// InstallJSON: a bad profile installs nothing and says why.
	if err := InstallJSON("pkg", `{"layout": 7}`); !errors.Is(err, ErrVersion) || !strings.Contains(err.Error(), "pkg") || gpu.DeviceShape != nil {
		t.Fatalf("InstallJSON of another version: %v", err)
	}
	text, _ := sample().Marshal()
	if err := InstallJSON("pkg", string(text)); err != nil || gpu.DeviceShape == nil {
		t.Fatalf("InstallJSON: %v", err)
	}
}

func TestDefaultPath(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "/tmp/cfg")
	t.Setenv("HOME", "/tmp/home")
	p, err := DefaultPath()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "mdgen", "tune.json"); p != want {
		t.Fatalf("DefaultPath %q, want %q", p, want)
	}
}

// TestCommittedProfile: the H200 profile in bench/results reads with this
// mdgen, and mdgen tune kept no shape slower than the model's.
func TestCommittedProfile(t *testing.T) {
	p, err := Read(filepath.Join("..", "..", "bench", "results", "h200-tune.json"))
	if err != nil {
		t.Fatal(err)
	}
	if p.For(h200) == nil || p.Entries() == 0 {
		t.Fatalf("no H200 entries: %v", p.Devices())
	}
	for _, e := range p.For(h200).Entries {
		if e.Ms > e.ModelMs || (e.Shape == e.Model) != (e.Ms == e.ModelMs) {
			t.Errorf("%s: %v %.3f ms against the model's %v %.3f ms", e.Key(), e.Shape, e.Ms, e.Model, e.ModelMs)
		}
	}
}
