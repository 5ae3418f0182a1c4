//go:build !linux

package la

import "runtime"

// osYield lets other goroutines run (no portable way to yield the thread).
func osYield() { runtime.Gosched() }
