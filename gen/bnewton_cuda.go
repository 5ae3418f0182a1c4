package gen

import (
	"fmt"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/gen/nvcc"
	"github.com/mdgen/mdgen/mdops"
)

// The batched Newton solve (gen/gpuabi/bnewton.go) comes from
// templates/bnewton.cu.tmpl, after everything it calls in one translation
// unit: the evaluation kernels with the batched ones (BatchKernelsCU, whose
// headers carry the arithmetic; the per-block evaluation
// mdgen_beval_block_<suffix>), the linear algebra without its own copy of
// the arithmetic (newtonLACU, as an emitted .cu holds it), the batched
// linear algebra's bodies (batchLACU: BatchLAKernelsCU's part after
// LAKernelsCU) and
// the driver.

// bnPrefetch sets la_pf's depth for the batched solve's linear algebra to
// one term. A path is one block of a small system, so a reduction's lane
// has a few terms and a deeper prefetch (la_ring1, la_ring2: D copies of
// the loop's body, 4 for 2 doubles complex, 8 for 1) only adds code. That
// code is what bounds the batched solve: on the H200 its warps wait mostly
// for instructions (docs/results.md, session 19), and one term deep made
// one launch (katsura12, degree 8, 4,224 paths) 28% faster at 1 double and
// 14% at 2, and the tracker on katsura12 30% faster at 4 doubles and 39% at
// 2 (session 20). The order of the operations, and so every bit, does not
// depend on the depth. An nvcc -DMDGEN_LA_PF_D=k still overrides it.
const bnPrefetch = `
// The batched solve's prefetch depth (gen.bnPrefetch says why).
#ifndef MDGEN_LA_PF_D
#define MDGEN_LA_PF_D 1
#endif
`

// BNMaxDegree is the largest degree of a batched solve: the driver keeps
// d+1 skip flags and block norms per thread.
const BNMaxDegree = 63

// BatchNewtonKernelsCU returns the body of BatchNewtonCUSource: the .cu
// of the batched Newton solve at precision p (it #includes mdbase.cuh and
// md<N>.cuh, which BatchNewtonCUSource supplies).
func BatchNewtonKernelsCU(p mdops.Prec) ([]byte, error) {
	if err := p.Check(); err != nil {
		return nil, fmt.Errorf("gen: no batched Newton solve for %w", err)
	}
	eval, err := BatchKernelsCU([]int{p.N}, []bool{false, true})
	if err != nil {
		return nil, err
	}
	hs, err := emittedHeaders(p.N)
	if err != nil {
		return nil, err
	}
	laPart, err := newtonLACU(p, hs)
	if err != nil {
		return nil, err
	}
	blaPart, err := batchLACU([]int{p.N}, []bool{p.Complex})
	if err != nil {
		return nil, err
	}
	type variant struct {
		N                             int
		Complex                       bool
		Suffix, Name, Eval, ParamName string
	}
	bn, err := render("bnewton.cu.tmpl", map[string]any{
		"Variants": []variant{{N: p.N, Complex: p.Complex, Suffix: p.Suffix(), Name: gpuabi.BNKernelName(p),
			Eval: gpuabi.BatchEvalBlockName(p), ParamName: gpuabi.BNParamKernelName(p)}},
		"Sig":        gpuabi.BNSignature(),
		"MaxThreads": gpuabi.LAMaxThreads,
		"Lanes":      gpuabi.LALanes,
		"Info":       gpuabi.BatchLAInfo,
		"RankCol":    gpuabi.BatchLARankCol,
		"RankRatio":  gpuabi.BatchLARankRatio,
		"MaxD1":      BNMaxDegree + 1,
		"NoResidual": gpuabi.BNNoResidual, "NoFinalResidual": gpuabi.BNNoFinalResidual,
		"RecLen":  gpuabi.BNRecLen,
		"StepLen": gpuabi.BNStepLen,

		"RecState": gpuabi.BNRecState, "RecKind": gpuabi.BNRecKind, "RecFailStep": gpuabi.BNRecFailStep,
		"RecFailDegree": gpuabi.BNRecFailDegree, "RecFailRefine": gpuabi.BNRecFailRefine,
		"RecFailUpdate": gpuabi.BNRecFailUpdate, "RecFailPrev": gpuabi.BNRecFailPrev,
		"RecFailResidual": gpuabi.BNRecFailResidual, "RecFailFNorm": gpuabi.BNRecFailFNorm,
		"RecFailCond": gpuabi.BNRecFailCond, "RecFailMaxCond": gpuabi.BNRecFailMaxCond,
		"RecFailSqrtU": gpuabi.BNRecFailSqrtU, "RecFailStart": gpuabi.BNRecFailStart,
		"RecNonFinite": gpuabi.BNRecNonFinite, "RecRankCol": gpuabi.BNRecRankCol, "RecRankRatio": gpuabi.BNRecRankRatio,
		"RecSteps": gpuabi.BNRecSteps, "RecRefineSteps": gpuabi.BNRecRefineSteps, "RecCond": gpuabi.BNRecCond,
		"RecUpdate": gpuabi.BNRecUpdate, "RecPointUpdate": gpuabi.BNRecPointUpdate,
		"RecResidual": gpuabi.BNRecResidual, "RecFNorm": gpuabi.BNRecFNorm,
		"RecStartResidual": gpuabi.BNRecStartResidual, "RecQRs": gpuabi.BNRecQRs,
		"RecInverses": gpuabi.BNRecInverses, "RecUpdates": gpuabi.BNRecUpdates, "RecReported": gpuabi.BNRecReported,
		"StepRefine": gpuabi.BNStepRefine, "StepDegree": gpuabi.BNStepDegree, "StepUpdate": gpuabi.BNStepUpdate,
		"StepUpdateOld": gpuabi.BNStepUpdateOld, "StepResidual": gpuabi.BNStepResidual,
		"StepSkipped": gpuabi.BNStepSkipped,

		"LvLen": gpuabi.BNLvLen, "LvW": gpuabi.BNLvW, "LvData": gpuabi.BNLvData, "LvRowStride": gpuabi.BNLvRowStride,
		"LvConv": gpuabi.BNLvConv, "LvAdd": gpuabi.BNLvAdd, "LvLayers": gpuabi.BNLvLayers,
		"LvConvLayers": gpuabi.BNLvConvLayers, "LvAddLayers": gpuabi.BNLvAddLayers, "LvIn": gpuabi.BNLvIn,
		"LvVal": gpuabi.BNLvVal, "LvDer": gpuabi.BNLvDer, "LvCoefSlots": gpuabi.BNLvCoefSlots, "LvNC": gpuabi.BNLvNC,
		"LvCoef": gpuabi.BNLvCoef, "LvCK": gpuabi.BNLvCK, "LvCS": gpuabi.BNLvCS,

		"ParamEntry": gpuabi.BNParamEntry, "ParamTerm": gpuabi.BNParamTerm, "ParamAt": gpuabi.BNParamAt,
	})
	if err != nil {
		return nil, err
	}
	out := append([]byte{}, eval...)
	out = append(out, bnPrefetch...)
	out = append(out, laPart...)
	out = append(out, blaPart...)
	return append(out, bn...), nil
}

// BatchNewtonCUSource returns the CUDA source of the batched Newton solve
// at precision p with the headers it includes, for nvcc.Compiler.Build
// (runtime/gpu.LoadBatchNewtonKernels loads the fatbin).
func BatchNewtonCUSource(p mdops.Prec) (nvcc.Source, error) {
	if err := p.Check(); err != nil {
		return nvcc.Source{}, fmt.Errorf("gen: no batched Newton solve for %w", err)
	}
	src, err := evalSource(p.N, "bnewton-"+p.Kind()[:1], func() ([]byte, error) { return BatchNewtonKernelsCU(p) })
	if err != nil {
		return nvcc.Source{}, err
	}
	// The parametric coefficients' kernel includes the tracker's twin.
	fpH, err := CUDAFP()
	if err != nil {
		return nvcc.Source{}, err
	}
	trackH, err := CUDATrack()
	if err != nil {
		return nvcc.Source{}, err
	}
	src.Headers["mdfp.cuh"], src.Headers["mdtrack.cuh"] = fpH, trackH
	return src, nil
}
