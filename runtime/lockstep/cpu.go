package lockstep

import (
	"github.com/mdgen/mdgen/internal/par"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/cpu"
	"github.com/mdgen/mdgen/stager"
)

// NewCPU returns the executor that runs runtime/cpu's Newton back end per
// slot (the slots of a group on every core), every call through the
// coordinator: the reference of the batched executors, and what checks
// the coordinator without a GPU.
func NewCPU() Executor { return cpuExecutor{} }

type cpuExecutor struct{}

func (cpuExecutor) NewExecutor(plan *stager.Plan, p mdops.Prec, workers int) (backend.Executor, error) {
	return cpu.New(plan, p, workers)
}

func (cpuExecutor) Open(c backend.NewtonConfig) (Slot, error) { return cpu.NewNewton(c) }

func (cpuExecutor) Run(slots []Slot, calls []*Call) {
	par.Run(len(slots), func(_, i int) { Apply(slots[i].(*cpu.Newton), calls[i]) })
}

func (cpuExecutor) RunAlone(Slot, *Call) bool { return false }

func (cpuExecutor) Finish(Slot, *Call) {}
