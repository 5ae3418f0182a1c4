package gpuabi

// The kernels of the device-resident Newton driver (runtime/gpu's Newton
// back end, the GPU side of runtime/newton's Backend), in the same fatbin
// as the linear algebra (gen.LAKernelsCU, templates/la.cu.tmpl) and with
// the same conventions (LAKernelName, LAParams, 8-byte parameters; sizes
// and offsets count elements of W doubles unless said otherwise):
//
//	scatter  (const double* x, d1x, double* data, stride, d1, const long long* slots, nvars, w)
//	    The evaluation executor's inputs from runtime/newton's x: for
//	    v < nvars, k = 0..w, coefficient k of variable v (x at
//	    (v*d1x + k)*W) goes to the input slot slots[v] of the executor's
//	    data array in the limb-major layout of the contract (layout.go):
//	    double c = q*N + l of the element at data[c*stride + slots[v]*d1 + k]
//	    (stride, d1: the executor's SlotStride and Degree+1; a negative slot
//	    is skipped). A copy; one thread per coefficient.
//	gather   (const double* data, stride, d1, const long long* slots, count, w, neg, double* out)
//	    The other way, from the executor's output slots: for k = 0..w,
//	    e < count, element k*count + e of out is coefficient k of slot
//	    slots[e] (the zero series when slots[e] < 0), negated limb by limb
//	    when neg != 0 (the element's generated neg: runtime/newton's
//	    negateInto). b_k[i] = -G_i[k] is count = m with slots the values;
//	    A_k(i, j) = dG_i/dx_j[k] is count = m*n with slots[i + j*m] the
//	    derivatives (column-major, lda = m). One thread per element.
//	xupdate  (double* x, d1x, const double* dx, nvars, const long long* skip, w)
//	    x_v[k] = Add(x_v[k], dx_k[v]) (the element's generated add:
//	    mdops' AddTo) for k = 0..w with skip[k] == 0, v < nvars; dx_k[v]
//	    at (k*nvars + v)*W. One thread per element.
//	amax     (const double* x, len, sx, count, double* out)
//	    out[p] (one double) = runtime/newton's maxAbs of the len elements
//	    at x + p*sx: the largest magnitude of the leading limbs (real and
//	    imaginary), NaN when one is NaN; a max is exact in any order. One
//	    group of 16 lanes per vector.

//	qh1      (const double* a, const double* tau, m, n, lda, double* b)
//	    qh for one right-hand side by a whole block (la.go, LAApplyQH1).
//	backsub1 (const double* rrev, const double* rinv, n, double* b, double* acc)
//	    backsub for one right-hand side, the rows' sums pipelined over a
//	    block in the work space acc (la.go, LABackSub1).

const (
	LAQH1      LAOp = "qh1"
	LABackSub1 LAOp = "backsub1"
	LAScatter  LAOp = "scatter"
	LAGather   LAOp = "gather"
	LAXUpdate  LAOp = "xupdate"
	LAAmax     LAOp = "amax"
)

// laElementBlock is the block of the one-thread-per-element kernels.
const laElementBlock = 128

func (v LAVariant) elements(total int) (grid, block int) {
	return (total + laElementBlock - 1) / laElementBlock, laElementBlock
}

// LAScatter returns the launch of scatter: coefficients 0..w of the nvars
// series of x (d1x coefficients each) into the input slots of an
// executor's data array (SlotStride stride, d1 = its Degree+1).
func (v LAVariant) LAScatter(x LAPtr, d1x int, data LAPtr, stride int64, d1 int, slots LAPtr, nvars, w int) []LALaunch {
	if nvars == 0 {
		return nil
	}
	grid, block := v.elements(nvars * (w + 1))
	return []LALaunch{v.launch(LAScatter, grid, block, x, d1x, data, stride, d1, slots, nvars, w)}
}

// LAGather returns the launch of gather: out[k*count + e] = (-)coefficient
// k of slot slots[e], k = 0..w.
func (v LAVariant) LAGather(data LAPtr, stride int64, d1 int, slots LAPtr, count, w int, neg bool, out LAPtr) []LALaunch {
	if count == 0 {
		return nil
	}
	ng := 0
	if neg {
		ng = 1
	}
	grid, block := v.elements(count * (w + 1))
	return []LALaunch{v.launch(LAGather, grid, block, data, stride, d1, slots, count, w, ng, out)}
}

// LAXUpdate returns the launch of x_v[k] += dx_k[v] for the blocks k <= w
// whose skip flag (a long long) is zero.
func (v LAVariant) LAXUpdate(x LAPtr, d1x int, dx LAPtr, nvars int, skip LAPtr, w int) []LALaunch {
	if nvars == 0 {
		return nil
	}
	grid, block := v.elements(nvars * (w + 1))
	return []LALaunch{v.launch(LAXUpdate, grid, block, x, d1x, dx, nvars, skip, w)}
}

// LAAmax returns the launch of out[p] = maxAbs(x_p[:length]), x_p at
// x + p*sx, p = 0..count-1 (one double each).
func (v LAVariant) LAAmax(x LAPtr, length, sx, count int, out LAPtr) []LALaunch {
	if count == 0 {
		return nil
	}
	grid, block := v.groups(count, 2)
	return []LALaunch{v.launch(LAAmax, grid, block, x, length, sx, count, out)}
}
