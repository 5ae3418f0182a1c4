package bench

import (
	"math"
	"strings"
	"testing"

	"github.com/mdgen/mdgen/runtime/newton"
)

// TestNewtonStageOps: the QR and update stages' double operations from
// LAWN 41's counts, and their rates as fractions of PeakOps.
func TestNewtonStageOps(t *testing.T) {
	r2, c2 := maddOps(2, false), maddOps(2, true)
	if !(r2 > 1 && c2 > 2*r2) {
		t.Fatalf("madd of 2 doubles: %v real, %v complex", r2, c2)
	}
	m2 := mulOps(2, false)
	// n = 3: a QR has 43 multiplications and 25 additions (xGEQRF: 3 (3
	// (-1/2 - 1 + 3) + 6 + 23/6) and 3 (3 (3/2) + 3 + 5/6)), a forming of
	// M 45 + 3*6 and 36 + 3*3 (xUNMQR on 3 columns and 3 xTRSV), an update
	// 9 and 9: the pairs count as multiply-adds, the rest as
	// multiplications.
	qr, up := newtonStageOps(newton.Work{QRs: 2, Inverses: 1, Updates: 5}, 3, 2, false)
	if want := 95*r2 + 54*m2; qr != want || up != 5*9*r2 {
		t.Errorf("n = 3: QR %v, update %v; want %v, %v", qr, up, want, 5*9*r2)
	}
	r := NewtonResult{Prec: 2, N: 3, Backend: "gpu"}
	r.Stages[1], r.Stages[4] = 2e-6, 0
	r.stageRates(newton.Work{QRs: 1})
	if got, want := r.QRPeak(), (25*r2+18*m2)/2e-6/PeakOps; math.Abs(got-want) > 1e-12*want {
		t.Errorf("QR rate %v, want %v", got, want)
	}
	if !math.IsNaN(r.UpdatePeak()) {
		t.Errorf("update rate without a time: %v, want NaN", r.UpdatePeak())
	}
	if n := r.rateNote(); !strings.Contains(n, "1 QRs") || !strings.Contains(n, "% of 1.57e+13/s") {
		t.Errorf("note: %s", n)
	}
}

// TestLAWN41: the counts at sizes worked out by hand, and xGEQRF's two
// branches agree at m = n.
func TestLAWN41(t *testing.T) {
	for _, c := range []struct {
		name string
		got  laCount
		want laCount
	}{
		{"geqrf 5x5", geqrfCount(5, 5), laCount{140, 100}},
		{"geqrf 1x1", geqrfCount(1, 1), laCount{1 * (1*(-0.5-1.0/3+1) + 2 + 23.0/6), 1 * (1*(-0.5-1.0/3+1) + 1 + 5.0/6)}},
		{"unmqr 5x1, 5", unmqrCount(5, 1, 5), laCount{50 - 25 + 10, 50 - 25 + 5}},
		{"trsv 5", trsvCount(5), laCount{15, 10}},
		{"gemv 4x5", gemvCount(4, 5), laCount{20, 20}},
	} {
		if math.Abs(c.got.muls-c.want.muls) > 1e-9 || math.Abs(c.got.adds-c.want.adds) > 1e-9 {
			t.Errorf("%s: %+v, want %+v", c.name, c.got, c.want)
		}
	}
	for n := 1; n <= 40; n++ {
		N := float64(n)
		tall := laCount{N * (N*(0.5-N/3+N) + N + 23.0/6), N * (N*(0.5-N/3+N) + 5.0/6)}
		if got := geqrfCount(n, n); math.Abs(got.muls-tall.muls) > 1e-9*tall.muls || math.Abs(got.adds-tall.adds) > 1e-9*tall.adds {
			t.Errorf("geqrf %dx%d: %+v, the m > n branch gives %+v", n, n, got, tall)
		}
	}
	// A multiply-add and an addition left over: maddOps + addOps.
	if got, want := (laCount{1, 2}).doubleOps(4, true), maddOps(4, true)+addOps(4, true); got != want {
		t.Errorf("doubleOps: %v, want %v", got, want)
	}
}
