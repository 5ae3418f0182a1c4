package main

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mdgen/mdgen/runtime/gpu"
	"github.com/mdgen/mdgen/runtime/track"
)

// TestTrackGPU: -gpu gives the solutions, steps and summary of the CPU
// tracker, path by path; without a GPU it says why and tracks on the CPU.
// -batch needs -gpu.
func TestTrackGPU(t *testing.T) {
	cpu := trackJSONOf(t, 0, "noon3", "-prec", "2")
	_, errs, status := trackCmd(t, "noon3", "-prec", "2", "-gpu", "-batch", "8", "-json")
	if status != 0 {
		t.Fatalf("-gpu: status %d\n%s", status, errs)
	}
	if !gpu.Enabled && !strings.Contains(errs, "tracking on the CPU") {
		t.Errorf("-gpu without a GPU: stderr %q does not say it tracks on the CPU", errs)
	}
	for _, mode := range []string{"evaluations", "solves"} {
		g := trackJSONOf(t, 0, "noon3", "-prec", "2", "-gpu", "-gpu-mode", mode, "-batch", "8")
		if g.Summary != cpu.Summary || len(g.Solutions) != len(cpu.Solutions) {
			t.Fatalf("-gpu -gpu-mode %s: %+v, the CPU %+v", mode, g.Summary, cpu.Summary)
		}
		for k, w := range cpu.Solutions {
			p := g.Solutions[k]
			if p.Path != w.Path || p.Status != w.Status || fmt.Sprint(p.X) != fmt.Sprint(w.X) || p.Steps != w.Steps || p.Rejected != w.Rejected {
				t.Errorf("path %d: %+v with -gpu -gpu-mode %s, %+v on the CPU", w.Path, p, mode, w)
			}
		}
	}
	if _, errs, status := trackCmd(t, "noon3", "-batch", "8"); status != 2 || !strings.Contains(errs, "-batch is for -gpu") {
		t.Errorf("-batch without -gpu: status %d, %q", status, errs)
	}
	if _, errs, status := trackCmd(t, "noon3", "-gpu-mode", "solves"); status != 2 || !strings.Contains(errs, "-gpu-mode is for -gpu") {
		t.Errorf("-gpu-mode without -gpu: status %d, %q", status, errs)
	}
	if _, errs, status := trackCmd(t, "noon3", "-gpu", "-gpu-mode", "fast"); status != 2 || !strings.Contains(errs, "want solves or evaluations") {
		t.Errorf("-gpu-mode fast: status %d, %q", status, errs)
	}
}

// TestBenchTrackGPU: bench -track -gpu adds a "gpu" row per system and
// precision, the CPU rows' solutions; without a GPU it says why and
// prints the CPU rows.
func TestBenchTrackGPU(t *testing.T) {
	var out, errb bytes.Buffer
	if err := runBenchTrack([]string{"-systems", "katsura3", "-precs", "2", "-workers", "1", "-gpu"}, &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	var rows []string
	for _, line := range strings.Split(out.String(), "\n") {
		if f := strings.Fields(line); len(f) > 4 && f[0] == "katsura3" {
			rows = append(rows, line)
			if f[4] != "8" {
				t.Errorf("row %q: want 8 regular solutions", line)
			}
		}
	}
	want := 1
	if gpu.Enabled && !strings.Contains(errb.String(), "the CPU only") {
		want = 2
	} else if !strings.Contains(errb.String(), "the CPU only") {
		t.Errorf("-gpu without a GPU: stderr %q does not say why", errb.String())
	}
	if len(rows) != want {
		t.Errorf("%d rows, want %d:\n%s", len(rows), want, out.String())
	}
}

// TestReportDeviceFailures: a failed GPU is named by its ordinal (as
// -devices gave it) with the count of its paths tracked again and the
// error.
func TestReportDeviceFailures(t *testing.T) {
	run := &track.Run{DeviceFailures: []track.DeviceFailure{{Device: 1, Requeued: 37, Err: errors.New("an illegal memory access")}}}
	for _, c := range []struct {
		ordinals []int
		want     string
	}{
		{nil, "mdgen: track: GPU 1 failed, its 37 paths in flight tracked again on the other GPUs: an illegal memory access\n"},
		{[]int{2, 5}, "mdgen: track: GPU 5 failed, its 37 paths in flight tracked again on the other GPUs: an illegal memory access\n"},
	} {
		var b bytes.Buffer
		reportDeviceFailures(&b, run, c.ordinals)
		if b.String() != c.want {
			t.Errorf("ordinals %v: %q, want %q", c.ordinals, b.String(), c.want)
		}
	}
}
