package bench

import (
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/mdops/alg"
)

// The operation counts of the linear algebra, by the formulas of LAPACK
// Working Note 41 (Blackford and Dongarra, "Installation Guide for LAPACK",
// appendix: the counts that LAPACK's, PLASMA's and MAGMA's timing programs
// report). They count every multiplication (divisions and square roots
// included) and every addition of the textbook algorithm, the reflectors'
// lower-order terms too, independently of the order in which an
// implementation sums: a 16-lane sum's combining additions are not counted,
// so a faster order shows as a higher rate and never as more operations.

// laCount is the multiplications and additions of a linear algebra
// operation on real or complex elements (one of each per element
// operation, whatever the element type).
type laCount struct{ muls, adds float64 }

func (a laCount) plus(b laCount) laCount  { return laCount{a.muls + b.muls, a.adds + b.adds} }
func (a laCount) times(k float64) laCount { return laCount{k * a.muls, k * a.adds} }

// geqrfCount is LAWN 41's xGEQRF on an m x n matrix (Householder QR with
// the reflectors' generation).
func geqrfCount(m, n int) laCount {
	M, N := float64(m), float64(n)
	if m > n {
		return laCount{N * (N*(0.5-N/3+M) + M + 23.0/6), N * (N*(0.5-N/3+M) + 5.0/6)}
	}
	return laCount{M * (M*(-0.5-M/3+N) + 2*N + 23.0/6), M * (M*(-0.5-M/3+N) + N + 5.0/6)}
}

// unmqrCount is LAWN 41's xUNMQR from the left on an m x nrhs block: Q^H B
// for the Q of k reflectors of length at most m.
func unmqrCount(m, nrhs, k int) laCount {
	M, R, K := float64(m), float64(nrhs), float64(k)
	return laCount{2*R*M*K - R*K*K + 2*R*K, 2*R*M*K - R*K*K + R*K}
}

// trsvCount is LAWN 41's xTRSV: the solve by an n x n triangular matrix
// (the n divisions by the diagonal among the multiplications).
func trsvCount(n int) laCount {
	N := float64(n)
	return laCount{N * (N + 1) / 2, N * (N - 1) / 2}
}

// gemvCount is y - A x for an m x n A: LAWN 41's xGEMV without the
// scalings by alpha and beta (here -1 and 1, so none is done).
func gemvCount(m, n int) laCount {
	mn := float64(m) * float64(n)
	return laCount{mn, mn}
}

// doubleOps converts c to double operations at prec doubles: each pair of
// a multiplication and an addition as one multiply-add (maddOps, as the
// code fuses them), the rest at the cost of a multiplication or an
// addition of the element type (alg's programs, FMA = 1).
func (c laCount) doubleOps(prec int, complex bool) float64 {
	pairs := min(c.muls, c.adds)
	return pairs*maddOps(prec, complex) + (c.muls-pairs)*mulOps(prec, complex) + (c.adds-pairs)*addOps(prec, complex)
}

// mulOps and addOps are the double operations of one multiplication and
// one addition of prec-double real or complex elements (elemOps).
func mulOps(prec int, complex bool) float64 { return elemOps(prec, complex, "mul") }
func addOps(prec int, complex bool) float64 { return elemOps(prec, complex, "add") }

// elemOps returns the double operations of alg's program op ("mul",
// "add", "madd") of prec-double elements, real or complex (calls expanded,
// FMA = 1).
func elemOps(prec int, complex bool, op string) float64 {
	l := alg.Build(prec)
	if !complex {
		return float64(map[string]*alg.Program{"mul": l.Mul, "add": l.Add, "madd": l.MulAdd}[op].Count().Flops())
	}
	c := alg.BuildComplex(l)
	return float64(map[string]*alg.Program{"mul": c.Mul, "add": c.Add, "madd": c.MulAdd}[op].Count().Flops())
}

// QRSolveOps returns the double operations, by LAWN 41's counts, of the
// QR of an n x n matrix and one solve with it (Q^H b, the back
// substitution) at precision p: the count of one path of the batched
// linear algebra's benchmark.
func QRSolveOps(n int, p mdops.Prec) float64 {
	return geqrfCount(n, n).plus(unmqrCount(n, 1, n)).plus(trsvCount(n)).doubleOps(p.N, p.Complex)
}
