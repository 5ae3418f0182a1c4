package gpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
	"github.com/mdgen/mdgen/stager"
)

// A batch's ranges move to the device array and back as the batched
// contract lays it out: the series put for path p and slot s lands at
// gpuabi.BatchGeometry.Index(p, ·, s, ·) (through the stage, the buffer
// and the pitched copies of a window of paths 0..n-1: nothing of a path
// outside the window or outside the range is written, each double once),
// and get inverts put.
func TestBatchRange(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 9))
	plan := &stager.Plan{Degree: 3, Kinds: make([]stager.SlotKind, 11)}
	for _, o := range []gpuabi.BatchOrder{gpuabi.Interleaved, gpuabi.PathMajor} {
		for _, prec := range []mdops.Prec{{N: 1}, {N: 2, Complex: true}, {N: 3}} {
			for _, paths := range []int{1, 5, 32, 33} {
				for _, sr := range []slotRun{{0, 11}, {2, 5}, {10, 11}, {4, 4}} {
					for _, n := range []int{paths, (paths + 1) / 2} {
						t.Run(fmt.Sprintf("%s/%s/P%d/%d-%d/n%d", o, prec, paths, sr.lo, sr.hi, n), func(t *testing.T) {
							testBatchRange(t, r, plan, o, prec, paths, sr, n)
						})
					}
				}
			}
		}
	}
}

func testBatchRange(t *testing.T, r *rand.Rand, plan *stager.Plan, o gpuabi.BatchOrder, prec mdops.Prec, paths int, sr slotRun, n int) {
	g := gpuabi.NewBatchGeometry(plan, prec, paths, o)
	if o == gpuabi.Interleaved && g.ElemStride%gpuabi.BatchPathAlign != 0 {
		t.Fatalf("element stride %d is not a multiple of %d", g.ElemStride, gpuabi.BatchPathAlign)
	}
	br := newBatchRange(g, sr)
	sentinel := -1.5
	dev := make([]float64, g.Doubles())
	for i := range dev {
		dev[i] = sentinel
	}
	host := make([]float64, br.hostLen())
	stage := host
	if br.interleaved() {
		stage = make([]float64, int64(paths)*br.elems())
	}
	want := map[[2]int][]float64{}
	slotLen := g.D1 * g.W
	var all []int
	for p := 0; p < paths; p++ {
		all = append(all, p)
		for s := sr.lo; s < sr.hi; s++ {
			v := make([]float64, slotLen)
			for i := range v {
				v[i] = r.Float64()
			}
			if (p+s)%3 == 0 {
				v = v[:slotLen-g.W] // a shorter series: zeros after it
			}
			br.put(stage, p, s, v)
			if p < n {
				want[[2]int{p, s}] = v
			}
		}
	}
	br.toBuffer(host, stage, all, nil)
	covered := make([]int, len(dev))
	err := br.window(n, func(d, h int64, p cudadev.Pitched) error {
		emulatePitched(true, dev, host, d, h, p, covered)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range covered {
		if c > 1 {
			t.Fatalf("device double %d written %d times", i, c)
		}
	}
	for p := 0; p < paths; p++ {
		for s := 0; s < g.Slots; s++ {
			v, in := want[[2]int{p, s}]
			for k := 0; k < g.D1; k++ {
				for row := 0; row < g.W; row++ {
					got := dev[g.Index(p, row, s, k)]
					exp := sentinel
					if in {
						exp = 0
						if i := k*g.W + row; i < len(v) {
							exp = v[i]
						}
					}
					if math.Float64bits(got) != math.Float64bits(exp) {
						t.Fatalf("path %d slot %d coefficient %d row %d: %v, want %v", p, s, k, row, got, exp)
					}
				}
			}
		}
	}
	back := make([]float64, len(host))
	backStage := back
	if br.interleaved() {
		backStage = make([]float64, len(stage))
	}
	_ = br.window(n, func(d, h int64, p cudadev.Pitched) error {
		emulatePitched(false, dev, back, d, h, p, nil)
		return nil
	})
	br.toStage(backStage, back, n)
	series := make([]float64, slotLen)
	for key, v := range want {
		br.get(series, backStage, key[0], key[1])
		for i := range series {
			exp := 0.0
			if i < len(v) {
				exp = v[i]
			}
			if series[i] != exp {
				t.Fatalf("path %d slot %d: double %d read back %v, want %v", key[0], key[1], i, series[i], exp)
			}
		}
	}
}

// emulatePitched is a pitched copy between dev (at d) and host (at h),
// counting the device doubles written in count (nil: none).
func emulatePitched(toDevice bool, dev, host []float64, d, h int64, p cudadev.Pitched, count []int) {
	for j := int64(0); j < max(p.Slices, 1); j++ {
		for i := int64(0); i < p.Rows; i++ {
			r := j*p.SliceRows + i
			for x := int64(0); x < p.Width; x++ {
				di, hi := d+r*p.DevPitch+x, h+r*p.HostPitch+x
				if toDevice {
					dev[di] = host[hi]
					if count != nil {
						count[di]++
					}
				} else {
					host[hi] = dev[di]
				}
			}
		}
	}
}

// BatchMaxPaths gives the largest batch that fits, and one path more does
// not fit (interleaved: one step of gpuabi.BatchPathAlign more).
func TestBatchMaxPaths(t *testing.T) {
	plan := testPlan(t, "p3", 4, false)
	for _, o := range []gpuabi.BatchOrder{gpuabi.Interleaved, gpuabi.PathMajor} {
		for _, prec := range []mdops.Prec{{N: 2}, {N: 8, Complex: true}} {
			for _, bytes := range []int64{1 << 20, 3 << 30, 80 << 30} {
				n := gpuabi.BatchMaxPaths(plan, prec, o, bytes)
				step := 1
				if o == gpuabi.Interleaved {
					step = gpuabi.BatchPathAlign
				}
				if n > 0 && gpuabi.BatchMemory(plan, prec, n, o).Total() > bytes {
					t.Errorf("%s %s %d bytes: %d paths do not fit", o, prec, bytes, n)
				}
				if gpuabi.BatchMemory(plan, prec, n+step, o).Total() <= bytes {
					t.Errorf("%s %s %d bytes: %d paths fit, BatchMaxPaths said %d", o, prec, bytes, n+step, n)
				}
			}
		}
	}
}

// putShort leaves a slot as put leaves it, whatever the slot held before
// (held says how much): a long series, then a short one, then a longer.
func TestBatchRangePutShort(t *testing.T) {
	plan := &stager.Plan{Degree: 5, Kinds: make([]stager.SlotKind, 4)}
	prec := mdops.Prec{N: 2, Complex: true}
	g := gpuabi.NewBatchGeometry(plan, prec, 3, gpuabi.Interleaved)
	br := newBatchRange(g, slotRun{1, 4})
	L := br.elems()
	got, want := make([]float64, 3*L), make([]float64, 3*L)
	series := func(n int, seed float64) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = seed + float64(i)
		}
		return v
	}
	held := g.D1
	for i, n := range []int{g.D1 * g.W, 2 * g.W, g.W + 1, 0, 3 * g.W, 2 * g.W} {
		v := series(n, float64(10*i+1))
		held, _ = br.putShort(got, 1, 2, v, held)
		br.put(want, 1, 2, v)
		for j := range got {
			if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
				t.Fatalf("series %d (%d doubles): stage double %d is %v, want %v", i, n, j, got[j], want[j])
			}
		}
		if wantHeld := (n + g.W - 1) / g.W; held != wantHeld {
			t.Fatalf("series %d: held %d, want %d", i, held, wantHeld)
		}
	}
}

// Moving only the touched coefficients (putShort, slotElems, and
// windowCoefs to the device) leaves the buffer and the device array as
// moving every element does: a full put, then short series of varying
// lengths into some paths and slots.
func TestBatchRangeTouched(t *testing.T) {
	plan := &stager.Plan{Degree: 4, Kinds: make([]stager.SlotKind, 6)}
	prec := mdops.Prec{N: 2, Complex: true}
	paths := 7
	g := gpuabi.NewBatchGeometry(plan, prec, paths, gpuabi.Interleaved)
	br := newBatchRange(g, slotRun{2, 6})
	slots := br.hi - br.lo
	stage := make([]float64, int64(paths)*br.elems())
	got, want := make([]float64, br.hostLen()), make([]float64, br.hostLen())
	held := make([]int, paths*slots)
	all := make([]int, paths)
	r := rand.New(rand.NewPCG(5, 6))
	for p := range all {
		all[p] = p
		for s := br.lo; s < br.hi; s++ {
			v := make([]float64, g.D1*g.W)
			for i := range v {
				v[i] = r.Float64()
			}
			held[p*slots+s-br.lo], _ = br.putShort(stage, p, s, v, g.D1)
		}
	}
	br.toBuffer(got, stage, all, nil)
	dev, devWant := make([]float64, g.Doubles()), make([]float64, g.Doubles())
	_ = br.window(paths, func(d, h int64, p cudadev.Pitched) error {
		emulatePitched(true, dev, got, d, h, p, nil)
		return nil
	})
	for round := range 8 {
		kmax := make([]int32, slots)
		var set []int
		for p := range paths {
			if (p+round)%3 == 0 {
				continue
			}
			set = append(set, p)
			for s := br.lo; s < br.hi; s++ {
				if (p*s+round)%4 == 0 {
					continue
				}
				v := make([]float64, r.IntN(3*g.W))
				for i := range v {
					v[i] = r.Float64()
				}
				h := &held[p*slots+s-br.lo]
				var touched int
				*h, touched = br.putShort(stage, p, s, v, *h)
				kmax[s-br.lo] = max(kmax[s-br.lo], int32(touched))
			}
		}
		br.toBuffer(got, stage, set, br.slotElems(kmax))
		br.toBuffer(want, stage, all, nil)
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("round %d: buffer double %d is %v, want %v", round, i, got[i], want[i])
			}
		}
		k := int32(0)
		for _, m := range kmax {
			k = max(k, m)
		}
		cols := set[len(set)-1] + 1
		_ = br.windowCoefs(cols, int(k), func(d, h int64, p cudadev.Pitched) error {
			emulatePitched(true, dev, got, d, h, p, nil)
			return nil
		})
		_ = br.window(paths, func(d, h int64, p cudadev.Pitched) error {
			emulatePitched(true, devWant, want, d, h, p, nil)
			return nil
		})
		for i := range devWant {
			if math.Float64bits(dev[i]) != math.Float64bits(devWant[i]) {
				t.Fatalf("round %d (k %d, %d paths): device double %d is %v, want %v", round, k, cols, i, dev[i], devWant[i])
			}
		}
	}
}
