package gpu

import (
	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
)

// NewtonShape, when not nil, gives the launch shape of the linear-algebra
// kernels of the GPU Newton back end on the device info describes, for
// precision p and a system of vars unknowns: the
// teams per block of the kernels of gpuabi.LAShapeOps (a nil result means
// the model's, gpuabi.LAModelTeams). runtime/tune.Install sets it to a
// tuning profile's choice, as it sets DeviceShape for the evaluation.
// The back end keeps the pointer it gets and reads the counts at every
// launch, so that mdgen tune can change them between two solves of one
// solver; a shape changes the time, never the bits.
var NewtonShape func(info cudadev.Info, p mdops.Prec, vars int) *gpuabi.LAShape

// newtonVariant returns the LAVariant of a Newton back end of c on the
// device info describes: its precision and kind of data, and the shape of
// NewtonShape when set.
func newtonVariant(info cudadev.Info, c backend.NewtonConfig) gpuabi.LAVariant {
	v := gpuabi.LAVariant{Prec: c.Prec}
	if f := NewtonShape; f != nil {
		if s := f(info, c.Prec, c.Vars); s != nil && s.Check() == nil {
			v.Shape = s
		}
	}
	return v
}
