//go:build !cuda

package gpu

import "github.com/mdgen/mdgen/stager"

// SetPaths does nothing: this build cannot make a Batch.
func (b *Batch) SetPaths(paths []int, set func(i int, input func(v int, series []float64), value func(s stager.Slot, series []float64))) {
}
