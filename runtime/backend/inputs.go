package backend

import (
	"bufio"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"

	"github.com/mdgen/mdgen/internal/boundedread"
	"github.com/mdgen/mdgen/mdops"
)

// Layout describes how one series is stored: Degree+1 coefficients of
// Prec.Width() doubles each (complex: N real limbs, then N imaginary).
type Layout struct {
	Prec   mdops.Prec
	Degree int
}

// W returns the doubles per coefficient.
func (l Layout) W() int { return l.Prec.Width() }

// SlotLen returns the doubles per series.
func (l Layout) SlotLen() int { return (l.Degree + 1) * l.W() }

// randomMD writes a random normalized n-double in [-1, 1) with all limbs
// significant: each limb is a uniform fraction of half an ulp of the one
// before, so no limb is a rounding artifact.
func randomMD(dst []float64, r *rand.Rand) {
	x := float64(2*r.Float64()) - 1
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
		for k := 0; k < len(s); k += l.Prec.N {
			randomMD(s[k:k+l.Prec.N], r)
		}
		in[v] = s
	}
	return in
}

// MaxInputBytes is the most an input series file may hold: ReadInputs
// refuses a longer one with an error that names the limit.
var MaxInputBytes int64 = 1 << 30

// ReadInputs reads input series from a text file: one coefficient per line,
// `name k re [im]` (variable name, power of t, decimal real and imaginary
// parts, read exactly and rounded once); '#' starts a comment; coefficients
// not given are zero. Lines may be of any length. A value whose leading
// limb would overflow to ±Inf, or underflow to zero, is refused. Errors carry
// file:line:col (1-based; col counts bytes, as poly.Parse's do).
func ReadInputs(path string, vars []string, l Layout) ([][]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readInputs(path, bufio.NewReader(boundedread.Reader(f, path, "an input series file", MaxInputBytes)), vars, l)
}

// inputField is one blank-separated word of an input line and its byte
// offset in the line.
type inputField struct {
	text string
	off  int
}

// inputFields splits line (a comment removed) into blank-separated words.
func inputFields(line string) []inputField {
	var fs []inputField
	start := -1
	for i := 0; i <= len(line); i++ {
		blank := i == len(line) || line[i] == ' ' || line[i] == '\t' || line[i] == '\r' || line[i] == '\v' || line[i] == '\f'
		switch {
		case blank && start >= 0:
			fs = append(fs, inputField{line[start:i], start})
			start = -1
		case !blank && start < 0:
			start = i
		}
	}
	return fs
}

func readInputs(path string, r *bufio.Reader, vars []string, l Layout) ([][]float64, error) {
	index := map[string]int{}
	for i, v := range vars {
		index[v] = i
	}
	in := make([][]float64, len(vars))
	for v := range in {
		in[v] = make([]float64, l.SlotLen())
	}
	for line := 1; ; line++ {
		raw, rerr := r.ReadString('\n')
		if rerr != nil && rerr != io.EOF {
			return nil, fmt.Errorf("%s:%d: %v", path, line, rerr)
		}
		if rerr == io.EOF && raw == "" {
			break
		}
		text, _, _ := strings.Cut(strings.TrimSuffix(raw, "\n"), "#")
		fields := inputFields(text)
		badAt := func(col int, format string, a ...any) error {
			return fmt.Errorf("%s:%d:%d: %s", path, line, col, fmt.Sprintf(format, a...))
		}
		if len(fields) == 0 {
			if rerr == io.EOF {
				break
			}
			continue
		}
		if len(fields) < 3 || len(fields) > 4 {
			col := 1 + fields[0].off
			if len(fields) > 4 {
				col = 1 + fields[4].off
			}
			return nil, badAt(col, "want `name k re [im]`, got %d fields", len(fields))
		}
		v, ok := index[fields[0].text]
		if !ok {
			return nil, badAt(1+fields[0].off, "unknown variable %q (the system has %s)", fields[0].text, strings.Join(vars, ", "))
		}
		k, err := strconv.Atoi(fields[1].text)
		if err != nil || k < 0 {
			return nil, badAt(1+fields[1].off, "bad power %q (want an integer >= 0)", fields[1].text)
		}
		w := l.W()
		for part, fld := range fields[2:] {
			if part == 1 && !l.Prec.Complex {
				return nil, badAt(1+fld.off, "imaginary part given for real data (use -complex)")
			}
			r, err := parseInputNumber(fld.text)
			if err != nil {
				return nil, badAt(1+fld.off, "%v", err)
			}
			if k > l.Degree {
				continue // truncated, but checked
			}
			off := k*w + part*l.Prec.N
			RoundRat(in[v][off:off+l.Prec.N], r)
		}
		if rerr == io.EOF {
			break
		}
	}
	return in, nil
}

// parseInputNumber reads txt, a decimal (or a fraction a/b), exactly. A
// value outside the float64 range, whose leading limb would be ±Inf, or a
// nonzero value that would round to zero, is an error.
func parseInputNumber(txt string) (*big.Rat, error) {
	tooLarge := func() error {
		return fmt.Errorf("%s is outside the float64 range (magnitudes up to %.4g)", txt, math.MaxFloat64)
	}
	tooSmall := func() error {
		return fmt.Errorf("%s underflows to zero in float64 (smallest magnitude %.4g)", txt, math.SmallestNonzeroFloat64)
	}
	floatZero := false
	if !strings.Contains(txt, "/") {
		// A cheap look at the exponent first: big.Rat would build 10^e
		// exactly, for exponents of up to a million digits.
		var f big.Float
		if _, ok := f.SetPrec(64).SetString(txt); ok {
			floatZero = f.Sign() == 0
			switch e := f.MantExp(nil); {
			case f.IsInf() && strings.ContainsAny(txt, "0123456789"):
				return nil, tooLarge() // the exponent overflowed big.Float's
			case f.IsInf():
				return nil, fmt.Errorf("%q is not a finite number", txt)
			case e > 1100:
				return nil, tooLarge()
			case e < -1100 && f.Sign() != 0:
				return nil, tooSmall()
			}
		}
	}
	r, ok := new(big.Rat).SetString(txt)
	if !ok && floatZero {
		return nil, tooSmall() // big.Rat refuses exponents below -1e6; big.Float rounded to 0
	}
	if !ok {
		return nil, fmt.Errorf("malformed number %q (want a decimal such as -1.25e-3, or a fraction such as 1/3)", txt)
	}
	switch lead, _ := r.Float64(); {
	case math.IsInf(lead, 0):
		return nil, tooLarge()
	case lead == 0 && r.Sign() != 0:
		return nil, tooSmall()
	}
	return r, nil
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
