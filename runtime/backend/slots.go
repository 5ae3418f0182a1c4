package backend

import (
	"fmt"

	"github.com/mdgen/mdgen/stager/poly"
)

// RoundSeries rounds the exact series v once to l.Prec.N doubles per number and
// writes it into dst, one slot in the CPU layout of l (coefficient k at
// [k*W, (k+1)*W), W = N real limbs, or N real then N imaginary limbs):
// exactly what NewCPU stores in a read-only slot, so that every executor
// starts from the same bits. Coefficients past l.Degree are dropped, those
// v does not have are zero. Real data refuses a complex coefficient.
func RoundSeries(dst []float64, v poly.Series, l Layout) error {
	if len(dst) != l.SlotLen() {
		return fmt.Errorf("runtime: RoundSeries: %d doubles given for a slot of %d", len(dst), l.SlotLen())
	}
	clear(dst)
	w := l.W()
	for k := 0; k < len(v) && k <= l.Degree; k++ {
		c := &v[k]
		if !l.Prec.Complex && !c.IsReal() {
			return fmt.Errorf("runtime: the system has complex coefficients; use complex data")
		}
		RoundRat(dst[k*w:k*w+l.Prec.N], &c.Re)
		if l.Prec.Complex {
			RoundRat(dst[k*w+l.Prec.N:k*w+2*l.Prec.N], &c.Im)
		}
	}
	return nil
}
