// Package alg holds mdgen's multiple-double algorithms as data: straight-line
// programs over float64 (an IR), the error-free building blocks (TwoSum,
// FastTwoSum, TwoProd), renormalization, and the N-double operations built
// from them for every N in 1..16.
//
// The algorithms are written once, here. The printers in package gen turn a
// Program into Go (package mdops) and into CUDA (generated/cuda), and the
// interpreter in this package runs the same Program on the host, so operation
// counts and measured accuracy come from the very instruction sequence that
// is shipped.
package alg

import "fmt"

// Op is one IR instruction kind.
type Op uint8

// The IR's instructions. Every arithmetic instruction is a single IEEE-754
// double operation rounded to nearest; printers must never let a compiler
// fuse or reorder them.
const (
	OpArg         Op = iota // limb Limb of parameter Param
	OpConst                 // the float64 Const
	OpAdd                   // A + B
	OpSub                   // A - B
	OpMul                   // A * B (rounded; never fused)
	OpFMA                   // A*B + C with one rounding
	OpDiv                   // A / B
	OpSqrt                  // sqrt(A)
	OpNeg                   // -A (exact, not a flop)
	OpAbs                   // |A| (exact, not a flop)
	OpSelNonZero            // A != 0 ? B : C (NaN counts as non-zero)
	OpSelFinite             // A is finite ? B : C
	OpSelNegative           // A < 0 ? B : C
	OpSelAbsLess            // |A| < |B| ? C : D
	OpCall                  // call Callee with CallArgs; the result is a vector read by OpExtract
	OpExtract               // limb Limb of the call result A
)

var opNames = [...]string{"arg", "const", "add", "sub", "mul", "fma", "div", "sqrt", "neg", "abs",
	"selnz", "selfinite", "selneg", "selabsless", "call", "extract"}

func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("op(%d)", o)
}

// IsSelect reports whether o is one of the branch-free selections.
func (o Op) IsSelect() bool {
	return o == OpSelNonZero || o == OpSelFinite || o == OpSelNegative || o == OpSelAbsLess
}

// Value names the result of an instruction: its index in Program.Instrs.
type Value int32

// Instr is one instruction. Operands refer to earlier instructions, so a
// Program is in SSA form and its instruction order is a valid schedule.
type Instr struct {
	Op       Op
	A, B, C  Value
	D        Value   // OpSelAbsLess only
	Param    int     // OpArg: which parameter
	Limb     int     // OpArg, OpExtract: which limb
	Const    float64 // OpConst
	Callee   *Program
	CallArgs [][]Value // OpCall: one vector per callee parameter
}

// Param is a parameter of a Program: an N-double (Width N) or a float64 (Width 1).
type Param struct {
	Name   string
	Width  int
	Scalar bool // a float64 operand rather than an N-double (matters when N = 1)
}

// Program is a straight-line function from its parameters to N limbs.
type Program struct {
	Op      string // operation name: add, sub, mul, sqr, div, sqrt, neg, abs, mulf64
	N       int    // limbs of the result (and of N-double parameters)
	Params  []Param
	Instrs  []Instr
	Results []Value
}

// Builder appends instructions to a Program under construction.
type Builder struct {
	p    *Program
	zero Value
	hasZ bool
}

// NewBuilder starts a program and returns the limbs of each parameter.
func NewBuilder(op string, n int, params ...Param) (*Builder, [][]Value) {
	b := &Builder{p: &Program{Op: op, N: n, Params: params}}
	args := make([][]Value, len(params))
	for i, prm := range params {
		for k := 0; k < prm.Width; k++ {
			args[i] = append(args[i], b.emit(Instr{Op: OpArg, Param: i, Limb: k}))
		}
	}
	return b, args
}

func (b *Builder) emit(in Instr) Value {
	b.p.Instrs = append(b.p.Instrs, in)
	return Value(len(b.p.Instrs) - 1)
}

// Const returns a constant; zero is shared.
func (b *Builder) Const(c float64) Value {
	if c == 0 && !signbit(c) {
		if !b.hasZ {
			b.zero, b.hasZ = b.emit(Instr{Op: OpConst}), true
		}
		return b.zero
	}
	return b.emit(Instr{Op: OpConst, Const: c})
}

func signbit(x float64) bool { return 1/x < 0 }

// Add returns x + y.
func (b *Builder) Add(x, y Value) Value { return b.emit(Instr{Op: OpAdd, A: x, B: y}) }

// Sub returns x - y.
func (b *Builder) Sub(x, y Value) Value { return b.emit(Instr{Op: OpSub, A: x, B: y}) }

// Mul returns the rounded product x * y.
func (b *Builder) Mul(x, y Value) Value { return b.emit(Instr{Op: OpMul, A: x, B: y}) }

// FMA returns x*y + z rounded once.
func (b *Builder) FMA(x, y, z Value) Value { return b.emit(Instr{Op: OpFMA, A: x, B: y, C: z}) }

// Div returns x / y.
func (b *Builder) Div(x, y Value) Value { return b.emit(Instr{Op: OpDiv, A: x, B: y}) }

// Sqrt returns sqrt(x).
func (b *Builder) Sqrt(x Value) Value { return b.emit(Instr{Op: OpSqrt, A: x}) }

// Neg returns -x.
func (b *Builder) Neg(x Value) Value { return b.emit(Instr{Op: OpNeg, A: x}) }

// Abs returns |x|.
func (b *Builder) Abs(x Value) Value { return b.emit(Instr{Op: OpAbs, A: x}) }

// SelNonZero returns c != 0 ? x : y.
func (b *Builder) SelNonZero(c, x, y Value) Value {
	if x == y {
		return x
	}
	return b.emit(Instr{Op: OpSelNonZero, A: c, B: x, C: y})
}

// SelFinite returns c finite ? x : y.
func (b *Builder) SelFinite(c, x, y Value) Value {
	if x == y {
		return x
	}
	return b.emit(Instr{Op: OpSelFinite, A: c, B: x, C: y})
}

// SelNegative returns c < 0 ? x : y.
func (b *Builder) SelNegative(c, x, y Value) Value {
	if x == y {
		return x
	}
	return b.emit(Instr{Op: OpSelNegative, A: c, B: x, C: y})
}

// SelAbsLess returns |a| < |b| ? x : y.
func (b *Builder) SelAbsLess(a, c, x, y Value) Value {
	if x == y {
		return x
	}
	return b.emit(Instr{Op: OpSelAbsLess, A: a, B: c, C: x, D: y})
}

// IsZeroConst reports whether v is the shared +0 constant.
func (b *Builder) IsZeroConst(v Value) bool { return b.hasZ && v == b.zero }

// Call calls callee (whose parameters must match args) and returns its limbs.
func (b *Builder) Call(callee *Program, args ...[]Value) []Value {
	if len(args) != len(callee.Params) {
		panic(fmt.Sprintf("alg: call of %s with %d arguments, want %d", callee.Op, len(args), len(callee.Params)))
	}
	for i, a := range args {
		if len(a) != callee.Params[i].Width {
			panic(fmt.Sprintf("alg: call of %s: argument %d has %d limbs, want %d", callee.Op, i, len(a), callee.Params[i].Width))
		}
	}
	if callee.N <= InlineMaxN {
		return b.inline(callee, args)
	}
	c := b.emit(Instr{Op: OpCall, Callee: callee, CallArgs: args})
	out := make([]Value, callee.N)
	for k := range out {
		out[k] = b.emit(Instr{Op: OpExtract, A: c, Limb: k})
	}
	return out
}

// InlineMaxN is the largest N whose calls are expanded in place: the
// callee's instructions are copied into the caller, so a small operation
// built from others (div, sqrt, madd and the complex operations for
// N <= 2) is one straight-line program, which the printers emit as one
// function (no call overhead, one register allocation). The instructions,
// and so the bits, are those of the call.
const InlineMaxN = 2

// inline copies callee's instructions into b with its parameters bound to
// args and returns its results.
func (b *Builder) inline(callee *Program, args [][]Value) []Value {
	m := make([]Value, len(callee.Instrs))
	calls := map[int][]Value{}
	for i := range callee.Instrs {
		in := callee.Instrs[i]
		switch in.Op {
		case OpArg:
			m[i] = args[in.Param][in.Limb]
			continue
		case OpConst:
			m[i] = b.Const(in.Const)
			continue
		case OpCall:
			cargs := make([][]Value, len(in.CallArgs))
			for j, a := range in.CallArgs {
				cargs[j] = make([]Value, len(a))
				for k, v := range a {
					cargs[j][k] = m[v]
				}
			}
			calls[i] = b.Call(in.Callee, cargs...)
			continue
		case OpExtract:
			m[i] = calls[int(in.A)][in.Limb]
			continue
		}
		switch len(in.operands()) {
		case 4:
			in.D = m[in.D]
			fallthrough
		case 3:
			in.C = m[in.C]
			fallthrough
		case 2:
			in.B = m[in.B]
			fallthrough
		case 1:
			in.A = m[in.A]
		}
		m[i] = b.emit(in)
	}
	out := make([]Value, len(callee.Results))
	for k, r := range callee.Results {
		out[k] = m[r]
	}
	return out
}

// Finish sets the results, removes dead instructions and returns the program.
func (b *Builder) Finish(results []Value) *Program {
	p := b.p
	p.Results = results
	p.eliminateDeadCode()
	return p
}

// operands returns the values an instruction reads.
func (in *Instr) operands() []Value {
	switch in.Op {
	case OpArg, OpConst:
		return nil
	case OpSqrt, OpNeg, OpAbs, OpExtract:
		return []Value{in.A}
	case OpFMA, OpSelNonZero, OpSelFinite, OpSelNegative:
		return []Value{in.A, in.B, in.C}
	case OpSelAbsLess:
		return []Value{in.A, in.B, in.C, in.D}
	case OpCall:
		var vs []Value
		for _, a := range in.CallArgs {
			vs = append(vs, a...)
		}
		return vs
	default:
		return []Value{in.A, in.B}
	}
}

// eliminateDeadCode drops instructions whose values no result depends on and
// renumbers the rest, keeping their order. Parameters are always kept so
// that printers can name every limb.
func (p *Program) eliminateDeadCode() {
	live := make([]bool, len(p.Instrs))
	for _, r := range p.Results {
		live[r] = true
	}
	for i := len(p.Instrs) - 1; i >= 0; i-- {
		if p.Instrs[i].Op == OpArg {
			live[i] = true
		}
		if !live[i] {
			continue
		}
		for _, v := range p.Instrs[i].operands() {
			live[v] = true
		}
	}
	remap := make([]Value, len(p.Instrs))
	var kept []Instr
	for i, in := range p.Instrs {
		if !live[i] {
			continue
		}
		remap[i] = Value(len(kept))
		in.A, in.B, in.C, in.D = remap[in.A], remap[in.B], remap[in.C], remap[in.D]
		if in.Op == OpCall {
			args := make([][]Value, len(in.CallArgs))
			for j, a := range in.CallArgs {
				args[j] = make([]Value, len(a))
				for k, v := range a {
					args[j][k] = remap[v]
				}
			}
			in.CallArgs = args
		}
		kept = append(kept, in)
	}
	for i, r := range p.Results {
		p.Results[i] = remap[r]
	}
	p.Instrs = kept
}

// Counts are the instruction counts of a program, calls expanded.
type Counts struct {
	Adds    int // additions and subtractions
	Muls    int // rounded multiplications
	FMAs    int // fused multiply-adds
	Divs    int // divisions and square roots
	Selects int // branch-free selections (not flops)
}

// Flops is the number of floating-point operations: adds, subs, muls, fmas,
// divs and sqrts each count one. Negation, absolute value and selections are
// not flops.
func (c Counts) Flops() int { return c.Adds + c.Muls + c.FMAs + c.Divs }

func (c Counts) add(o Counts) Counts {
	return Counts{c.Adds + o.Adds, c.Muls + o.Muls, c.FMAs + o.FMAs, c.Divs + o.Divs, c.Selects + o.Selects}
}

// WholeParam returns the index of the vector parameter whose limbs 0..k-1
// are exactly vals (so that a printer can pass the parameter itself instead
// of building the vector limb by limb), or -1.
func (p *Program) WholeParam(vals []Value) int {
	for i, prm := range p.Params {
		if prm.Scalar || prm.Width != len(vals) {
			continue
		}
		whole := true
		for k, v := range vals {
			if in := p.Instrs[v]; in.Op != OpArg || in.Param != i || in.Limb != k {
				whole = false
				break
			}
		}
		if whole {
			return i
		}
	}
	return -1
}

// Count returns the instruction counts of p with every call expanded.
func (p *Program) Count() Counts {
	var c Counts
	for i := range p.Instrs {
		switch in := &p.Instrs[i]; in.Op {
		case OpAdd, OpSub:
			c.Adds++
		case OpMul:
			c.Muls++
		case OpFMA:
			c.FMAs++
		case OpDiv, OpSqrt:
			c.Divs++
		case OpSelNonZero, OpSelFinite, OpSelNegative, OpSelAbsLess:
			c.Selects++
		case OpCall:
			c = c.add(in.Callee.Count())
		}
	}
	return c
}

// Callees returns the distinct programs p calls directly, in first-call order.
func (p *Program) Callees() []*Program {
	var out []*Program
	seen := map[*Program]bool{}
	for _, in := range p.Instrs {
		if in.Op == OpCall && !seen[in.Callee] {
			seen[in.Callee] = true
			out = append(out, in.Callee)
		}
	}
	return out
}
