package gpuabi

import (
	"strings"
	"testing"

	"github.com/mdgen/mdgen/mdops"
)

func TestLAParams(t *testing.T) {
	for _, op := range LAOps {
		ps := LAParams[op]
		if len(ps) == 0 {
			t.Fatalf("%s: no parameters", op)
		}
		seen := map[string]bool{}
		for _, p := range ps {
			if !p.Pointer() && p.Type != "long long" {
				t.Errorf("%s: parameter %s %s is not 8 bytes", op, p.Type, p.Name)
			}
			if p.Name == "" || seen[p.Name] || strings.ContainsAny(p.Name, " *") {
				t.Errorf("%s: bad or repeated parameter name %q", op, p.Name)
			}
			seen[p.Name] = true
		}
		if got := laParams(LASignature(op)); len(got) != len(ps) {
			t.Errorf("%s: the signature %q reads back as %d parameters", op, LASignature(op), len(got))
		}
	}
	if got := LAKernelName(LAQRStep, mdops.Prec{N: 8, Complex: true}); got != "mdgen_la_qr_c8" {
		t.Errorf("LAKernelName = %s", got)
	}
}

func TestLARowOff(t *testing.T) {
	for n := 0; n < 40; n++ {
		for i := 0; i < n; i++ {
			if LARowOff(n, i+1)-LARowOff(n, i) != n-1-i {
				t.Fatalf("n=%d: row %d has %d elements", n, i, LARowOff(n, i+1)-LARowOff(n, i))
			}
		}
		if LARowOff(n, n) != LARRevLen(n) {
			t.Fatalf("n=%d: LARowOff(n, n) = %d, LARRevLen = %d", n, LARowOff(n, n), LARRevLen(n))
		}
	}
}

// checkLaunches checks the arguments of launches against LAParams and the
// shapes against the kernels' bounds.
func checkLaunches(t *testing.T, ls []LALaunch) {
	t.Helper()
	for _, l := range ls {
		ps := LAParams[l.Op]
		if len(l.Args) != len(ps) {
			t.Fatalf("%s: %d arguments", l.Kernel, len(l.Args))
		}
		for i, a := range l.Args {
			switch a.(type) {
			case LAPtr:
				if !ps[i].Pointer() {
					t.Fatalf("%s: argument %s is a pointer", l.Kernel, ps[i].Name)
				}
			case int64:
				if ps[i].Pointer() {
					t.Fatalf("%s: argument %s is not a pointer", l.Kernel, ps[i].Name)
				}
			default:
				t.Fatalf("%s: argument %s has type %T", l.Kernel, ps[i].Name, a)
			}
		}
		if l.Block < LALanes || l.Block%LALanes != 0 || l.Block > LAMaxThreads || l.Grid < 1 {
			t.Fatalf("%s: shape %d x %d", l.Kernel, l.Grid, l.Block)
		}
	}
}

func TestLALaunches(t *testing.T) {
	a, tau, b := LAPtr{0, 0}, LAPtr{1, 0}, LAPtr{2, 0}
	for _, v := range []LAVariant{{Prec: mdops.Prec{N: 2}}, {Prec: mdops.Prec{N: 8, Complex: true}}, {Prec: mdops.Prec{N: 4}, Groups: 3}, {Prec: mdops.Prec{N: 1}, Groups: 100}} {
		for _, mn := range [][2]int{{1, 1}, {5, 3}, {17, 17}, {300, 256}} {
			m, n := mn[0], mn[1]
			qr := v.LAQR(m, n, m, a, tau)
			if len(qr) != n {
				t.Fatalf("%v %dx%d: %d QR launches", v, m, n, len(qr))
			}
			checkLaunches(t, qr)
			for i, l := range qr {
				k := int(l.Args[5].(int64))
				if k != i-1 {
					t.Fatalf("QR launch %d has k = %d", i, k)
				}
				if l.Block%32 != 0 {
					t.Fatalf("QR launch %d: block %d", i, l.Block)
				}
				if cols := n - k - 1; k >= 0 && l.Grid*l.Block/32 < cols {
					t.Fatalf("QR step %d: %d x %d threads for %d columns", k, l.Grid, l.Block, cols)
				}
			}
			checkLaunches(t, v.LAPackR(m, n, m, a, tau, b))
			for _, nrhs := range []int{1, 2, 7, 40} {
				for _, ls := range [][]LALaunch{v.LAApplyQH(m, n, m, a, tau, nrhs, b, m), v.LABackSub(n, a, tau, nrhs, b, m)} {
					checkLaunches(t, ls)
					team := LALanes
					if ls[0].Op == LAQH {
						team = 32
					}
					if ls[0].Block%team != 0 || ls[0].Grid*ls[0].Block/team < nrhs {
						t.Fatalf("%s: %d x %d threads for %d columns", ls[0].Kernel, ls[0].Grid, ls[0].Block, nrhs)
					}
				}
			}
			for _, w := range []int{0, 1, 5} {
				for k := 0; k <= w; k++ {
					ls := v.LAToeplitzUpdate(m, n, a, b, tau, k, w)
					if k == w {
						if len(ls) != 0 {
							t.Fatalf("Toeplitz update at k = w: %d launches", len(ls))
						}
						continue
					}
					checkLaunches(t, ls)
					args := ls[0].Args
					wd := int64(v.W())
					if args[0].(LAPtr).Off != int64(m*n)*wd || args[3].(LAPtr).Off != int64(k*n)*wd ||
						args[5].(LAPtr).Off != int64((k+1)*m)*wd || args[11].(int64) != int64(w-k) {
						t.Fatalf("Toeplitz update k=%d w=%d: arguments %v", k, w, args)
					}
					g := ls[0].Block / LALanes
					if ls[0].Grid != (w-k)*((m+g-1)/g) {
						t.Fatalf("Toeplitz update: grid %d for %d blocks of %d rows", ls[0].Grid, w-k, m)
					}
				}
				checkLaunches(t, v.LAResiduals(m, n, a, b, tau, w, LAPtr{3, 0}, LAPtr{4, 0}))
			}
		}
	}
}
