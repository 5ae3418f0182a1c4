package nvcc

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

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
	c := &Compiler{NVCC: fake, Dir: filepath.Join(dir, "cache"), Archs: []string{"sm_90"}, Log: &log}
	srcs := []Source{
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
	c.Extra = []string{"-O1"}
	res3, err := c.Build(srcs[:1])
	if err != nil {
		t.Fatal(err)
	}
	if res3[0].Cached || res3[0].Path == res[0].Path {
		t.Fatalf("changed header and flags hit the cache: %+v", res3[0])
	}
	// A failure names the source and keeps the log.
	_, err = c.Build([]Source{{Name: "bad", Source: []byte("FAIL\n")}})
	if err == nil || !strings.Contains(err.Error(), "bad.cu") || !strings.Contains(err.Error(), "asked to fail") {
		t.Fatalf("failed build: err = %v", err)
	}
	if !strings.Contains(log.String(), "md2 cached") || !strings.Contains(log.String(), "bad FAILED") {
		t.Errorf("progress log:\n%s", log.String())
	}
}

// writeScript writes an executable shell script.
func writeScript(t *testing.T, path, text string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+text), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// Find's one order: the path given, $NVCC, $CUDA_PATH/bin, PATH, then
// /usr/local/cuda/bin (not checked here: the machine's own).
func TestFindOrder(t *testing.T) {
	dir := t.TempDir()
	mk := func(sub string) string {
		os.MkdirAll(filepath.Join(dir, sub, "bin"), 0o755)
		return writeScript(t, filepath.Join(dir, sub, "bin", "nvcc"), "exit 0\n")
	}
	explicit, env, cuda, path := mk("explicit"), mk("env"), mk("cuda"), mk("path")
	t.Setenv("NVCC", env)
	t.Setenv("CUDA_PATH", filepath.Join(dir, "cuda"))
	t.Setenv("PATH", filepath.Dir(path))
	for _, c := range []struct {
		unset string
		want  string
	}{{"", env}, {"NVCC", cuda}, {"CUDA_PATH", path}} {
		if c.unset != "" {
			t.Setenv(c.unset, "")
		}
		if got, err := Find(""); err != nil || got != c.want {
			t.Errorf("without %s: Find = %q, %v; want %q", c.unset, got, err, c.want)
		}
		if got, err := Find(explicit); err != nil || got != explicit {
			t.Errorf("explicit: Find = %q, %v", got, err)
		}
	}
	if _, err := Find(filepath.Join(dir, "missing")); !errors.Is(err, ErrNotFound) {
		t.Errorf("a missing explicit path: %v", err)
	}
	t.Setenv("NVCC", filepath.Join(dir, "missing")) // a bad $NVCC falls through
	t.Setenv("CUDA_PATH", "")
	if got, err := Find(""); err != nil || got != path {
		t.Errorf("bad $NVCC: Find = %q, %v", got, err)
	}
	t.Setenv("PATH", t.TempDir())
	if _, err := os.Stat(DefaultPath); err == nil {
		t.Skip(DefaultPath + " exists")
	}
	if _, err := Find(""); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "$CUDA_PATH/bin/nvcc") {
		t.Errorf("no nvcc anywhere: %v", err)
	}
}

// The flag set: the command line the emitted packages document, byte for
// byte (it is in every emitted .cu).
func TestArgs(t *testing.T) {
	got := Quote(FatbinArgs(nil, "fatbin/p1.fatbin", "p1.cu"))
	want := "-fatbin -gencode arch=compute_90,code=sm_90 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=compute_90 -fmad=false -O3 -std=c++17 -o fatbin/p1.fatbin p1.cu"
	if got != want {
		t.Errorf("FatbinArgs:\n got %s\nwant %s", got, want)
	}
	got = Quote(Args([]string{"sm_80", "90a", "86"}, "-I", "a dir"))
	want = "-fatbin -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90a,code=sm_90a -gencode arch=compute_86,code=sm_86 -gencode arch=compute_90a,code=compute_90a -fmad=false -O3 -std=c++17 -I 'a dir'"
	if got != want {
		t.Errorf("Args:\n got %s\nwant %s", got, want)
	}
	archs, err := ParseArchs("90, sm_80,90,90a")
	if err != nil || strings.Join(archs, ",") != "90,80,90a" {
		t.Errorf("ParseArchs: %v, %v", archs, err)
	}
	for _, bad := range []string{"xx", "", "sm_", "30", "900"} {
		if _, err := ParseArchs(bad); err == nil {
			t.Errorf("ParseArchs(%q) accepted", bad)
		}
	}
}

// RunFatbin writes the output under a temporary name, renames it on
// success, reports progress, and leaves nothing on failure.
func TestRunFatbin(t *testing.T) {
	dir := t.TempDir()
	nv := writeScript(t, filepath.Join(dir, "nvcc"), `out=""; in=""
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out="$2"; shift;;
    *.cu) in="$1";;
  esac
  shift
done
grep -q FAIL "$in" && { echo "error: asked to fail" >&2; exit 2; }
sleep 0.3
echo "ptxas info: 42 registers"
cp "$in" "$out"
`)
	pkg := filepath.Join(dir, "pkg")
	os.MkdirAll(filepath.Join(pkg, "fatbin"), 0o755)
	os.WriteFile(filepath.Join(pkg, "k.cu"), []byte("kernels\n"), 0o644)
	ticks := 0
	out, err := RunFatbin(nv, pkg, FatbinArgs(nil, "fatbin/k.fatbin", "k.cu"), 50*time.Millisecond, func(time.Duration) { ticks++ })
	if err != nil || !strings.Contains(string(out), "42 registers") || ticks == 0 {
		t.Fatalf("RunFatbin: %v, %q, %d ticks", err, out, ticks)
	}
	if b, _ := os.ReadFile(filepath.Join(pkg, "fatbin", "k.fatbin")); string(b) != "kernels\n" {
		t.Errorf("fatbin %q", b)
	}
	os.WriteFile(filepath.Join(pkg, "bad.cu"), []byte("FAIL\n"), 0o644)
	out, err = RunFatbin(nv, pkg, FatbinArgs(nil, "fatbin/bad.fatbin", "bad.cu"), 0, nil)
	if err == nil || !strings.Contains(string(out), "asked to fail") {
		t.Fatalf("failing nvcc: %v, %q", err, out)
	}
	if ents, _ := os.ReadDir(filepath.Join(pkg, "fatbin")); len(ents) != 1 {
		t.Errorf("fatbin/ holds %d files after a failure", len(ents))
	}
}
