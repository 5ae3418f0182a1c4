package main

import (
	"fmt"
	"io"
	"time"

	"github.com/mdgen/mdgen/runtime/gpu/kernels"
	"github.com/mdgen/mdgen/runtime/track"
)

// useTrackGPU sets opt to track on the GPUs of ordinals (none: every
// visible one; kernels.Tracker), batch paths at once on each (0: the
// default, at most count over the GPUs), with whole solves or, with
// evaluations, batched evaluations only, or says on stderr why it cannot
// and leaves opt for the CPU. It returns what releases the GPUs.
func useTrackGPU(opt *track.Options, count int64, ordinals []int, batch int, evaluations bool, kernelDir, nvccPath string, stderr io.Writer) (release func()) {
	start := time.Now()
	g, err := kernels.OpenTracker(ordinals, nvccPath, kernelDir)
	if err != nil {
		fmt.Fprintf(stderr, "mdgen: track: -gpu: %v; tracking on the CPU\n", err)
		return func() {}
	}
	batch = g.Batch(count, batch)
	fmt.Fprintf(stderr, "mdgen: track: on %s, %d paths at once on each (kernels cached in %s)\n", g.Name(), batch, kernelDir)
	// Notices: the executors' and nvcc's progress (the batched Newton
	// solve of 8 doubles takes it minutes, cached afterwards).
	g.Notices, g.Evaluations = stderr, evaluations
	if err := g.Prepare(*opt); err != nil {
		_ = g.Close()
		fmt.Fprintf(stderr, "mdgen: track: -gpu: %v; tracking on the CPU\n", err)
		return func() {}
	}
	// The wall time beyond the tracking time is mostly this (a context
	// and the kernels' modules on each GPU) and the release at the end.
	fmt.Fprintf(stderr, "mdgen: track: GPUs opened and kernels loaded in %.2f s\n", time.Since(start).Seconds())
	closeAll := g.Use(opt, batch)
	return func() {
		t := time.Now()
		_ = closeAll()
		_ = g.Close()
		fmt.Fprintf(stderr, "mdgen: track: GPUs released in %.2f s\n", time.Since(t).Seconds())
	}
}

// reportDeviceFailures says on stderr which GPUs failed during the run
// (the ordinals as -devices gave them; none: every visible GPU) and how
// many of their paths were tracked again on the others.
func reportDeviceFailures(stderr io.Writer, run *track.Run, ordinals []int) {
	for _, f := range run.DeviceFailures {
		ordinal := f.Device
		if f.Device < len(ordinals) {
			ordinal = ordinals[f.Device]
		}
		fmt.Fprintf(stderr, "mdgen: track: GPU %d failed, its %d paths in flight tracked again on the other GPUs: %v\n", ordinal, f.Requeued, f.Err)
	}
}
