// Package bench is mdgen's benchmark of the paper's table (`mdgen bench`):
// the systems p1, p2, p3 × precisions × degrees, real and complex data, on
// the GPU executor (or the CPU executor), side by side with PHCpack's
// numbers on the same H200 (phcpack_h200.csv, embedded), every GPU result
// checked bit for bit against the CPU executor on fresh random inputs.
//
// A session (Run) builds the kernels (gen/nvcc's content-hash cache,
// one fatbin per precision, in parallel), times every case (kernel and
// wall-clock ms as docs/gpu.md defines them), runs the CPU checks on a
// goroutine of their own while the GPU times the next cases, and reports:
// text tables in the shape of the paper, CSV, an SVG plot and JSON, which
// Merge-mode runs combine. The command line (cmd/mdgen/bench.go) only
// parses flags into a Config.
//
// RunNewton (`mdgen bench -newton`, NewtonConfig) is the Newton table:
// Newton's method on Taylor series on PHCpack's problem -1 (the monomial
// homotopy) on runtime/gpu's device-resident Newton when the binary and a
// device have it, else on runtime/newton's CPU back end, with the six stage
// times and the error against the exact series (SeriesError), beside
// PHCpack's GPU Newton on the same H200 (phcpack_newton_h200.csv, embedded).
package bench
