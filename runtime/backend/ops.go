package backend

import (
	"sync"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/mdops/alg"
	"github.com/mdgen/mdgen/stager"
)

// OpCount is the arithmetic a plan does in one run.
type OpCount struct {
	MulAdds   float64 // multiple-double multiply-adds (and products) in the convolutions
	Adds      float64 // multiple-double additions in the addition jobs
	DoubleOps float64 // double-precision operations, from the IR's op counts (FMA = 1)
}

var flopCache sync.Map // key {prec, op} → int

// programFlops returns the flops of one generated operation, from the IR.
func programFlops(prec mdops.Prec, op string) int {
	key := struct {
		prec mdops.Prec
		op   string
	}{prec, op}
	if v, ok := flopCache.Load(key); ok {
		return v.(int)
	}
	l := alg.Build(prec.N)
	var p *alg.Program
	if prec.Complex {
		p = alg.BuildComplex(l).Program("c" + op)
	} else {
		p = l.Program(op)
	}
	f := 0
	if p != nil {
		f = p.Count().Flops()
	}
	flopCache.Store(key, f)
	return f
}

// CountOps counts the work of one run of plan at precision p: every
// convolution of degree d does (d+1)(d+2)/2 products (d+1 plain products,
// the rest multiply-adds), every addition job d+1 additions.
func CountOps(plan *stager.Plan, p mdops.Prec) OpCount {
	d := float64(plan.Degree)
	conv := float64(plan.ConvJobs())
	adds := float64(plan.AddJobs()) * (d + 1)
	products := conv * (d + 1)
	madds := conv * (d + 1) * d / 2
	c := OpCount{MulAdds: products + madds, Adds: adds}
	c.DoubleOps = float64(products*float64(programFlops(p, "mul"))) +
		float64(madds*float64(programFlops(p, "madd"))) +
		float64(adds*float64(programFlops(p, "add")))
	return c
}
