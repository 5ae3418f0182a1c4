package bench

import (
	"fmt"
	"math"

	"github.com/mdgen/mdgen/runtime/newton"
)

// The FP64 rates of the QR and update stages of a Newton run (issue 12):
// the double operations of the stage (LAWN 41's counts of its operations,
// newton.Work, at the element type's cost, lawn41.go) over the stage's
// time, as a fraction of PeakOps.

// maddOps returns the double operations of one multiply-add acc + x*y of
// prec-double real or complex elements (alg's programs, calls expanded).
func maddOps(prec int, complex bool) float64 { return elemOps(prec, complex, "madd") }

// newtonStageOps returns the double operations of the QR stage (the QRs
// of A_0, LAWN 41's xGEQRF each, and the formings of -M: xUNMQR and xTRSV
// on m columns; packing and the condition estimate not counted) and of the
// update stage (an m x n product per update, xGEMV's count), for m = n, by
// lawn41.go's counts.
func newtonStageOps(w newton.Work, n, prec int, complex bool) (qr, update float64) {
	m := n
	inv := unmqrCount(m, m, n).plus(trsvCount(n).times(float64(m)))
	qr = geqrfCount(m, n).times(float64(w.QRs)).plus(inv.times(float64(w.Inverses))).doubleOps(prec, complex)
	update = gemvCount(m, n).times(float64(w.Updates)).doubleOps(prec, complex)
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
