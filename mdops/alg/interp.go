package alg

import "math"

// Eval runs p on the given arguments (one slice per parameter) and returns
// its limbs. It performs exactly the IEEE-754 operations the printers emit,
// so its results are bit-identical to the generated Go and CUDA code.
func (p *Program) Eval(args ...[]float64) []float64 {
	v := make([]float64, len(p.Instrs))
	calls := map[Value][]float64{}
	for i := range p.Instrs {
		in := &p.Instrs[i]
		switch in.Op {
		case OpArg:
			v[i] = args[in.Param][in.Limb]
		case OpConst:
			v[i] = in.Const
		case OpAdd:
			v[i] = v[in.A] + v[in.B]
		case OpSub:
			v[i] = v[in.A] - v[in.B]
		case OpMul:
			v[i] = float64(v[in.A] * v[in.B])
		case OpFMA:
			v[i] = math.FMA(v[in.A], v[in.B], v[in.C])
		case OpDiv:
			v[i] = v[in.A] / v[in.B]
		case OpSqrt:
			v[i] = math.Sqrt(v[in.A])
		case OpNeg:
			v[i] = -v[in.A]
		case OpAbs:
			v[i] = math.Abs(v[in.A])
		case OpSelNonZero:
			if v[in.A] != 0 {
				v[i] = v[in.B]
			} else {
				v[i] = v[in.C]
			}
		case OpSelFinite:
			if c := v[in.A]; c-c == 0 {
				v[i] = v[in.B]
			} else {
				v[i] = v[in.C]
			}
		case OpSelNegative:
			if v[in.A] < 0 {
				v[i] = v[in.B]
			} else {
				v[i] = v[in.C]
			}
		case OpSelAbsLess:
			if math.Abs(v[in.A]) < math.Abs(v[in.B]) {
				v[i] = v[in.C]
			} else {
				v[i] = v[in.D]
			}
		case OpCall:
			cargs := make([][]float64, len(in.CallArgs))
			for j, a := range in.CallArgs {
				cargs[j] = make([]float64, len(a))
				for k, x := range a {
					cargs[j][k] = v[x]
				}
			}
			calls[Value(i)] = in.Callee.Eval(cargs...)
		case OpExtract:
			v[i] = calls[in.A][in.Limb]
		}
	}
	out := make([]float64, len(p.Results))
	for k, r := range p.Results {
		out[k] = v[r]
	}
	return out
}
