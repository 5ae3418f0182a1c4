package gen

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/mdops/alg"
	"github.com/mdgen/mdgen/mdops/fp"
	"github.com/mdgen/mdgen/templates"
)

// cudaOps maps IR instructions to the device/host functions of mdbase.cuh.
var cudaOps = map[alg.Op]string{
	alg.OpAdd: "md_add", alg.OpSub: "md_sub", alg.OpMul: "md_mul", alg.OpFMA: "md_fma",
	alg.OpDiv: "md_div", alg.OpSqrt: "md_sqrt", alg.OpSelNonZero: "md_sel_nonzero",
	alg.OpSelFinite: "md_sel_finite", alg.OpSelNegative: "md_sel_negative", alg.OpSelAbsLess: "md_sel_absless",
}

func cudaFuncName(p *alg.Program) string {
	if isComplex(p) {
		return cudaCType(p.N) + "_" + p.Op[1:]
	}
	return cudaType(p.N) + "_" + p.Op
}

func render(name string, data any) ([]byte, error) {
	t, err := templates.Parse(name)
	if err != nil {
		return nil, fmt.Errorf("gen: template %s: %w", name, err)
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, data); err != nil {
		return nil, fmt.Errorf("gen: template %s: %w", name, err)
	}
	return buf.Bytes(), nil
}

// CUDABase returns mdbase.cuh.
func CUDABase() ([]byte, error) {
	return render("mdbase.cuh.tmpl", map[string]any{"Header": Header})
}

// CUDAIndex returns mdgen.cuh, which includes the headers of ns.
func CUDAIndex(ns []int) ([]byte, error) {
	return render("mdgen.cuh.tmpl", map[string]any{"Header": Header, "Ns": ns})
}

// CUDAHeader returns md<N>.cuh for the library l and its complex operations.
func CUDAHeader(l *alg.Library, c *alg.ComplexLibrary) ([]byte, error) {
	var fns []string
	for _, p := range append(l.Programs(), c.Programs()...) {
		fns = append(fns, cudaProgram(p))
	}
	return render("precision.cuh.tmpl", map[string]any{
		"Header": Header, "N": l.N, "Last": l.N - 1, "Bits": 53 * l.N, "Functions": fns,
	})
}

func cudaFloat(c float64) string {
	s := strconv.FormatFloat(c, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return s
}

// cudaProgram prints p as one inline function.
func cudaProgram(p *alg.Program) string {
	n := p.N
	T, CT := cudaType(n), cudaCType(n)
	name := func(v alg.Value) string { return "v" + strconv.Itoa(int(v)) }
	// Parameter names are the C++ expressions: x, f, a.re, acc.im.
	param := func(i, k int) string {
		if p.Params[i].Scalar {
			return p.Params[i].Name
		}
		return fmt.Sprintf("%s.v[%d]", p.Params[i].Name, k)
	}
	var expr func(v alg.Value) string
	expr = func(v alg.Value) string {
		in := p.Instrs[v]
		switch in.Op {
		case alg.OpArg:
			return param(in.Param, in.Limb)
		case alg.OpConst:
			return cudaFloat(in.Const)
		case alg.OpNeg:
			return "(-" + expr(in.A) + ")"
		case alg.OpExtract:
			return fmt.Sprintf("%s.v[%d]", name(in.A), in.Limb)
		}
		return name(v)
	}
	vector := func(vals []alg.Value, scalar bool) string {
		if scalar {
			return expr(vals[0])
		}
		if i := p.WholeParam(vals); i >= 0 {
			return p.Params[i].Name
		}
		items := make([]string, len(vals))
		for k, v := range vals {
			items[k] = expr(v)
		}
		return fmt.Sprintf("%s{{%s}}", cudaType(len(vals)), strings.Join(items, ", "))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "// %s\n// %s\n", strings.Replace(goDoc[p.Op], goMethod[p.Op], cudaFuncName(p), 1), countsLine(p))
	var params []string
	for _, prm := range paramVars(p) {
		switch {
		case prm.Scalar:
			params = append(params, "double "+prm.Name)
		case isComplex(p):
			params = append(params, CT+" "+prm.Name)
		default:
			params = append(params, T+" "+prm.Name)
		}
	}
	ret := T
	if len(p.Results) == 2*n {
		ret = CT
	}
	fmt.Fprintf(&b, "MD_HD %s %s(%s) {\n", ret, cudaFuncName(p), strings.Join(params, ", "))
	for i, in := range p.Instrs {
		v := alg.Value(i)
		switch in.Op {
		case alg.OpArg, alg.OpConst, alg.OpNeg, alg.OpExtract:
			continue
		case alg.OpAbs:
			fmt.Fprintf(&b, "  const double %s = fabs(%s);\n", name(v), expr(in.A))
		case alg.OpCall:
			cp := in.Callee
			args := make([]string, len(in.CallArgs))
			for j, a := range in.CallArgs {
				args[j] = vector(a, cp.Params[j].Scalar)
			}
			fmt.Fprintf(&b, "  const %s %s = %s(%s);\n", cudaType(cp.N), name(v), cudaFuncName(cp), strings.Join(args, ", "))
		default:
			fn, ok := cudaOps[in.Op]
			if !ok {
				panic(fmt.Sprintf("gen: cannot print %v", in.Op))
			}
			ops := []alg.Value{in.A, in.B, in.C, in.D}[:len(operandsOf(in))]
			args := make([]string, len(ops))
			for j, o := range ops {
				args[j] = expr(o)
			}
			fmt.Fprintf(&b, "  const double %s = %s(%s);\n", name(v), fn, strings.Join(args, ", "))
		}
	}
	limbs := func(vals []alg.Value) string {
		items := make([]string, len(vals))
		for k, v := range vals {
			items[k] = expr(v)
		}
		return "{" + strings.Join(items, ", ") + "}"
	}
	if len(p.Results) == 2*n {
		fmt.Fprintf(&b, "  return %s{{%s}, {%s}};\n", CT, limbs(p.Results[:n]), limbs(p.Results[n:]))
	} else {
		fmt.Fprintf(&b, "  return %s{%s};\n", T, limbs(p.Results))
	}
	b.WriteString("}\n")
	return b.String()
}

// operandsOf returns the operands an arithmetic or selection instruction reads.
func operandsOf(in alg.Instr) []alg.Value {
	switch in.Op {
	case alg.OpSqrt, alg.OpAbs:
		return []alg.Value{in.A}
	case alg.OpFMA, alg.OpSelNonZero, alg.OpSelFinite, alg.OpSelNegative:
		return []alg.Value{in.A, in.B, in.C}
	case alg.OpSelAbsLess:
		return []alg.Value{in.A, in.B, in.C, in.D}
	}
	return []alg.Value{in.A, in.B}
}

// CUDAFP returns mdfp.cuh, the device's twins of package mdops/fp with
// fp.Table's coefficients written as exact hexadecimal floats.
func CUDAFP() ([]byte, error) {
	c := fp.Table()
	hex := func(v float64) string { return strconv.FormatFloat(v, 'x', -1, 64) }
	type table struct {
		Name   string
		Values []string
	}
	var tables []table
	for _, t := range []struct {
		name string
		v    []float64
	}{{"MDFP_ODD_RECIP", c.OddRecip}, {"MDFP_INV_FACT", c.InvFact}, {"MDFP_SIN", c.Sin}, {"MDFP_COS", c.Cos}} {
		tb := table{Name: t.name}
		for _, v := range t.v {
			tb.Values = append(tb.Values, hex(v))
		}
		tables = append(tables, tb)
	}
	return render("mdfp.cuh.tmpl", map[string]any{
		"Header": Header, "Tables": tables,
		"LogTerms": len(c.OddRecip), "ExpTerms": len(c.InvFact), "SincosTerms": len(c.Sin),
		"Ln2": hex(c.Ln2), "InvLn2": hex(c.InvLn2), "Pio2Hi": hex(c.Pio2Hi), "Pio2Lo": hex(c.Pio2Lo),
		"TwoOverPi": hex(c.TwoOverPi), "Sqrt1_2": hex(c.Sqrt1_2),
	})
}

// CUDATrack returns mdtrack.cuh, the device's twin of runtime/track's
// arithmetic (arith.go: the shift, the Padé approximants, the prediction).
func CUDATrack() ([]byte, error) {
	return render("mdtrack.cuh.tmpl", map[string]any{"Header": Header, "ParamMax": gpuabi.BNParamMaxLen})
}
