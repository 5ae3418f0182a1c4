// Package stager reads polynomial systems in PHCpack's plain format and
// stages their evaluation and differentiation at truncated power series into
// layered job tables (Verschelde's data staging, arXiv:2101.10881).
//
// The pipeline is Parse (system file → System) then Stage (System, degree →
// Plan). A Plan is pure data: slots of series in one data array, and layers of
// convolution and addition jobs. Executors (package runtime on the CPU, the
// emitted CUDA code on the GPU) run the layers in order; within a layer every
// job is independent, which Check proves for every Plan.
package stager
