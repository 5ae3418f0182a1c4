// Package lockstep runs the Newton solvers of many goroutines as batches:
// a path tracker (runtime/track) with thousands of workers, one path each,
// whose solvers' back ends (newton.Backend) are slots of shared batches.
// Each Backend call that the Executor batches blocks until a coordinator,
// seeing every joined worker blocked on some call (or gone), runs one
// group of identical calls (one solver configuration: system, precision,
// degree; one method with the same arguments: the working degree, the
// block) as ONE operation of the Executor over those slots, then wakes
// them: the group earliest in the sequence of a solve, so that the workers
// behind catch up with those waiting further on. Every slot computes what
// runtime/cpu's Newton back end computes for its solver alone, so each
// path's bits are the CPU tracker's whatever the grouping.
//
//	co := lockstep.New(lockstep.NewBatched(newEvaluator, slots)) // or lockstep.NewCPU()
//	run, err := track.Track(h, track.Options{Workers: slots, Devices: []track.Device{co}}, 0, 0)
//
// Two executors: NewCPU runs the CPU back end per slot, every call
// grouped (the reference: a test checks that track.Track through it gives
// the bits of track.Track without it), and NewBatched groups only the
// evaluations, each group one batched evaluation (runtime/gpu's Batch on
// the GPU), while each worker does the rest of Newton's work for its
// solvers at once on the host, with the CPU back end reading the batch's
// outputs (Executor.RunAlone, and Executor.Finish after its group ran).
//
// # Whole solves
//
// A Newton step is about 11 Backend calls, each grouped call a round
// (a wait for every worker, then the executor's run): too many for a
// device that does all of Newton's work. An executor that implements
// SolveExecutor takes whole solves instead: its solvers' back ends are
// newton.WholeSolvers, the Solver hands each solve to the coordinator
// whole (a SolveCall: the start, the driver's newton.Settings, the
// Result and the steps to fill in, the path), and the solves of one
// configuration with the same settings (RefineTol aside: the tracker
// refines to the working precision at t = 1 only) are one group, one
// RunSolves: on a GPU, one launch that runs the driver for every slot of
// the group. Every slot's Result and steps are the driver's on the CPU
// back end, bit for bit, so each path's bits are still the CPU
// tracker's. NewCPUSolves is the reference: it runs newton.Driver (the
// driver's one home, runtime/newton's run.go) on each slot's CPU back
// end. The rounds drop from the calls of the longest path to its solves
// (BenchmarkTrackSolves: katsura 8 at 2 doubles, a worker per path, 39
// solves a path on average, 70 on the longest: 70 rounds of about 205
// groups with Together, 120 to 190 one group a round, against 14,600 to
// 17,000 with NewCPU and about 380 rounds of 1,950 groups with the
// batched evaluations and Together). Groups of whole solves are picked
// largest first (Coordinator.pick). DeviceSolves is the SolveExecutor of
// a SolveDevice, a device that runs a group of whole solves at once
// (runtime/gpu/kernels.Solves: runtime/gpu's BatchNewton, the driver of
// every path of the group in one launch, a block per path): each
// solver's executors only record the coefficient values the tracker
// sets, which go to the device with the starts, and the parameter of
// the homotopy's coefficients (backend.ParamSetter: the tracker's tau),
// from which the device computes them (SolveDevice.NewSolver's pc).
//
//	co := lockstep.New(lockstep.NewDeviceSolves(builder.Solves(), (slots+15)/16))
//	co.Pipeline = 16
//
// Rounds make every group of a round wait for the round's slowest solve,
// while most of the device idles (a block per solve; a solve that fails
// runs to its step limit). Coordinator.Pipeline runs groups of whole
// solves without rounds instead: up to Pipeline groups at once, each of
// at most 1/Pipeline of the workers, a group starting when it is that
// full or when no worker computes on the host; each group waits for its
// own slowest solve, and its workers go on while the others run (each
// running group holds a device solver of its own: DeviceSolves makes
// more when all are busy). On the H200 with 16 groups: katsura 10 and
// cyclic 6, 1.7 times the paths per second of rounds with Together
// (docs/results.md). Coordinator.Eager starts a group as soon as a run
// is free instead (not measured on a GPU yet). BenchmarkTrackPipeline
// models a latency-bound device (a launch lasts as long as its slowest
// solve's Newton steps) to compare the rules on the host.
//
// # Deadlock freedom
//
// A worker joins before its first call and leaves after its last
// (track.Track's workers: when they have no more paths). The coordinator
// runs, in the goroutine of the last caller to block (or of the last to
// leave), when the blocked calls are at least as many as the joined
// workers; a worker computing on the host is not blocked, and it will
// block or leave. A call from a goroutine that never joined (a Solver used
// alone) runs as soon as every joined worker is blocked. A group waiting
// for more than maxWaitRounds runs goes first, so that no group starves.
// With Coordinator.Together a run is a round of every ready group at
// once (the lock step's wall time is at least its rounds times a device's
// round trip), each group in a goroutine of its own; the executor's
// groups of one round never share an operation at one working degree of
// one configuration (Batched: never an evaluator). With
// Coordinator.Pipeline a group of whole solves starts (in a goroutine of
// its own) in the goroutine of the caller that fills it to the chunk, of
// the last caller to block, of the last to leave, or of the group that
// ends and frees a run: while fewer than Pipeline groups run, a pending
// group waits only for workers that compute on the host, and they will
// block or leave.
//
// # Failures
//
// Calls carry the tracker's index of their solver's path
// (Coordinator.SolverFor, runtime/track's PathNamer), so that a failed
// group names its paths: a batched evaluation that fails gives each of
// its slots a BatchError (the stage, the working degree of the step, the
// precision and degree, the paths; runtime/newton adds its step), which
// runtime/track takes for a device's failure: the paths go back to the
// tracker's queue. A group of whole solves that fails gives each call
// the same (SolveBatchError, Solves set). The executor drops the failed evaluator and the
// coordinator goes on, so the next call (the next run on the same
// coordinator) works. A batch that does not fit the device (a
// TooLargeError from the NewEvaluator) is split into batches that fit,
// which Batched.Notify tells.
package lockstep
