package gpuabi

import (
	"slices"
	"testing"

	"github.com/mdgen/mdgen/stager"
	"github.com/mdgen/mdgen/stager/families"
)

// NewEvalTables holds JobTables' tables, and their layers in order: the
// convolution layers', then the addition layers'.
func TestNewEvalTables(t *testing.T) {
	inst, err := families.Build("cyclic", families.Options{N: 5})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := stager.Stage(inst.System, 3)
	if err != nil {
		t.Fatal(err)
	}
	conv, add, convLayers, addLayers := JobTables(plan)
	et := NewEvalTables(plan)
	if !slices.Equal(et.Conv, conv) || !slices.Equal(et.Add, add) {
		t.Fatal("the job tables differ from JobTables'")
	}
	if et.ConvLayers != len(plan.ConvLayers) || et.AddLayers != len(plan.AddLayers) || len(et.Layers) != 2*(et.ConvLayers+et.AddLayers) {
		t.Fatalf("%d+%d layers in %d words, the plan has %d+%d", et.ConvLayers, et.AddLayers, len(et.Layers), len(plan.ConvLayers), len(plan.AddLayers))
	}
	for i, l := range append(convLayers, addLayers...) {
		if et.Layers[2*i] != int64(l[0]) || et.Layers[2*i+1] != int64(l[1]) {
			t.Errorf("layer %d: (%d, %d), JobTables (%d, %d)", i, et.Layers[2*i], et.Layers[2*i+1], l[0], l[1])
		}
	}
}
