// Package par runs independent chunks of work on every core, for the
// passes of package stager (validating, surveying and staging a system) and
// the families of package stager/families that build large systems one
// polynomial at a time. Each chunk touches only what belongs to it, so
// nothing Run computes depends on the number of workers.
package par

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Run calls f(w, k) for every chunk k in [0, n) on at most GOMAXPROCS
// workers; w in [0, workers) names the worker, for scratch space of its own.
// It returns the number of workers. f(w, k) must touch only what belongs to
// k (and w's scratch), so that no result depends on the number of workers.
func Run(n int, f func(w, k int)) int { return RunOn(0, n, f) }

// RunOn is Run on at most workers workers (0: GOMAXPROCS, as Run), for
// the work of a command whose -workers flag bounds the cores it takes.
func RunOn(workers, n int, f func(w, k int)) int {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, n))
	if workers == 1 {
		for k := range n {
			f(0, k)
		}
		return 1
	}
	var wg sync.WaitGroup
	var next atomic.Int64
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := int(next.Add(1)) - 1
				if k >= n {
					return
				}
				f(w, k)
			}
		}()
	}
	wg.Wait()
	return workers
}

// Workers is the number of workers Run uses for n chunks.
func Workers(n int) int { return max(1, min(runtime.GOMAXPROCS(0), n)) }
