package bench

import (
	"fmt"
	"math"

	"github.com/mdgen/mdgen/mdops/alg"
	"github.com/mdgen/mdgen/runtime/newton"
)

// The FP64 rates of the QR and update stages of a Newton run (issue 12):
// the double operations of the stage (la's multiply-add counts of its
// operations, newton.Work, times the double operations of one multiply-add
// of the element type, alg's counts with FMA = 1) over the stage's time,
// as a fraction of PeakOps.

// maddOps returns the double operations of one multiply-add acc + x*y of
// prec-double real or complex elements (alg's programs, calls expanded).
func maddOps(prec int, complex bool) float64 {
	l := alg.Build(prec)
	if complex {
		return float64(alg.BuildComplex(l).MulAdd.Count().Flops())
	}
	return float64(l.MulAdd.Count().Flops())
}

// newtonStageOps returns the double operations of the QR stage (the QRs
// of A_0, la's sum over k < n of 2(m-k-1)(n-k-1) multiply-adds each, and
// the formings of -M: ApplyQHMany on m columns, 2mn - n^2 each, and
// SolveRMany on m columns, n(n-1)/2 each; larfg's O(mn), packing and the
// condition estimate not counted) and of the update stage (m n per update
// product; x's additions not counted), for m = n.
func newtonStageOps(w newton.Work, n, prec int, complex bool) (qr, update float64) {
	m := n
	var perQR float64
	for k := 0; k < n; k++ {
		perQR += 2 * float64(m-k-1) * float64(n-k-1)
	}
	perInv := float64(m) * (2*float64(m)*float64(n) - float64(n)*float64(n) + float64(n)*float64(n-1)/2)
	op := maddOps(prec, complex)
	qr = op * (float64(w.QRs)*perQR + float64(w.Inverses)*perInv)
	update = op * float64(w.Updates) * float64(m) * float64(n)
	return qr, update
}

// stageRates sets r's QR and update rates from the work of its solve.
func (r *NewtonResult) stageRates(w newton.Work) {
	r.Work = w
	r.QROps, r.UpdateOps = newtonStageOps(w, r.N, r.Prec, r.Complex)
}

// QRPeak and UpdatePeak are the FP64 rates of the two stages as fractions
// of PeakOps (NaN without a time).
func (r *NewtonResult) QRPeak() float64     { return stagePeak(r.QROps, r.Stages[1]) }
func (r *NewtonResult) UpdatePeak() float64 { return stagePeak(r.UpdateOps, r.Stages[4]) }

func stagePeak(ops, s float64) float64 {
	if !(s > 0) {
		return math.NaN()
	}
	return ops / s / PeakOps
}

// rateNote is the line under the table with the two rates.
func (r *NewtonResult) rateNote() string {
	return fmt.Sprintf("FP64 rate %dd %s n=%d d=%d (%s): QR stage %.3g double ops (%d QRs, %d formings of M) in %s s = %.2f%% of %.3g/s; "+
		"update stage %.3g double ops (%d products of %d x %d) in %s s = %.2f%%",
		r.Prec, r.dataName(), r.N, r.Degree, r.Backend, r.QROps, r.Work.QRs, r.Work.Inverses, fmtS(r.Stages[1]), 100*r.QRPeak(), PeakOps,
		r.UpdateOps, r.Work.Updates, r.N, r.N, fmtS(r.Stages[4]), 100*r.UpdatePeak())
}
