package bench

import (
	"math"
	"strings"
	"testing"

	"github.com/mdgen/mdgen/runtime/newton"
)

// TestNewtonStageOps: the QR and update stages' double operations from
// la's multiply-add counts, and their rates as fractions of PeakOps.
func TestNewtonStageOps(t *testing.T) {
	r2, c2 := maddOps(2, false), maddOps(2, true)
	if !(r2 > 1 && c2 > 2*r2) {
		t.Fatalf("madd of 2 doubles: %v real, %v complex", r2, c2)
	}
	// n = 3: the QR has 2*2*2 + 2*1*1 = 10 multiply-adds, a forming of M
	// 3 (2*9 - 9 + 3) = 36, an update product 9.
	qr, up := newtonStageOps(newton.Work{QRs: 2, Inverses: 1, Updates: 5}, 3, 2, false)
	if qr != (2*10+36)*r2 || up != 5*9*r2 {
		t.Errorf("n = 3: QR %v, update %v; want %v, %v", qr, up, (2*10+36)*r2, 5*9*r2)
	}
	r := NewtonResult{Prec: 2, N: 3, Backend: "gpu"}
	r.Stages[1], r.Stages[4] = 2e-6, 0
	r.stageRates(newton.Work{QRs: 1})
	if got, want := r.QRPeak(), 10*r2/2e-6/PeakOps; math.Abs(got-want) > 1e-12*want {
		t.Errorf("QR rate %v, want %v", got, want)
	}
	if !math.IsNaN(r.UpdatePeak()) {
		t.Errorf("update rate without a time: %v, want NaN", r.UpdatePeak())
	}
	if n := r.rateNote(); !strings.Contains(n, "1 QRs") || !strings.Contains(n, "% of 1.57e+13/s") {
		t.Errorf("note: %s", n)
	}
}
