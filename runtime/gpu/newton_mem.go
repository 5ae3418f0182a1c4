package gpu

import (
	"fmt"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/newton"
	"github.com/mdgen/mdgen/stager"
)

// Buffers of the back end (indices of newtonBackend.bufs, gpuabi.LAPtr.Buf).
const (
	nbX     = iota // n series of d+1 coefficients
	nbA            // A_0..A_d
	nbB            // b_0..b_d
	nbDX           // dx_0..dx_d
	nbY            // m elements: Q^H b_k, then R^-1
	nbRB           // (d+1) m elements: b_k - A_0 dx_k
	nbQA           // m x n: the QR of A_0 in place
	nbTau          // n elements
	nbRinv         // n N-double reals
	nbRrev         // packed rows of R
	nbSc           // norms: max(d+1, n) doubles (la.LeadNorm1's), then 4 doubles of maxima
	nbSkip         // d+1 long longs
	nbAcc          // 16 n elements: backsub1's lane sums
	nbE            // m x m (lda = m): -R^-1 Q^H in its first n rows (phase 2)
	nbNegI         // m x m: -I, E's start (uploaded once)
	nbZero         // n zero elements: the b of SolveBlock's mulsub
	nbRrevH        // packed rows of U = P R^H P (packrh)
	nbRinvH        // n N-double reals: rinv reversed
	nbCN           // n N-double reals (R's column norms), then n doubles (R's diagonal, leading limbs)
	nbCX           // n elements: the condition estimate's vector
	nbCAcc         // 16 n elements: backsub1's lane sums for the estimate (on its own stream, next to SolveR's)
	nbOwned        // the executors' data arrays and the slot tables follow
)

// newtonBuffers returns the doubles of each buffer of the back end of c
// (indexed by nb*, up to nbOwned) and the int64 entries of its slot tables
// (per working degree: n input slots, m value slots, m n derivative
// slots): what newNewtonBackend allocates, besides the executors' data
// arrays (their plans are checked when they are made).
func newtonBuffers(c backend.NewtonConfig) (sizes []int64, tables int64) {
	d, n, m, W, N := c.Degree, c.Vars, c.Eqs, int64(c.Prec.Width()), int64(c.Prec.N)
	d1 := int64(d + 1)
	nsc := int64(max(d+1, n))
	sizes = []int64{
		nbX: int64(n) * d1 * W, nbA: d1 * int64(m) * int64(n) * W, nbB: d1 * int64(m) * W, nbDX: d1 * int64(n) * W,
		nbY: int64(m) * W, nbRB: d1 * int64(m) * W, nbQA: int64(m) * int64(n) * W, nbTau: int64(n) * W,
		nbRinv: int64(n) * N, nbRrev: int64(max(gpuabi.LARRevLen(n), 1)) * W, nbSc: nsc + 4, nbSkip: d1,
		nbAcc: int64(gpuabi.LABackSub1Acc(n)) * W, nbE: int64(m) * int64(m) * W, nbNegI: int64(m) * int64(m) * W,
		nbZero: int64(n) * W, nbRrevH: int64(max(gpuabi.LARRevLen(n), 1)) * W, nbRinvH: int64(n) * N, nbCN: int64(n) * (N + 1),
		nbCX: int64(n) * W, nbCAcc: int64(gpuabi.LABackSub1Acc(n)) * W,
	}
	for range newton.Stagger(d) {
		tables += int64(n) + int64(m) + int64(m)*int64(n)
	}
	return sizes, tables
}

// newtonFits returns nil when the back end of c fits in free bytes of
// device memory (memoryReserve kept back), else an error wrapping
// ErrMemory with the sizes: checked before the back end allocates or
// launches anything.
func newtonFits(c backend.NewtonConfig, free int64, device string) error {
	sizes, tables := newtonBuffers(c)
	var need int64
	for _, s := range sizes {
		need += 8 * s
	}
	need += 8 * tables
	if need <= free-memoryReserve {
		return nil
	}
	return fmt.Errorf("gpu: Newton on %d equations in %d unknowns, degree %d, %s data: %w: its buffers need %s "+
		"(A_0..A_d %s, b and residuals %s, the QR and its packed rows %s, R^-1 Q^H and -I %s, slot tables %s), %s is free on %s (%s kept in reserve)",
		c.Eqs, c.Vars, c.Degree, c.Prec, ErrMemory, stager.FormatBytes(need), stager.FormatBytes(8*sizes[nbA]),
		stager.FormatBytes(8*(sizes[nbB]+sizes[nbRB])), stager.FormatBytes(8*(sizes[nbQA]+sizes[nbRrev]+sizes[nbRrevH])),
		stager.FormatBytes(8*(sizes[nbE]+sizes[nbNegI])), stager.FormatBytes(8*tables),
		stager.FormatBytes(free), device, stager.FormatBytes(memoryReserve))
}

// NewtonFits is newtonFits for callers that have not staged anything yet:
// eqs equations in vars unknowns, degree d, precision p, against free
// bytes of device memory on the device named device.
// `mdgen solve -gpu` calls it before it builds the kernels, so that a size
// the device cannot hold is refused at once, with the sizes, instead of
// after minutes of nvcc and staging.
func NewtonFits(eqs, vars, d int, p mdops.Prec, free int64, device string) error {
	return newtonFits(backend.NewtonConfig{Prec: p, Degree: d, Vars: vars, Eqs: eqs}, free, device)
}
