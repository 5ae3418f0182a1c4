package kernels

import (
	"errors"
	"sync"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/gpu"
	"github.com/mdgen/mdgen/runtime/lockstep"
	"github.com/mdgen/mdgen/stager"
)

// Batches makes the batched evaluations of runtime/lockstep's batched
// executor on the Builder's device (gpu.Batch, with Options),
// building and loading the batched kernels of each precision and kind of
// data on first use (a tracker with the automatic precision needs several).
type Batches struct {
	// Options are the batches' options (set before the first
	// NewEvaluator).
	Options gpu.BatchOptions

	b  *Builder
	mu sync.Mutex
	ks map[mdops.Prec]*gpu.Kernels
}

// Batches returns the batched evaluations of b's device.
func (b *Builder) Batches() *Batches { return &Batches{b: b, ks: map[mdops.Prec]*gpu.Kernels{}} }

// NewEvaluator is a lockstep.NewEvaluator: a gpu.Batch of plan for paths
// paths at precision p. A batch that does not fit the device's free
// memory is refused with a lockstep.TooLargeError that says how many
// paths fit (the executor splits the batch).
func (t *Batches) NewEvaluator(plan *stager.Plan, p mdops.Prec, paths int) (lockstep.Evaluator, error) {
	k, err := t.kernels(p)
	if err != nil {
		return nil, err
	}
	bt, err := gpu.NewBatch(plan, p, paths, k, t.Options)
	if errors.Is(err, gpu.ErrMemory) {
		if fit, ferr := gpu.MaxBatchPaths(t.b.dev, plan, p, t.Options.Order); ferr == nil && fit < paths {
			return nil, &lockstep.TooLargeError{Paths: paths, Fit: fit, Err: err}
		}
	}
	if err != nil {
		return nil, err
	}
	return bt, nil
}

func (t *Batches) kernels(p mdops.Prec) (*gpu.Kernels, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if k, ok := t.ks[p]; ok {
		return k, nil
	}
	ks, _, err := t.b.Batch([]int{p.N}, p.Complex)
	if err != nil {
		return nil, err
	}
	t.ks[p] = ks[0]
	return ks[0], nil
}

// Close unloads the kernels (after the batches are closed).
func (t *Batches) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return closeKernels(t.ks)
}
