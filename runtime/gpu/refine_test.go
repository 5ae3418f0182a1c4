package gpu

// The batched refinement's driver (refine.go) on a host emulation of the
// batched device (the CPU executor and mdops/la, slot by slot, in the
// operations the GPU's Batch and BatchLA reproduce bit for bit): every
// path's Result equals newton.Solver's with Degree 0 on that start alone,
// in every build, so that CI catches a change of the driver's decisions
// without a GPU.

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/mdops/la"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/cpu"
	"github.com/mdgen/mdgen/runtime/newton"
	"github.com/mdgen/mdgen/stager"
	"github.com/mdgen/mdgen/stager/families"
	"github.com/mdgen/mdgen/stager/poly"
)

// hostRefineDevice is refineDevice on the host.
type hostRefineDevice struct {
	r    *refiner
	exec backend.Executor
	plan *stager.Plan
	lk   la.Kernels
	qrs  []la.Factorization
	a    []float64
}

func (d *hostRefineDevice) evaluate(x [][]float64, b, a []float64) error {
	n, m, W := d.r.n, d.r.m, d.r.prec.Width()
	for s, xs := range x {
		if xs == nil {
			continue
		}
		for v := 0; v < n; v++ {
			d.exec.SetInput(v, xs[v*W:(v+1)*W])
		}
		if err := d.exec.Run(); err != nil {
			return err
		}
		for i := 0; i < m; i++ {
			for k, v := range d.exec.Value(i)[:W] {
				b[(s*m+i)*W+k] = -v
			}
			for j := 0; j < n; j++ {
				off := (s*m*n + i + j*m) * W
				if d.plan.DerivSlot(i, j) == stager.NoSlot {
					clear(a[off : off+W])
				} else {
					copy(a[off:off+W], d.exec.Deriv(i, j)[:W])
				}
			}
		}
	}
	return nil
}

func (d *hostRefineDevice) factor(a []float64, want []bool) ([]*la.RankError, []float64, error) {
	n, m, W := d.r.n, d.r.m, d.r.prec.Width()
	newQR := d.lk.NewQR
	if d.r.prec.Complex {
		newQR = d.lk.NewQRComplex
	}
	rank := make([]*la.RankError, len(want))
	cond := make([]float64, len(want))
	d.qrs, d.a = make([]la.Factorization, len(want)), a
	for s, ok := range want {
		if !ok {
			continue
		}
		qr, err := newQR(m, n, append([]float64(nil), a[s*m*n*W:(s+1)*m*n*W]...), m, 1)
		if errors.As(err, &rank[s]) {
			continue
		} else if err != nil {
			return nil, nil, err
		}
		d.qrs[s], cond[s] = qr, qr.Cond()
	}
	return rank, cond, nil
}

func (d *hostRefineDevice) solve(b []float64, want []bool, dx []float64) ([]float64, error) {
	n, m, W := d.r.n, d.r.m, d.r.prec.Width()
	mulSub := d.lk.MulSub
	if d.r.prec.Complex {
		mulSub = d.lk.MulSubComplex
	}
	resid := make([]float64, len(want))
	for s, ok := range want {
		if !ok {
			continue
		}
		y := append([]float64(nil), b[s*m*W:(s+1)*m*W]...)
		d.qrs[s].ApplyQH(y, 1)
		if err := d.qrs[s].SolveR(y, 1); err != nil {
			return nil, err
		}
		copy(dx[s*n*W:(s+1)*n*W], y[:n*W])
		r := append([]float64(nil), b[s*m*W:(s+1)*m*W]...)
		mulSub(m, n, d.a[s*m*n*W:(s+1)*m*n*W], m, dx[s*n*W:(s+1)*n*W], r, 1)
		resid[s] = d.r.norm1(r)
	}
	return resid, nil
}

// refineStarts returns count start points of sys (W doubles per value):
// near roots (newton refinements of random points that converged, moved
// by a relative 2^-20), random points, and a few that fail at once (zero,
// huge, NaN).
func refineStarts(t *testing.T, sys *poly.System, p mdops.Prec, count int, seed uint64) [][]float64 {
	t.Helper()
	n, W := len(sys.Vars), p.Width()
	r := rand.New(rand.NewPCG(seed, 7))
	random := func() []float64 {
		x := make([]float64, n*W)
		for v := 0; v < n; v++ {
			x[v*W] = 2*r.Float64() - 1
			if p.Complex {
				x[v*W+p.N] = 2*r.Float64() - 1
			}
		}
		return x
	}
	s, err := newton.New(sys, newton.Options{Prec: p, Workers: 1, MaxSteps: 60})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var starts [][]float64
	for tries := 0; len(starts) < count/2 && tries < 40*count; tries++ {
		res, err := s.SolveLimbs(random())
		if err != nil {
			t.Fatal(err)
		}
		if res.Converged {
			x := res.X
			for i := range x {
				if i%W == 0 || (p.Complex && i%W == p.N) {
					x[i] *= 1 + math.Ldexp(2*r.Float64()-1, -20)
				} else {
					x[i] = 0
				}
			}
			starts = append(starts, x)
		}
	}
	zero, huge, nan := make([]float64, n*W), random(), random()
	huge[0], nan[W] = 1e300, math.NaN()
	starts = append(starts, zero, huge, nan)
	for len(starts) < count {
		starts = append(starts, random())
	}
	return starts
}

// checkRefined compares every path's Result (but its Times) with
// newton.Solver's on that start alone.
func checkRefined(t *testing.T, sys *poly.System, p mdops.Prec, starts [][]float64, got []*newton.Result) {
	t.Helper()
	s, err := newton.New(sys, newton.Options{Prec: p, Degree: 0, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	kinds := map[string]int{}
	for i, x0 := range starts {
		want, err := s.SolveLimbs(x0)
		if err != nil {
			t.Fatal(err)
		}
		want.Times = newton.Times{}
		var f *newton.Failure
		if errors.As(want.Err, &f) {
			kinds[strings.SplitN(f.Error(), ":", 2)[0]]++
		} else {
			kinds["converged"]++
		}
		if !sameBits(reflect.ValueOf(got[i]), reflect.ValueOf(want)) {
			t.Errorf("%s start %d:\n got %+v (%v)\nwant %+v (%v)", p, i+1, *got[i], got[i].Err, *want, want.Err)
		}
	}
	t.Logf("%s: %d paths: %v", p, len(starts), kinds)
}

func TestRefineDriverHost(t *testing.T) {
	for _, spec := range []string{"cyclic5", "katsura4"} {
		inst, err := families.System(spec, families.Options{})
		if err != nil {
			t.Fatal(err)
		}
		sys := inst.System
		plan, err := stager.Stage(sys, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []mdops.Prec{{N: 1, Complex: true}, {N: 2, Complex: true}, {N: 2}, {N: 4, Complex: true}} {
			t.Run(fmt.Sprintf("%s/%s", spec, p), func(t *testing.T) {
				r, err := newRefiner(sys, p, RefineOptions{})
				if err != nil {
					t.Fatal(err)
				}
				exec, err := cpu.New(plan, p, 1)
				if err != nil {
					t.Fatal(err)
				}
				defer exec.Close()
				lk, _ := la.KernelsFor(p.N)
				dev := &hostRefineDevice{r: r, exec: exec, plan: plan, lk: lk}
				starts := refineStarts(t, sys, p, 20, 1)
				got, err := r.run(dev, len(starts)+3, starts)
				if err != nil {
					t.Fatal(err)
				}
				checkRefined(t, sys, p, starts, got)
			})
		}
	}
}

// sameBits is reflect.DeepEqual with floats compared by their bits (a NaN
// equals itself).
func sameBits(a, b reflect.Value) bool {
	if a.Kind() != b.Kind() || a.Type() != b.Type() {
		return false
	}
	switch a.Kind() {
	case reflect.Float64:
		// Bits, except that NaNs are one value: a NaN's sign and payload
		// depend on where it arose (Go's math.NaN, the x86 default NaN,
		// the device's), not on the computation.
		x, y := a.Float(), b.Float()
		return math.Float64bits(x) == math.Float64bits(y) || math.IsNaN(x) && math.IsNaN(y)
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return sameBits(a.Elem(), b.Elem())
	case reflect.Slice:
		if a.Len() != b.Len() || a.IsNil() != b.IsNil() {
			return false
		}
		for i := 0; i < a.Len(); i++ {
			if !sameBits(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if !sameBits(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.String:
		return a.String() == b.String()
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.Int, reflect.Int64:
		return a.Int() == b.Int()
	}
	panic("sameBits: " + a.Kind().String())
}
