package gen

import (
	"bytes"
	"fmt"
	"go/format"
	"strings"
	"text/template"
)

// This file generates package mdops/la, the dense multiple-double linear
// algebra: every routine is written once below, as a text/template over a
// variant (one precision N, real or complex), and instantiated for each
// generated precision on the methods of mdops.F<N> and mdops.C<N>. Generated
// code (rather than Go generics over the method sets) because a generic
// loop calls the methods through a dictionary, without inlining and with
// the array arguments in memory: 2 to 2.5 times slower at N = 2 (see
// mdops/la/generic_bench_test.go).
//
// The small element helpers (conj, neg, the first product of a lane, ...)
// are the only places where the real and the complex text differ, apart
// from larfg and the sign vectors of the condition estimator.

// laVariant is one instantiation of the templates.
type laVariant struct {
	N int
	C bool   // complex
	S string // suffix of the names: F4 or C4
	T string // element type: mdops.F4 or mdops.C4
	R string // real type: mdops.F4
	W int    // float64s per element
	// QHMin and TRMin are the team thresholds of ApplyQH and SolveR on one
	// vector (laThresholds).
	QHMin, TRMin int
	// QHGroup is the lane group of ApplyQH's team (applyQHPar).
	QHGroup int
}

func laVariants(ns []int) []laVariant {
	var vs []laVariant
	for _, n := range ns {
		r := realType(n)
		c := complexType(n)
		qr, tr := laThresholds(n, false)
		qc, tc := laThresholds(n, true)
		vs = append(vs,
			laVariant{N: n, S: r, T: "mdops." + r, R: "mdops." + r, W: n, QHMin: qr, TRMin: tr, QHGroup: laQHGroup(n, false)},
			laVariant{N: n, C: true, S: c, T: "mdops." + c, R: "mdops." + r, W: 2 * n, QHMin: qc, TRMin: tc, QHGroup: laQHGroup(n, true)})
	}
	return vs
}

// laThresholds returns the team thresholds of ApplyQH and SolveR on one
// vector for N doubles, real or complex: ApplyQH forms a team of w (a
// power of two) when m >= 2 w qhMin and applies with it the reflectors
// with m-k >= w qhMin; SolveR forms one when n >= 2 trMin + 2 w, and its
// worker 0 computes the first trMin rows alone. Measured on the 2-core
// x86-64 KVM guest of issue 11 with the thresholds at their minimum
// (LA_BENCH_QHMIN=1 LA_BENCH_TRMIN=0, BenchmarkRates), 2 workers against
// 1, medians of paired timings:
//
//	        ApplyQH                 SolveR
//	        n=16  32    64    128   n=16  32    64    128
//	F2      -     0.57  0.68  0.66  0.45  0.85  1.05  1.14-1.24
//	C2      0.60  0.77  0.77  0.72  0.66  0.99  1.13-1.26  1.29-1.52
//	F4      0.91  1.07  1.23  1.31  0.76  1.01  1.33  1.46-1.59
//	C4      1.21  1.46  (load) 1.74 1.35  1.58  1.69  1.74-1.76
//	F8      1.48  1.52  1.73  -     1.36  1.55  1.73  -
//	C8      1.58  1.78  1.91  -     1.64  1.48  1.86  -
//
// On the 16-core device host (KVM guest, 16 vCPUs; pinned to two of them,
// bench/results/h200host-la-rates.txt) ApplyQH's team at its minimum
// threshold gave 0.46-0.60 (F2), 0.59-0.81 (C2) at n = 32..128 with lane
// group 1, 0.51-0.60 and 0.71-0.93 with group 8 (laQHGroup), and SolveR's
// 0.71-1.13 (F2), 0.96-1.48 (C2; 1.00 / 1.22 / 1.51 with trMin 16).
//
// ApplyQH's team splits each reflector's lanes by residue (see
// applyQHPar), so that rows change hands at every reflector: with
// elements of less than 64 bytes two workers write into the same cache
// lines at every reflector, which ApplyQH does not recover at N <= 3 or
// complex N = 2 (no team). 1 << 20 stands for never.
func laThresholds(n int, complex bool) (qhMin, trMin int) {
	const never = 1 << 20
	bytes := 8 * n
	if complex {
		bytes *= 2
	}
	switch {
	case bytes <= 8: // F1
		return never, never
	case bytes <= 16: // F2, C1
		return never, 64
	case bytes <= 24: // F3
		return never, 48
	case complex && n == 2: // C2 (SolveR: 1.22-1.27 at n = 64 on the 16-core host)
		return never, 16
	case bytes <= 40: // F4, F5
		return 8, 12
	case bytes < 64: // C3
		return 8, 8
	case n <= 4: // C4
		return 2, 4
	default: // F8, C5 and up
		return 1, 2
	}
}

// laQHGroup returns the lane group of ApplyQH's team (applyQHPar) for N
// doubles, real or complex: 1 (lanes dealt out one by one). Groups of 8
// (two workers: halves of the lanes) measured no better on the 16-core
// host where teams are formed (F4: 1.08 / 1.25 at n = 64 / 128 against
// 1.22 / 1.24; C4: 1.37 / 1.57 against 1.61 / 1.72), and did not make
// the teams of F2 and C2 pay (see laThresholds).
func laQHGroup(n int, complex bool) int {
	return 1
}

// LAFiles returns the generated files of package mdops/la for the
// precisions ns, keyed by slash-separated path relative to the repository
// root. The output depends on ns alone.
func LAFiles(ns []int) (map[string][]byte, error) {
	data := struct {
		V  []laVariant
		Ns []int
	}{laVariants(ns), ns}
	files := map[string][]byte{}
	for _, f := range laTemplates {
		t, err := template.New(f.name).Funcs(template.FuncMap{"trimPrefix": laTrimPrefix}).Parse(f.text)
		if err != nil {
			return nil, fmt.Errorf("la template %s: %v", f.name, err)
		}
		var b bytes.Buffer
		b.WriteString("// " + Header + "\n\n")
		if err := t.Execute(&b, data); err != nil {
			return nil, fmt.Errorf("la template %s: %v", f.name, err)
		}
		src, err := format.Source(b.Bytes())
		if err != nil {
			return nil, fmt.Errorf("la template %s: formatting: %v", f.name, err)
		}
		files["mdops/la/"+f.name] = src
	}
	return files, nil
}

var laTemplates = []struct{ name, text string }{
	{"elem_gen.go", laElem},
	{"reduce_gen.go", laReduce},
	{"larfg_gen.go", laLarfg},
	{"geqr2_gen.go", laGeqr2},
	{"applyqh_gen.go", laApplyQH},
	{"trsv_gen.go", laTrsv},
	{"mulsub_gen.go", laMulSub},
	{"cond_gen.go", laCond},
	{"kernels_gen.go", laKernels},
	{"types_gen_test.go", laTestTypes},
}

const laElem = `package la

import (
	"math"

	"github.com/mdgen/mdgen/mdops"
)

// The element helpers: the only operations whose real and complex forms
// differ. Each is a line or two of mdops methods, which the compiler inlines.
{{range .V}}{{if not .C}}
// conj{{.S}} returns x (the conjugate of a real number).
func conj{{.S}}(x {{.T}}) {{.T}} { return x }

// neg{{.S}} returns -x.
func neg{{.S}}(x {{.T}}) {{.T}} { return x.Neg() }

// prod{{.S}} is the first product of a lane: x.Mul(y).
func prod{{.S}}(x, y {{.T}}) {{.T}} { return x.Mul(y) }

// conjTail{{.S}} is a no-op: real Householder vectors are their own
// conjugates (QR{{.S}}.vc aliases A).
func conjTail{{.S}}(dst, src []{{.T}}) {}

// abs{{.S}} returns |x|.
func abs{{.S}}(x {{.T}}) {{.R}} { return x.Abs() }

// scale{{.S}} returns x.MulFloat64(f).
func scale{{.S}}(x {{.T}}, f float64) {{.T}} { return x.MulFloat64(f) }

// mulReal{{.S}} returns x*r.
func mulReal{{.S}}(x {{.T}}, r {{.R}}) {{.T}} { return x.Mul(r) }

// isZero{{.S}} reports whether x is zero (its leading limb is).
func isZero{{.S}}(x {{.T}}) bool { return x[0] == 0 }

// lead{{.S}} returns the magnitude of x's leading limb.
func lead{{.S}}(x {{.T}}) float64 { return math.Abs(x[0]) }

// absLead{{.S}} is the condition estimate's magnitude of x: |x_0|, the
// leading limb's (la.LeadNorm1).
func absLead{{.S}}(x {{.T}}) float64 { return math.Abs(x[0]) }

// real{{.S}} returns the real part of x.
func real{{.S}}(x {{.T}}) {{.R}} { return x }

// fromReal{{.S}} returns r as an element.
func fromReal{{.S}}(r {{.R}}) {{.T}} { return r }

// fromFloat{{.S}} returns the element re + i im (im is ignored for real elements).
func fromFloat{{.S}}(re, im float64) {{.T}} { return {{.R}}FromFloat64(re) }

// lead2{{.S}} returns the leading limbs of the real and imaginary parts.
func lead2{{.S}}(x {{.T}}) (re, im float64) { return x[0], 0 }

// sqFirst{{.S}} is the first term of a lane of a sum of squares: y*y.
func sqFirst{{.S}}(y {{.T}}) {{.R}} { return y.Mul(y) }

// sqAcc{{.S}} adds a later term to a lane of a sum of squares: acc + y*y.
func sqAcc{{.S}}(acc {{.R}}, y {{.T}}) {{.R}} { return acc.MulAdd(y, y) }
{{else}}
// conj{{.S}} returns the complex conjugate of x.
func conj{{.S}}(x {{.T}}) {{.T}} { return {{.T}}{Re: x.Re, Im: x.Im.Neg()} }

// neg{{.S}} returns -x.
func neg{{.S}}(x {{.T}}) {{.T}} { return {{.T}}{Re: x.Re.Neg(), Im: x.Im.Neg()} }

// prod{{.S}} is the first product of a lane: {{.T}}{}.MulAdd(x, y), from zero.
func prod{{.S}}(x, y {{.T}}) {{.T}} { return {{.T}}{}.MulAdd(x, y) }

// conjTail{{.S}} sets dst[i] = conj(src[i]): the conjugated Householder
// vector, so that v^H c runs as plain MulAdds (building conj(v_i) inside
// the loop costs twice as much).
func conjTail{{.S}}(dst, src []{{.T}}) {
	dst = dst[:len(src)]
	for i := range src {
		dst[i] = conj{{.S}}(src[i])
	}
}

// abs{{.S}} returns |x|.
func abs{{.S}}(x {{.T}}) {{.R}} { return x.Abs() }

// scale{{.S}} multiplies both parts of x by f (MulFloat64).
func scale{{.S}}(x {{.T}}, f float64) {{.T}} {
	return {{.T}}{Re: x.Re.MulFloat64(f), Im: x.Im.MulFloat64(f)}
}

// mulReal{{.S}} multiplies both parts of x by the real r (Mul).
func mulReal{{.S}}(x {{.T}}, r {{.R}}) {{.T}} { return {{.T}}{Re: x.Re.Mul(r), Im: x.Im.Mul(r)} }

// isZero{{.S}} reports whether x is zero (the leading limbs of both parts are).
func isZero{{.S}}(x {{.T}}) bool { return x.Re[0] == 0 && x.Im[0] == 0 }

// lead{{.S}} returns the larger magnitude of the leading limbs of the two parts.
func lead{{.S}}(x {{.T}}) float64 { return max(math.Abs(x.Re[0]), math.Abs(x.Im[0])) }

// absLead{{.S}} is the condition estimate's magnitude of x: |Re_0| + |Im_0|,
// of the leading limbs (la.LeadNorm1).
func absLead{{.S}}(x {{.T}}) float64 { return math.Abs(x.Re[0]) + math.Abs(x.Im[0]) }

// real{{.S}} returns the real part of x.
func real{{.S}}(x {{.T}}) {{.R}} { return x.Re }

// fromReal{{.S}} returns r as an element.
func fromReal{{.S}}(r {{.R}}) {{.T}} { return {{.T}}{Re: r} }

// fromFloat{{.S}} returns the element re + i im.
func fromFloat{{.S}}(re, im float64) {{.T}} {
	return {{.T}}{Re: {{.R}}FromFloat64(re), Im: {{.R}}FromFloat64(im)}
}

// lead2{{.S}} returns the leading limbs of the real and imaginary parts.
func lead2{{.S}}(x {{.T}}) (re, im float64) { return x.Re[0], x.Im[0] }

// sqFirst{{.S}} is the first term of a lane of a sum of squares:
// y.Re*y.Re (Mul), then + y.Im*y.Im (MulAdd).
func sqFirst{{.S}}(y {{.T}}) {{.R}} { return y.Re.Mul(y.Re).MulAdd(y.Im, y.Im) }

// sqAcc{{.S}} adds a later term to a lane of a sum of squares:
// acc + y.Re*y.Re, then + y.Im*y.Im (two MulAdds).
func sqAcc{{.S}}(acc {{.R}}, y {{.T}}) {{.R}} { return acc.MulAdd(y.Re, y.Re).MulAdd(y.Im, y.Im) }
{{end}}{{end}}`

const laReduce = `package la

import "github.com/mdgen/mdgen/mdops"

// The lane reductions of the package documentation ("Reductions"): lane l
// takes the terms t_i with i ≡ l (mod Lanes) in increasing i, then the
// lanes are combined by the fixed tree of combine<T>.
{{range .V}}
// combine{{.S}} combines the lanes acc[0:f] (f = min(K, Lanes) lanes received
// a term) by the fixed tree: for s = Lanes/2, ..., 2, 1, lane l < s becomes
// acc[l].Add(acc[l+s]) when l+s < f. It returns lane 0 (zero when f = 0).
// Every lane full (f = Lanes, the sums of Lanes terms or more) takes a
// loop without the test, the same operations.
func combine{{.S}}(acc *[Lanes]{{.T}}, f int) {{.T}} {
	if f == Lanes {
		for s := Lanes / 2; s >= 1; s /= 2 {
			a, b := acc[:s], acc[s:2*s]
			for l := range a {
				a[l] = a[l].Add(b[l])
			}
		}
		return acc[0]
	}
	for s := Lanes / 2; s >= 1; s /= 2 {
		for l := 0; l < s && l+s < f; l++ {
			acc[l] = acc[l].Add(acc[l+s])
		}
	}
	return acc[0]
}

// dotu{{.S}} returns the sum of x[i]*y[i], i = 0..len(x)-1 (term t_i =
// x[i]*y[i], x the first operand), in the lane order.
func dotu{{.S}}(x, y []{{.T}}) {{.T}} {
	k := len(x)
	y = y[:k]
	var acc [Lanes]{{.T}}
	f := min(k, Lanes)
	for l := 0; l < f; l++ {
		acc[l] = prod{{.S}}(x[l], y[l])
	}
	i := Lanes
	for ; i+Lanes <= k; i += Lanes {
		xs := (*[Lanes]{{.T}})(x[i : i+Lanes])
		ys := (*[Lanes]{{.T}})(y[i : i+Lanes])
		for l := range Lanes {
			acc[l] = acc[l].MulAdd(xs[l], ys[l])
		}
	}
	for l := 0; i+l < k; l++ {
		acc[l] = acc[l].MulAdd(x[i+l], y[i+l])
	}
	return combine{{.S}}(&acc, f)
}

// dotc{{.S}} returns the sum of conj(x[i])*y[i], i = 0..len(x)-1 (term t_i =
// conj(x[i])*y[i]), in the lane order.
func dotc{{.S}}(x, y []{{.T}}) {{.T}} {
	k := len(x)
	y = y[:k]
	var acc [Lanes]{{.T}}
	f := min(k, Lanes)
	for l := 0; l < f; l++ {
		acc[l] = prod{{.S}}(conj{{.S}}(x[l]), y[l])
	}
	i := Lanes
	for ; i+Lanes <= k; i += Lanes {
		xs := (*[Lanes]{{.T}})(x[i : i+Lanes])
		ys := (*[Lanes]{{.T}})(y[i : i+Lanes])
		for l := range Lanes {
			acc[l] = acc[l].MulAdd(conj{{.S}}(xs[l]), ys[l])
		}
	}
	for l := 0; i+l < k; l++ {
		acc[l] = acc[l].MulAdd(conj{{.S}}(x[i+l]), y[i+l])
	}
	return combine{{.S}}(&acc, f)
}

// hdot{{.S}} returns head + sum of vc[i]*c[i], i = 0..len(vc)-1, where vc
// holds conj(v): the dot product v^H c of a Householder vector (leading 1
// implicit) with a column: K = len(vc)+1 terms, t_0 = head (it initializes
// lane 0), t_i = conj(v[i-1])*c[i-1] for i >= 1.
func hdot{{.S}}(head {{.T}}, vc, c []{{.T}}) {{.T}} {
	k := len(vc) + 1
	c = c[:len(vc)]
	var acc [Lanes]{{.T}}
	acc[0] = head
	f := min(k, Lanes)
	for l := 1; l < f; l++ {
		acc[l] = prod{{.S}}(vc[l-1], c[l-1])
	}
	i := Lanes
	for ; i+Lanes <= k; i += Lanes {
		vs := (*[Lanes]{{.T}})(vc[i-1 : i-1+Lanes])
		cs := (*[Lanes]{{.T}})(c[i-1 : i-1+Lanes])
		for l := range Lanes {
			acc[l] = acc[l].MulAdd(vs[l], cs[l])
		}
	}
	for l := 0; i+l < k; l++ {
		acc[l] = acc[l].MulAdd(vc[i+l-1], c[i+l-1])
	}
	return combine{{.S}}(&acc, f)
}

// sumSq{{.S}} returns the sum of |y_i|^2 with y_i = x[i] scaled by f1 then
// by f2 (MulFloat64; f2 only when it is not 1), term t_i = |y_i|^2 (see
// sqFirst{{.S}}, sqAcc{{.S}}).
func sumSq{{.S}}(x []{{.T}}, f1, f2 float64) {{.R}} {
	k := len(x)
	var acc [Lanes]{{.R}}
	f := min(k, Lanes)
	for l := 0; l < f; l++ {
		acc[l] = sqFirst{{.S}}(scale2{{.S}}(x[l], f1, f2))
	}
	i := Lanes
	for ; i+Lanes <= k; i += Lanes {
		xs := (*[Lanes]{{.T}})(x[i : i+Lanes])
		for l := range Lanes {
			acc[l] = sqAcc{{.S}}(acc[l], scale2{{.S}}(xs[l], f1, f2))
		}
	}
	for l := 0; i+l < k; l++ {
		acc[l] = sqAcc{{.S}}(acc[l], scale2{{.S}}(x[i+l], f1, f2))
	}
	return combine{{.R | trimPrefix}}(&acc, f)
}

// scale2{{.S}} returns x scaled by f1, then by f2 unless f2 is 1.
func scale2{{.S}}(x {{.T}}, f1, f2 float64) {{.T}} {
	x = scale{{.S}}(x, f1)
	if f2 != 1 {
		x = scale{{.S}}(x, f2)
	}
	return x
}

// Norm1{{.S}} returns the 1-norm sum |x_i| of x: term t_i = |x_i|
// ({{if .C}}the modulus, {{end}}Abs), the first term of a lane by assignment, the later
// ones by Add, in the lane order.
func Norm1{{.S}}(x []{{.T}}) {{.R}} {
	k := len(x)
	var acc [Lanes]{{.R}}
	f := min(k, Lanes)
	for l := 0; l < f; l++ {
		acc[l] = abs{{.S}}(x[l])
	}
	i := Lanes
	for ; i+Lanes <= k; i += Lanes {
		xs := (*[Lanes]{{.T}})(x[i : i+Lanes])
		for l := range Lanes {
			acc[l] = acc[l].Add(abs{{.S}}(xs[l]))
		}
	}
	for l := 0; i+l < k; l++ {
		acc[l] = acc[l].Add(abs{{.S}}(x[i+l]))
	}
	return combine{{.R | trimPrefix}}(&acc, f)
}

// leadNorm1{{.S}} is the condition estimate's 1-norm of x, a float64 (the
// Go twin of the flat LeadNorm1): s = s + absLead{{.S}}(x_i) for
// i = 0, 1, ..., from s = 0.
func leadNorm1{{.S}}(x []{{.T}}) float64 {
	s := 0.0
	for i := range x {
		s += absLead{{.S}}(x[i])
	}
	return s
}
{{end}}
var _ = mdops.F1{}
`

const laLarfg = `package la

import "github.com/mdgen/mdgen/mdops"
{{range .V}}
// larfg{{.S}} generates an elementary reflector H = I - tau v v^H with
// H^H x = beta e_1 (LAPACK's {{if .C}}zlarfg{{else}}dlarfg{{end}}): on entry x = (alpha, x_1, ...,
// x_(K-1)) is the column below and on the diagonal; on return x[0] = beta
// (real), x[1:] the tail of v (v_0 = 1 is implicit), and the result is tau.
//
// Order (the specification):
//  1. amax = the largest magnitude of a leading limb of x_1..x_(K-1){{if .C}} (real
//     and imaginary parts){{end}}. If amax is 0{{if .C}} and alpha is real{{end}}, H = I: tau = 0 and x
//     is unchanged.
//  2. e = the exponent of max(amax, |alpha|'s leading limb) (2^e <= max <
//     2^(e+1)); x is scaled by 2^-e (scale2: MulFloat64 by f1 = 2^-e, or,
//     when 2^-e is not a float64, by 2^1000 then by 2^(-e-1000)); this is
//     exact (barring underflow of negligible limbs), so that no square
//     overflows or underflows. a = alpha scaled.
//  3. ss = sumSq of the scaled tail (the lane order, terms |y_i|^2{{if .C}}: Re*Re then Im*Im{{end}});
//     nrm = ss{{if .C}}.MulAdd(a.Re, a.Re).MulAdd(a.Im, a.Im){{else}}.MulAdd(a, a){{end}}.Sqrt().
//  4. beta' = -nrm if {{if .C}}a.Re{{else}}a{{end}}'s leading limb is >= 0 (-0 included), else +nrm.
{{- if .C}}
//  5. d = a.Re.Sub(beta'); tau = (d.Div(beta').Neg(), a.Im.Div(beta').Neg());
//     r = {{.T}}{Re: 1}.Div({{.T}}{Re: d, Im: a.Im}); x_i = y_i.Mul(r) for i >= 1.
{{- else}}
//  5. d = a.Sub(beta'); tau = d.Div(beta').Neg(); r = 1.Div(d);
//     x_i = y_i.Mul(r) for i >= 1.
{{- end}}
//  6. beta = beta' scaled back by 2^e (MulFloat64, split as in 2).
func larfg{{.S}}(x []{{.T}}) (tau {{.T}}) {
	if len(x) == 0 {
		return
	}
	amax := 0.0
	for _, xi := range x[1:] {
		if a := lead{{.S}}(xi); a > amax || a != a {
			amax = a
		}
	}
	{{- if .C}}
	if amax == 0 && x[0].Im[0] == 0 {
		return
	}
	{{- else}}
	if amax == 0 {
		return
	}
	{{- end}}
	f1, f2, g1, g2 := pow2Scales(max(amax, lead{{.S}}(x[0])))
	a := scale2{{.S}}(x[0], f1, f2)
	ss := sumSq{{.S}}(x[1:], f1, f2)
	{{- if .C}}
	nrm := ss.MulAdd(a.Re, a.Re).MulAdd(a.Im, a.Im).Sqrt()
	beta := nrm
	if a.Re[0] >= 0 {
		beta = nrm.Neg()
	}
	d := a.Re.Sub(beta)
	tau = {{.T}}{Re: d.Div(beta).Neg(), Im: a.Im.Div(beta).Neg()}
	r := {{.T}}{Re: {{.R}}FromFloat64(1)}.Div({{.T}}{Re: d, Im: a.Im})
	{{- else}}
	nrm := ss.MulAdd(a, a).Sqrt()
	beta := nrm
	if a[0] >= 0 {
		beta = nrm.Neg()
	}
	d := a.Sub(beta)
	tau = d.Div(beta).Neg()
	r := {{.R}}FromFloat64(1).Div(d)
	{{- end}}
	for i := 1; i < len(x); i++ {
		x[i] = scale2{{.S}}(x[i], f1, f2).Mul(r)
	}
	x[0] = fromReal{{.S}}(scale2F{{.N}}(beta, g1, g2))
	return tau
}
{{end}}
var _ = mdops.F1{}
`

const laGeqr2 = `package la

import (
	"fmt"
	"sync"

	"github.com/mdgen/mdgen/mdops"
)
{{range .V}}
// QR{{.S}} is the Householder QR factorization A = Q R of an m x n {{if .C}}complex{{else}}real{{end}}
// matrix, m >= n, with Q = H_0 H_1 ... H_(n-1), H_k = I - tau_k v_k v_k^H
// (LAPACK's {{if .C}}zgeqr2{{else}}dgeqr2{{end}}). R's diagonal is real.
type QR{{.S}} struct {
	// A is the factored matrix, column-major with leading dimension m: R on
	// and above the diagonal, v_k[k+1:m] below it (v_k[k] = 1 is implicit).
	A []{{.T}}
	// Tau holds tau_k; tau_k = 0 means H_k = I.
	Tau []{{.T}}

	m, n     int
	vc       []{{.T}} // conj(v_k) below the diagonal{{if not .C}} (aliases A){{end}}
	rinv     []{{.R}} // 1.Div(R_kk), used by the back substitution
	rrev     []{{.T}} // row i of R: R_(i,n-1), R_(i,n-2), ..., R_(i,i+1), packed
	rowOff   []int    // start of row i in rrev
	diag     []float64 // leading limbs of R_kk (the rank check's)
	qhMin    int      // ApplyQH's team: at least qhMin rows per worker (qhMin{{.S}})
	qhGroup  int      // ApplyQH's team: lanes per run (qhGroup{{.S}}, see applyQHPar)
	trMin    int      // SolveR's team: rows worker 0 computes alone (trMin{{.S}})
	condOnce sync.Once
	cond     float64
	lead     *LeadR // R's leading limbs for Cond's float64 estimate (made by the first)
}

// NewQR{{.S}} computes the Householder QR factorization of the m x n
// column-major matrix a (element (i, j) at a[i+j*lda]; m >= n, lda >= m),
// which it copies and does not change. workers > 1 spreads the trailing
// updates over that many goroutines; the result is bit-identical for every
// worker count.
//
// Order: for k = 0, ..., n-1: larfg{{.S}} on A[k:m, k] (tau_k), then H_k^H is
// applied to each column j = k+1, ..., n-1 (applyH{{.S}}); a column sees the
// reflectors in increasing k. The worker count only decides which
// goroutine updates which column.
//
// The error is nil or a *RankError naming the first column k (1-based) with
// |R_kk| < Tol * max_j |R_jj|, Tol = n * Eps({{.N}}); with a *RankError the
// factorization is still complete and returned.
func NewQR{{.S}}(m, n int, a []{{.T}}, lda, workers int) (*QR{{.S}}, error) {
	checkMatrix("NewQR{{.S}}", m, n, len(a), lda)
	if m < n {
		panic(fmt.Sprintf("la: NewQR{{.S}}: m = %d < n = %d", m, n))
	}
	q := &QR{{.S}}{A: make([]{{.T}}, m*n), Tau: make([]{{.T}}, n), m: m, n: n, qhMin: qhMin{{.S}}, qhGroup: qhGroup{{.S}}, trMin: trMin{{.S}}}
	for j := 0; j < n; j++ {
		copy(q.A[j*m:(j+1)*m], a[j*lda:j*lda+m])
	}
	{{- if .C}}
	q.vc = make([]{{.T}}, m*n)
	{{- else}}
	q.vc = q.A
	{{- end}}
	geqr2{{.S}}(m, n, q.A, q.Tau, q.vc, workers)
	return q, q.finish()
}

// Refactor factors the m x n matrix a (lda >= m; q's shape) into q's own
// buffers, which it overwrites: the factorization NewQR{{.S}}(m, n, a,
// lda, workers) would return, bit for bit, and its error, without
// allocating (a Newton solver factors a Jacobian of one shape at every
// step). The cached condition estimate is dropped. Not safe while another
// goroutine uses q.
func (q *QR{{.S}}) Refactor(a []{{.T}}, lda, workers int) error {
	m, n := q.m, q.n
	checkMatrix("Refactor", m, n, len(a), lda)
	for j := 0; j < n; j++ {
		copy(q.A[j*m:(j+1)*m], a[j*lda:j*lda+m])
	}
	geqr2{{.S}}(m, n, q.A, q.Tau, q.vc, workers)
	q.condOnce, q.cond = sync.Once{}, 0
	return q.finish()
}

// QRFromFactors{{.S}} returns the factorization whose factored m x n matrix
// (column-major, lda = m) and scalars are a and tau, as NewQR{{.S}} leaves
// them in A and Tau (a GPU's QR, say: gen/gpuabi's qr kernel), which it
// copies: it computes what NewQR{{.S}} computes after the factorization
// (the conjugated Householder vectors, 1/R_kk, the packed rows of R) and
// checks the rank, so that Cond, ApplyQH and SolveR give NewQR{{.S}}'s bits
// when a and tau are its factors. The error is nil or a *RankError, as
// NewQR{{.S}}'s.
func QRFromFactors{{.S}}(m, n int, a, tau []{{.T}}) (*QR{{.S}}, error) {
	checkMatrix("QRFromFactors{{.S}}", m, n, len(a), m)
	if m < n || len(tau) < n {
		panic(fmt.Sprintf("la: QRFromFactors{{.S}}: m = %d, n = %d, %d scalars", m, n, len(tau)))
	}
	q := &QR{{.S}}{A: make([]{{.T}}, m*n), Tau: make([]{{.T}}, n), m: m, n: n, qhMin: qhMin{{.S}}, qhGroup: qhGroup{{.S}}, trMin: trMin{{.S}}}
	copy(q.A, a[:m*n])
	copy(q.Tau, tau[:n])
	{{- if .C}}
	q.vc = make([]{{.T}}, m*n)
	for k := 0; k < n; k++ {
		conjTail{{.S}}(q.vc[k+1+k*m:(k+1)*m], q.A[k+1+k*m:(k+1)*m])
	}
	{{- else}}
	q.vc = q.A
	{{- end}}
	return q, q.finish()
}

// Rows returns m.
func (q *QR{{.S}}) Rows() int { return q.m }

// Cols returns n.
func (q *QR{{.S}}) Cols() int { return q.n }

// Diag returns |R_kk| (0-based k).
func (q *QR{{.S}}) Diag(k int) {{.R}} { return real{{.S}}(q.A[k+k*q.m]).Abs() }

// finish computes rinv and the packed reversed rows of R, and checks the
// rank; its buffers are made by the first call (Refactor reuses them).
func (q *QR{{.S}}) finish() error {
	m, n := q.m, q.n
	if q.rinv == nil {
		q.rinv = make([]{{.R}}, n)
		q.rowOff = make([]int, n+1)
		for i := 0; i < n; i++ {
			q.rowOff[i+1] = q.rowOff[i] + n - 1 - i
		}
		q.rrev = make([]{{.T}}, q.rowOff[n])
		q.diag = make([]float64, n)
	}
	diag := q.diag
	for i := 0; i < n; i++ {
		d := real{{.S}}(q.A[i+i*m])
		diag[i] = d[0]
		q.rinv[i] = {{.R}}{}
		if d[0] != 0 {
			q.rinv[i] = {{.R}}FromFloat64(1).Div(d)
		}
		row := q.rrev[q.rowOff[i]:q.rowOff[i+1]]
		for t := range row {
			row[t] = q.A[i+(n-1-t)*m]
		}
	}
	return rankCheck(diag, {{.N}})
}

// The team thresholds of the single-vector routines (measured on a 2-core
// x86-64, see laThresholds in gen/la.go): ApplyQH uses a team of w
// goroutines when m >= 2 w qhMin{{.S}}, for the reflectors with m-k >= w
// qhMin{{.S}}; SolveR when n >= 2 trMin{{.S}} + 2 w, worker 0 computing the
// first trMin{{.S}} rows alone.
const (
	qhMin{{.S}}   = {{.QHMin}}
	qhGroup{{.S}} = {{.QHGroup}}
	trMin{{.S}}   = {{.TRMin}}
)

// geqr2{{.S}} factors the m x n matrix a (lda = m) in place; vc receives
// the conjugated Householder vectors{{if not .C}} (it is a itself){{end}}.
func geqr2{{.S}}(m, n int, a, tau, vc []{{.T}}, workers int) {
	w := min(workers, n-1)
	if w <= 1 {
		// Written out: the team's closures escape to its goroutines, and
		// one QR per Newton step would allocate them.
		for k := 0; k < n; k++ {
			tau[k] = larfg{{.S}}(a[k+k*m : (k+1)*m])
			conjTail{{.S}}(vc[k+1+k*m:(k+1)*m], a[k+1+k*m:(k+1)*m])
			for j := k + 1; j < n; j++ {
				applyH{{.S}}(a[k+1+k*m:(k+1)*m], vc[k+1+k*m:(k+1)*m], tau[k], a[k+j*m:(j+1)*m])
			}
		}
		return
	}
	larfg := func(k int) {
		tau[k] = larfg{{.S}}(a[k+k*m : (k+1)*m])
		conjTail{{.S}}(vc[k+1+k*m:(k+1)*m], a[k+1+k*m:(k+1)*m])
	}
	apply := func(k, j int) {
		applyH{{.S}}(a[k+1+k*m:(k+1)*m], vc[k+1+k*m:(k+1)*m], tau[k], a[k+j*m:(j+1)*m])
	}
	// Worker p owns the columns j ≡ p (mod w) and applies the reflectors to
	// them in increasing k. The owner of column k+1 generates reflector k+1
	// as soon as it has applied reflector k to that column (look-ahead) and
	// publishes it by setting ready to k+2: reflectors 0..ready-1 are done.
	var ready stepFlag
	run := func(p int) {
		for k := 0; k < n; k++ {
			if k%w == p {
				if k == 0 {
					larfg(0)
					ready.publish(1)
				}
			} else {
				ready.wait(k)
			}
			j := k + 1 + ((p-(k+1))%w+w)%w
			for ; j < n; j += w {
				apply(k, j)
				if j == k+1 {
					larfg(j)
					ready.publish(int64(j + 1))
				}
			}
		}
	}
	runTeam(w, run)
}

// applyH{{.S}} applies H^H = I - conj(tau) v v^H to c (len(c) = len(v)+1; v's
// leading 1 implicit; vc = conj(v)). Order: nothing when tau is zero; else
// w = hdot{{.S}}(c[0], vc, c[1:]) (= v^H c), s = {{if .C}}conj(tau).Mul(w){{else}}tau.Mul(w){{end}} negated, c[0] = c[0].Add(s),
// c[i] = c[i].MulAdd(v[i-1], s) for i >= 1.
func applyH{{.S}}(v, vc []{{.T}}, tau {{.T}}, c []{{.T}}) {
	if isZero{{.S}}(tau) {
		return
	}
	c = c[:len(v)+1]
	w := hdot{{.S}}(c[0], vc, c[1:])
	s := neg{{.S}}(conj{{.S}}(tau).Mul(w))
	c[0] = c[0].Add(s)
	c = c[1:]
	for i := range v {
		c[i] = c[i].MulAdd(v[i], s)
	}
}
{{end}}
var _ = mdops.F1{}
`

const laApplyQH = `package la

import "github.com/mdgen/mdgen/mdops"
{{range .V}}
// ApplyQH sets b[:m] = Q^H b[:m] = H_(n-1)^H ... H_0^H b: the reflectors in
// increasing k, each by applyH{{.S}} on b[k:m]. With workers > 1 the
// reflectors with m-k >= w*q.qhMin are applied by a team of w goroutines
// (qhTeam: w a power of two, at most min(workers, Lanes)), which splits
// each reflector's dot product v^H c by lanes and its update c += v s by
// rows (applyQHPar); the others run in the calling goroutine. The result
// does not depend on workers.
func (q *QR{{.S}}) ApplyQH(b []{{.T}}, workers int) {
	m := q.m
	if len(b) < m {
		panic("la: ApplyQH: len(b) < m")
	}
	b = b[:m]
	k := 0
	if w, kEnd := q.qhTeam(workers); w > 1 {
		q.applyQHPar(b, w, kEnd)
		k = kEnd
	}
	for ; k < q.n; k++ {
		applyH{{.S}}(q.A[k+1+k*m:(k+1)*m], q.vc[k+1+k*m:(k+1)*m], q.Tau[k], b[k:m])
	}
}

// qhTeam returns the team size of ApplyQH (1: none, also while the teams
// back off, see teamsAllowed), the largest power of two w <= min(workers,
// Lanes) with m >= 2 w qhMin, and the reflectors 0..kEnd-1 it applies:
// those with m-k >= w*qhMin (at least two).
func (q *QR{{.S}}) qhTeam(workers int) (w, kEnd int) {
	if workers <= 1 || !teamsAllowed() {
		return 1, 0
	}
	w = 1
	for 2*w <= min(workers, Lanes) && q.m >= 2*(2*w)*max(q.qhMin, 1) {
		w *= 2
	}
	if w == 1 {
		return 1, 0
	}
	kEnd = min(q.n, q.m-w*q.qhMin+1)
	if kEnd < 2 {
		return 1, 0
	}
	return w, kEnd
}

// applyQHPar applies the reflectors 0..kEnd-1 to b (len m) with a team of
// w goroutines (a power of two <= Lanes), in the order of applyH{{.S}}.
// Lane l of w = v^H c (the terms i ≡ l mod Lanes, as hdot{{.S}}) belongs to
// worker (l/g) mod w: runs of g = min(q.qhGroup, Lanes/w) consecutive
// lanes dealt out in turn. A worker accumulates its lanes and combines
// them by the levels s >= w g of the fixed tree, whose pairs (l, l+s) are
// its own (hdotClass{{.S}}); the team meets at a barrier; every worker
// then takes the w g partial lanes and does the levels s < w g (the same
// operations on the same values in each worker, so the same s =
// -conj(tau) w), and updates the rows it will own at the next nonzero
// reflector k' (row r holds lane (r-k') mod Lanes), so that at k' it reads
// only rows it has written itself and one barrier per reflector orders
// everything else. Row k and the rows k+1..k'-1 (skipped reflectors, tau =
// 0) are worker 0's. The partial lanes are double-buffered: a worker
// writes the buffer of step s+2 only after the barrier of step s+1, which
// every worker passes after it has read the buffer of step s.
//
// The group g trades the work after the barrier (2 w g - 1 Adds, done by
// every worker) against the rows that change hands: with g = 1 a worker
// does 7 of the 8 Adds of its share of the tree before the barrier (w =
// 2), but every row changes hands at every reflector, and two workers
// write into the same cache lines at every reflector when elements are
// smaller than a cache line; with g = Lanes/w, runs of g rows shift by one
// row per reflector, and only the rows at the w boundaries per Lanes rows
// change hands.
func (q *QR{{.S}}) applyQHPar(b []{{.T}}, w, kEnd int) {
	m := q.m
	g := max(1, min(q.qhGroup, Lanes/w))
	for g&(g-1) != 0 {
		g &= g - 1 // a power of two, so that w g divides Lanes
	}
	span := w * g
	next := func(k int) int {
		for k < kEnd && isZero{{.S}}(q.Tau[k]) {
			k++
		}
		return k
	}
	var part [2][Lanes]{{.T}}
	bar := stepFlag{team: true}
	run := func(p int) {
		var acc [Lanes]{{.T}}
		seq := 0
		for k := next(0); k < kEnd; seq++ {
			kn := next(k + 1)
			c := b[k:]
			f := min(m-k, Lanes)
			hdotClass{{.S}}(&acc, p, w, g, c, q.vc[k+1+k*m:(k+1)*m])
			buf := &part[seq&1]
			copy(buf[p*g:(p+1)*g], acc[p*g:(p+1)*g])
			bar.arrive()
			bar.wait(w*(seq+1) - 1)
			copy(acc[:span], buf[:span])
			for s := span / 2; s >= 1; s /= 2 {
				for l := 0; l < s && l+s < f; l++ {
					acc[l] = acc[l].Add(acc[l+s])
				}
			}
			s := neg{{.S}}(conj{{.S}}(q.Tau[k]).Mul(acc[0]))
			v := q.A[k+1+k*m : (k+1)*m]
			if p == 0 {
				c[0] = c[0].Add(s)
				for r := k + 1; r < kn; r++ {
					b[r] = b[r].MulAdd(v[r-k-1], s)
				}
			}
			for r0 := kn + p*g; r0 < m; r0 += span {
				for r := r0; r < min(r0+g, m); r++ {
					b[r] = b[r].MulAdd(v[r-k-1], s)
				}
			}
			k = kn
		}
	}
	runTeam(w, run)
}

// hdotClass{{.S}} computes the lanes of worker p of w of hdot{{.S}}(c[0],
// vc, c[1:]) (K = len(c) terms, t_0 = c[0], t_i = vc[i-1]*c[i]) in acc: the
// lanes l with (l/g) mod w = p, runs of g consecutive lanes (w g a power
// of two dividing Lanes). Then it does the levels s = Lanes/2, ..., w g of
// combine{{.S}} on them (acc[l] = acc[l].Add(acc[l+s]) for l < s, l+s <
// min(K, Lanes): l and l+s have the same owner when w g divides s), which
// leaves its share of the sum in acc[p g : p g + g]. Lanes that receive no
// term are not read.
func hdotClass{{.S}}(acc *[Lanes]{{.T}}, p, w, g int, c, vc []{{.T}}) {
	k := len(c)
	vc = vc[:k-1]
	f := min(k, Lanes)
	span := w * g
	for l0 := p * g; l0 < f; l0 += span {
		for l := l0; l < min(l0+g, f); l++ {
			if l == 0 {
				acc[0] = c[0]
			} else {
				acc[l] = prod{{.S}}(vc[l-1], c[l])
			}
		}
	}
	i := Lanes
	for ; i+Lanes <= k; i += Lanes {
		vs := (*[Lanes]{{.T}})(vc[i-1 : i-1+Lanes])
		cs := (*[Lanes]{{.T}})(c[i : i+Lanes])
		for l0 := p * g; l0 < Lanes; l0 += span {
			for l := l0; l < l0+g; l++ {
				acc[l] = acc[l].MulAdd(vs[l], cs[l])
			}
		}
	}
	for l0 := p * g; i+l0 < k; l0 += span {
		for l := l0; l < l0+g && i+l < k; l++ {
			acc[l] = acc[l].MulAdd(vc[i+l-1], c[i+l])
		}
	}
	for s := Lanes / 2; s >= span; s /= 2 {
		for l0 := p * g; l0 < s; l0 += span {
			for l := l0; l < l0+g && l+s < f; l++ {
				acc[l] = acc[l].Add(acc[l+s])
			}
		}
	}
}

// ApplyQHMany applies Q^H to the nrhs columns of the column-major b
// (column c at b[c*ldb : c*ldb+m], ldb >= m), each as ApplyQH, the columns
// spread over workers goroutines (and, when there are fewer columns than
// workers, workers/nrhs of them to each column's ApplyQH).
func (q *QR{{.S}}) ApplyQHMany(nrhs int, b []{{.T}}, ldb, workers int) {
	checkMatrix("ApplyQHMany", q.m, nrhs, len(b), ldb)
	inner := max(1, workers/max(nrhs, 1))
	parallel(workers, nrhs, 1, func(lo, hi int) {
		for c := lo; c < hi; c++ {
			q.ApplyQH(b[c*ldb:c*ldb+q.m], inner)
		}
	})
}
{{end}}
var _ = mdops.F1{}
`

const laTrsv = `package la

import "github.com/mdgen/mdgen/mdops"
{{range .V}}
// SolveR sets b[:n] = R^-1 b[:n] by back substitution. Order: for i = n-1
// down to 0, s_i = the sum of R_ij*x_j over j = n-1, n-2, ..., i+1 in the
// lane order (t_0 is j = n-1: term t = R_(i,n-1-t)*x_(n-1-t), R the first
// operand), x_i = b_i.Sub(s_i) (x_i = b_i when i = n-1) times rinv_i =
// 1.Div(R_ii) ({{if .C}}both parts, {{end}}Mul). With workers > 1 and n large enough the
// rows are spread over a team (backsubPar); the result does not depend on
// workers. It returns a *RankError, and leaves b unchanged, when some R_kk
// is zero.
func (q *QR{{.S}}) SolveR(b []{{.T}}, workers int) error {
	if len(b) < q.n {
		panic("la: SolveR: len(b) < n")
	}
	if err := q.singular(); err != nil {
		return err
	}
	if w := q.trTeam(workers); w > 1 {
		q.backsubPar(b, make([]{{.T}}, q.n), w)
	} else if q.n <= Lanes {
		var xr [Lanes]{{.T}} // on the stack: a small system's solve allocates nothing
		q.backsub(b, xr[:q.n])
	} else {
		q.backsub(b, make([]{{.T}}, q.n))
	}
	return nil
}

// backsub is SolveR's loop; xr is scratch of n elements (it ends holding x
// reversed).
func (q *QR{{.S}}) backsub(b, xr []{{.T}}) {
	n := q.n
	for t := 0; t < n; t++ {
		i := n - 1 - t
		x := b[i]
		if t > 0 {
			x = x.Sub(dotu{{.S}}(q.rrev[q.rowOff[i]:q.rowOff[i+1]], xr[:t]))
		}
		xr[t] = mulReal{{.S}}(x, q.rinv[i])
	}
	for t := 0; t < n; t++ {
		b[n-1-t] = xr[t]
	}
}

// trTeam returns the team size of SolveR (1: none, also while the teams
// back off, see teamsAllowed): min(workers, Lanes), when n >= 2 trMin +
// 2 w (worker 0 computes the first trMin rows alone).
func (q *QR{{.S}}) trTeam(workers int) int {
	w := min(workers, Lanes)
	if w <= 1 || q.n < 2*q.trMin+2*w || !teamsAllowed() {
		return 1
	}
	return w
}

// backsubPar is backsub by a team of w goroutines. Row t (i = n-1-t, the
// t-th computed) belongs to worker 0 for t < trMin, then to worker
// (t-trMin) mod w. A worker accumulates the lanes of its row with the
// terms t_q = R_(i,n-1-q)*x_(n-1-q) in increasing q (the lane order of
// dotu{{.S}}: each lane's terms in the same order) as the x_(n-1-q) = xr[q]
// are published (done > q), combines the lanes, computes x_i and publishes
// it; so the rows overlap, and only the last terms of a row wait for the
// row before it.
func (q *QR{{.S}}) backsubPar(b, xr []{{.T}}, w int) {
	n, t0 := q.n, q.trMin
	done := stepFlag{team: true} // xr[:done] are final
	run := func(p int) {
		var acc [Lanes]{{.T}}
		t := t0 + p
		if p == 0 {
			t = 0
		}
		for t < n {
			i := n - 1 - t
			row := q.rrev[q.rowOff[i]:q.rowOff[i+1]]
			x := b[i]
			if t > 0 {
				// The terms but the last as they are published, the
				// Adds of the tree that do not wait for the last term,
				// then the last term and the Adds on its lane's path.
				for j := 0; j < t-1; {
					avail := int(done.v.Load())
					if avail <= j {
						done.wait(j)
						avail = int(done.v.Load())
					}
					hi := min(avail, t-1)
					dotuFrom{{.S}}(&acc, row, xr, j, hi)
					j = hi
				}
				f, last := min(t, Lanes), (t-1)%Lanes
				combineOff{{.S}}(&acc, f, last)
				done.wait(t - 1)
				dotuFrom{{.S}}(&acc, row, xr, t-1, t)
				x = x.Sub(combinePath{{.S}}(&acc, f, last))
			}
			xr[t] = mulReal{{.S}}(x, q.rinv[i])
			done.publish(int64(t + 1))
			if t < t0-1 {
				t++
			} else if t == t0-1 {
				t = t0
			} else {
				t += w
			}
		}
	}
	runTeam(w, run)
	for t := 0; t < n; t++ {
		b[n-1-t] = xr[t]
	}
}

// dotuFrom{{.S}} adds the terms x[q]*y[q], q = q0..q1-1, to the lanes acc of
// dotu{{.S}} (lane q mod Lanes; a term q < Lanes initializes its lane): so
// that dotuFrom over consecutive ranges from 0 to K leaves the lanes of
// dotu{{.S}}(x[:K], y[:K]).
func dotuFrom{{.S}}(acc *[Lanes]{{.T}}, x, y []{{.T}}, q0, q1 int) {
	q := q0
	for ; q < q1 && q < Lanes; q++ {
		acc[q] = prod{{.S}}(x[q], y[q])
	}
	for ; q < q1 && q%Lanes != 0; q++ {
		acc[q%Lanes] = acc[q%Lanes].MulAdd(x[q], y[q])
	}
	for ; q+Lanes <= q1; q += Lanes {
		xs := (*[Lanes]{{.T}})(x[q : q+Lanes])
		ys := (*[Lanes]{{.T}})(y[q : q+Lanes])
		for l := range Lanes {
			acc[l] = acc[l].MulAdd(xs[l], ys[l])
		}
	}
	for ; q < q1; q++ {
		acc[q%Lanes] = acc[q%Lanes].MulAdd(x[q], y[q])
	}
}

// combineOff{{.S}} and combinePath{{.S}} are combine{{.S}}(acc, f) in two
// parts: combineOff does the Adds of the tree (in its order) whose result
// does not depend on lane last (acc[l] = acc[l].Add(acc[l+s]) for l <
// s, l+s < f, l != last mod s), combinePath then the others, the path of
// lane last to lane 0, and returns lane 0. Every Add reads the same
// values as in combine (an Add off the path reads only lanes off it), so
// the result is combine's; the back substitution's team calls combineOff
// before the last term of a row (lane last) arrives, so that only the
// Adds on the path wait for it.
func combineOff{{.S}}(acc *[Lanes]{{.T}}, f, last int) {
	for s := Lanes / 2; s >= 1; s /= 2 {
		for l := 0; l < s && l+s < f; l++ {
			if l != last%s {
				acc[l] = acc[l].Add(acc[l+s])
			}
		}
	}
}

func combinePath{{.S}}(acc *[Lanes]{{.T}}, f, last int) {{.T}} {
	for s := Lanes / 2; s >= 1; s /= 2 {
		if l := last % s; l+s < f {
			acc[l] = acc[l].Add(acc[l+s])
		}
	}
	return acc[0]
}

// singular returns a *RankError for the first zero R_kk, or nil.
func (q *QR{{.S}}) singular() error {
	for k := 0; k < q.n; k++ {
		if isZero{{.S}}(q.A[k+k*q.m]) {
			return &RankError{Col: k + 1, Ratio: 0, Tol: float64(q.n) * Eps({{.N}})}
		}
	}
	return nil
}

// SolveRMany applies SolveR to the nrhs columns of the column-major b
// (column c at b[c*ldb : c*ldb+n], ldb >= n), spread over workers
// goroutines (and, when there are fewer columns than workers, workers/nrhs
// of them to each column's back substitution).
func (q *QR{{.S}}) SolveRMany(nrhs int, b []{{.T}}, ldb, workers int) error {
	checkMatrix("SolveRMany", q.n, nrhs, len(b), ldb)
	if err := q.singular(); err != nil {
		return err
	}
	inner := q.trTeam(max(1, workers/max(nrhs, 1)))
	parallel(workers, nrhs, 1, func(lo, hi int) {
		xr := make([]{{.T}}, q.n)
		for c := lo; c < hi; c++ {
			if inner > 1 {
				q.backsubPar(b[c*ldb:c*ldb+q.n], xr, inner)
			} else {
				q.backsub(b[c*ldb:c*ldb+q.n], xr)
			}
		}
	})
	return nil
}

// Solve solves the least-squares problem min ||A x - b||_2 (the linear
// system when m = n): b[:m] = Q^H b[:m] (ApplyQH), then b[:n] = R^-1 b[:n]
// (SolveR), each with workers; x is b[:n], and ||b[n:m]||_2 is the norm of
// the residual. With a zero R_kk it returns a *RankError and leaves b
// unchanged.
func (q *QR{{.S}}) Solve(b []{{.T}}, workers int) error {
	if len(b) < q.m {
		panic("la: Solve: len(b) < m")
	}
	if err := q.singular(); err != nil {
		return err
	}
	q.ApplyQH(b, workers)
	return q.SolveR(b, workers)
}

// solveRH sets b[:n] = R^-H b[:n] by forward substitution (the condition
// estimator's transposed solves): for i = 0, ..., n-1, s_i = the sum of
// conj(R_ji)*y_j over j = 0..i-1 (dotc, lane order), y_i = (b_i - s_i)*rinv_i.
func (q *QR{{.S}}) solveRH(b []{{.T}}) {
	m := q.m
	for i := 0; i < q.n; i++ {
		y := b[i]
		if i > 0 {
			y = y.Sub(dotc{{.S}}(q.A[i*m:i*m+i], b[:i]))
		}
		b[i] = mulReal{{.S}}(y, q.rinv[i])
	}
}

// solveRHPar is solveRH by a team of w goroutines (the rows shared as in
// backsubPar: row i belongs to worker 0 for i < trMin, then to worker
// (i-trMin) mod w). A worker accumulates the lanes of its row with the
// terms t_j = conj(R_ji)*y_j in increasing j (the lane order of
// dotc{{.S}}) as the y_j = b[j] are published (done > j), combines the
// lanes and computes y_i: solveRH's bits.
func (q *QR{{.S}}) solveRHPar(b []{{.T}}, w int) {
	n, m, t0 := q.n, q.m, q.trMin
	done := stepFlag{team: true} // b[:done] are final
	run := func(p int) {
		var acc [Lanes]{{.T}}
		i := t0 + p
		if p == 0 {
			i = 0
		}
		for i < n {
			col := q.A[i*m : i*m+i]
			for j := 0; j < i; {
				avail := int(done.v.Load())
				if avail <= j {
					done.wait(j)
					avail = int(done.v.Load())
				}
				hi := min(avail, i)
				dotcFrom{{.S}}(&acc, col, b, j, hi)
				j = hi
			}
			y := b[i]
			if i > 0 {
				y = y.Sub(combine{{.S}}(&acc, min(i, Lanes)))
			}
			b[i] = mulReal{{.S}}(y, q.rinv[i])
			done.publish(int64(i + 1))
			if i < t0-1 {
				i++
			} else if i == t0-1 {
				i = t0
			} else {
				i += w
			}
		}
	}
	runTeam(w, run)
}

// dotcFrom{{.S}} adds the terms conj(x[q])*y[q], q = q0..q1-1, to the
// lanes acc of dotc{{.S}}, as dotuFrom{{.S}} those of dotu{{.S}}.
func dotcFrom{{.S}}(acc *[Lanes]{{.T}}, x, y []{{.T}}, q0, q1 int) {
	q := q0
	for ; q < q1 && q < Lanes; q++ {
		acc[q] = prod{{.S}}(conj{{.S}}(x[q]), y[q])
	}
	for ; q < q1 && q%Lanes != 0; q++ {
		acc[q%Lanes] = acc[q%Lanes].MulAdd(conj{{.S}}(x[q]), y[q])
	}
	for ; q+Lanes <= q1; q += Lanes {
		xs := (*[Lanes]{{.T}})(x[q : q+Lanes])
		ys := (*[Lanes]{{.T}})(y[q : q+Lanes])
		for l := range Lanes {
			acc[l] = acc[l].MulAdd(conj{{.S}}(xs[l]), ys[l])
		}
	}
	for ; q < q1; q++ {
		acc[q%Lanes] = acc[q%Lanes].MulAdd(conj{{.S}}(x[q]), y[q])
	}
}
{{end}}
var _ = mdops.F1{}
`

const laMulSub = `package la

import "github.com/mdgen/mdgen/mdops"
{{range .V}}
// MulSub{{.S}} sets b[:m] -= A x for the m x n column-major matrix a (lda >=
// m) and x[:n]. Order: for each row i, s_i = the sum of A_ij*x_j over j =
// 0..n-1 in the lane order (t_j = A_ij*x_j, A the first operand), then b_i =
// b_i.Sub(s_i); b is unchanged when n = 0. Rows are spread over workers
// goroutines; the result does not depend on workers.
func MulSub{{.S}}(m, n int, a []{{.T}}, lda int, x, b []{{.T}}, workers int) {
	checkMatrix("MulSub{{.S}}", m, n, len(a), lda)
	if len(x) < n || len(b) < m {
		panic("la: MulSub{{.S}}: x or b too short")
	}
	if n == 0 {
		return
	}
	parallel(workers, m, rowGrain, func(lo, hi int) {
		p := scratch{{.S}}.Get().(*[]{{.T}})
		mulSubRows{{.S}}(lo, hi, n, a, lda, x, b, *p)
		scratch{{.S}}.Put(p)
	})
}

// MulSubBatch{{.S}} runs count independent MulSub{{.S}}s: for t = 0..count-1,
// b_t[:m] -= A_t x_t with A_t = a[t*strideA:] (m x n, leading dimension
// lda), x_t = x[t*strideX:] and b_t = b[t*strideB:], each exactly as
// MulSub{{.S}} (the same bits); the count*ceil(m/rowGrain) pieces of rowGrain
// rows of one product are spread over workers goroutines. The b_t must not
// overlap one another or any A_t or x_t; the A_t and x_t may overlap one
// another (a stride of 0 reuses one matrix or one vector).
func MulSubBatch{{.S}}(count, m, n int, a []{{.T}}, lda, strideA int, x []{{.T}}, strideX int, b []{{.T}}, strideB int, workers int) {
	if count <= 0 {
		return
	}
	if strideA < 0 || strideX < 0 || strideB < 0 || (count > 1 && strideB < m) {
		panic("la: MulSubBatch{{.S}}: bad stride")
	}
	last := count - 1
	checkMatrix("MulSubBatch{{.S}}", m, n, len(a)-min(len(a), last*strideA), lda)
	if len(x) < last*strideX+n || len(b) < last*strideB+m {
		panic("la: MulSubBatch{{.S}}: x or b too short")
	}
	if n == 0 || m == 0 {
		return
	}
	blocks := (m + rowGrain - 1) / rowGrain
	if workers <= 1 || count*blocks == 1 {
		// One goroutine: a direct call (a closure handed to parallel is
		// an allocation, per call of a small Newton step).
		mulSubBatchUnits{{.S}}(0, count*blocks, blocks, m, n, a, lda, strideA, x, strideX, b, strideB)
		return
	}
	parallel(workers, count*blocks, 1, func(lo, hi int) {
		mulSubBatchUnits{{.S}}(lo, hi, blocks, m, n, a, lda, strideA, x, strideX, b, strideB)
	})
}

// mulSubBatchUnits{{.S}} runs the units lo..hi-1 of MulSubBatch{{.S}}: unit u
// is the block of rowGrain rows u%blocks of product u/blocks.
func mulSubBatchUnits{{.S}}(lo, hi, blocks, m, n int, a []{{.T}}, lda, strideA int, x []{{.T}}, strideX int, b []{{.T}}, strideB int) {
	p := scratch{{.S}}.Get().(*[]{{.T}})
	for u := lo; u < hi; u++ {
		t, r0 := u/blocks, (u%blocks)*rowGrain
		mulSubRows{{.S}}(r0, min(r0+rowGrain, m), n, a[t*strideA:], lda, x[t*strideX:], b[t*strideB:], *p)
	}
	scratch{{.S}}.Put(p)
}

// mulSubRows{{.S}} is MulSub{{.S}} on rows lo..hi-1, in chunks of rowChunk rows;
// s holds Lanes*rowChunk partial sums: lane l of row r0+i at s[l*rowChunk+i].
func mulSubRows{{.S}}(lo, hi, n int, a []{{.T}}, lda int, x, b, s []{{.T}}) {
	f := min(n, Lanes)
	for r0 := lo; r0 < hi; r0 += rowChunk {
		h := min(rowChunk, hi-r0)
		for l := 0; l < f; l++ {
			sl := s[l*rowChunk : l*rowChunk+h]
			col := a[l*lda+r0 : l*lda+r0+h]
			xl := x[l]
			for i := range sl {
				sl[i] = prod{{.S}}(col[i], xl)
			}
			for j := l + Lanes; j < n; j += Lanes {
				col := a[j*lda+r0 : j*lda+r0+h]
				xj := x[j]
				for i := range sl {
					sl[i] = sl[i].MulAdd(col[i], xj)
				}
			}
		}
		for st := Lanes / 2; st >= 1; st /= 2 {
			for l := 0; l < st && l+st < f; l++ {
				d := s[l*rowChunk : l*rowChunk+h]
				e := s[(l+st)*rowChunk : (l+st)*rowChunk+h]
				for i := range d {
					d[i] = d[i].Add(e[i])
				}
			}
		}
		bb := b[r0 : r0+h]
		for i := range bb {
			bb[i] = bb[i].Sub(s[i])
		}
	}
}

// Residual1{{.S}} returns ||b - A x||_1 (Norm1{{.S}} of b - A x computed as by
// MulSub{{.S}}); b is unchanged.
func Residual1{{.S}}(m, n int, a []{{.T}}, lda int, x, b []{{.T}}, workers int) {{.R}} {
	if len(b) < m {
		panic("la: Residual1{{.S}}: len(b) < m")
	}
	r := make([]{{.T}}, m)
	copy(r, b[:m])
	MulSub{{.S}}(m, n, a, lda, x, r, workers)
	return Norm1{{.S}}(r)
}
{{end}}
var _ = mdops.F1{}
`

const laCond = `package la

import (
	"math"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/mdops/fp"
)
{{range .V}}
// Cond returns an estimate of the 1-norm condition number of R,
// ||R||_1 * ||R^-1||_1, as a float64 (+Inf when some R_kk is zero). The
// 1-norms are float64 sums of the leading limbs (leadNorm1{{.S}}, la.LeadNorm1{{if .C}}:
// |Re_0| + |Im_0| per element, within a factor sqrt(2) of the modulus{{end}}):
// ||R||_1 is the largest over the columns of R, and ||R^-1||_1 is
// estimated as LAPACK's {{if .C}}zlacn2{{else}}dlacn2{{end}} (Hager's method with Higham's
// refinements), which gives a lower bound that is rarely off by more than
// a factor of 3: first with float64 solves by the leading limbs of R
// (LeadR.Cond), which is the result when it is final (at 1 double, or at
// most LeadCondLimit(n)); else again with multiple-double solves by R and
// R^H. It is computed once and cached; it runs on the CPU only (not part
// of the GPU specification). Cond is CondWorkers(1).
func (q *QR{{.S}}) Cond() float64 { return q.CondWorkers(1) }

// CondWorkers is Cond with its solves by R and R^H spread over a team of
// up to workers goroutines (SolveR's team, trTeam): the same bits for
// every worker count. The estimate is
// computed once (by the first call of Cond or CondWorkers) and cached.
func (q *QR{{.S}}) CondWorkers(workers int) float64 {
	q.condOnce.Do(func() { q.cond = q.condEst(workers) })
	return q.cond
}

func (q *QR{{.S}}) condEst(workers int) float64 {
	n, m := q.n, q.m
	if n == 0 {
		return 0
	}
	if q.singular() != nil {
		return math.Inf(1)
	}
	anorm := 0.0
	for j := 0; j < n; j++ {
		anorm = max(anorm, leadNorm1{{.S}}(q.A[j*m:j*m+j+1]))
	}
	if q.lead == nil {
		q.lead = NewLeadR(n, {{.C}})
	}
	for j := 0; j < n; j++ {
		for i := 0; i <= j; i++ {
			{{- if .C}}
			q.lead.Re[i+j*n], q.lead.Im[i+j*n] = lead2{{.S}}(q.A[i+j*m])
			{{- else}}
			q.lead.Re[i+j*n], _ = lead2{{.S}}(q.A[i+j*m])
			{{- end}}
		}
	}
	{{- if eq .N 1}}
	cond, _ := q.lead.Cond(anorm, 1) // final at 1 double
	return cond
}
{{- else}}
	if cond, final := q.lead.Cond(anorm, {{.N}}); final {
		return cond
	}
	return q.condEstMD(anorm, workers)
}

// condEstMD is Cond's fallback: anorm times the estimate of ||R^-1||_1
// with multiple-double solves by R and R^H (n >= 1, no zero R_kk).
func (q *QR{{.S}}) condEstMD(anorm float64, workers int) float64 {
	n := q.n
	x := make([]{{.T}}, n)
	xr := make([]{{.T}}, n)
	w := q.trTeam(workers)
	solve := func() {
		if w > 1 {
			q.backsubPar(x, xr, w)
		} else {
			q.backsub(x, xr)
		}
	}
	solveRH := func() {
		if w > 1 {
			q.solveRHPar(x, w)
		} else {
			q.solveRH(x)
		}
	}
	norm := func() float64 { return leadNorm1{{.S}}(x) }
	for i := range x {
		x[i] = fromFloat{{.S}}(1/float64(n), 0)
	}
	solve()
	if n == 1 {
		return anorm * norm()
	}
	est := norm()
	{{- if not .C}}
	sgn := make([]float64, n)
	signs := func() (same bool) {
		same = true
		for i := range x {
			s := 1.0
			if x[i][0] < 0 {
				s = -1
			}
			if s != sgn[i] {
				same = false
			}
			sgn[i] = s
			x[i] = fromFloat{{.S}}(s, 0)
		}
		return same
	}
	{{- else}}
	signs := func() bool {
		for i := range x {
			re, im := lead2{{.S}}(x[i])
			if a := fp.Hypot(re, im); a > 0 {
				x[i] = fromFloat{{.S}}(re/a, im/a)
			} else {
				x[i] = fromFloat{{.S}}(1, 0)
			}
		}
		return false
	}
	{{- end}}
	argmax := func() int {
		j, best := 0, -1.0
		for i := range x {
			re, im := lead2{{.S}}(x[i])
			if a := fp.Hypot(re, im); a > best {
				j, best = i, a
			}
		}
		return j
	}
	signs()
	solveRH()
	j := argmax()
	for iter := 2; ; iter++ {
		for i := range x {
			x[i] = {{.T}}{}
		}
		x[j] = fromFloat{{.S}}(1, 0)
		solve()
		old := est
		est = norm()
		if signs() || est <= old {
			break
		}
		solveRH()
		jlast := j
		j = argmax()
		re1, im1 := lead2{{.S}}(x[jlast])
		re2, im2 := lead2{{.S}}(x[j])
		if fp.Hypot(re1, im1) == fp.Hypot(re2, im2) || iter >= 5 {
			break
		}
	}
	alt := 1.0
	for i := range x {
		x[i] = fromFloat{{.S}}(alt*(1+float64(i)/float64(n-1)), 0)
		alt = -alt
	}
	solve()
	if t := 2 * norm() / float64(3*n); t > est {
		est = t
	}
	return anorm * est
}
{{- end}}
{{end}}
var _ = mdops.F1{}
`

const laKernels = `package la

import (
	"sync"

	"github.com/mdgen/mdgen/mdops"
)
{{range .V}}
// scratch{{.S}} holds MulSub{{.S}}'s partial sums (Lanes*rowChunk elements).
var scratch{{.S}} = sync.Pool{New: func() any {
	s := make([]{{.T}}, Lanes*rowChunk)
	return &s
}}

// flatQR{{.S}} is a *QR{{.S}} on flat []float64 buffers.
type flatQR{{.S}} struct{ q *QR{{.S}} }

func (f flatQR{{.S}}) Rows() int { return f.q.m }
func (f flatQR{{.S}}) Cols() int { return f.q.n }
func (f flatQR{{.S}}) ApplyQH(b []float64, workers int) {
	f.q.ApplyQH(as[{{.T}}](b, {{.W}}), workers)
}
func (f flatQR{{.S}}) ApplyQHMany(nrhs int, b []float64, ldb, workers int) {
	f.q.ApplyQHMany(nrhs, as[{{.T}}](b, {{.W}}), ldb, workers)
}
func (f flatQR{{.S}}) SolveR(b []float64, workers int) error {
	return f.q.SolveR(as[{{.T}}](b, {{.W}}), workers)
}
func (f flatQR{{.S}}) SolveRMany(nrhs int, b []float64, ldb, workers int) error {
	return f.q.SolveRMany(nrhs, as[{{.T}}](b, {{.W}}), ldb, workers)
}
func (f flatQR{{.S}}) Solve(b []float64, workers int) error {
	return f.q.Solve(as[{{.T}}](b, {{.W}}), workers)
}
func (f flatQR{{.S}}) Cond() float64 { return f.q.Cond() }
func (f flatQR{{.S}}) CondWorkers(workers int) float64 {
	return f.q.CondWorkers(workers)
}
func (f flatQR{{.S}}) Refactor(a []float64, lda, workers int) error {
	return f.q.Refactor(as[{{.T}}](a, {{.W}}), lda, workers)
}

// factors returns A and Tau as flat buffers (for the tests).
func (f flatQR{{.S}}) factors() (a, tau []float64) {
	return flat(f.q.A, {{.W}}), flat(f.q.Tau, {{.W}})
}

// teamMins returns the team thresholds qhMin and trMin (for the tests).
func (f flatQR{{.S}}) teamMins() (qhMin, trMin int) { return f.q.qhMin, f.q.trMin }

// setTeamMins sets the team thresholds qhMin and trMin (for the tests).
func (f flatQR{{.S}}) setTeamMins(qhMin, trMin int) { f.q.qhMin, f.q.trMin = qhMin, trMin }

// qhGroupOf returns the lane group of ApplyQH's team (for the tests).
func (f flatQR{{.S}}) qhGroupOf() int { return f.q.qhGroup }

// setQHGroup sets the lane group of ApplyQH's team (for the tests).
func (f flatQR{{.S}}) setQHGroup(g int) { f.q.qhGroup = g }
{{end}}
func init() {
{{- range .Ns}}
	register(Kernels{
		N: {{.}},
		NewQR: func(m, n int, a []float64, lda, workers int) (Factorization, error) {
			q, err := NewQRF{{.}}(m, n, as[mdops.F{{.}}](a, {{.}}), lda, workers)
			return flatQRF{{.}}{q}, err
		},
		NewQRComplex: func(m, n int, a []float64, lda, workers int) (Factorization, error) {
			q, err := NewQRC{{.}}(m, n, as[mdops.C{{.}}](a, 2*{{.}}), lda, workers)
			return flatQRC{{.}}{q}, err
		},
		QRFromFactors: func(m, n int, a, tau []float64) (Factorization, error) {
			q, err := QRFromFactorsF{{.}}(m, n, as[mdops.F{{.}}](a, {{.}}), as[mdops.F{{.}}](tau, {{.}}))
			return flatQRF{{.}}{q}, err
		},
		QRFromFactorsComplex: func(m, n int, a, tau []float64) (Factorization, error) {
			q, err := QRFromFactorsC{{.}}(m, n, as[mdops.C{{.}}](a, 2*{{.}}), as[mdops.C{{.}}](tau, 2*{{.}}))
			return flatQRC{{.}}{q}, err
		},
		MulSub: func(m, n int, a []float64, lda int, x, b []float64, workers int) {
			MulSubF{{.}}(m, n, as[mdops.F{{.}}](a, {{.}}), lda, as[mdops.F{{.}}](x, {{.}}), as[mdops.F{{.}}](b, {{.}}), workers)
		},
		MulSubComplex: func(m, n int, a []float64, lda int, x, b []float64, workers int) {
			MulSubC{{.}}(m, n, as[mdops.C{{.}}](a, 2*{{.}}), lda, as[mdops.C{{.}}](x, 2*{{.}}), as[mdops.C{{.}}](b, 2*{{.}}), workers)
		},
		MulSubBatch: func(count, m, n int, a []float64, lda, strideA int, x []float64, strideX int, b []float64, strideB int, workers int) {
			MulSubBatchF{{.}}(count, m, n, as[mdops.F{{.}}](a, {{.}}), lda, strideA, as[mdops.F{{.}}](x, {{.}}), strideX, as[mdops.F{{.}}](b, {{.}}), strideB, workers)
		},
		MulSubBatchComplex: func(count, m, n int, a []float64, lda, strideA int, x []float64, strideX int, b []float64, strideB int, workers int) {
			MulSubBatchC{{.}}(count, m, n, as[mdops.C{{.}}](a, 2*{{.}}), lda, strideA, as[mdops.C{{.}}](x, 2*{{.}}), strideX, as[mdops.C{{.}}](b, 2*{{.}}), strideB, workers)
		},
		Residual1: func(m, n int, a []float64, lda int, x, b []float64, workers int) float64 {
			r := Residual1F{{.}}(m, n, as[mdops.F{{.}}](a, {{.}}), lda, as[mdops.F{{.}}](x, {{.}}), as[mdops.F{{.}}](b, {{.}}), workers)
			return r[0]
		},
		Residual1Complex: func(m, n int, a []float64, lda int, x, b []float64, workers int) float64 {
			r := Residual1C{{.}}(m, n, as[mdops.C{{.}}](a, 2*{{.}}), lda, as[mdops.C{{.}}](x, 2*{{.}}), as[mdops.C{{.}}](b, 2*{{.}}), workers)
			return r[0]
		},
		Norm1: func(x []float64) float64 {
			r := Norm1F{{.}}(as[mdops.F{{.}}](x, {{.}}))
			return r[0]
		},
		Norm1Complex: func(x []float64) float64 {
			r := Norm1C{{.}}(as[mdops.C{{.}}](x, 2*{{.}}))
			return r[0]
		},
	})
{{- end}}
}
`

const laTestTypes = `package la

import (
	"math/big"
	"testing"

	"github.com/mdgen/mdgen/mdops"
)

func init() {
{{- range .Ns}}
	testTypes[{{.}}] = testType{
		fromBig: func(dst []float64, x *big.Float) {
			v := mdops.F{{.}}FromBig(x)
			copy(dst, v[:])
		},
		toBig: func(x []float64) *big.Float { return mdops.F{{.}}(x).Big() },
		bare: bareF{{.}},
		bareComplex: bareC{{.}},
		bareRun: bareRunF{{.}},
		bareRunComplex: bareRunC{{.}},
	}
{{- end}}
}
{{range .V}}
// bare{{.S}} is the yardstick: acc = acc.MulAdd(x[i], y[i]) over 64 values, as
// runtime's BenchmarkBareLoop; it reports {{if .C}}complex {{end}}multiply-adds per second.
func bare{{.S}}(b *testing.B, x, y []float64) {
	xs, ys := as[{{.T}}](x, {{.W}})[:64], as[{{.T}}](y, {{.W}})[:64]
	var acc {{.T}}
	for b.Loop() {
		for i := range xs {
			acc = acc.MulAdd(xs[i], ys[i])
		}
	}
	sink = acc
	b.ReportMetric(64*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mmadd/s")
}

// bareRun{{.S}} runs bare{{.S}}'s loop reps times.
func bareRun{{.S}}(x, y []float64, reps int) {
	xs, ys := as[{{.T}}](x, {{.W}})[:64], as[{{.T}}](y, {{.W}})[:64]
	var acc {{.T}}
	for range reps {
		for i := range xs {
			acc = acc.MulAdd(xs[i], ys[i])
		}
	}
	sink = acc
}
{{end}}`

// laTrimPrefix maps "mdops.F4" to "F4" (for the name of a real helper).
func laTrimPrefix(s string) string { return strings.TrimPrefix(s, "mdops.") }
