package gpuabi

import (
	"fmt"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/stager"
)

// LayoutVersion is the version of the contract described in the package
// comment.
const LayoutVersion = 3

// Symbols an mdgen fatbin may carry (extern "C" __device__ globals).
const (
	// LayoutSymbol holds LayoutVersion (an int or a long long).
	LayoutSymbol = "mdgen_layout_version"
	// ConvJobsSymbol and AddJobsSymbol hold the job tables of one staged
	// plan, as int32 in the layout of JobTables.
	ConvJobsSymbol = "mdgen_conv_jobs"
	AddJobsSymbol  = "mdgen_add_jobs"
)

// Kind is the kind of a kernel: a convolution or an addition.
type Kind string

const (
	Conv Kind = "conv"
	Add  Kind = "add"
)

// Kinds lists the kernels of one precision and kind of data.
var Kinds = []Kind{Conv, Add}

// KernelName returns the extern "C" name of a kernel.
func KernelName(kind Kind, p mdops.Prec) string {
	return "mdgen_" + string(kind) + "_" + p.Suffix()
}

// Parts returns the parts of a number: 1 for real data, 2 for complex.
func Parts(complex bool) int {
	if complex {
		return 2
	}
	return 1
}

// Sizes are the device memory a plan needs at one precision.
type Sizes struct {
	Slots      int   // series in the data array
	SlotStride int64 // doubles of one limb array: Slots·(Degree+1)
	DataBytes  int64 // the data array: SlotStride·N·parts·8
	TableBytes int64 // the job tables: (3·conv + 2·add)·4
}

// Total returns DataBytes + TableBytes.
func (s Sizes) Total() int64 { return s.DataBytes + s.TableBytes }

// Memory returns the device memory of the data array and the job tables of
// plan at precision p.
func Memory(plan *stager.Plan, p mdops.Prec) Sizes {
	s := Sizes{Slots: plan.NumSlots()}
	s.SlotStride = int64(s.Slots) * int64(plan.Degree+1)
	s.DataBytes = s.SlotStride * int64(p.Width()) * 8
	s.TableBytes = (3*int64(plan.ConvJobs()) + 2*int64(plan.AddJobs())) * 4
	return s
}

// Describe names the sizes of a plan for an error message.
func (s Sizes) Describe(plan *stager.Plan, p mdops.Prec) string {
	return fmt.Sprintf("degree %d in %s data needs %s of device memory "+
		"(data array: %d series × %d coefficients × %d doubles = %s; job tables: %d convolution + %d addition jobs = %s)",
		plan.Degree, p, stager.FormatBytes(s.Total()),
		s.Slots, plan.Degree+1, p.Width(), stager.FormatBytes(s.DataBytes),
		plan.ConvJobs(), plan.AddJobs(), stager.FormatBytes(s.TableBytes))
}

// JobTables returns the job tables of plan (convolutions (out, a, b),
// additions (dst, src), layer after layer) and the first job and job count
// of every layer.
func JobTables(plan *stager.Plan) (conv, add []int32, convLayers, addLayers [][2]int) {
	conv = make([]int32, 0, 3*plan.ConvJobs())
	for _, l := range plan.ConvLayers {
		convLayers = append(convLayers, [2]int{len(conv) / 3, len(l)})
		for _, j := range l {
			conv = append(conv, int32(j.Out), int32(j.A), int32(j.B))
		}
	}
	add = make([]int32, 0, 2*plan.AddJobs())
	for _, l := range plan.AddLayers {
		addLayers = append(addLayers, [2]int{len(add) / 2, len(l)})
		for _, j := range l {
			add = append(add, int32(j.Dst), int32(j.Src))
		}
	}
	return conv, add, convLayers, addLayers
}
