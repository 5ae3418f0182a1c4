package gpu_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/gpu"
	"github.com/mdgen/mdgen/runtime/newton"
	"github.com/mdgen/mdgen/stager"
	"github.com/mdgen/mdgen/stager/families"
)

// TestBNParamTable: the coefficient block that the parametric
// coefficients' kernel leaves (BNSetup.UseParams' table read as the kernel
// reads it: each entry's slot gets the first CK coefficients of its
// term's ParamCoefs.Series, zeros after; PackCoef the other slots) equals
// the block PackCoef writes when the host sets every slot to its series
// (truncated and padded as a solver's slot holds it), for levels that
// share the top degree's block and a level with a block of its own, at 1
// and 4 doubles, series shorter and longer than the slots, scalings; and
// no two entries write the same coefficient (the kernel's threads run in
// any order).
func TestBNParamTable(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, N := range []int{1, 4} {
		p := mdops.Prec{N: N, Complex: true}
		W := p.Width()
		inst, err := families.System("katsura3", families.Options{Complex: true})
		if err != nil {
			t.Fatal(err)
		}
		sys := inst.System
		const d = 4
		plans := map[int]*stager.Plan{}
		for _, w := range newton.Stagger(d) {
			if plans[w], err = stager.Stage(sys, w); err != nil {
				t.Fatal(err)
			}
		}
		// Every coefficient a parametric one but (0, 0), whose slot the
		// host packs; degree 0 leaves it out, so that its level has a
		// block of its own.
		var terms []backend.ParamCoef
		for i := range sys.Polys {
			for j := -1; j < len(sys.Polys[i].Terms); j++ {
				if i == 0 && j == 0 {
					continue
				}
				poly := make([]float64, (1+r.IntN(gpuabi.BNParamMaxLen))*W)
				for k := range poly {
					poly[k] = math.Ldexp(r.Float64()-0.5, r.IntN(20)-10)
				}
				terms = append(terms, backend.ParamCoef{I: i, J: j, Poly: poly, Scale: r.IntN(7) - 3})
			}
		}
		// Any shift serves: the table is under test, not the arithmetic.
		shift := func(dst, poly []float64, tau float64) {
			for k := range poly {
				dst[k] = poly[k] * (1 + tau*float64(k/W))
			}
		}
		pc, err := backend.NewParamCoefs(p, terms, shift)
		if err != nil {
			t.Fatal(err)
		}
		fixed := stager.NoSlot
		coefSlots := map[int][]stager.Slot{}
		for w, plan := range plans {
			cs := plan.CoefSlots()
			fixed = cs.Terms[0][0]
			var all []stager.Slot
			for _, s := range pc.Slots(plan) {
				if s != stager.NoSlot {
					all = append(all, s)
				}
			}
			if w != 0 {
				all = append(all, fixed)
			}
			slices.Sort(all)
			coefSlots[w] = all
		}
		fixedSeries := make([]float64, 3*W)
		for k := range fixedSeries {
			fixedSeries[k] = float64(k + 1)
		}
		opt := newton.Options{Prec: p, Degree: d, MaxSteps: 8}
		const ck = d + 1
		at := backend.ParamAt{Tau: r.Float64(), E: 2}
		// The host's block: every slot its series.
		host, err := gpu.NewBNSetup(gpu.BNConfig{Plans: plans, Prec: p, Opt: opt}, sys.Vars, coefSlots, ck, 1)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float64, host.Strides.Coef*int64(W))
		err = host.PackCoef(want, func(w int, s stager.Slot) []float64 {
			if s == fixed {
				return fixedSeries
			}
			k := slices.Index(pc.Slots(plans[w]), s)
			v := make([]float64, len(pc.Terms[k].Poly))
			pc.Series(k, at.Tau, at.E, v)
			return v
		})
		if err != nil {
			t.Fatal(err)
		}
		// The device's: PackCoef for the fixed slot, the table for the rest.
		dev, err := gpu.NewBNSetup(gpu.BNConfig{Plans: plans, Prec: p, Opt: opt}, sys.Vars, coefSlots, ck, 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := dev.UseParams(pc); err != nil {
			t.Fatal(err)
		}
		own := 0
		for _, l := range dev.Levels {
			if l.Packs && l.W != d {
				own++
			}
		}
		if own == 0 {
			t.Fatalf("no level with a block of its own: the case does not test one")
		}
		got := make([]float64, len(want))
		for i := range got {
			got[i] = math.NaN() // what the kernel does not write stays visible
		}
		err = dev.PackCoef(got, func(w int, s stager.Slot) []float64 {
			if s != fixed {
				t.Fatalf("PackCoef asked for slot %d of degree %d, a parametric coefficient's", s, w)
			}
			return fixedSeries
		})
		if err != nil {
			t.Fatal(err)
		}
		// The kernel's threads write their slots in any order: no two
		// entries may share a double.
		owner := make([]int, len(got)/W)
		for e := 0; e < len(dev.ParamEnt); e += gpuabi.BNParamEntry {
			off, cks := int(dev.ParamEnt[e]), int(dev.ParamEnt[e+1])
			for c := off; c < off+cks; c++ {
				if owner[c] != 0 {
					t.Fatalf("entries %d and %d both write coefficient %d of the block", owner[c]-1, e/gpuabi.BNParamEntry, c)
				}
				owner[c] = e/gpuabi.BNParamEntry + 1
			}
		}
		for e := 0; e < len(dev.ParamEnt); e += gpuabi.BNParamEntry {
			off, cks, k := int(dev.ParamEnt[e]), int(dev.ParamEnt[e+1]), int(dev.ParamEnt[e+2])
			tm := dev.ParamTerms[gpuabi.BNParamTerm*k : gpuabi.BNParamTerm*(k+1)]
			poly := dev.ParamPolys[tm[0] : tm[0]+tm[1]*int64(W)]
			if !slices.Equal(poly, pc.Terms[k].Poly) || int(tm[2]) != pc.Terms[k].Scale {
				t.Fatalf("term %d: the table's polynomial or scale is not the ParamCoefs'", k)
			}
			v := make([]float64, len(poly))
			pc.Series(k, at.Tau, at.E, v)
			dst := got[off*W : (off+cks)*W]
			clear(dst)
			copy(dst, v)
		}
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("%d doubles: double %d of the block: the table gives %v, the host %v", N, i, got[i], want[i])
			}
		}
		t.Logf("%d doubles: %d slots computed from the parameter, %d levels with their own block: the blocks equal", N, len(dev.ParamEnt)/gpuabi.BNParamEntry, own)
	}
}
