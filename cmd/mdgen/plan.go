package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/stager"
)

// planReport is the output of `mdgen plan`.
type planReport struct {
	System            string `json:"system"`
	Variables         int    `json:"variables"`
	Polynomials       int    `json:"polynomials"`
	Monomials         int    `json:"monomials"`      // terms with variables, over all polynomials
	ConstantTerms     int    `json:"constant_terms"` // polynomials with a nonzero constant term
	Degree            int    `json:"degree"`
	ConvolutionJobs   int    `json:"convolution_jobs"`
	AdditionJobs      int    `json:"addition_jobs"`
	ConvolutionLayers int    `json:"convolution_layers"`
	AdditionLayers    int    `json:"addition_layers"`
	ConvLayerJobs     []int  `json:"convolution_layer_jobs"`
	AddLayerJobs      []int  `json:"addition_layer_jobs"`
	Slots             int    `json:"slots"`
	ConstantSlots     int    `json:"constant_slots"`
	CoefficientSlots  int    `json:"coefficient_slots"`
	InputSlots        int    `json:"input_slots"`
	WorkSlots         int    `json:"work_slots"`
	DoublesPerLimb    int64  `json:"doubles_per_limb"` // (degree+1)·slots
	Prec              int    `json:"prec"`
	Complex           bool   `json:"complex"`
	Bytes             int64  `json:"bytes"` // doubles_per_limb · 8 · prec (· 2 complex)
	MemAvailable      int64  `json:"mem_available,omitempty"`
	Checked           bool   `json:"checked"`
}

func runPlan(args []string, out, stderr io.Writer) error {
	fs := newFlagSet("plan", "usage: mdgen plan system.txt|p1|p2|p3|family -degree d [flags]\n\n"+
		"Stages a system at series of degree d and prints its jobs, layers and data size.\n"+
		"A system with complex coefficients gets complex data without -complex.\n\nflags:"+"\n", stderr)
	degree := fs.Int("degree", -1, "truncation degree d of the series (d+1 coefficients); required")
	pf := addPrecFlags(fs, 1, "doubles per number, for the size of the data array (a generated precision: "+
		joinInts(mdops.Precisions())+")", "complex data (twice the size; complex benchmark coefficients)")
	asJSON := fs.Bool("json", false, "print one JSON object")
	param := fs.String("param", "", "name of the series parameter (default: PHCpack's convention)")
	seed := fs.Int64("seed", 1, "seed of the coefficients of p1, p2, p3")
	check := fs.Bool("check", true, "prove the plan race-free and complete and check it symbolically")
	if err := parseFlags(fs, args, out); err != nil {
		return err
	}
	if err := checkArgs(fs, 1, "one system file (or p1, p2, p3, a family)"); err != nil {
		return err
	}
	if *degree < 0 && !flagGiven(fs, "degree") {
		return usagef("plan: -degree d >= 0 is required")
	}
	if err := checkDegree("-degree", *degree); err != nil {
		return err
	}
	// The same precisions as eval and emit: a size for one that cannot run
	// would mislead.
	prec, err := pf.prec()
	if err != nil {
		return err
	}
	sys, plan, err := pf.stageSystem(&prec, fs.Arg(0), *param, *seed, *degree, "sizing", stderr)
	if err != nil {
		return err
	}
	if err := plan.CheckMemory(prec.N, prec.Complex); err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	if *check {
		if err := stager.Check(plan); err != nil {
			return err
		}
	}
	rep := planReport{System: fs.Arg(0), Variables: plan.NumVars, Polynomials: plan.NumPolys, Degree: *degree,
		ConvolutionJobs: plan.ConvJobs(), AdditionJobs: plan.AddJobs(),
		ConvolutionLayers: len(plan.ConvLayers), AdditionLayers: len(plan.AddLayers),
		ConvLayerJobs: []int{}, AddLayerJobs: []int{},
		Slots: plan.NumSlots(), DoublesPerLimb: plan.DoublesPerLimb(), Prec: prec.N, Complex: prec.Complex,
		Bytes: plan.Bytes(prec.N, prec.Complex), Checked: *check}
	for i := range sys.Polys {
		rep.Monomials += len(sys.Polys[i].Terms)
		if len(sys.Polys[i].Const) > 0 {
			rep.ConstantTerms++
		}
	}
	for _, l := range plan.ConvLayers {
		rep.ConvLayerJobs = append(rep.ConvLayerJobs, len(l))
	}
	for _, l := range plan.AddLayers {
		rep.AddLayerJobs = append(rep.AddLayerJobs, len(l))
	}
	for _, k := range plan.Kinds {
		switch k {
		case stager.SlotConst:
			rep.ConstantSlots++
		case stager.SlotCoef:
			rep.CoefficientSlots++
		case stager.SlotInput:
			rep.InputSlots++
		case stager.SlotWork:
			rep.WorkSlots++
		}
	}
	if avail, ok := stager.MemAvailable(); ok {
		rep.MemAvailable = avail
	}
	if *asJSON {
		return writeJSON(out, rep)
	}
	kind := prec.Kind()
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "system\t%s\n", rep.System)
	fmt.Fprintf(tw, "variables\t%d\n", rep.Variables)
	fmt.Fprintf(tw, "polynomials\t%d\n", rep.Polynomials)
	fmt.Fprintf(tw, "monomials\t%d (+ %d constant terms)\n", rep.Monomials, rep.ConstantTerms)
	fmt.Fprintf(tw, "degree\t%d (%d coefficients per series)\n", rep.Degree, rep.Degree+1)
	fmt.Fprintf(tw, "convolution jobs\t%d in %d layers: %s\n", rep.ConvolutionJobs, rep.ConvolutionLayers, layerList(rep.ConvLayerJobs))
	fmt.Fprintf(tw, "addition jobs\t%d in %d layers: %s\n", rep.AdditionJobs, rep.AdditionLayers, layerList(rep.AddLayerJobs))
	fmt.Fprintf(tw, "slots\t%d (%d constants, %d coefficients, %d inputs, %d work)\n", rep.Slots,
		rep.ConstantSlots, rep.CoefficientSlots, rep.InputSlots, rep.WorkSlots)
	fmt.Fprintf(tw, "doubles per limb\t%d ((d+1)·slots)\n", rep.DoublesPerLimb)
	fmt.Fprintf(tw, "data array\t%d bytes (%s) at %d-double %s\n", rep.Bytes, stager.FormatBytes(rep.Bytes), rep.Prec, kind)
	if rep.MemAvailable > 0 {
		fmt.Fprintf(tw, "memory available\t%s\n", stager.FormatBytes(rep.MemAvailable))
	}
	if rep.Checked {
		fmt.Fprintf(tw, "check\trace-free, complete, values and derivatives verified\n")
	}
	return tw.Flush()
}

// layerList writes the jobs per layer, eliding the middle of long lists.
func layerList(n []int) string {
	var b strings.Builder
	for i, k := range n {
		switch {
		case len(n) > 16 && i == 8:
			b.WriteString("... ")
		case len(n) > 16 && i > 8 && i < len(n)-8:
		default:
			fmt.Fprintf(&b, "%d ", k)
		}
	}
	return strings.TrimSpace(b.String())
}
