package stager

import (
	"cmp"
	"slices"

	"github.com/mdgen/mdgen/internal/par"
	"github.com/mdgen/mdgen/stager/poly"
)

// Slot indexes one series in a Plan's data array. In an executor's memory a
// slot holds Degree+1 coefficients, each of N limbs (and a real and an
// imaginary part for complex data). How limbs are laid out (one array per
// limb on the GPU, interleaved on the CPU) is the executor's choice; the Plan
// only numbers series.
type Slot int32

// SlotKind says what a slot holds.
type SlotKind uint8

const (
	// SlotConst holds a polynomial's constant term, read-only.
	SlotConst SlotKind = iota
	// SlotCoef holds a monomial coefficient or an exponent factor (an
	// integer as a constant series), read-only.
	SlotCoef
	// SlotInput holds an input series z[v], read-only during a run.
	SlotInput
	// SlotWork holds a job output (a power, common factor, forward, backward
	// or cross product); additions accumulate into work slots in place.
	SlotWork
)

// ConvJob is one convolution of truncated series: Out = A * B, computed
// coefficient by coefficient in the canonical order
//
//	Out[k] = A[0]*B[k], then Out[k] += A[i]*B[k-i] for i = 1..k,
//
// so that every executor produces the same bits (the first product a Mul,
// each later term a fused MulAdd of the accumulator). Complex data is three
// real convolutions in that order (Gauss): with A = xr + i·xi and
// B = yr + i·yi, first sx[j] = xr[j] + xi[j], dy[j] = yi[j] - yr[j] and
// sy[j] = yr[j] + yi[j] for every j, then C1 = sx*yr, C2 = xr*dy and
// C3 = xi*sy, then Out[k] = (C1[k] - C3[k]) + i·(C1[k] + C2[k]).
type ConvJob struct {
	Out, A, B Slot
}

// AddJob adds one series into another in place: Dst += Src.
type AddJob struct {
	Dst, Src Slot
}

// Plan is the staged evaluation and differentiation of a System at series of
// degree Degree. Executors run ConvLayers in order, then AddLayers in order;
// the jobs within one layer are independent (Check proves it).
type Plan struct {
	Degree   int // series are truncated after t^Degree: Degree+1 coefficients
	NumVars  int
	NumPolys int

	// Kinds has one entry per slot; slots are numbered in the order
	// [constants | coefficients | inputs | work], so each kind is a range.
	Kinds []SlotKind
	// Values maps each read-only slot (SlotConst, SlotCoef) to the exact
	// series it holds; executors round it once to their precision. Stage
	// shares these coefficients with System (no copy: a large system has
	// millions): they are read-only, for the Plan and the System alike.
	Values map[Slot]poly.Series
	// Inputs[v] is the slot of the input series z[v].
	Inputs []Slot

	ConvLayers [][]ConvJob
	AddLayers  [][]AddJob

	// Value[p] is the slot that holds polynomial p at z once the plan has
	// run, or NoSlot for the zero polynomial. Executors treat NoSlot as the
	// zero series.
	Value []Slot
	// Partials[p] lists the partial derivatives of polynomial p that are
	// not identically zero, by increasing variable: ∂p/∂z[e.Var] is in
	// slot e.Slot for each entry e; every other derivative is zero. A sparse
	// system (10^5 linear equations) has a short list per polynomial;
	// DerivSlot looks one up.
	Partials [][]Partial
	// Deriv[p][v] holds ∂p/∂z[v], or NoSlot when the derivative is
	// identically zero: the dense form of Partials, made by Stage only when
	// NumPolys·NumVars is at most 2^20 or at most 4 times the number of
	// nonzero derivatives, and nil otherwise. Use DerivSlot, which works
	// either way.
	Deriv [][]Slot

	// System is the system that was staged (coefficients before truncation
	// to Degree). Check evaluates it directly to verify the Plan; it is nil
	// for a Plan not made by Stage, and then Check proves only that the
	// Plan is race-free and complete.
	System *poly.System
}

// NoSlot marks an identically zero output.
const NoSlot Slot = -1

// Partial is one nonzero partial derivative of a polynomial: ∂p/∂z[Var]
// is held in Slot.
type Partial struct {
	Var  int32
	Slot Slot
}

// DerivSlot returns the slot of ∂p/∂z[v] (poly = p), or NoSlot when that
// derivative is identically zero: a binary search in Partials, or the
// dense Deriv of a Plan made without Partials.
func (p *Plan) DerivSlot(poly, v int) Slot {
	if p.Partials == nil {
		if p.Deriv == nil {
			return NoSlot
		}
		return p.Deriv[poly][v]
	}
	row := p.Partials[poly]
	i, ok := slices.BinarySearchFunc(row, v, func(e Partial, v int) int { return cmp.Compare(int(e.Var), v) })
	if !ok {
		return NoSlot
	}
	return row[i].Slot
}

// EachDeriv calls f for every derivative slot the plan lists, polynomial
// by polynomial in increasing variable order: the sparse Partials, or the
// entries of a dense Deriv that are not NoSlot.
func (p *Plan) EachDeriv(f func(poly, v int, s Slot)) {
	for poly := 0; poly < p.NumPolys; poly++ {
		p.forEachDeriv(poly, func(v int, s Slot) { f(poly, v, s) })
	}
}

// forEachDeriv calls f for every derivative of polynomial poly that the
// plan lists (Partials, or the entries of Deriv that are not NoSlot).
func (p *Plan) forEachDeriv(poly int, f func(v int, s Slot)) {
	if p.Partials != nil {
		for _, e := range p.Partials[poly] {
			f(int(e.Var), e.Slot)
		}
		return
	}
	if p.Deriv != nil {
		for v, s := range p.Deriv[poly] {
			if s != NoSlot {
				f(v, s)
			}
		}
	}
}

// NumSlots returns the number of series in the data array.
func (p *Plan) NumSlots() int { return len(p.Kinds) }

// ConvJobs returns the number of convolution jobs over all layers.
func (p *Plan) ConvJobs() int { return countJobs(p.ConvLayers) }

// AddJobs returns the number of addition jobs over all layers.
func (p *Plan) AddJobs() int { return countJobs(p.AddLayers) }

func countJobs[J any](layers [][]J) int {
	n := 0
	for _, l := range layers {
		n += len(l)
	}
	return n
}

// DerivTable fills ds, column-major with leading dimension m, with the
// derivative slots of polynomials i < m in variables j < n:
// ds[i+j*m] = DerivSlot(i, j) as an int64, and -1 (NoSlot) where the
// derivative is identically zero or (i, j) lies outside the plan. It is the
// dense table a linear solver indexes by (row, column), made in time linear
// in m·n plus the nonzero derivatives (calling DerivSlot for every entry
// costs a binary search each: 16.7 million of them for n = 4096), on every
// core. It panics when len(ds) < m·n.
func (p *Plan) DerivTable(ds []int64, m, n int) {
	if m < 0 || n < 0 || len(ds) < m*n {
		panic("stager: DerivTable: the table is shorter than m·n")
	}
	ds = ds[:m*n]
	rows := min(m, p.NumPolys)
	// Chunks of about 2^16 entries, at least one polynomial (or column).
	per := max(1, (1<<16)/max(1, n))
	par.Run((m+per-1)/per, func(_, k int) {
		lo, hi := k*per, min(m, (k+1)*per)
		for j := 0; j < n; j++ {
			col := ds[j*m : (j+1)*m]
			for i := lo; i < hi; i++ {
				col[i] = int64(NoSlot)
			}
		}
		for i := lo; i < min(hi, rows); i++ {
			p.forEachDeriv(i, func(v int, s Slot) {
				if v < n {
					ds[i+v*m] = int64(s)
				}
			})
		}
	})
}
