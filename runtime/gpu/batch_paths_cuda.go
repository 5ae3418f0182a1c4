//go:build cuda

package gpu

import (
	"fmt"

	"github.com/mdgen/mdgen/internal/par"
	"github.com/mdgen/mdgen/stager"
)

// SetPaths sets the inputs and read-only slots of many paths at once, on
// every core: set(i, input, value) runs for paths[i] (concurrently for
// different i), with input and value doing SetInput and SetValue for that
// path. A path may appear once. The data are uploaded at the next Run.
func (b *Batch) SetPaths(paths []int, set func(i int, input func(v int, series []float64), value func(s stager.Slot, series []float64))) {
	for _, p := range paths {
		b.checkPath(p)
	}
	var inputs, values []bool
	inputs, values = make([]bool, len(paths)), make([]bool, len(paths))
	par.Run(len(paths), func(_, i int) {
		p := paths[i]
		set(i, func(v int, series []float64) {
			b.in.put(b.inStage, p, int(b.plan.Inputs[v]), series)
			inputs[i] = true
		}, func(s stager.Slot, series []float64) {
			if k := b.plan.Kinds[s]; k != stager.SlotConst && k != stager.SlotCoef {
				panic(fmt.Sprintf("gpu: Batch.SetPaths: slot %d is not a constant or coefficient slot", s))
			}
			b.putValue(p, s, series)
			values[i] = true
		})
	})
	for i, p := range paths {
		b.inDirty[p] = b.inDirty[p] || inputs[i]
		b.roDirty[p] = b.roDirty[p] || values[i]
		b.inPending = b.inPending || inputs[i]
		b.roPending = b.roPending || values[i]
	}
}
