//go:build !cuda

package main

import (
	"strings"
	"testing"
)

// TestSolveGPUFallback: without the cuda tag, -gpu says why and solves on
// the CPU, with the CPU's output.
func TestSolveGPUFallback(t *testing.T) {
	args := []string{"cyclic5:newton", "-prec", "2", "-degree", "4"}
	want, _, status := solveCmd(t, args...)
	if status != 0 {
		t.Fatalf("status %d", status)
	}
	got, errs, status := solveCmd(t, append(args, "-gpu")...)
	if status != 0 {
		t.Fatalf("-gpu: status %d: %s", status, errs)
	}
	if !strings.Contains(errs, "-gpu: this mdgen was built without the GPU") || !strings.Contains(errs, "solving on the CPU") {
		t.Errorf("-gpu does not say why it falls back: %q", errs)
	}
	cut := func(s string) string { return s[strings.Index(s, "  x1 t^0"):] }
	if cut(got) != cut(want) {
		t.Errorf("-gpu (CPU fallback) output differs from the CPU's")
	}
	js, _, _ := solveCmd(t, append(args, "-gpu", "-json")...)
	if !strings.Contains(js, `"device": "cpu"`) {
		t.Errorf("the JSON report does not name the device: %s", js[:min(len(js), 300)])
	}
}
