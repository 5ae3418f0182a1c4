package mdops

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/mdgen/mdgen/mdops/alg"
)

// Prec is the precision of a computation: N doubles per number, real or
// complex data. It travels from the command line (-prec, -complex) through
// the run time (runtime/newton, runtime/cpu, runtime/gpu, runtime/solver)
// and the emitter (gen) down to the kernel names (Suffix), so that the
// facts derived from it (the width of a number, the kernel suffix, the unit
// roundoff, which precisions exist) have one definition each.
type Prec struct {
	N       int  // doubles per number (per part of a complex number)
	Complex bool // complex data: N real limbs, then N imaginary limbs
}

// ErrPrecision is wrapped by the error of Check: a precision without
// generated arithmetic in this build.
var ErrPrecision = errors.New("no generated arithmetic for this precision")

// Check returns an error wrapping ErrPrecision unless N has generated
// arithmetic in this build (SeriesKernelsFor(N)): the one run-time check of
// a precision, made where a precision enters (a flag, a public
// constructor); the code behind it trusts the type. The message lists the
// generated precisions and, for an N the generator can make
// (alg.CheckN), says how to add it.
func (p Prec) Check() error {
	if _, ok := seriesKernelsByN[p.N]; ok {
		return nil
	}
	have := Precisions()
	list := make([]string, len(have))
	for i, n := range have {
		list[i] = strconv.Itoa(n)
	}
	if alg.CheckN(p.N) != nil {
		return precisionError(fmt.Sprintf("not a precision: %d doubles (generated: %s)", p.N, strings.Join(list, ",")))
	}
	return precisionError(fmt.Sprintf("no generated arithmetic for %d doubles (generated: %s); add it with `mdgen generate -n %d` in the repository and rebuild",
		p.N, strings.Join(list, ","), p.N))
}

// precisionError is Check's error: its own message, ErrPrecision for
// errors.Is.
type precisionError string

func (e precisionError) Error() string { return string(e) }
func (e precisionError) Unwrap() error { return ErrPrecision }

// Width returns the doubles of one number: N, or 2N for complex data (the
// real limbs, then the imaginary ones), the stride of a coefficient in
// every series buffer.
func (p Prec) Width() int {
	if p.Complex {
		return 2 * p.N
	}
	return p.N
}

// Kind returns "real" or "complex", the kind of data.
func (p Prec) Kind() string {
	if p.Complex {
		return "complex"
	}
	return "real"
}

// Suffix returns the suffix of the kernel names of this precision and kind
// of data: "r8" for 8-double real data, "c8" for complex (gen/gpuabi's
// mdgen_conv_r8, mdgen_la_qr_c8, ...).
func (p Prec) Suffix() string {
	return p.Kind()[:1] + strconv.Itoa(p.N)
}

// String returns "8-double real" or "8-double complex".
func (p Prec) String() string { return fmt.Sprintf("%d-double %s", p.N, p.Kind()) }

// UnitRoundoff returns u = 2^(-53N), the unit roundoff of N-double
// arithmetic: an N-double carries (at least) a 53N-bit significand, N
// limbs of 53 bits, and 2^(-53N) is the relative error of rounding to 53N
// bits, the precision the generated operations approach (their measured and
// proven errors are small multiples of u; see mdops/alg). It is the same
// for complex data (per part). Every tolerance derives from it:
// runtime/newton's (u, its square root, the skip test of a right-hand side
// below the precision) and mdops/la.Eps = 2^N u = 2^(-52N), the
// (machine epsilon of a double)^N in the manner of the QD library's
// epsilon, the tolerance unit of the rank and condition tests (a little
// pessimistic by design).
func (p Prec) UnitRoundoff() float64 { return math.Ldexp(1, -53*p.N) }

// Digits returns the significant decimal digits that write every digit of
// an N-double: ceil(53N log10 2) + 1 (17 for a double, 33 for a double
// double, 65 for a quad double: PHCpack writes 33 and 65 for its double
// double and quad double lists, 15 for doubles). mdgen solve prints its
// coefficients and writes its solution lists with them.
func (p Prec) Digits() int { return int(math.Ceil(53*float64(p.N)*math.Log10(2))) + 1 }
