package gpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/stager"
)

// A batch's ranges move to the device array and back as the batched
// contract lays it out: the series put for path p and slot s lands at
// gpuabi.BatchGeometry.Index(p, ·, s, ·), the pieces cover the host buffer
// once, nothing outside the range is written, and get inverts put.
func TestBatchRange(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 9))
	plan := &stager.Plan{Degree: 3, Kinds: make([]stager.SlotKind, 11)}
	for _, o := range []gpuabi.BatchOrder{gpuabi.Interleaved, gpuabi.PathMajor} {
		for _, prec := range []mdops.Prec{{N: 1}, {N: 2, Complex: true}, {N: 3}} {
			for _, paths := range []int{1, 5, 32, 33} {
				for _, sr := range []slotRun{{0, 11}, {2, 5}, {10, 11}, {4, 4}} {
					t.Run(fmt.Sprintf("%s/%s/P%d/%d-%d", o, prec, paths, sr.lo, sr.hi), func(t *testing.T) {
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
						want := map[[2]int][]float64{}
						slotLen := g.D1 * g.W
						for p := 0; p < paths; p++ {
							for s := sr.lo; s < sr.hi; s++ {
								v := make([]float64, slotLen)
								for i := range v {
									v[i] = r.Float64()
								}
								if (p+s)%3 == 0 {
									v = v[:slotLen-g.W] // a shorter series: zeros after it
								}
								br.put(host, p, s, v)
								want[[2]int{p, s}] = v
							}
						}
						covered := make([]int, len(host))
						err := br.chunks(func(d, h, n int64) error {
							copy(dev[d:d+n], host[h:h+n])
							for i := h; i < h+n; i++ {
								covered[i]++
							}
							return nil
						})
						if err != nil {
							t.Fatal(err)
						}
						for i, c := range covered {
							if c != 1 {
								t.Fatalf("host double %d moved %d times", i, c)
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
						_ = br.chunks(func(d, h, n int64) error { copy(back[h:h+n], dev[d:d+n]); return nil })
						series := make([]float64, slotLen)
						for key, v := range want {
							br.get(series, back, key[0], key[1])
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
					})
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
