package gpuabi

// ShapeFunc returns the launch shape of a kernel: block is the number of
// threads of a block and shared the bytes of dynamic shared memory a block
// gets. LaunchShape is the contract's; ReferenceShape the reference
// kernels'.
type ShapeFunc func(kind Kind, n int, complex bool, degree int) (block, shared int)

var _ ShapeFunc = LaunchShape

// AddMaxThreads is the __launch_bounds__ of the addition kernels.
const AddMaxThreads = 256

// LaunchShape returns the block size and the bytes of dynamic shared
// memory of a launch of kernel kind at precision n, real
// or complex data, series of degree degree; (0, 0) for an unknown kind or a
// negative degree. The emitted kernels (templates/kernels.cu.tmpl) accept
// any block size up to their __launch_bounds__ and any shared memory size
// (they stage a and b in shared memory when the block got enough, and read
// them from global memory through L1 otherwise); the shapes below are the
// fast ones.
//
// Convolution: one block per job. The d multiply-adds of output
// coefficient k (k = 1..d) are one sequential chain (stager.ConvJob's
// order), so the block balances whole chains over its threads: the items
// are the coefficients 1..d with sizes 1..d, and thread t gets a set of
// items whose sizes sum to at most L, from a closed-form packing that the
// kernel computes from (d, blockDim.x) alone (Schedule and ThreadChains,
// the kernel's mdgen_schedule):
//
//   - pairs (k, d-k) have size d, so with (d+2)/2 threads or more every
//     thread takes one pair and L = d;
//   - with fewer threads, "complement" bins pair d-t with L-(d-t) for a
//     capacity L between d and 2d (the smallest that fits), the small
//     leftovers packed greedily;
//   - or q = ceil(pairs/T) consecutive pairs per thread, L = q·d.
//
// Every thread first computes the products a[0]*b[k] of its share of k
// (the first term of each chain), then runs one loop of L multiply-adds
// that moves from chain to chain, so the lanes of a warp stay in step.
// LaunchShape picks the block size (a multiple of 32, at most the
// kernel's bound) with the fewest warp-steps: blocks·warps·(L + products).
//
// Complex data is three real chains per coefficient (stager.ConvJob:
// Gauss's form). At N >= 5 with the derived series staged (ConvSplit)
// the block splits them: thread t runs chain t % 3 of the schedule of its
// group of block/3 threads, one accumulator per thread, and the block size
// comes from an occupancy model (splitBlock). On the H200 this took
// complex 8d p1 at d = 152 from 105 ms (one thread running all three
// chains of a pair, 96 threads, 2 blocks of 3 warps per SM: two of the
// four schedulers had one warp) to 70.6 ms, and 10d from 231 to 123.
// Otherwise a thread runs the three chains of its coefficients in the same
// loop, so the schedule is the real one: side by side for N <= 4, and for
// N >= 5 one after the other through a single copy of the multiply-add
// (rotating registers), since three inlined copies overflowed the
// instruction cache on the H200.
//
// Shared memory, at most StageLimit, else 0. Real data: a
// and b, 2·n·(d+1) doubles, and with less the kernel reads them through
// L1. Complex data, in sets of n·(d+1) doubles (one real series): 7 sets
// stage the first products and last values of the third chain (c3) and the
// six real series the chains read (sx = xr+xi, dy = yi-yr, sy = yr+yi, xr,
// xi, yr); else 4 sets: c3, sx, dy, sy (xr, xi, yr through L1); else 1 set:
// c3 (sx, dy, sy recomputed from a and b at each use); else 0, where each
// thread computes the first product of c3 and the final sub/add of the
// chains it runs (divergent, but only at degrees where chains are long).
//
// Addition: one block per job, threads over the coefficients, no shared
// memory.
func LaunchShape(kind Kind, n int, complex bool, degree int) (threads, sharedBytes int) {
	if degree < 0 || n < 1 {
		return 0, 0
	}
	w := n
	if complex {
		w = 2 * n
	}
	switch kind {
	case Conv:
		maxT := convShapeLimit(n, complex, degree)
		comp := Complement(w)
		split := ConvSplit(n, complex, degree)
		best, bestCost := 32, int64(-1)
		// Complex data and n <= 2: one pair of chains (d-u, u) per thread
		// when the kernel's bound allows it. The packed schedules with two
		// or more units per thread look cheaper in this model but measured
		// slower there on the H200 (d = 152: 1d p2 real 2.73 ms -> 1.08,
		// complex 8d p1 214 ms -> 151, complex 10d p1 751 -> 343), while
		// real data at n >= 4 ran faster packed (8d p1 24.9 ms against
		// 31.7 with one pair per thread; 10d p1 48.6 against 71.9).
		shared := convShared(n, complex, degree)
		if split {
			return splitBlock(degree, maxT, comp, shared), shared
		}
		first := 32
		if units := (degree/2 + 1 + 31) / 32 * 32; units <= maxT && pairsOnly(n, complex) {
			first = units
		}
		for t := first; t <= maxT; t += 32 {
			l, _ := Schedule(degree, t, comp, false)
			cost := int64(t/32) * int64(l+(degree+1+t-1)/t)
			if bestCost < 0 || cost <= bestCost {
				best, bestCost = t, cost
			}
		}
		return best, shared
	case Add:
		t := (degree + 1 + 31) / 32 * 32
		return min(t, AddMaxThreads), 0
	}
	return 0, 0
}

// splitBlock picks the block of the split schedule (ConvSplit)
// at degree d: the multiple of 32 up to maxT with the least time
// per job in a model of one SM of the H100/H200, fitted to H200
// measurements (8d, p1, d = 63..191, blocks of 32..256 threads):
//
//   - the kernels of n >= 5 take 255 registers, so an SM holds 8 warps:
//     B = min(8 / warps per block, blocks that fit its 228 KiB of shared
//     memory) blocks, W = B · warps per block warps;
//   - each of the four schedulers of the SM runs ceil(W/4) warps, and a
//     lone warp is no faster than two (the multiply-add's latency), so a
//     round of B jobs takes max(ceil(W/4), 2) · (L + 3 · first products
//     per thread) steps, L from the schedule of the smallest group
//     (block/3 threads);
//   - a step of complement bins costs 1.35 steps of pairs (the lanes leave
//     step; measured 1.3-1.45), which is why the kernel takes complement
//     bins here only when they cut L by a quarter (mdgen_schedule, strict).
//
// Blocks of fewer than 4 warps ran slower than this model says (d = 127:
// 32 threads 88 ms, 64 threads 71 ms, 128 threads 55 ms), so they are
// considered only when they give every pair its three threads. Ties go to
// the larger block: the model ties where one pair per thread in a larger
// block meets two pairs per thread in a smaller one, and the larger ran
// faster in three of the four such cases measured (d = 127 and 152, 8d and
// 10d p1: 8d 55.3 -> 60.6 ms and 73.3 -> 70.6, 10d 121 -> 109 and
// 139 -> 124). Measured, 8d p1 (ms): d = 63: 128 threads 15.0, 256 22.6;
// d = 95: 128 31.9, 256 46.0; d = 191: 128 123, 256 145.
func splitBlock(d, maxT int, complement bool, shared int) int {
	const smemPerSM, smemPerBlockReserved, warpsPerSM = 228 << 10, 1 << 10, 8
	minT := min(128, (3*(d/2+1)+31)/32*32, maxT)
	best, bestCost := minT, int64(-1)
	for t := minT; t <= maxT; t += 32 {
		wb := t / 32
		blocks := warpsPerSM / wb
		if shared > 0 {
			blocks = min(blocks, smemPerSM/(shared+smemPerBlockReserved))
		}
		if blocks == 0 {
			continue
		}
		l, comp := Schedule(d, t/3, complement, true)
		steps := int64(l + 3*((d+t)/t))
		if comp {
			steps = steps * 135 / 100
		}
		cost := int64(max((blocks*wb+3)/4, 2)) * steps * 1000 / int64(blocks)
		if bestCost < 0 || cost <= bestCost {
			best, bestCost = t, cost
		}
	}
	return best
}

// StageLimit is the largest dynamic shared memory LaunchShape asks
// for. Above 48 KiB a kernel must opt in (the GPU executor does, with
// cuFuncSetAttribute); 96 KiB fits every card from sm_80 on (sm_86/89 allow
// 99 KiB per block) and leaves room for two blocks per SM on the H100/H200.
// Measured on the H200: with 48 KiB, complex 8d and 10d at d = 152 could
// not stage all seven series and ran at 27-32% of the FP64 peak, against
// 54% at d = 127 where they fit.
const StageLimit = 96 << 10

// SetBytes is the size of one staging set of the convolution kernel's
// shared memory: one real series of n limbs at degree degree, in bytes.
// LaunchShape's shared memory is a whole number of sets.
func SetBytes(n, degree int) int { return n * (degree + 1) * 8 }

// convShared returns the dynamic shared memory of the convolution
// kernel: the most of its staging (see LaunchShape) that fits
// StageLimit.
func convShared(n int, complex bool, degree int) int {
	set := SetBytes(n, degree)
	sets := []int{2}
	if complex {
		sets = []int{7, 4, 1}
	}
	for _, s := range sets {
		if s*set <= StageLimit {
			return s * set
		}
	}
	return 0
}

// ConvMaxThreads is the __launch_bounds__ of the convolution kernel of
// n doubles, real or complex: gen emits it.
func ConvMaxThreads(n int, complex bool) int {
	w := n
	if complex {
		w = 2 * n
	}
	switch {
	case w <= 2:
		return 512
	case w <= 5:
		return 256
	case complex && n >= 5:
		return 256 // the split schedule: three threads per pair
	}
	return 128
}

// ConvSplit reports whether the complex convolution kernel of n doubles
// at degree degree runs the split schedule (templates/kernels.cu.tmpl,
// mdgen_gauss_run: each thread runs one of the three chains of its
// coefficients): at n >= 5, when LaunchShape stages the derived series
// (4 or 7 sets).
func ConvSplit(n int, complex bool, degree int) bool {
	return complex && n >= 5 && convShared(n, complex, degree) >= 4*SetBytes(n, degree)
}

// convShapeLimit is the largest block LaunchShape gives the
// convolution kernel: its bound, but 128 for the complex kernels at n >= 5
// without the split schedule, whose threads hold three accumulators.
func convShapeLimit(n int, complex bool, degree int) int {
	if complex && n >= 5 && !ConvSplit(n, complex, degree) {
		return 128
	}
	return ConvMaxThreads(n, complex)
}

// Complement reports whether the convolution kernel of w doubles per
// number (N real, 2N complex) searches for complement bins (a few hundred
// integer operations per thread, worth it when a multiply-add costs more
// than that): gen emits it as the kernel's complement argument.
func Complement(w int) bool { return w >= 3 }

// pairsOnly reports whether LaunchShape gives the convolution
// kernel of n doubles one pair of chains per thread when it can (see there).
func pairsOnly(n int, complex bool) bool { return complex || n <= 2 }
