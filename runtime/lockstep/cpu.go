package lockstep

import (
	"github.com/mdgen/mdgen/internal/par"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/cpu"
	"github.com/mdgen/mdgen/runtime/newton"
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

// NewCPUSolves returns the SolveExecutor that runs each whole solve of a
// group with runtime/newton's driver (newton.Driver) on the slot's
// runtime/cpu Newton back end (the slots of a group on every core): the
// reference of an executor that runs a group's solves on a device in one
// launch, each path's bits the Solver's on the CPU by construction.
func NewCPUSolves() SolveExecutor { return cpuSolves{} }

type cpuSolves struct{ cpuExecutor }

// cpuSolveSlot is a slot of NewCPUSolves: the CPU back end and the
// driver's state between its solves.
type cpuSolveSlot struct {
	*cpu.Newton
	driver newton.Driver
}

func (cpuSolves) Open(c backend.NewtonConfig) (Slot, error) {
	be, err := cpu.NewNewton(c)
	if err != nil {
		return nil, err
	}
	return &cpuSolveSlot{Newton: be}, nil
}

func (cpuSolves) Run(slots []Slot, calls []*Call) {
	par.Run(len(slots), func(_, i int) { Apply(slots[i].(*cpuSolveSlot).Newton, calls[i]) })
}

func (cpuSolves) RunSolves(slots []Slot, calls []*SolveCall) {
	par.Run(len(slots), func(_, i int) {
		s := slots[i].(*cpuSolveSlot)
		calls[i].Err = s.driver.Solve(s.Newton, calls[i].WholeSolve)
	})
}
