package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStartCPUProfile: MDGEN_CPUPROFILE's file holds a profile after the
// command, and a path that cannot be written is said on stderr while the
// command goes on.
func TestStartCPUProfile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "cpu.prof")
	var stderr bytes.Buffer
	stop := startCPUProfile(file, &stderr)
	if status, _, errs := runCLI(t, "track", "katsura3", "-prec", "2", "-quiet"); status != 0 {
		t.Fatalf("track: status %d, %s", status, errs)
	}
	stop()
	if b, err := os.ReadFile(file); err != nil || len(b) == 0 {
		t.Fatalf("profile: %d bytes, %v", len(b), err)
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr: %q", stderr.String())
	}

	stderr.Reset()
	stop = startCPUProfile(filepath.Join(dir, "missing", "cpu.prof"), &stderr)
	stop()
	if !strings.Contains(stderr.String(), "MDGEN_CPUPROFILE") || !strings.Contains(stderr.String(), "no profile written") {
		t.Errorf("unwritable path: stderr %q", stderr.String())
	}
	// The profiler was stopped: a second profile starts.
	stderr.Reset()
	stop = startCPUProfile(filepath.Join(dir, "again.prof"), &stderr)
	stop()
	if stderr.Len() != 0 {
		t.Errorf("a second profile after the first stopped: %q", stderr.String())
	}
	if stop := startCPUProfile("", &stderr); stop == nil {
		t.Error("empty path: nil stop")
	}
}
