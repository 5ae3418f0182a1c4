package gpu

// The batched Newton solve (gen/gpuabi/bnewton.go): what both builds share
// of it: the solve's parameters from a newton.Solver's options, the
// tables of a plan, and the Result and steps of a path from its record.

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/mdops/la"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/newton"
	"github.com/mdgen/mdgen/stager"
)

// BNConfig is one batched solve's configuration: the system's plans, one
// per working degree of the driver (runtime/newton stages a plan per
// degree: stager.Stage(sys, w)), the precision, and the options of
// runtime/newton's driver that the kernel takes (newton.Solver.Options:
// defaults filled in).
type BNConfig struct {
	Plans map[int]*stager.Plan
	Prec  mdops.Prec
	Opt   newton.Options
}

// check refuses what the kernel does not do: degrees above bnMaxDegree,
// a missing plan, and m < n.
func (c BNConfig) check() error {
	o := c.Opt
	switch {
	case o.Degree > bnMaxDegree || o.Degree < 0:
		return fmt.Errorf("gpu: batched Newton: degree %d outside 0..%d", o.Degree, bnMaxDegree)
	case o.MaxSteps < 1:
		return fmt.Errorf("gpu: batched Newton: a step limit of %d", o.MaxSteps)
	}
	var n, m int
	for i, w := range newton.Stagger(o.Degree) {
		plan := c.Plans[w]
		if plan == nil || plan.Degree != w {
			return fmt.Errorf("gpu: batched Newton: no plan of degree %d", w)
		}
		if i == 0 {
			n, m = plan.NumVars, plan.NumPolys
		} else if plan.NumVars != n || plan.NumPolys != m {
			return fmt.Errorf("gpu: batched Newton: the plans of degrees 0 and %d differ in shape", w)
		}
	}
	if m < n || n < 1 {
		return fmt.Errorf("gpu: batched Newton: %d equations in %d unknowns (want m >= n >= 1)", m, n)
	}
	return o.Prec.Check()
}

// bnMaxDegree is gen.BNMaxDegree (the kernel's per-thread arrays).
const bnMaxDegree = 63

// BNLevel is one working degree's part of a batched solve: its plan, its
// array in a path's data region (PathMajor, d1 = W+1), and the
// coefficient slots that each solve sets, CK coefficients each (the rest
// zero), at CoefOff elements into a path's coefficients, CS apart. Levels
// whose plans number the coefficients alike and that set the same slots
// share one block: the top degree's, CS its CK, which only it packs
// (Packs); each reads its first CK coefficients of a slot there. A path's
// coefficients then go to the device once, not once a level (at katsura12
// and 4 doubles, 107 KB a path and solve before).
type BNLevel struct {
	W         int
	Plan      *stager.Plan
	Geo       gpuabi.BatchGeometry
	Off       int64
	CoefSlots []stager.Slot
	CK        int
	CoefOff   int
	CS        int
	Packs     bool
	// Param[j]: the term of the setup's ParamCoefs in CoefSlots[j], -1
	// for a slot whose series the host packs (UseParams).
	Param []int
}

// BNSetup is what a batched solve's launch needs besides the device,
// worked out on the host once per configuration (shared by BatchNewton
// and gen's host emulation of the kernel): the shape, the levels, the
// arrays' strides, and the tables.
type BNSetup struct {
	Config  BNConfig
	Vars    []string
	M, N, D int
	Paths   int
	Levels  []BNLevel
	// PathDoubles is a path's data region: every level's array.
	PathDoubles int64
	Strides     gpuabi.BNStrides
	// Conv, Add, Tabs and Lv are the kernel's tables (gpuabi/bnewton.go).
	Conv, Add []int32
	Tabs, Lv  []int64

	image []float64 // Image's, made once

	// The parametric coefficients that the device computes from each
	// path's parameter (UseParams; Params nil: none): the kernel's table
	// of entries (ParamEnt, 3 a slot: its offset in the block of
	// coefficients, the coefficients it holds, its term), of terms
	// (ParamTerms, 3 a term: the offset of its polynomial in ParamPolys,
	// its coefficients, its scale) and the polynomials.
	Params     *backend.ParamCoefs
	ParamEnt   []int64
	ParamTerms []int64
	ParamPolys []float64
}

// NewBNSetup checks c and returns the setup of solves of c for up to paths
// paths that set, at the level of working degree w, the coefficient slots
// coefSlots[w] (constants or coefficients of that plan) to series of at
// most min(ck, w+1) coefficients; vars names the unknowns (the Results'
// Vars).
func NewBNSetup(c BNConfig, vars []string, coefSlots map[int][]stager.Slot, ck, paths int) (*BNSetup, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	p0 := c.Plans[0]
	n, m, d := p0.NumVars, p0.NumPolys, c.Opt.Degree
	if len(vars) != n {
		return nil, fmt.Errorf("gpu: batched Newton: %d names for %d unknowns", len(vars), n)
	}
	if paths < 1 || paths > math.MaxInt32 {
		return nil, fmt.Errorf("gpu: batched Newton: %d paths", paths)
	}
	if ck < 1 {
		return nil, fmt.Errorf("gpu: batched Newton: %d coefficients a slot", ck)
	}
	s := &BNSetup{Config: c, Vars: vars, M: m, N: n, D: d, Paths: paths}
	coefs := 0
	top := slices.Max(newton.Stagger(d))
	topCS := c.Plans[top].CoefSlots()
	shared := -1 // the shared block's offset, once made
	for _, w := range newton.Stagger(d) {
		plan := c.Plans[w]
		l := BNLevel{W: w, Plan: plan, Geo: gpuabi.NewBatchGeometry(plan, c.Prec, 1, gpuabi.PathMajor), Off: s.PathDoubles,
			CoefSlots: coefSlots[w], CK: min(ck, w+1)}
		if slices.Equal(l.CoefSlots, coefSlots[top]) && plan.CoefSlots().Equal(topCS) {
			if shared < 0 {
				shared = coefs
				coefs += len(l.CoefSlots) * min(ck, top+1)
			}
			l.CoefOff, l.CS, l.Packs = shared, min(ck, top+1), w == top
		} else {
			l.CoefOff, l.CS, l.Packs = coefs, l.CK, true
			coefs += len(l.CoefSlots) * l.CK
		}
		for _, cs := range l.CoefSlots {
			if int(cs) < 0 || int(cs) >= plan.NumSlots() || plan.Kinds[cs] != stager.SlotCoef && plan.Kinds[cs] != stager.SlotConst {
				return nil, fmt.Errorf("gpu: batched Newton: slot %d of the plan of degree %d is not a coefficient slot", cs, w)
			}
		}
		s.PathDoubles += l.Geo.PathStride
		t := gpuabi.NewEvalTables(plan)
		lv := make([]int64, gpuabi.BNLvLen)
		lv[gpuabi.BNLvW], lv[gpuabi.BNLvData], lv[gpuabi.BNLvRowStride] = int64(w), l.Off, l.Geo.RowStride()
		lv[gpuabi.BNLvConv], lv[gpuabi.BNLvAdd], lv[gpuabi.BNLvLayers] = int64(len(s.Conv)), int64(len(s.Add)), int64(len(s.Tabs))
		lv[gpuabi.BNLvConvLayers], lv[gpuabi.BNLvAddLayers] = int64(t.ConvLayers), int64(t.AddLayers)
		s.Conv, s.Add = append(s.Conv, t.Conv...), append(s.Add, t.Add...)
		s.Tabs = append(s.Tabs, t.Layers...)
		lv[gpuabi.BNLvIn] = int64(len(s.Tabs))
		for _, in := range plan.Inputs {
			s.Tabs = append(s.Tabs, int64(in))
		}
		lv[gpuabi.BNLvVal] = int64(len(s.Tabs))
		for i := 0; i < m; i++ {
			s.Tabs = append(s.Tabs, int64(plan.Value[i]))
		}
		lv[gpuabi.BNLvDer] = int64(len(s.Tabs))
		for j := 0; j < n; j++ {
			for i := 0; i < m; i++ {
				ds := int64(-1)
				if x := plan.DerivSlot(i, j); x != stager.NoSlot {
					ds = int64(x)
				}
				s.Tabs = append(s.Tabs, ds)
			}
		}
		lv[gpuabi.BNLvCoefSlots], lv[gpuabi.BNLvNC] = int64(len(s.Tabs)), int64(len(l.CoefSlots))
		for _, cs := range l.CoefSlots {
			s.Tabs = append(s.Tabs, int64(cs))
		}
		lv[gpuabi.BNLvCoef], lv[gpuabi.BNLvCK], lv[gpuabi.BNLvCS] = int64(l.CoefOff), int64(l.CK), int64(l.CS)
		s.Lv = append(s.Lv, lv...)
		s.Levels = append(s.Levels, l)
	}
	s.Strides = gpuabi.NewBNStrides(c.Prec, m, n, d, coefs, c.Opt.MaxSteps)
	return s, nil
}

// Image returns one path's data region: every level's read-only slots
// rounded as the CPU executor of that degree rounds them, zero elsewhere
// (made once; the caller must not change it).
func (s *BNSetup) Image() ([]float64, error) {
	if s.image != nil {
		return s.image, nil
	}
	image := make([]float64, s.PathDoubles)
	for _, l := range s.Levels {
		w := l.Geo.W
		err := backend.RoundValues(l.Plan, 0, l.Plan.NumSlots(), backend.Layout{Prec: s.Config.Prec, Degree: l.W}, 0,
			func(slot stager.Slot, series []float64) {
				for k := 0; k <= l.W; k++ {
					for row := 0; row < w; row++ {
						v := 0.0
						if i := k*w + row; i < len(series) {
							v = series[i]
						}
						image[l.Off+l.Geo.Index(0, row, int(slot), k)] = v
					}
				}
			})
		if err != nil {
			return nil, err
		}
	}
	s.image = image
	return image, nil
}

// Scalars returns the kernel's scalar parameters after its arrays: m, n,
// d, maxSteps, the bits of maxCond, u, sqrtU and the rank tolerance, and
// the flags.
func (s *BNSetup) Scalars() []any {
	c := s.Config
	u := c.Prec.UnitRoundoff()
	var flags int64
	if c.Opt.NoResidual {
		flags |= gpuabi.BNNoResidual
	}
	if c.Opt.NoFinalResidual {
		flags |= gpuabi.BNNoFinalResidual
	}
	return []any{int64(s.M), int64(s.N), int64(s.D), int64(c.Opt.MaxSteps),
		int64(math.Float64bits(c.Opt.MaxCond)), int64(math.Float64bits(u)),
		int64(math.Float64bits(newton.HalfPrecision(u))), int64(math.Float64bits(float64(s.N) * la.Eps(c.Prec.N))), flags}
}

// Result returns the Result of a path and its steps from its record rec
// (Strides.Rec doubles) and its series x (kept), as runtime/newton's
// driver fills them for that solve.
func (s *BNSetup) Result(rec, x []float64) (*newton.Result, []newton.StepInfo) {
	c, vars := s.Config, s.Vars
	n := c.Opt.Prec.N
	res := &newton.Result{N: n, Complex: c.Prec.Complex, Degree: c.Opt.Degree, Vars: vars, X: x}
	res.Steps = int(rec[gpuabi.BNRecSteps])
	res.RefineSteps = int(rec[gpuabi.BNRecRefineSteps])
	res.Cond = rec[gpuabi.BNRecCond]
	res.Update = rec[gpuabi.BNRecUpdate]
	res.PointUpdate = rec[gpuabi.BNRecPointUpdate]
	res.Residual = rec[gpuabi.BNRecResidual]
	res.FNorm = rec[gpuabi.BNRecFNorm]
	res.StartResidual = rec[gpuabi.BNRecStartResidual]
	res.Work = newton.Work{QRs: int(rec[gpuabi.BNRecQRs]), Inverses: int(rec[gpuabi.BNRecInverses]),
		Updates: int(rec[gpuabi.BNRecUpdates])}
	res.Converged = rec[gpuabi.BNRecState] == 1
	if !res.Converged {
		f := &newton.Failure{Kind: newton.FailureKind(rec[gpuabi.BNRecKind]), Step: int(rec[gpuabi.BNRecFailStep]),
			Degree: int(rec[gpuabi.BNRecFailDegree]), Refine: rec[gpuabi.BNRecFailRefine] != 0,
			Update: rec[gpuabi.BNRecFailUpdate], PrevUpdate: rec[gpuabi.BNRecFailPrev],
			Residual: rec[gpuabi.BNRecFailResidual], FNorm: rec[gpuabi.BNRecFailFNorm],
			Cond: rec[gpuabi.BNRecFailCond], MaxCond: rec[gpuabi.BNRecFailMaxCond], SqrtU: rec[gpuabi.BNRecFailSqrtU],
			StartResidual: rec[gpuabi.BNRecFailStart], NonFinite: rec[gpuabi.BNRecNonFinite] != 0}
		if col := int(rec[gpuabi.BNRecRankCol]); col != 0 {
			f.Rank = &la.RankError{Col: col, Ratio: rec[gpuabi.BNRecRankRatio], Tol: float64(len(vars)) * la.Eps(n)}
			f.Col = col
		}
		res.Err = f
	}
	steps := make([]newton.StepInfo, int(rec[gpuabi.BNRecReported]))
	for i := range steps {
		s := rec[gpuabi.BNRecLen+i*gpuabi.BNStepLen:]
		w := int(s[gpuabi.BNStepDegree])
		steps[i] = newton.StepInfo{Step: i + 1, Refine: s[gpuabi.BNStepRefine] != 0, Degree: w,
			Update: s[gpuabi.BNStepUpdate], UpdateOld: s[gpuabi.BNStepUpdateOld], Residual: s[gpuabi.BNStepResidual],
			Blocks: w + 1, Skipped: int(s[gpuabi.BNStepSkipped])}
	}
	return res, steps
}

// UseParams makes the device compute the coefficient slots of pc's terms
// from each path's parameter (gpuabi.BNParamKernelName's kernel, before
// the solve): PackCoef leaves them alone. pc must be of the setup's
// precision, complex, its polynomials at most gpuabi.BNParamMaxLen long,
// and every slot of its terms among the setup's coefficient slots.
func (s *BNSetup) UseParams(pc *backend.ParamCoefs) error {
	if pc.Prec != s.Config.Prec || !pc.Prec.Complex || pc.Len > gpuabi.BNParamMaxLen {
		return fmt.Errorf("gpu: batched Newton: parametric coefficients of %s data, %d coefficients long, for a solve of %s data (complex, at most %d)",
			pc.Prec, pc.Len, s.Config.Prec, gpuabi.BNParamMaxLen)
	}
	W := s.Config.Prec.Width()
	var ent, terms []int64
	var polys []float64
	for _, t := range pc.Terms {
		term := [gpuabi.BNParamTerm]int64{int64(len(polys)), int64(len(t.Poly) / W), int64(t.Scale)}
		terms = append(terms, term[:]...)
		polys = append(polys, t.Poly...)
	}
	for li := range s.Levels {
		l := &s.Levels[li]
		l.Param = make([]int, len(l.CoefSlots))
		for j := range l.Param {
			l.Param[j] = -1
		}
		for k, slot := range pc.Slots(l.Plan) {
			if slot == stager.NoSlot {
				continue
			}
			j, ok := slices.BinarySearch(l.CoefSlots, slot)
			if !ok {
				return fmt.Errorf("gpu: batched Newton: the slot %d of parametric coefficient %d (degree %d) is not among the solve's coefficient slots", slot, k, l.W)
			}
			l.Param[j] = k
			if l.Packs {
				e := [gpuabi.BNParamEntry]int64{int64(l.CoefOff + j*l.CS), int64(l.CK), int64(k)}
				ent = append(ent, e[:]...)
			}
		}
	}
	s.Params, s.ParamEnt, s.ParamTerms, s.ParamPolys = pc, ent, terms, polys
	return nil
}

// PackParams writes path p's parameter at (tau, then the exponent e) into
// dst at gpuabi.BNParamAt p, as the parametric coefficients' kernel reads
// it.
func PackParams(dst []float64, p int, at backend.ParamAt) {
	d := dst[gpuabi.BNParamAt*p : gpuabi.BNParamAt*(p+1)]
	d[0], d[1] = at.Tau, float64(at.E)
}

// PackCoef writes a path's coefficients (Strides.Coef elements of W
// doubles) into dst: for each level, the series value(w, s) of each of
// its coefficient slots s, CK coefficients (zeros after a shorter series;
// nil: the plan's value, as the CPU executor rounds it).
func (s *BNSetup) PackCoef(dst []float64, value func(w int, slot stager.Slot) []float64) error {
	W := s.Config.Prec.Width()
	for _, l := range s.Levels {
		if !l.Packs {
			continue // its block is the top degree's
		}
		for j, slot := range l.CoefSlots {
			if l.Param != nil && l.Param[j] >= 0 {
				continue // the device computes it (UseParams)
			}
			c := dst[(l.CoefOff+j*l.CS)*W : (l.CoefOff+j*l.CS+l.CK)*W]
			v := value(l.W, slot)
			if v == nil {
				image, err := s.Image()
				if err != nil {
					return err
				}
				for k := 0; k < l.CK; k++ {
					for row := 0; row < W; row++ {
						c[k*W+row] = image[l.Off+l.Geo.Index(0, row, int(slot), k)]
					}
				}
				continue
			}
			n := copy(c, v)
			clear(c[n:])
		}
	}
	return nil
}

// BNTimes is where a BatchNewton's solves spent their wall time: Pack the
// starts and coefficients into the staging buffers (the host), Device
// from the first copy's enqueueing to the stream's end (the copies, the
// launch's wait for the device and the kernel: polled, so up to a poll
// late), Decode the Results (the host). Solves and Paths count them.
type BNTimes struct {
	Solves, Paths        int64
	Pack, Device, Decode time.Duration
}

// Add adds u's times and counts to t.
func (t *BNTimes) Add(u BNTimes) {
	t.Solves += u.Solves
	t.Paths += u.Paths
	t.Pack += u.Pack
	t.Device += u.Device
	t.Decode += u.Decode
}

// BNMemoryError is NewBatchNewton's refusal of a batch whose arrays do
// not fit the device's free memory: Fit paths would (0: not one). It is
// an ErrMemory.
type BNMemoryError struct {
	Paths, Fit int
	Need, Free int64 // bytes: the batch's arrays, the device's free memory less the reserve
}

func (e *BNMemoryError) Error() string {
	return fmt.Sprintf("gpu: %v: the batched Newton solve of %d paths needs %s, %s is free (%s kept in reserve): at most %d paths fit",
		ErrMemory, e.Paths, stager.FormatBytes(e.Need), stager.FormatBytes(e.Free), stager.FormatBytes(memoryReserve), e.Fit)
}

func (e *BNMemoryError) Unwrap() error { return ErrMemory }
