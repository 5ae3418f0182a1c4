package xcheck

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// NeedCXX returns the path of g++, or skips t without one; with
// MDGEN_REQUIRE_CXX=1 (CI) a missing g++ fails t instead: the host
// compilations of the CUDA headers are how CI checks them without a GPU.
func NeedCXX(t testing.TB) string {
	t.Helper()
	cxx, err := exec.LookPath("g++")
	if err != nil {
		if os.Getenv("MDGEN_REQUIRE_CXX") == "1" {
			t.Fatalf("g++ not found (%v) and MDGEN_REQUIRE_CXX=1", err)
		}
		t.Skipf("g++ not found (%v): skipping the host compilation of the CUDA headers", err)
	}
	return cxx
}

// CompileHeaders compiles the C++ driver src against generated/cuda
// (found from the caller's package directory) with g++ -std=c++17
// -ffp-contract=off, so that every operation rounds alone as nvcc
// -fmad=false computes it on the device, and returns the binary (in
// t.TempDir()); it skips or fails as NeedCXX does.
func CompileHeaders(t testing.TB, src string, extra ...string) string {
	t.Helper()
	cxx := NeedCXX(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "driver.cpp")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "driver")
	args := append([]string{"-std=c++17", "-O1", "-ffp-contract=off", "-I", generatedCUDA(t)}, extra...)
	args = append(args, "-o", bin, file)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	start := time.Now()
	if out, err := exec.CommandContext(ctx, cxx, args...).CombinedOutput(); err != nil {
		t.Fatalf("g++ %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	t.Logf("g++: %.1f s", time.Since(start).Seconds())
	return bin
}

// generatedCUDA returns the repository's generated/cuda: the module root
// is the nearest directory above the working directory with a go.mod.
func generatedCUDA(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "generated", "cuda")
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatalf("no go.mod above %s", dir)
		}
		dir = up
	}
}

// GPUTestCache is the folder where the cuda-tagged tests cache the
// kernels they build with nvcc: MDGEN_GPU_TEST_CACHE, else
// mdgen-gpu-test-kernels under the temporary folder.
func GPUTestCache() string {
	if dir := os.Getenv("MDGEN_GPU_TEST_CACHE"); dir != "" {
		return dir
	}
	return filepath.Join(os.TempDir(), "mdgen-gpu-test-kernels")
}
