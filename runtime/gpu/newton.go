package gpu

// The device-resident Newton driver: runtime/newton's control flow with a
// Backend that keeps x, A, b, dx, the QR and every work buffer on the GPU
// (newton_cuda.go). The evaluation runs the GPU executor of each working
// degree on its own data array; the kernels of gpuabi (la.go, newton.go)
// move x into its input slots, gather b = -G and the A_k from its output
// slots, and do the linear algebra and the update of x, in runtime/newton's
// order, so the results are the CPU's bit for bit. The host copies of a
// step are the numbers the control flow decides on: ||b||_1 and max|b|
// (one double each), max|x|, ||b_k||_1 per block (its skip test), the
// w+1 residual norms, delta, deltaOld and max|x| after the update; per QR,
// the n column norms of A_0 and of R and R's diagonal (la's rank check on
// the host), R's packed rows (la's float64 condition estimate on their
// leading limbs, on the host), and, when that estimate is not final, the
// vectors of the multiple-double one: la's Cond with its float64
// decisions on the host (newton_cond.go) and its solves by R and R^H on
// the device (backsub1 on R's packed rows and on those of U = P R^H P,
// packrh's), the same bits as la's; the factors stay on the device. The
// multiple-double estimate's solves run on a CUDA stream of their own, beside
// the work that follows them on the NULL stream and only reads the
// factors (the refinement's Q^H b_0 and R^-1 when the skip test will solve
// block 0, or M's forming; see Factor). newtonFits refuses a size whose
// buffers do not fit in the free device memory, with the sizes, before
// anything is allocated.
//
// Use:
//
//	srcs, _ := gen.NewtonCUSources(n, complex)          // two .cu files
//	res, _ := (&nvcc.Compiler{...}).Build(srcs)          // two fatbins
//	k, err := gpu.LoadNewtonKernels(dev, res[0].Fatbin, res[1].Fatbin, n, complex)
//	s, err := newton.New(sys, gpu.NewtonOptions(k, newton.Options{Prec: n, ...}))
//
// In a build without the cuda tag LoadNewtonKernels returns an error that
// wraps cudadev.ErrNoCUDA (the caller falls back to the CPU).
