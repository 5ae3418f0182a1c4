package gpuabi

import (
	"fmt"
	"strings"

	"github.com/mdgen/mdgen/mdops"
)

// The linear-algebra kernels (gen.LAKernelsCU, templates/la.cu.tmpl): the
// GPU side of package mdops/la for Newton's method on Taylor series. This
// file is their contract: names, parameters, launch shapes and the launch
// sequences, for the emitter, the device driver and the tests.
//
// # Data
//
// la's flat layout (mdops/la, runtime/newton): element k of a vector of
// W-double elements (W = N real, 2N complex) is the W consecutive doubles
// at [kW, (k+1)W): the N limbs of the real part, then the N limbs of the
// imaginary part. Matrices are column-major, element (i, j) at i + j*lda.
// Every size, leading dimension, stride and offset below counts elements,
// except the offsets of an LAPtr (doubles). Real-valued outputs (rinv, the
// 1-norms) are N-double reals: N doubles each.
//
// # Kernels
//
// One of each per precision N and real/complex (extern "C", LAKernelName:
// mdgen_la_<op>_r<N>, mdgen_la_<op>_c<N>), every parameter 8 bytes (a
// pointer or a long long; LAParams lists them in order):
//
//	qr       (double* a, double* tau, m, n, lda, k)
//	    One step of the Householder QR (la NewQR): apply reflector k (k >= 0)
//	    to the columns k+1..n-1 of the m x n matrix a, one warp per column
//	    (the reduction v^H c in its first 16 lanes, the update c -= ... in
//	    all 32); then block 0 generates reflector k+1 (larfg) on column k+1,
//	    which its warp 0 has just updated, and writes tau[k+1]. Launch for
//	    k = -1, 0, ..., n-2 in order (LAQR): n launches.
//	packr    (const double* a, m, n, lda, double* rinv, double* rrev)
//	    After the QR: rinv[i] = 1.Div(R_ii) (an N-double real; zero when
//	    R_ii's leading limb is zero), and the rows of R packed in reverse for
//	    the back substitution: row i at rrev[LARowOff(n, i) : LARowOff(n, i+1)]
//	    holds R_(i,n-1), R_(i,n-2), ..., R_(i,i+1). rrev has LARRevLen(n)
//	    elements. One thread per row.
//	packrh   (const double* a, m, n, lda, const double* rinv, double* rrevh,
//	          double* rinvh, double* cnorm, double* diag)
//	    After packr, what the condition estimate needs on the device: U =
//	    P R^H P (P reverses the rows) packed as packr packs R (rrevh, rinvh:
//	    row n-1-i of U holds conj(R_(q,i)), q = 0..i-1, and rinvh[n-1-i] =
//	    rinv[i]), so that backsub(1) on U of the reversed vector is la's
//	    forward substitution by R^H (the condition estimate's solveRH: the
//	    same terms, products and lane order); cnorm[i] = the condition
//	    estimate's float64 1-norm of R_(0..i, i) (la's leadNorm1: |Re|+|Im|
//	    of the leading limbs, summed in increasing row order) in the leading
//	    limb of element i (N doubles each, the others zero), and diag[i] =
//	    the leading limb of Re(R_ii) (la's rank check). One group of 16
//	    lanes per column.
//	qh       (const double* a, const double* tau, m, n, lda, double* b, ldb, nrhs)
//	    b[:, c] = Q^H b[:, c] (la ApplyQH: reflectors 0..n-1 in order) for the
//	    nrhs columns c of b (column c at c*ldb); one warp per column (as
//	    qr), the n reflectors in one launch.
//	backsub  (const double* rrev, const double* rinv, n, double* b, ldb, nrhs)
//	    b[:n, c] = R^-1 b[:n, c] (la SolveR) for the nrhs columns of b; one
//	    group of 16 lanes per column, rows n-1 down to 0 in one launch. The
//	    caller checks the diagonal first: la's SolveR refuses a zero R_kk
//	    (a *RankError), this kernel would multiply by rinv = 0.
//	mulsub   (const double* a, lda, sa, const double* x, sx, const double* b, sb,
//	          double* r, sr, m, n, count)
//	    For p = 0..count-1: r_p = b_p - A_p x_p (la MulSub; r_p = b_p when
//	    n = 0), A_p the m x n matrix at a + p*sa, x_p at x + p*sx, b_p at
//	    b + p*sb, r_p at r + p*sr (r may be b, with sr = sb: in place). One
//	    group of 16 lanes per row. The Newton updates b_j -= A_(j-k) dx_k,
//	    j = k+1..w, are one launch (LAToeplitzUpdate), and so are the
//	    residuals b_k - A_0 dx_k, k = 0..w, before their norms (LAResiduals).
//	norm1    (const double* x, len, sx, count, double* out)
//	    out[p] = Norm1(x_p[:len]) (la Norm1, an N-double real) for the count
//	    vectors x_p at x + p*sx; one group of 16 lanes per vector.
//	leadnorm1 (const double* x, len, sx, count, double* out)
//	    out[p] = la.LeadNorm1(x_p[:len]) (a float64: s = s + |x_i|_0 in
//	    increasing i from 0) for the count vectors x_p at x + p*sx; one
//	    thread per vector. The norms of the Newton driver (runtime/newton's
//	    Norm1), and of the batched refinement (batchla.go).
//
// A launch of qr or qh takes any block of 32 to LAMaxThreads threads in a
// multiple of 32, the others any multiple of 16 up to LAMaxThreads (each
// kernel derives its work from blockDim.x; the grid must cover it as the
// shape functions below do); no kernel uses dynamic shared memory.
//
// # Order of operations
//
// Exactly mdops/la's (its package documentation). A reduction of K terms
// runs in the 16 lanes of a group: lane l (threadIdx.x % 16) takes the
// terms i ≡ l (mod 16) in increasing i, the first by assignment or prod,
// the later ones by MulAdd or Add, then the lanes are combined by
// shuffles at distance 8, 4, 2, 1, lane l adding lane l+s only when
// l+s < min(K, 16).

// LAOp is a kernel of the linear algebra.
type LAOp string

const (
	LAQRStep    LAOp = "qr"
	LAPackR     LAOp = "packr"
	LAPackRH    LAOp = "packrh"
	LAQH        LAOp = "qh"
	LABackSub   LAOp = "backsub"
	LAMulSub    LAOp = "mulsub"
	LANorm1     LAOp = "norm1"
	LALeadNorm1 LAOp = "leadnorm1"
)

// LAOps lists the linear-algebra kernels of one precision and kind of data.
// The kernels of the device-resident Newton driver (newton.go) follow.
var LAOps = []LAOp{LAQRStep, LAPackR, LAPackRH, LAQH, LABackSub, LAMulSub, LANorm1, LALeadNorm1, LAQH1, LABackSub1, LAScatter, LAGather, LAXUpdate, LAAmax}

// LALanes is the number of lanes of every reduction (mdops/la.Lanes): the
// threads of a group.
const LALanes = 16

// LAMaxThreads is the __launch_bounds__ of every linear-algebra kernel.
const LAMaxThreads = 256

// LAKernelName returns the extern "C" name of a linear-algebra kernel.
func LAKernelName(op LAOp, p mdops.Prec) string {
	return "mdgen_la_" + string(op) + "_" + p.Suffix()
}

// LAParam is one kernel parameter: its C type and name. Every one is 8
// bytes: a pointer or a long long.
type LAParam struct{ Type, Name string }

// Pointer reports whether the parameter is a pointer.
func (p LAParam) Pointer() bool { return strings.HasSuffix(p.Type, "*") }

func laParams(s string) []LAParam {
	var ps []LAParam
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		i := strings.LastIndexAny(f, " *")
		ps = append(ps, LAParam{Type: strings.TrimSpace(f[:i+1]), Name: f[i+1:]})
	}
	return ps
}

// LAParams lists the parameters of each kernel, in order.
var LAParams = map[LAOp][]LAParam{
	LAQRStep: laParams("double* a, double* tau, long long m, long long n, long long lda, long long k"),
	LAPackR:  laParams("const double* a, long long m, long long n, long long lda, double* rinv, double* rrev"),
	LAPackRH: laParams("const double* a, long long m, long long n, long long lda, const double* rinv, double* rrevh, double* rinvh, " +
		"double* cnorm, double* diag"),
	LAQH:      laParams("const double* a, const double* tau, long long m, long long n, long long lda, double* b, long long ldb, long long nrhs"),
	LABackSub: laParams("const double* rrev, const double* rinv, long long n, double* b, long long ldb, long long nrhs"),
	LAMulSub: laParams("const double* a, long long lda, long long sa, const double* x, long long sx, const double* b, long long sb, " +
		"double* r, long long sr, long long m, long long n, long long count"),
	LANorm1:     laParams("const double* x, long long len, long long sx, long long count, double* out"),
	LALeadNorm1: laParams("const double* x, long long len, long long sx, long long count, double* out"),
	LABackSub1:  laParams("const double* rrev, const double* rinv, long long n, double* b, double* acc"),
	LAQH1:       laParams("const double* a, const double* tau, long long m, long long n, long long lda, double* b"),
	LAScatter: laParams("const double* x, long long d1x, double* data, long long stride, long long d1, const long long* slots, " +
		"long long nvars, long long w"),
	LAGather: laParams("const double* data, long long stride, long long d1, const long long* slots, long long count, long long w, " +
		"long long neg, double* out"),
	LAXUpdate: laParams("double* x, long long d1x, const double* dx, long long nvars, const long long* skip, long long w"),
	LAAmax:    laParams("const double* x, long long len, long long sx, long long count, double* out"),

	// The batched kernels (batchla.go).
	LABQR: laParams("double* a, double* tau, long long m, long long n, long long lda, long long sa, long long count"),
	LABPackR: laParams("const double* a, long long m, long long n, long long lda, long long sa, double* rinv, double* rrev, " +
		"long long tolBits, double* info, long long count"),
	LABQH1: laParams("const double* a, const double* tau, long long m, long long n, long long lda, long long sa, double* b, " +
		"long long sb, long long count"),
	LABBackSub1: laParams("const double* rrev, const double* rinv, const double* info, long long n, double* b, long long sb, " +
		"double* acc, long long count"),
	LABQH: laParams("const double* a, const double* tau, long long m, long long n, long long lda, long long sa, double* b, " +
		"long long ldb, long long sb, long long nrhs, long long count"),
	LABBackSub: laParams("const double* rrev, const double* rinv, const double* info, long long n, double* b, long long ldb, " +
		"long long sb, long long nrhs, long long count"),
	LABCond: laParams("const double* a, long long n, long long lda, long long sa, const double* rinv, const double* rrev, " +
		"const double* info, double* work, long long sw, double* cond, long long count"),
}

// LASignature returns the C parameter list of a kernel.
func LASignature(op LAOp) string {
	var s []string
	for _, p := range LAParams[op] {
		s = append(s, p.Type+" "+p.Name)
	}
	return strings.Join(s, ", ")
}

// LARowOff returns the first element of row i of R in rrev (packr): rows
// 0..i-1 hold n-1, n-2, ..., n-i elements.
func LARowOff(n, i int) int { return i*(n-1) - i*(i-1)/2 }

// LARRevLen returns the elements of rrev for n columns: n(n-1)/2.
func LARRevLen(n int) int { return n * (n - 1) / 2 }

// LAPtr is a pointer argument of a launch: buffer Buf (an index the caller
// resolves to a device or host buffer) at offset Off, in doubles.
type LAPtr struct {
	Buf int
	Off int64
}

// At returns p moved by k elements of w doubles.
func (p LAPtr) At(k, w int) LAPtr { return LAPtr{p.Buf, p.Off + int64(k)*int64(w)} }

// LALaunch is one kernel launch of a linear-algebra operation: Args are
// LAPtr (pointers) and int64 (long long) values, in the order of
// LAParams[Op].
type LALaunch struct {
	Op          LAOp
	Kernel      string
	Grid, Block int
	Args        []any
}

// LAVariant is one precision and kind of data, and the launch shapes of
// its kernels: Groups, when positive, replaces the teams per block of
// every kernel: warps of qr (columns) and qh (right-hand sides), groups of
// 16 lanes of backsub (right-hand sides), mulsub (rows) and norm1
// (vectors), at most LAMaxThreads/32 and LAMaxThreads/16.
type LAVariant struct {
	mdops.Prec
	Groups int
	// Shape, when not nil, gives the teams per block of the kernels of
	// LAShapeOps where its count is positive, in place of the model's
	// (LAModelTeams): a tuning profile's choice (runtime/tune). A pointer,
	// so that LAVariant stays comparable. Groups, when positive, overrides
	// it for every kernel.
	Shape *LAShape
}

// LAShape gives the teams per block of the kernels whose launch shape is
// free (LAShapeOps): warps of qr and qh, groups of 16 lanes of packrh,
// backsub, mulsub and norm1; 0 means the model's. Every such kernel
// derives its work from blockDim.x and computes each column, row or
// vector with the same operations in the same order whatever the block
// (templates/la.cu.tmpl: item blockIdx.x*G + g, G = blockDim.x/32 or /16),
// so a shape changes the time, never the bits.
type LAShape struct {
	QR      int `json:"qr,omitempty"`
	PackRH  int `json:"packrh,omitempty"`
	QH      int `json:"qh,omitempty"`
	BackSub int `json:"backsub,omitempty"`
	MulSub  int `json:"mulsub,omitempty"`
	Norm1   int `json:"norm1,omitempty"`
}

// LAShapeOps lists the kernels whose teams per block LAShape sets.
var LAShapeOps = []LAOp{LAQRStep, LAPackRH, LAQH, LABackSub, LAMulSub, LANorm1}

// field returns the count of op in s (nil for an op not in LAShapeOps).
func (s *LAShape) field(op LAOp) *int {
	switch op {
	case LAQRStep:
		return &s.QR
	case LAPackRH:
		return &s.PackRH
	case LAQH:
		return &s.QH
	case LABackSub:
		return &s.BackSub
	case LAMulSub:
		return &s.MulSub
	case LANorm1:
		return &s.Norm1
	}
	return nil
}

// Get returns the teams per block s gives op (0: the model's, or an op
// not in LAShapeOps).
func (s LAShape) Get(op LAOp) int {
	if f := s.field(op); f != nil {
		return *f
	}
	return 0
}

// Set sets the teams per block of op (an op not in LAShapeOps is ignored).
func (s *LAShape) Set(op LAOp, teams int) {
	if f := s.field(op); f != nil {
		*f = teams
	}
}

// LAModelShape returns the model's shape with every count filled in.
func LAModelShape() LAShape {
	var s LAShape
	for _, op := range LAShapeOps {
		s.Set(op, LAModelTeams(op))
	}
	return s
}

// Check reports why s is not a shape the kernels take: every count 0 (the
// model's) or 1..LAMaxTeams(op).
func (s LAShape) Check() error {
	for _, op := range LAShapeOps {
		if t := s.Get(op); t < 0 || t > LAMaxTeams(op) {
			return fmt.Errorf("%s: %d teams per block, want 1..%d (0: the model's)", op, t, LAMaxTeams(op))
		}
	}
	return nil
}

func (s LAShape) String() string {
	var parts []string
	for _, op := range LAShapeOps {
		parts = append(parts, fmt.Sprintf("%s %d", op, s.Get(op)))
	}
	return strings.Join(parts, ", ")
}

// LAModelTeams returns the teams per block of op without a shape: the
// launch shapes fitted on an H200 (0 for an op not in LAShapeOps).
func LAModelTeams(op LAOp) int {
	switch op {
	case LAQRStep:
		return LAQRWarps
	case LAPackRH:
		return 8
	case LAQH:
		return 2 // two warps (columns) per block: 5% faster Newton at n = 256, 8 doubles, than one (mdgen tune -newton)
	case LABackSub, LANorm1:
		return 2
	case LAMulSub:
		return LAMulSubRows
	}
	return 0
}

// LAMaxTeams returns the most teams a block of op holds: LAMaxThreads/32
// warps (qr, qh) or LAMaxThreads/16 groups (the others of LAShapeOps).
func LAMaxTeams(op LAOp) int {
	if op == LAQRStep || op == LAQH {
		return LAMaxThreads / 32
	}
	return LAMaxThreads / LALanes
}

// Teams returns the teams per block of op: v.Shape's when positive, else
// the model's (v.Groups, when positive, still overrides both at launch).
func (v LAVariant) Teams(op LAOp) int {
	if v.Shape != nil {
		if t := v.Shape.Get(op); t > 0 {
			return t
		}
	}
	return LAModelTeams(op)
}

// W returns the doubles of one element: N real, 2N complex.
func (v LAVariant) W() int { return v.Prec.Width() }

func (v LAVariant) launch(op LAOp, grid, block int, args ...any) LALaunch {
	for i, a := range args {
		if x, ok := a.(int); ok {
			args[i] = int64(x)
		}
	}
	if len(args) != len(LAParams[op]) {
		panic(fmt.Sprintf("gpuabi: %s takes %d arguments, got %d", op, len(LAParams[op]), len(args)))
	}
	return LALaunch{Op: op, Kernel: LAKernelName(op, v.Prec), Grid: max(grid, 1), Block: block, Args: args}
}

// groups returns the block of g groups of 16 lanes (v.Groups when
// positive; at least one, at most LAMaxThreads/16, at most items) and the
// grid that covers items, g per block.
func (v LAVariant) groups(items, g int) (grid, block int) {
	if v.Groups > 0 {
		g = v.Groups
	}
	g = max(1, min(g, LAMaxThreads/LALanes, items))
	return (items + g - 1) / g, g * LALanes
}

// warps returns the block of g warps (v.Groups when positive; at least
// one, at most LAMaxThreads/32, at most items) and the grid that covers
// items, g per block: the shapes of qr and qh, a warp per column.
func (v LAVariant) warps(items, g int) (grid, block int) {
	if v.Groups > 0 {
		g = v.Groups
	}
	g = max(1, min(g, LAMaxThreads/32, items))
	return (items + g - 1) / g, 32 * g
}

// LAQRWarps is the model's warps per block of the QR step: each warp of
// the blocks after the panel (block 0) owns a trailing column; the
// panel's warps share one column, so the more warps, the shorter the
// chain of dependent steps of the factorization. On the H200 the most a
// block holds, 8, was as fast as any other count or faster at every size
// and precision that mdgen tune -newton tried (n = 256, 1024; 2, 4, 8
// doubles; bench/results/h200-newton-scale-s8.txt).
const LAQRWarps = LAMaxThreads / 32

// LAQR returns the n launches of the Householder QR of the m x n matrix at
// a (lda >= m, m >= n), tau receiving the n scalars (la NewQR: A and Tau).
// Launch k = -1..n-2 (the kernel's k): block 0, the panel, applies
// reflector k to column k+1 and generates reflector k+1 from it; blocks 1,
// 2, ... of g warps apply reflector k to the columns k+2.. n-1, a warp per
// column (g: v.Groups, else v.Teams(LAQRStep)).
func (v LAVariant) LAQR(m, n, lda int, a, tau LAPtr) []LALaunch {
	var ls []LALaunch
	if n == 0 {
		return nil
	}
	for k := -1; k <= n-2; k++ {
		cols := max(0, n-k-2)
		g := v.Teams(LAQRStep)
		if v.Groups > 0 {
			g = v.Groups
		}
		g = max(1, min(g, LAMaxThreads/32))
		grid := 1 + (cols+g-1)/g
		if k < 0 { // the first panel alone: no reflector to apply yet
			grid = 1
		}
		ls = append(ls, v.launch(LAQRStep, grid, 32*g, a, tau, m, n, lda, k))
	}
	return ls
}

// LAPackR returns the launch of packr (rinv, rrev) after LAQR.
func (v LAVariant) LAPackR(m, n, lda int, a, rinv, rrev LAPtr) []LALaunch {
	if n == 0 {
		return nil
	}
	block := min(64, (n+31)/32*32)
	return []LALaunch{v.launch(LAPackR, (n+block-1)/block, block, a, m, n, lda, rinv, rrev)}
}

// LAPackRH returns the launch of packrh after LAPackR: rrevh has
// LARRevLen(n) elements, rinvh and cnorm n N-double reals, diag n doubles.
func (v LAVariant) LAPackRH(m, n, lda int, a, rinv, rrevh, rinvh, cnorm, diag LAPtr) []LALaunch {
	if n == 0 {
		return nil
	}
	grid, block := v.groups(n, v.Teams(LAPackRH))
	return []LALaunch{v.launch(LAPackRH, grid, block, a, m, n, lda, rinv, rrevh, rinvh, cnorm, diag)}
}

// LAApplyQH returns the launch of Q^H b for nrhs columns of b (ldb >= m).
func (v LAVariant) LAApplyQH(m, n, lda int, a, tau LAPtr, nrhs int, b LAPtr, ldb int) []LALaunch {
	if nrhs == 0 || n == 0 {
		return nil
	}
	grid, block := v.warps(nrhs, v.Teams(LAQH))
	return []LALaunch{v.launch(LAQH, grid, block, a, tau, m, n, lda, b, ldb, nrhs)}
}

// LAQH1Threads is the block of qh1.
const LAQH1Threads = LAMaxThreads

// LAApplyQH1 returns the launch of Q^H b for one column b (qh1: the same
// bits as LAApplyQH with nrhs = 1, the updates spread over a block).
func (v LAVariant) LAApplyQH1(m, n, lda int, a, tau, b LAPtr) []LALaunch {
	if n == 0 {
		return nil
	}
	block := min(LAQH1Threads, max(32, (m+31)/32*32))
	return []LALaunch{v.launch(LAQH1, 1, block, a, tau, m, n, lda, b)}
}

// LABackSub1 returns the launch of the back substitution R x = b for one
// column b (backsub1: the same bits as LABackSub with nrhs = 1, the rows'
// sums pipelined over a block), acc a work space of LABackSub1Acc(n)
// elements.
func (v LAVariant) LABackSub1(n int, rrev, rinv, b, acc LAPtr) []LALaunch {
	if n == 0 {
		return nil
	}
	block := min(LAMaxThreads, max(32, (n+31)/32*32))
	return []LALaunch{v.launch(LABackSub1, 1, block, rrev, rinv, n, b, acc)}
}

// LABackSub1Acc returns the elements of backsub1's work space: 16 n.
func LABackSub1Acc(n int) int { return LALanes * n }

// LABackSub returns the launch of the back substitution R x = b for nrhs
// columns of b (ldb >= n), with rrev and rinv from LAPackR.
func (v LAVariant) LABackSub(n int, rrev, rinv LAPtr, nrhs int, b LAPtr, ldb int) []LALaunch {
	if nrhs == 0 || n == 0 {
		return nil
	}
	grid, block := v.groups(nrhs, v.Teams(LABackSub))
	return []LALaunch{v.launch(LABackSub, grid, block, rrev, rinv, n, b, ldb, nrhs)}
}

// LAMulSubRows is the rows (groups of 16 lanes) of a block of mulsub.
const LAMulSubRows = 8

// LAMulSub returns the launch of r_p = b_p - A_p x_p for p = 0..count-1
// (see the kernel mulsub; strides in elements).
func (v LAVariant) LAMulSub(m, n int, a LAPtr, lda, sa int, x LAPtr, sx int, b LAPtr, sb int, r LAPtr, sr, count int) []LALaunch {
	if m == 0 || count == 0 {
		return nil
	}
	rowBlocks, block := v.groups(m, v.Teams(LAMulSub))
	return []LALaunch{v.launch(LAMulSub, count*rowBlocks, block, a, lda, sa, x, sx, b, sb, r, sr, m, n, count)}
}

// LANorm1 returns the launch of out[p] = Norm1(x_p[:length]), x_p at
// x + p*sx, p = 0..count-1; out holds count N-double reals.
func (v LAVariant) LANorm1(x LAPtr, length, sx, count int, out LAPtr) []LALaunch {
	if count == 0 {
		return nil
	}
	grid, block := v.groups(count, v.Teams(LANorm1))
	return []LALaunch{v.launch(LANorm1, grid, block, x, length, sx, count, out)}
}

// LALeadNorm1 returns the launch of out[p] = la.LeadNorm1(x_p[:length]),
// x_p at x + p*sx, p = 0..count-1; out holds count doubles.
func (v LAVariant) LALeadNorm1(x LAPtr, length, sx, count int, out LAPtr) []LALaunch {
	if count == 0 {
		return nil
	}
	block := min(LAMaxThreads, (count+31)/32*32)
	return []LALaunch{v.launch(LALeadNorm1, (count+block-1)/block, block, x, length, sx, count, out)}
}

// LAToeplitzUpdate returns the one launch of the Newton updates
// b_j -= A_(j-k) dx_k for j = k+1..w in runtime/newton's layout: A_i the
// m x n matrix at a + i*m*n (lda = m), b_j at b + j*m, dx_k at dx + k*n.
func (v LAVariant) LAToeplitzUpdate(m, n int, a, b, dx LAPtr, k, w int) []LALaunch {
	if k >= w {
		return nil
	}
	wd := v.W()
	bj := b.At((k+1)*m, wd)
	return v.LAMulSub(m, n, a.At(m*n, wd), m, m*n, dx.At(k*n, wd), 0, bj, m, bj, m, w-k)
}

// LAResiduals returns the launches of the norms ||b_k - A_0 dx_k||_1 for
// k = 0..w into out[0..w] (doubles), r a work space of (w+1)*m elements:
// runtime/newton's residual norms of every block (la.LeadNorm1 of
// b_k - A_0 dx_k computed by MulSub); b is unchanged.
func (v LAVariant) LAResiduals(m, n int, a, b, dx LAPtr, w int, r, out LAPtr) []LALaunch {
	ls := v.LAMulSub(m, n, a, m, 0, dx, n, b, m, r, m, w+1)
	return append(ls, v.LALeadNorm1(r, m, m, w+1, out)...)
}
