package la

// Factorization is a QR factorization of one precision, real or complex,
// on flat []float64 buffers (see the package documentation for the layout;
// sizes and leading dimensions count elements).
type Factorization interface {
	Rows() int
	Cols() int
	ApplyQH(b []float64, workers int)
	ApplyQHMany(nrhs int, b []float64, ldb, workers int)
	SolveR(b []float64, workers int) error
	SolveRMany(nrhs int, b []float64, ldb, workers int) error
	Solve(b []float64, workers int) error
	Cond() float64
	// CondWorkers is Cond with its solves spread over workers (the same
	// bits); Cond and CondWorkers share one cached estimate.
	CondWorkers(workers int) float64
	// Refactor factors the m x n matrix a (lda >= m; this one's shape) in
	// this factorization's buffers: NewQR's bits and error, without
	// allocating (the cached estimate is dropped).
	Refactor(a []float64, lda, workers int) error
}

// Kernels are one precision's routines on flat []float64 buffers, for code
// that selects the precision at run time (as mdops.SeriesKernels). Each is
// the typed routine of the same name (NewQRF<N>, MulSubC<N>, ...) with the
// buffers reinterpreted in place; the float64 results are the leading limbs.
type Kernels struct {
	N                   int
	NewQR, NewQRComplex func(m, n int, a []float64, lda, workers int) (Factorization, error)
	// QRFromFactors is QRFromFactorsF<N>: the factorization of NewQR's
	// factors A (lda = m) and Tau computed elsewhere (a GPU).
	QRFromFactors, QRFromFactorsComplex func(m, n int, a, tau []float64) (Factorization, error)
	MulSub, MulSubComplex               func(m, n int, a []float64, lda int, x, b []float64, workers int)
	// MulSubBatch is MulSubBatchF<N> (strides in elements).
	MulSubBatch, MulSubBatchComplex func(count, m, n int, a []float64, lda, strideA int, x []float64, strideX int, b []float64, strideB int, workers int)
	Residual1, Residual1Complex     func(m, n int, a []float64, lda int, x, b []float64, workers int) float64
	Norm1, Norm1Complex             func(x []float64) float64
}

var kernelsByN = map[int]Kernels{}

func register(k Kernels) { kernelsByN[k.N] = k }

// KernelsFor returns the routines of N-double elements, and false when N is
// not one of the generated precisions.
func KernelsFor(n int) (Kernels, bool) {
	k, ok := kernelsByN[n]
	return k, ok
}
