package runtime

import (
	"bufio"
	"fmt"
	"hash/fnv"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"

	"github.com/mdgen/mdgen/mdops/alg"
	"github.com/mdgen/mdgen/stager"
)

// Layout describes how one series is stored: Degree+1 coefficients of W
// doubles each, W = N (real) or 2N (complex: N real limbs, N imaginary).
type Layout struct {
	N       int
	Degree  int
	Complex bool
}

// W returns the doubles per coefficient.
func (l Layout) W() int {
	if l.Complex {
		return 2 * l.N
	}
	return l.N
}

// SlotLen returns the doubles per series.
func (l Layout) SlotLen() int { return (l.Degree + 1) * l.W() }

// randomMD writes a random normalized n-double in [-1, 1) with all limbs
// significant: each limb is a uniform fraction of half an ulp of the one
// before, so no limb is a rounding artifact.
func randomMD(dst []float64, r *rand.Rand) {
	x := 2*r.Float64() - 1
	dst[0] = x
	for i := 1; i < len(dst); i++ {
		prev := dst[i-1]
		if prev == 0 {
			dst[i] = 0
			continue
		}
		ulp := math.Nextafter(math.Abs(prev), math.Inf(1)) - math.Abs(prev)
		dst[i] = (r.Float64() - 0.5) * ulp // exact: ulp is a power of two
	}
}

// RandomInputs returns nvars random input series in the layout l, from seed.
func RandomInputs(nvars int, l Layout, seed uint64) [][]float64 {
	r := rand.New(rand.NewPCG(seed, 0x6d6467656e))
	in := make([][]float64, nvars)
	for v := range in {
		s := make([]float64, l.SlotLen())
		for k := 0; k < len(s); k += l.N {
			randomMD(s[k:k+l.N], r)
		}
		in[v] = s
	}
	return in
}

// ReadInputs reads input series from a text file: one coefficient per line,
// `name k re [im]` (variable name, power of t, decimal real and imaginary
// parts, read exactly and rounded once); '#' starts a comment; coefficients
// not given are zero. Errors carry file:line.
func ReadInputs(path string, vars []string, l Layout) ([][]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	index := map[string]int{}
	for i, v := range vars {
		index[v] = i
	}
	in := make([][]float64, len(vars))
	for v := range in {
		in[v] = make([]float64, l.SlotLen())
	}
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		text, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(text)
		if len(fields) == 0 {
			continue
		}
		bad := func(format string, a ...any) error {
			return fmt.Errorf("%s:%d: %s", path, line, fmt.Sprintf(format, a...))
		}
		if len(fields) < 3 || len(fields) > 4 {
			return nil, bad("want `name k re [im]`, got %d fields", len(fields))
		}
		v, ok := index[fields[0]]
		if !ok {
			return nil, bad("unknown variable %q (the system has %s)", fields[0], strings.Join(vars, ", "))
		}
		k, err := strconv.Atoi(fields[1])
		if err != nil || k < 0 {
			return nil, bad("bad power %q", fields[1])
		}
		if k > l.Degree {
			continue // truncated
		}
		w := l.W()
		for part, txt := range fields[2:] {
			if part == 1 && !l.Complex {
				return nil, bad("imaginary part given for real data (use -complex)")
			}
			var r big.Rat
			if _, ok := r.SetString(txt); !ok {
				return nil, bad("malformed number %q", txt)
			}
			off := k*w + part*l.N
			RoundRat(in[v][off:off+l.N], &r)
		}
	}
	return in, sc.Err()
}

// InputsToBig converts input series to exact big values.
func InputsToBig(in [][]float64, l Layout) []BigSeries {
	out := make([]BigSeries, len(in))
	for v, s := range in {
		out[v].Re = make([]*big.Float, l.Degree+1)
		if l.Complex {
			out[v].Im = make([]*big.Float, l.Degree+1)
		}
		for k := 0; k <= l.Degree; k++ {
			off := k * l.W()
			out[v].Re[k] = alg.Exact(s[off : off+l.N])
			if l.Complex {
				out[v].Im[k] = alg.Exact(s[off+l.N : off+2*l.N])
			}
		}
	}
	return out
}

// Outputs is what an executor returns after a run.
type Outputs interface {
	Value(p int) []float64
	Deriv(p, v int) []float64
}

// Checksum hashes the bits of every output (values, then the Jacobian row by
// row), so that runs on different back ends can be compared at a glance.
func Checksum(o Outputs, npolys, nvars int) string {
	h := fnv.New64a()
	var b [8]byte
	put := func(s []float64) {
		for _, x := range s {
			u := math.Float64bits(x)
			for i := range b {
				b[i] = byte(u >> (8 * i))
			}
			h.Write(b[:])
		}
	}
	for p := 0; p < npolys; p++ {
		put(o.Value(p))
	}
	for p := 0; p < npolys; p++ {
		for v := 0; v < nvars; v++ {
			put(o.Deriv(p, v))
		}
	}
	return fmt.Sprintf("%016x", h.Sum64())
}

// Verification is the worst error of an executor's outputs against the
// Reference, in accurate bits relative to the sum of the magnitudes of the
// terms of each output coefficient.
type Verification struct {
	WorstBits float64
	Where     string // which output coefficient was worst
	Checked   int    // real numbers compared
}

// Verify compares every output coefficient with ref.
func Verify(o Outputs, ref *Reference, l Layout) Verification {
	capBits := float64(64*l.N + 64)
	res := Verification{WorstBits: capBits}
	check := func(got []float64, want, mag BigSeries, name string) {
		for k := 0; k <= l.Degree; k++ {
			parts := []struct {
				w   *big.Float
				off int
				tag string
			}{{want.Re[k], 0, "re"}}
			if l.Complex {
				parts = append(parts, struct {
					w   *big.Float
					off int
					tag string
				}{want.Im[k], l.N, "im"})
			}
			for _, pt := range parts {
				off := k*l.W() + pt.off
				b := AccurateBits(got[off:off+l.N], pt.w, mag.Re[k], capBits)
				res.Checked++
				if b < res.WorstBits {
					res.WorstBits = b
					res.Where = fmt.Sprintf("%s coefficient t^%d (%s)", name, k, pt.tag)
				}
			}
		}
	}
	for p := range ref.Value {
		check(o.Value(p), ref.Value[p], ref.ValueMag[p], fmt.Sprintf("p%d", p))
		for v := range ref.Deriv[p] {
			check(o.Deriv(p, v), ref.Deriv[p][v], ref.DerivMag[p][v], fmt.Sprintf("d p%d/d z%d", p, v))
		}
	}
	return res
}

var _ = stager.NoSlot
