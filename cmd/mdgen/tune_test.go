package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mdgen/mdgen/runtime/gpu"
	"github.com/mdgen/mdgen/runtime/tune"
)

// TestTuneWithoutGPU: mdgen tune says there is no GPU and exits 1; bad
// flags are usage errors.
func TestTuneWithoutGPU(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		say  string
	}{
		{[]string{"tune", "-prec", "7"}, 2, "-prec 7"},
		{[]string{"tune", "-systems", "p9"}, 2, `unknown system "p9"`},
		{[]string{"tune", "-complex", "maybe"}, 2, "want both, real or complex"},
		{[]string{"tune", "-min-gain", "100"}, 2, "-min-gain"},
		{[]string{"tune", "extra"}, 2, "unexpected arguments"},
	} {
		code, _, stderr := runCLI(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.say) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, stderr, c.code, c.say)
		}
	}
	if gpu.Enabled {
		t.Skip("this build has the GPU")
	}
	code, _, stderr := runCLI(t, "tune", "-profile", filepath.Join(t.TempDir(), "p.json"))
	if code != 1 || !strings.Contains(stderr, "no GPU") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

// tunedProfile writes a profile with an entry for 2-double real data and
// returns its path.
func tunedProfile(t *testing.T, dir string) string {
	t.Helper()
	p := tune.New()
	p.Put(tune.Device{Name: "NVIDIA H200", CC: "9.0"}, 232448, "", tune.Entry{Prec: 2, Data: "real",
		Degrees: tune.DegreeClass(4), Jobs: tune.Narrow, Shape: tune.MakeShape(2, false, 64, 0),
		Model: tune.ModelShape(2, false, 4), System: "p2", Degree: 4, Ms: 1, ModelMs: 2, Tried: 2, Check: "cpu"})
	path := filepath.Join(dir, "tune.json")
	if err := p.Write(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestEmitProfile: emit's -profile: the package carries a good profile;
// a corrupt one or one of another version is a warning and the fitted
// model; a named file that does not exist is an error; the default
// location is used when it exists, and -profile none skips it.
func TestEmitProfile(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	t.Setenv("NVCC", "")
	t.Setenv("CUDA_PATH", "")
	t.Setenv("PATH", dir) // no nvcc
	sys := filepath.Join(dir, "tiny-sys.txt")
	if err := os.WriteFile(sys, []byte(emitSys), 0o644); err != nil {
		t.Fatal(err)
	}
	good := tunedProfile(t, dir)
	corrupt := filepath.Join(dir, "corrupt.json")
	os.WriteFile(corrupt, []byte(`{"layout": 1, "kernels": 2, "gpus": [{"name": "x"`), 0o644)
	old := filepath.Join(dir, "old.json")
	os.WriteFile(old, []byte(`{"layout": 0, "gpus": []}`), 0o644)
	emit := func(out string, extra ...string) (int, string, string) {
		args := append([]string{"emit", sys, "-prec", "2", "-degree", "4", "-o", filepath.Join(dir, out)}, extra...)
		code, _, stderr := runCLI(t, args...)
		src, _ := os.ReadFile(filepath.Join(dir, out, "tiny_sys.go"))
		return code, stderr, string(src)
	}
	carries := func(src string) bool { return strings.Contains(src, "tune.InstallJSON(Name, tuningProfile)") }

	code, stderr, src := emit("plain")
	if code != 0 || carries(src) || strings.Contains(stderr, "profile") {
		t.Fatalf("no profile: exit %d, carries %v, stderr %q", code, carries(src), stderr)
	}
	code, stderr, src = emit("good", "-profile", good)
	if code != 0 || !carries(src) || !strings.Contains(stderr, "tuning profile "+good) || !strings.Contains(stderr, "carries 1 tuned launch shapes") {
		t.Fatalf("good profile: exit %d, carries %v, stderr %q", code, carries(src), stderr)
	}
	for _, c := range []struct{ file, say string }{{corrupt, "corrupt tuning profile"}, {old, "layout version 0"}} {
		code, stderr, src = emit("bad", "-profile", c.file)
		if code != 0 || carries(src) || !strings.Contains(stderr, "warning") || !strings.Contains(stderr, c.say) || !strings.Contains(stderr, "fitted launch shapes") {
			t.Errorf("%s: exit %d, carries %v, stderr %q", c.file, code, carries(src), stderr)
		}
	}
	code, stderr, _ = emit("missing", "-profile", filepath.Join(dir, "none.json"))
	if code != 1 || !strings.Contains(stderr, "-profile") {
		t.Errorf("missing profile: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "missing")); !os.IsNotExist(err) {
		t.Errorf("missing profile: something was written")
	}
	// Another precision: nothing to carry.
	code, _, stderr = runCLI(t, "emit", sys, "-prec", "4", "-degree", "4", "-o", filepath.Join(dir, "p4"), "-profile", good)
	if src, _ := os.ReadFile(filepath.Join(dir, "p4", "tiny_sys.go")); code != 0 || carries(string(src)) || !strings.Contains(stderr, "no entries for 4-double real") {
		t.Errorf("4 doubles: exit %d, stderr %q", code, stderr)
	}
	// The default location.
	def, err := tune.DefaultPath()
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(def), 0o755)
	b, _ := os.ReadFile(good)
	os.WriteFile(def, b, 0o644)
	code, stderr, src = emit("default")
	if code != 0 || !carries(src) || !strings.Contains(stderr, "default tuning profile "+def) {
		t.Errorf("default profile: exit %d, carries %v, stderr %q", code, carries(src), stderr)
	}
	code, stderr, src = emit("none", "-profile", "none")
	if code != 0 || carries(src) || strings.Contains(stderr, "profile") {
		t.Errorf("-profile none: exit %d, carries %v, stderr %q", code, carries(src), stderr)
	}
}
