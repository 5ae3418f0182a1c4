package gen

import (
	"strings"
	"testing"

	"github.com/mdgen/mdgen/runtime/solver"
	"github.com/mdgen/mdgen/runtime/tune"
)

// TestEmitTuning: a package emitted with a tuning profile carries it and
// installs it when loaded; without one it has neither.
func TestEmitTuning(t *testing.T) {
	p := tune.New()
	e := tune.Entry{Prec: 2, Data: "real", Degrees: tune.DegreeClass(5), Jobs: tune.Narrow,
		Shape: tune.MakeShape(2, false, 64, 0), Model: tune.ModelShape(2, false, 5),
		System: "tiny", Degree: 5, Ms: 1, ModelMs: 2, Tried: 3, Check: "cpu"}
	p.Put(tune.Device{Name: "NVIDIA H200", CC: "9.0"}, 232448, "", e)
	text, err := p.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	spec := textSpec()
	plain, err := Emit(spec, solver.ExampleRunner{})
	if err != nil {
		t.Fatal(err)
	}
	spec.Tuning = text
	tuned, err := Emit(spec, solver.ExampleRunner{})
	if err != nil {
		t.Fatal(err)
	}
	src := string(tuned.Files["tiny.go"])
	if !strings.Contains(src, "const tuningProfile = `"+strings.TrimSpace(string(text))+"`") ||
		!strings.Contains(src, "var TuningErr = tune.InstallJSON(Name, tuningProfile)") {
		t.Fatalf("the tuned package lacks its profile or its installation:\n%s", src)
	}
	// What the package carries reads back as the profile it was given.
	start := strings.Index(src, "const tuningProfile = `") + len("const tuningProfile = `")
	got, err := tune.Parse([]byte(src[start : start+strings.Index(src[start:], "`")]))
	if err != nil || got.Entries() != 1 || got.GPUs[0].Entries[0] != e {
		t.Fatalf("carried profile: %v, %+v", err, got)
	}
	if s := string(plain.Files["tiny.go"]); strings.Contains(s, "tuningProfile") || strings.Contains(s, "runtime/tune") {
		t.Fatal("a package emitted without a profile mentions one")
	}
	// Only the Go file changes: the kernels are the same.
	for name, b := range plain.Files {
		if name != "tiny.go" && string(tuned.Files[name]) != string(b) {
			t.Errorf("%s differs with a profile", name)
		}
	}
}
