//go:build race

// Package race tells whether the binary runs under the race detector: tests
// that count allocations skip then, since the detector makes sync.Pool drop
// items at random (la's scratch buffers come from pools).
package race

// Enabled is true under the race detector.
const Enabled = true
