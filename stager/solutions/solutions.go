package solutions

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mdgen/mdgen/internal/boundedread"
	"github.com/mdgen/mdgen/internal/par"
	"github.com/mdgen/mdgen/stager/poly"
)

// Solution lists.
//
// PHCpack writes solutions as a list (phc's output files, and the demo files
// after the system):
//
//	THE SOLUTIONS :
//	2 3
//	===========================================================
//	solution 1 :
//	t :  1.00000000000000E+00   0.00000000000000E+00
//	m : 1
//	the solution for t :
//	 x :  1.00000000000000E+00   0.00000000000000E+00
//	 y : -2.50000000000000E-01   1.00000000000000E+00
//	 z :  0.00000000000000E+00   0.00000000000000E+00
//	== err :  1.110E-16 = rco :  2.137E-01 = res :  5.551E-17 ==
//	solution 2 :
//	...
//
// The banner is any line "THE ... SOLUTIONS :" (THE SOLUTIONS, THE
// GENERATING SOLUTIONS, THE SOLUTIONS : (generating)); then the count line
// "N D" (N solutions of D coordinates), an optional line of '='; then per
// solution an optional header "solution k :" (anything after it, such as
// "start residual : ...", is ignored), the value of the continuation
// parameter "t : re im", the multiplicity "m : k", the line "the solution
// for t :", D coordinate lines "name : re im", and optionally the
// diagnostics "== err : e = rco : r = res : s ==" (anything after res, such
// as "= complex regular ==", is ignored) and lines of '='. Without the count
// line (phcpy's solution strings) the solutions are read while they come.
//
// Values are exact: a decimal such as 1.00000000000000E+00 or
// -3.30909953661441E-124 is read as the rational it denotes (big.Rat), so
// that no precision is lost whatever the working precision; D exponents
// (Fortran) and exact rationals such as -7/9 are read too. The diagnostics
// err, rco and res are float64 (they are estimates).
//
// A simple format holds one start point: lines "name re [im]" (a ':' after
// the name is allowed), with '#' starting a comment line (a file is read in
// this format when it has no banner, does not start with a count line or a
// "solution" line, and does not start with "t : ..." followed by "m : ..."):
//
//	# the start point
//	x1  1/3
//	x2  -0.25  1
//
// MDGEN EXACT SOLUTIONS. PHCpack reads exactly N solutions and ignores the
// text after them, so Format writes what a decimal cannot hold (a
// value such as 1/3, and the power series of a solution path) in a block
// right after the list:
//
//	MDGEN EXACT SOLUTIONS :
//	2 3 4
//	solution 1 :
//	 t : 0 0
//	 x t^0 : 1 0
//	 x t^1 : 1/3 0
//	 ...
//
// The header gives the count, the dimension and the largest series degree;
// each solution has its parameter value, then for every coordinate the
// coefficients of t^0..t^d (its degree d may be 0), as exact rationals. The
// t^0 coefficients replace the decimals of the list when it is read; a
// solution with d >= 1 gets Solution.Series. The block follows the list
// after blank lines only; it is written when a value is not a short
// decimal (more than solMaxExactDigits significant digits) or a solution
// has a series.

// Solution is one solution of a list.
type Solution struct {
	T      poly.Rational   // the continuation parameter (PHCpack's "t :" line)
	M      int             // multiplicity (PHCpack's "m :")
	Names  []string        // coordinate names
	Values []poly.Rational // coordinates, in the order of Names
	// Series, when not nil, holds the power series of the coordinates:
	// Series[i][k] is the coefficient of t^k of coordinate i, k = 0..d, and
	// Series[i][0] equals Values[i]. Zeros are kept (no trimming).
	Series [][]poly.Rational
	// The diagnostics of PHCpack's "== err : ... = rco : ... = res : ... =="
	// line: the last Newton update, the estimated inverse condition number
	// and the residual; HasDiag says whether the line was there. The writer
	// writes err 0, rco 1, res 0 when there is none (as phcpy does).
	Err, Rco, Res float64
	HasDiag       bool
	// Line and Col are where the solution begins in its file (its "t :"
	// line in a PHCpack list, its first coordinate in lines "name re
	// [im]"), for messages about it; 0 for a solution not read from one.
	Line, Col int
}

// Limits that keep hostile input bounded.
const (
	solMaxExactDigits = 64      // significant digits up to which a decimal is written exactly
	solMaxExp         = 10_000  // |E| of a decimal literal (as the system parser)
	solMaxDigits      = 10_000  // digits of one decimal literal (30,000 for p and for q of p/q)
	solBudgetBase     = 1 << 20 // digits and exponent magnitudes of one list, beyond 16 per input byte
)

// MaxFileBytes is the most a solution file (a -start list) may hold:
// ParseFile refuses a longer one with an error that names the limit.
var MaxFileBytes int64 = 1 << 30

// ReadFile reads the solution file path whole, refusing one of more than
// MaxFileBytes with an error that names the limit.
func ReadFile(path string) ([]byte, error) {
	return boundedread.ReadFile(path, "a solution file", MaxFileBytes)
}

// ParseFile reads a solution file with Parse.
func ParseFile(path string, vars []string) ([]Solution, error) {
	src, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, src, vars)
}

// Parse reads a PHCpack solution list (with or without its banner
// or count line) or, when src holds none, the simple format of one point.
// With vars (a system's variables) the coordinates are put in the order of
// vars (Names = vars) and a missing, unknown or repeated name is an error;
// with nil vars the names and order of the file are kept. Errors are
// *ParseError with the file name, line and column.
func Parse(name string, src []byte, vars []string) ([]Solution, error) {
	return parse(name, src, vars, nil)
}

// ParseChoice is Parse that also says which list it read of a file with
// several banner lists (see Choice).
func ParseChoice(name string, src []byte, vars []string) ([]Solution, Choice, error) {
	var choice Choice
	sols, err := parse(name, src, vars, &choice)
	return sols, choice, err
}

// parse is Parse; choice, when not nil, gets the Choice.
func parse(name string, src []byte, vars []string, choice *Choice) ([]Solution, error) {
	src = bytes.TrimPrefix(src, []byte(solBOM))
	p := newSolParser(name, src)
	start := p.findBanner(0)
	if start < 0 {
		i := p.skipBlank(0)
		if i < len(p.lines) {
			t := p.trim(i)
			_, _, count := solCountLine(t)
			// "t : re im", "m : k" (one integer), then "the solution for
			// t :" (phcpy's strings); a lone "t : 1", or "t : re im" then
			// "m : re im", is the simple format of variables named t and m.
			phcpy := false
			if j := p.skipBlank(i + 1); solIsTLine(t) && j < len(p.lines) {
				f := strings.Fields(strings.Replace(p.trim(j), ":", " : ", 1))
				k := p.skipBlank(j + 1)
				phcpy = len(f) == 3 && f[0] == "m" && f[1] == ":" && solAllDigits(f[2]) &&
					k < len(p.lines) && strings.HasPrefix(strings.TrimSpace(p.trim(k)), "the solution for t")
			}
			if count || solIsHeader(t) || phcpy {
				start = i
			}
		}
		if start < 0 {
			return p.simple(vars)
		}
	} else {
		sols, c, err := p.choose(start)
		if choice != nil {
			*choice = c
		}
		if err != nil {
			return nil, err
		}
		return p.mapVars(sols, vars, "")
	}
	sols, err := p.list(start)
	if err != nil {
		return nil, err
	}
	return p.mapVars(sols, vars, "")
}

// ParseWithSystem reads a system with poly.Parse and, from the text after
// it, the solution list that follows a "THE ... SOLUTIONS :" banner (nil
// when there is none), mapped to the system's variables; a coordinate named
// like the series parameter gives the solution's T.
func ParseWithSystem(name string, src []byte, opt poly.ParseOptions) (*poly.System, []Solution, error) {
	sys, sols, _, err := ParseWithSystemChoice(name, src, opt)
	return sys, sols, err
}

// ParseWithSystemChoice is ParseWithSystem that also says which list of
// a file with several banner lists after the system it read (see Choice).
func ParseWithSystemChoice(name string, src []byte, opt poly.ParseOptions) (*poly.System, []Solution, Choice, error) {
	src = bytes.TrimPrefix(src, []byte(solBOM)) // positions as poly.Parse gives them
	sys, err := poly.Parse(name, src, opt)
	if err != nil {
		return nil, nil, Choice{}, err
	}
	end := SystemEnd(src)
	if end < 0 {
		return sys, nil, Choice{}, nil
	}
	p := newSolParser(name, src)
	first := sort.Search(len(p.lines), func(i int) bool { return p.lines[i].off >= end })
	if first > 0 && p.lines[first-1].off+len(p.lines[first-1].text) >= end {
		first-- // the line of the last ';' itself: only the rest of it counts
		p.lines[first].text = p.lines[first].text[end-p.lines[first].off:]
		p.lines[first].off = end
	}
	b := p.findBanner(first)
	if b < 0 {
		return sys, nil, Choice{}, nil
	}
	sols, choice, err := p.choose(b)
	if err != nil {
		return nil, nil, choice, err
	}
	sols, err = p.mapVars(sols, sys.Vars, sys.Param)
	if err != nil {
		return nil, nil, choice, err
	}
	return sys, sols, choice, nil
}

// ParseWithSystemFile reads a file with ParseWithSystem.
func ParseWithSystemFile(path string, opt poly.ParseOptions) (*poly.System, []Solution, error) {
	src, err := poly.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	return ParseWithSystem(path, src, opt)
}

// SystemEnd returns the offset just after the ';' that ends the last
// polynomial of the system in src (the number of polynomials is the first
// number of the file), or -1 when src has fewer. For a file that poly.Parse
// accepts, the text from there on is what poly.Parse ignores.
func SystemEnd(src []byte) int {
	i := 0
	if bytes.HasPrefix(src, []byte(solBOM)) {
		i = len(solBOM)
	}
	for i < len(src) && poly.IsSpace(src[i]) {
		i++
	}
	neq := 0
	start := i
	for i < len(src) && poly.IsDigit(src[i]) {
		if neq < 1<<30 {
			neq = neq*10 + int(src[i]-'0')
		}
		i++
	}
	if i == start || neq == 0 {
		return -1
	}
	for ; i < len(src); i++ {
		if src[i] == ';' {
			neq--
			if neq == 0 {
				return i + 1
			}
		}
	}
	return -1
}

type solLine struct {
	off  int    // offset of the line in src
	text string // without the newline (and a trailing '\r')
}

type solParser struct {
	file   string
	src    []byte
	lines  []solLine
	budget int64 // digits (and exponent magnitudes) left to read
	// per solution, the offsets of the coordinate names (for errors when
	// mapping to the variables)
	nameOffs [][]int
	listEnd  int // the line after the last solution of the list read last
}

// solBOM is the UTF-8 byte order mark, skipped as poly.Parse skips it.
const solBOM = "\xEF\xBB\xBF"

// newSolParser splits src into lines ended by "\n", "\r\n" or a lone "\r"
// (as poly.Parse counts them).
func newSolParser(file string, src []byte) *solParser {
	p := &solParser{file: file, src: src, budget: solBudgetBase + 16*int64(len(src))}
	for off := 0; off < len(src); {
		end := off
		for end < len(src) && src[end] != '\n' && src[end] != '\r' {
			end++
		}
		p.lines = append(p.lines, solLine{off: off, text: string(src[off:end])})
		switch {
		case end+1 < len(src) && src[end] == '\r' && src[end+1] == '\n':
			off = end + 2
		default:
			off = end + 1
		}
	}
	return p
}

// errAt returns a *ParseError at byte offset off of src.
func (p *solParser) errAt(off int, format string, args ...any) error {
	line, col := p.pos(off)
	return &poly.ParseError{File: p.file, Line: line, Col: col, Reason: fmt.Sprintf(format, args...)}
}

// pos returns the line and column (1-based) of byte offset off of src.
func (p *solParser) pos(off int) (line, col int) {
	off = min(off, len(p.src))
	i := sort.Search(len(p.lines), func(i int) bool { return p.lines[i].off > off }) - 1
	line, start := 1, 0
	if i >= 0 {
		line, start = i+1, p.lines[i].off
		if off > start+len(p.lines[i].text) && off == len(p.src) && i == len(p.lines)-1 {
			// the end of input after a final newline: a line of its own
			line, start = i+2, len(p.src)
		}
	}
	return line, off - start + 1
}

// errLine returns an error at the first non-blank character of line i (the
// end of the input when i is past the last line).
func (p *solParser) errLine(i int, format string, args ...any) error {
	if i >= len(p.lines) {
		return p.errAt(len(p.src), format, args...)
	}
	l := p.lines[i]
	k := len(l.text) - len(strings.TrimLeft(l.text, " \t"))
	return p.errAt(l.off+k, format, args...)
}

func (p *solParser) trim(i int) string { return strings.TrimSpace(p.lines[i].text) }

// skipBlank returns the first line at or after i that is not blank.
func (p *solParser) skipBlank(i int) int {
	for i < len(p.lines) && p.trim(i) == "" {
		i++
	}
	return i
}

// skipBlankSep skips blank lines and lines of '='.
func (p *solParser) skipBlankSep(i int) int {
	for i < len(p.lines) && (p.trim(i) == "" || solIsSep(p.trim(i))) {
		i++
	}
	return i
}

// findBanner returns the first banner line at or after i, or -1.
func (p *solParser) findBanner(i int) int {
	for ; i < len(p.lines); i++ {
		if solIsBanner(p.trim(i)) {
			return i
		}
	}
	return -1
}

func solIsBanner(t string) bool {
	if !strings.HasPrefix(t, "THE ") {
		return false
	}
	before, _, ok := strings.Cut(t, ":")
	return ok && strings.HasSuffix(strings.TrimSpace(before), "SOLUTIONS")
}

func solIsSep(t string) bool {
	return len(t) >= 2 && strings.Trim(t, "=") == ""
}

func solIsHeader(t string) bool {
	if !strings.HasPrefix(t, "solution") {
		return false
	}
	r := t[len("solution"):]
	return r == "" || r[0] == ' ' || r[0] == '\t' || r[0] == ':' || poly.IsDigit(r[0])
}

func solIsTLine(t string) bool {
	if !strings.HasPrefix(t, "t") {
		return false
	}
	return strings.HasPrefix(strings.TrimLeft(t[1:], " \t"), ":")
}

// solCountLine reads "N D".
func solCountLine(t string) (n, d int, ok bool) {
	f := strings.Fields(t)
	if len(f) != 2 {
		return 0, 0, false
	}
	for _, s := range f {
		for i := 0; i < len(s); i++ {
			if !poly.IsDigit(s[i]) {
				return 0, 0, false
			}
		}
	}
	n, err1 := strconv.Atoi(f[0])
	d, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil {
		return -1, -1, true // all digits, but too large: reported by the caller
	}
	return n, d, true
}

// solField is one whitespace-separated field of a line and its offset.
type solField struct {
	off  int
	text string
}

func solFields(off int, s string) []solField {
	var out []solField
	for i := 0; i < len(s); {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		j := i
		for j < len(s) && s[j] != ' ' && s[j] != '\t' {
			j++
		}
		if j > i {
			out = append(out, solField{off: off + i, text: s[i:j]})
		}
		i = j
	}
	return out
}

// afterColon returns the fields after the first ':' of line i, and the
// offset of the ':' (-1 when there is none).
func (p *solParser) afterColon(i int) ([]solField, []solField, int) {
	l := p.lines[i]
	k := strings.IndexByte(l.text, ':')
	if k < 0 {
		return solFields(l.off, l.text), nil, -1
	}
	return solFields(l.off, l.text[:k]), solFields(l.off+k+1, l.text[k+1:]), l.off + k
}

// number reads one exact number: [+-] digits [. digits] [(e|E|d|D) [+-]
// digits], or [+-] digits/digits.
func (p *solParser) number(f solField) (*big.Rat, error) {
	s := f.text
	neg := false
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	body := s[i:]
	if num, den, ok := strings.Cut(body, "/"); ok {
		if !solAllDigits(num) || !solAllDigits(den) {
			return nil, p.errAt(f.off, "bad number %q", solShort(s))
		}
		if !p.charge(int64(len(num) + len(den))) {
			return nil, p.errAt(f.off, "numbers too long in all (more than %d digits)", solBudgetBase)
		}
		if len(num) > 3*solMaxDigits || len(den) > 3*solMaxDigits {
			return nil, p.errAt(f.off, "rational number too long (more than %d digits above or below)", 3*solMaxDigits)
		}
		var a, b big.Int
		a.SetString(num, 10)
		b.SetString(den, 10)
		if b.Sign() == 0 {
			return nil, p.errAt(f.off, "division by zero in %q", solShort(s))
		}
		r := new(big.Rat).SetFrac(&a, &b)
		if neg {
			r.Neg(r)
		}
		return r, nil
	}
	var digits []byte
	j := 0
	for j < len(body) && poly.IsDigit(body[j]) {
		j++
	}
	intPart := body[:j]
	frac := ""
	if j < len(body) && body[j] == '.' {
		k := j + 1
		for k < len(body) && poly.IsDigit(body[k]) {
			k++
		}
		frac = body[j+1 : k]
		j = k
	}
	if intPart == "" && frac == "" {
		return nil, p.errAt(f.off, "bad number %q", solShort(s))
	}
	exp := 0
	if j < len(body) && strings.IndexByte("eEdD", body[j]) >= 0 {
		k := j + 1
		eneg := false
		if k < len(body) && (body[k] == '+' || body[k] == '-') {
			eneg = body[k] == '-'
			k++
		}
		if k == len(body) || !solAllDigits(body[k:]) {
			return nil, p.errAt(f.off, "bad number %q", solShort(s))
		}
		for _, c := range []byte(body[k:]) {
			exp = exp*10 + int(c-'0')
			if exp > solMaxExp {
				return nil, p.errAt(f.off, "number %s: exponent out of range (at most %d in magnitude)", solShort(s), solMaxExp)
			}
		}
		if eneg {
			exp = -exp
		}
		j = len(body)
	}
	if j != len(body) {
		return nil, p.errAt(f.off, "bad number %q", solShort(s))
	}
	if len(intPart)+len(frac) > solMaxDigits {
		return nil, p.errAt(f.off, "number too long (more than %d digits)", solMaxDigits)
	}
	digits = append(digits, intPart...)
	digits = append(digits, frac...)
	exp -= len(frac)
	var mant big.Int
	mant.SetString(string(digits), 10)
	r := new(big.Rat).SetInt(&mant)
	if mant.Sign() != 0 && exp != 0 {
		if !p.charge(int64(len(digits) + max(exp, -exp))) {
			return nil, p.errAt(f.off, "numbers too large in all (digit and exponent budget %d spent)", p.budget)
		}
		var pw big.Int
		pw.Exp(big.NewInt(10), big.NewInt(int64(max(exp, -exp))), nil)
		if exp > 0 {
			r.SetInt(pw.Mul(&pw, &mant))
		} else {
			r.SetFrac(&mant, &pw)
		}
	} else if !p.charge(int64(len(digits))) {
		return nil, p.errAt(f.off, "numbers too long in all (digit budget spent)")
	}
	if neg {
		r.Neg(r)
	}
	return r, nil
}

func (p *solParser) charge(n int64) bool {
	p.budget -= n
	return p.budget >= 0
}

func solAllDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !poly.IsDigit(s[i]) {
			return false
		}
	}
	return true
}

func solShort(s string) string {
	if len(s) > 40 {
		return s[:37] + "..."
	}
	return s
}

// complexValue reads one or two numbers (re [im]) from fs; want names what
// the line holds, for errors at the end of the line lineEnd.
func (p *solParser) complexValue(fs []solField, lineEnd int, want string) (poly.Rational, error) {
	var z poly.Rational
	if len(fs) == 0 {
		return z, p.errAt(lineEnd, "expected %s: a real part and an imaginary part", want)
	}
	if len(fs) > 2 {
		return z, p.errAt(fs[2].off, "unexpected %q after the value of %s", solShort(fs[2].text), want)
	}
	re, err := p.number(fs[0])
	if err != nil {
		return z, err
	}
	z.Re.Set(re)
	if len(fs) == 2 {
		im, err := p.number(fs[1])
		if err != nil {
			return z, err
		}
		z.Im.Set(im)
	}
	return z, nil
}

func (p *solParser) lineEnd(i int) int { return p.lines[i].off + len(p.lines[i].text) }

// solName checks a coordinate name: printable ASCII, no blanks or ':'.
func solName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' || s[i] == ':' {
			return false
		}
	}
	return true
}

// list reads a solution list starting at line i (after the banner).
func (p *solParser) list(i int) ([]Solution, error) {
	i = p.skipBlank(i)
	n, d := -1, -1
	if i < len(p.lines) {
		if cn, cd, ok := solCountLine(p.trim(i)); ok {
			if cn < 0 {
				return nil, p.errLine(i, "solution count %q too large", solShort(p.trim(i)))
			}
			n, d = cn, cd
			i++
		} else if t := p.trim(i); !solIsHeader(t) && !solIsTLine(t) && !solIsSep(t) {
			return nil, p.errLine(i, "expected the count line \"N D\" (solutions, coordinates) of the solution list, found %q", solShort(t))
		}
	} else {
		return nil, p.errLine(i, "expected the count line \"N D\" of the solution list, found the end of the input")
	}
	var sols []Solution
	p.nameOffs = nil
	for k := 1; n < 0 || k <= n; k++ {
		i = p.skipBlankSep(i)
		if i >= len(p.lines) {
			if n >= 0 {
				return nil, p.errLine(i, "expected solution %d of %d, found the end of the input", k, n)
			}
			break
		}
		t := p.trim(i)
		if solIsHeader(t) {
			i = p.skipBlank(i + 1)
		} else if n < 0 && !solIsTLine(t) {
			break
		}
		sol, next, err := p.solution(i, k, d)
		if err != nil {
			return nil, err
		}
		if d < 0 {
			d = len(sol.Values)
		}
		sols = append(sols, sol)
		i = next
	}
	if err := p.exactBlock(i, sols); err != nil {
		return nil, err
	}
	p.listEnd = i
	return sols, nil
}

// solution reads solution k from its "t :" line i with d coordinates (d < 0:
// as many as come). It returns the line after it.
func (p *solParser) solution(i, k, d int) (Solution, int, error) {
	var sol Solution
	// t : re im
	if i >= len(p.lines) || !solIsTLine(p.trim(i)) {
		return sol, i, p.errLine(i, "solution %d: expected \"t : re im\" (the continuation parameter)", k)
	}
	_, vals, _ := p.afterColon(i)
	t, err := p.complexValue(vals, p.lineEnd(i), "t")
	if err != nil {
		return sol, i, err
	}
	sol.T = t
	sol.Line, sol.Col = p.pos(p.lines[i].off + len(p.lines[i].text) - len(strings.TrimLeft(p.lines[i].text, " \t")))
	// m : k
	i = p.skipBlank(i + 1)
	if i >= len(p.lines) || !strings.HasPrefix(p.trim(i), "m") {
		return sol, i, p.errLine(i, "solution %d: expected \"m : multiplicity\"", k)
	}
	names, vals, colon := p.afterColon(i)
	if colon < 0 || len(names) != 1 || names[0].text != "m" || len(vals) != 1 {
		return sol, i, p.errLine(i, "solution %d: expected \"m : multiplicity\"", k)
	}
	m, err := strconv.Atoi(vals[0].text)
	if err != nil {
		return sol, i, p.errAt(vals[0].off, "solution %d: bad multiplicity %q", k, solShort(vals[0].text))
	}
	sol.M = m
	// the solution for t :
	i = p.skipBlank(i + 1)
	if i >= len(p.lines) || !strings.HasPrefix(strings.ToLower(p.trim(i)), "the solution for") {
		return sol, i, p.errLine(i, "solution %d: expected \"the solution for t :\"", k)
	}
	i++
	// coordinates
	seen := map[string]bool{}
	var offs []int
	for c := 0; d < 0 || c < d; c++ {
		if i >= len(p.lines) {
			if d < 0 {
				break
			}
			return sol, i, p.errLine(i, "solution %d: expected coordinate %d of %d, found the end of the input", k, c+1, d)
		}
		t := p.trim(i)
		if d < 0 && (t == "" || strings.HasPrefix(t, "==") || solIsHeader(t)) {
			break
		}
		names, vals, colon := p.afterColon(i)
		if colon < 0 || len(names) != 1 {
			if d >= 0 {
				return sol, i, p.errLine(i, "solution %d: expected coordinate %d of %d as \"name : re im\"", k, c+1, d)
			}
			return sol, i, p.errLine(i, "solution %d: expected a coordinate \"name : re im\"", k)
		}
		name := names[0].text
		if !solName(name) {
			return sol, i, p.errAt(names[0].off, "solution %d: bad coordinate name %q", k, solShort(name))
		}
		if seen[name] {
			return sol, i, p.errAt(names[0].off, "solution %d: coordinate %s given twice", k, name)
		}
		seen[name] = true
		z, err := p.complexValue(vals, p.lineEnd(i), name)
		if err != nil {
			return sol, i, err
		}
		sol.Names = append(sol.Names, name)
		sol.Values = append(sol.Values, z)
		offs = append(offs, names[0].off)
		i++
	}
	if len(sol.Values) == 0 {
		return sol, i, p.errLine(i, "solution %d: no coordinates", k)
	}
	p.nameOffs = append(p.nameOffs, offs)
	// == err : e = rco : r = res : s ==
	j := p.skipBlank(i)
	if j < len(p.lines) && strings.HasPrefix(p.trim(j), "==") && !solIsSep(p.trim(j)) {
		if err := p.diagnostics(j, &sol); err != nil {
			return sol, j, err
		}
		i = j + 1
	}
	return sol, i, nil
}

// diagnostics reads "== err : e = rco : r = res : s ==".
func (p *solParser) diagnostics(i int, sol *Solution) error {
	fs := solFields(p.lines[i].off, p.lines[i].text)
	vals := map[string]float64{}
	for k := 0; k+2 < len(fs); k++ {
		key := fs[k].text
		if (key == "err" || key == "rco" || key == "res") && fs[k+1].text == ":" {
			if _, dup := vals[key]; dup {
				continue
			}
			v, err := strconv.ParseFloat(fs[k+2].text, 64)
			if err != nil && !strings.Contains(err.Error(), "range") {
				return p.errAt(fs[k+2].off, "bad %s value %q", key, solShort(fs[k+2].text))
			}
			vals[key] = v
		}
	}
	for _, key := range []string{"err", "rco", "res"} {
		if _, ok := vals[key]; !ok {
			return p.errLine(i, "expected the diagnostics \"== err : e = rco : r = res : s ==\" (no %s)", key)
		}
	}
	sol.Err, sol.Rco, sol.Res, sol.HasDiag = vals["err"], vals["rco"], vals["res"], true
	return nil
}

// exactBlock reads the MDGEN EXACT SOLUTIONS block when it follows line i
// (after blank lines and lines of '=').
func (p *solParser) exactBlock(i int, sols []Solution) error {
	i = p.skipBlankSep(i)
	if i >= len(p.lines) || !strings.HasPrefix(p.trim(i), "MDGEN EXACT SOLUTIONS") {
		return nil
	}
	i = p.skipBlank(i + 1)
	if i >= len(p.lines) {
		return p.errLine(i, "MDGEN EXACT SOLUTIONS: expected \"count dimension degree\"")
	}
	hdr := strings.Fields(p.trim(i))
	if len(hdr) != 3 || !solAllDigits(hdr[0]) || !solAllDigits(hdr[1]) || !solAllDigits(hdr[2]) {
		return p.errLine(i, "MDGEN EXACT SOLUTIONS: expected \"count dimension degree\"")
	}
	if cnt, err := strconv.Atoi(hdr[0]); err != nil || cnt != len(sols) {
		return p.errLine(i, "MDGEN EXACT SOLUTIONS: count %s, but the list has %d solutions", solShort(hdr[0]), len(sols))
	}
	i++
	for k := range sols {
		sol := &sols[k]
		i = p.skipBlank(i)
		if i >= len(p.lines) || !solIsHeader(p.trim(i)) {
			return p.errLine(i, "MDGEN EXACT SOLUTIONS: expected \"solution %d :\"", k+1)
		}
		hdrLine := i
		i++
		type entry struct {
			name string
			deg  int
			val  poly.Rational
			off  int
		}
		var entries []entry
		var tval *poly.Rational
		for ; i < len(p.lines); i++ {
			t := p.trim(i)
			if t == "" || solIsHeader(t) {
				break
			}
			left, vals, colon := p.afterColon(i)
			if colon < 0 || len(left) == 0 || len(left) > 2 {
				return p.errLine(i, "MDGEN EXACT SOLUTIONS: expected \"name t^k : re im\" or \"t : re im\"")
			}
			z, err := p.complexValue(vals, p.lineEnd(i), left[0].text)
			if err != nil {
				return err
			}
			if len(left) == 1 {
				if left[0].text != "t" || tval != nil {
					return p.errAt(left[0].off, "MDGEN EXACT SOLUTIONS: expected \"name t^k : re im\" or one \"t : re im\"")
				}
				tval = &z
				continue
			}
			pw := left[1].text
			if !strings.HasPrefix(pw, "t^") || !solAllDigits(pw[2:]) || len(pw) > 12 {
				return p.errAt(left[1].off, "MDGEN EXACT SOLUTIONS: expected t^k after the name, found %q", solShort(pw))
			}
			deg, _ := strconv.Atoi(pw[2:])
			entries = append(entries, entry{name: left[0].text, deg: deg, val: z, off: left[0].off})
		}
		if tval != nil {
			sol.T.Set(tval)
		}
		if len(entries) == 0 {
			continue
		}
		dim := len(sol.Names)
		idx := map[string]int{}
		for c, nm := range sol.Names {
			idx[nm] = c
		}
		deg := 0
		for _, e := range entries {
			deg = max(deg, e.deg)
			if _, ok := idx[e.name]; !ok {
				return p.errAt(e.off, "MDGEN EXACT SOLUTIONS: solution %d has no coordinate %s", k+1, solShort(e.name))
			}
		}
		if int64(len(entries)) != int64(dim)*int64(deg+1) {
			return p.errLine(hdrLine, "MDGEN EXACT SOLUTIONS: solution %d: want the coefficients of t^0..t^%d of each of its %d coordinates, have %d lines", k+1, deg, dim, len(entries))
		}
		series := make([][]poly.Rational, dim)
		got := make([][]bool, dim)
		for c := range series {
			series[c] = make([]poly.Rational, deg+1)
			got[c] = make([]bool, deg+1)
		}
		for _, e := range entries {
			c := idx[e.name]
			if got[c][e.deg] {
				return p.errAt(e.off, "MDGEN EXACT SOLUTIONS: solution %d: %s t^%d given twice", k+1, e.name, e.deg)
			}
			got[c][e.deg] = true
			series[c][e.deg].Set(&e.val)
		}
		for c := range series {
			sol.Values[c].Set(&series[c][0])
		}
		if deg > 0 {
			sol.Series = series
		}
	}
	return nil
}

// simple reads the format "name re [im]" of one point.
func (p *solParser) simple(vars []string) ([]Solution, error) {
	sol := Solution{M: 1}
	var offs []int
	seen := map[string]bool{}
	for i := range p.lines {
		t := p.trim(i)
		if t == "" || t[0] == '#' {
			continue
		}
		fs := solFields(p.lines[i].off, p.lines[i].text)
		name := fs[0]
		rest := fs[1:]
		if strings.HasSuffix(name.text, ":") {
			name.text = name.text[:len(name.text)-1]
		} else if len(rest) > 0 && rest[0].text == ":" {
			rest = rest[1:]
		} else if k := strings.IndexByte(name.text, ':'); k >= 0 {
			// x:1 written without blanks
			rest = append([]solField{{off: name.off + k + 1, text: name.text[k+1:]}}, rest...)
			name.text = name.text[:k]
		}
		if !solName(name.text) {
			return nil, p.errAt(name.off, "expected a coordinate \"name re [im]\", found %q", solShort(fs[0].text))
		}
		if seen[name.text] {
			return nil, p.errAt(name.off, "coordinate %s given twice", name.text)
		}
		seen[name.text] = true
		z, err := p.complexValue(rest, p.lineEnd(i), name.text)
		if err != nil {
			return nil, err
		}
		sol.Names = append(sol.Names, name.text)
		sol.Values = append(sol.Values, z)
		offs = append(offs, name.off)
	}
	if len(sol.Names) == 0 {
		return nil, p.errAt(len(p.src), "no solution: expected a PHCpack solution list or lines \"name re [im]\"")
	}
	p.nameOffs = [][]int{offs}
	return p.mapVars([]Solution{sol}, vars, "")
}

// mapVars puts the coordinates in the order of vars (nil: as they are); a
// coordinate named param sets T.
func (p *solParser) mapVars(sols []Solution, vars []string, param string) ([]Solution, error) {
	for k := range sols {
		if sols[k].Line == 0 && k < len(p.nameOffs) && len(p.nameOffs[k]) > 0 {
			sols[k].Line, sols[k].Col = p.pos(p.nameOffs[k][0])
		}
	}
	if vars == nil {
		return sols, nil
	}
	idx := make(map[string]int, len(vars))
	for i, v := range vars {
		idx[v] = i
	}
	for k := range sols {
		sol := &sols[k]
		offs := p.nameOffs[k]
		vals := make([]poly.Rational, len(vars))
		var series [][]poly.Rational
		if sol.Series != nil {
			series = make([][]poly.Rational, len(vars))
		}
		have := make([]bool, len(vars))
		for c, name := range sol.Names {
			if name == param && param != "" {
				sol.T.Set(&sol.Values[c])
				continue
			}
			v, ok := idx[name]
			if !ok {
				return nil, p.errAt(offs[c], "solution %d: %s is not a variable of the system (%s)", k+1, solShort(name), poly.NameList(vars))
			}
			// A coordinate of the system's solution is rounded to doubles: one
			// that would be Inf is refused here, with its position and value
			// (a start value of 1e400 made Newton report a residual of +Inf).
			for _, part := range []*big.Rat{&sol.Values[c].Re, &sol.Values[c].Im} {
				if x, _ := part.Float64(); math.IsInf(x, 0) {
					return nil, p.errAt(offs[c], "solution %d: the coordinate %s = %s is too large for a double (the largest is about 1.8e308)",
						k+1, solShort(name), new(big.Float).SetRat(part).Text('g', 6))
				}
			}
			have[v] = true
			vals[v].Set(&sol.Values[c])
			if series != nil {
				series[v] = sol.Series[c]
			}
		}
		if i := slices.Index(have, false); i >= 0 {
			off := len(p.src)
			if len(offs) > 0 {
				off = offs[len(offs)-1]
			}
			return nil, p.errAt(off, "solution %d: no coordinate for the variable %s (%d coordinates for %d variables)", k+1, vars[i], len(sol.Names), len(vars))
		}
		sol.Names = slices.Clone(vars)
		sol.Values = vals
		sol.Series = series
	}
	return sols, nil
}

// FormatOptions controls Format.
type FormatOptions struct {
	// Digits is the number of significant digits of a value that has no
	// short exact decimal; 0 means 15 (PHCpack's %.14E). Values with at most
	// solMaxExactDigits significant decimal digits are written exactly.
	Digits int
	// NoExact leaves out the MDGEN EXACT SOLUTIONS block.
	NoExact bool
	// Workers bounds the goroutines that write the solutions, each its
	// own (0: one per CPU, as par.Run); the bytes do not depend on it.
	Workers int
}

// Format writes sols as a PHCpack solution list, banner "THE
// SOLUTIONS :" first, followed by the MDGEN EXACT SOLUTIONS block when a
// value is rounded or a solution has a series (see the top of this file).
// Every solution must have as many coordinates as the first (PHCpack's D);
// Format does not check. The decimals of a long list cost more than
// refining it at low precision, so the solutions are written on
// opt.Workers workers, each into its own chunk, and joined in order.
func Format(sols []Solution, opt FormatOptions) []byte {
	digits := opt.Digits
	if digits <= 0 {
		digits = 15
	}
	var b bytes.Buffer
	dim := 0
	if len(sols) > 0 {
		dim = len(sols[0].Values)
	}
	fmt.Fprintf(&b, "THE SOLUTIONS :\n%d %d\n", len(sols), dim)
	b.WriteString(strings.Repeat("=", 59) + "\n")
	chunks := make([][]byte, len(sols))
	inexact := make([]bool, len(sols))
	par.RunOn(opt.Workers, len(sols), func(_, k int) {
		chunks[k], inexact[k] = formatSolution(k, &sols[k], digits)
	})
	maxDeg := 0
	for k := range sols {
		b.Write(chunks[k])
		for c := range sols[k].Series {
			maxDeg = max(maxDeg, len(sols[k].Series[c])-1)
		}
	}
	if opt.NoExact || (!slices.Contains(inexact, true) && maxDeg == 0) {
		return b.Bytes()
	}
	fmt.Fprintf(&b, "\nMDGEN EXACT SOLUTIONS :\n%d %d %d\n", len(sols), dim, maxDeg)
	par.RunOn(opt.Workers, len(sols), func(_, k int) { chunks[k] = formatExact(k, &sols[k]) })
	for _, c := range chunks {
		b.Write(c)
	}
	return b.Bytes()
}

// formatSolution writes solution k (0-based) of a PHCpack list, and
// whether a value in it is rounded.
func formatSolution(k int, sol *Solution, digits int) ([]byte, bool) {
	var b bytes.Buffer
	inexact := false
	num := func(r *big.Rat) string {
		s, exact := solDecimal(r, digits)
		if !exact {
			inexact = true
		}
		if r.Sign() >= 0 {
			return " " + s
		}
		return s
	}
	diag := func(x float64) string {
		s := strconv.FormatFloat(x, 'E', 3, 64)
		if x >= 0 || math.IsNaN(x) {
			return " " + s
		}
		return s
	}
	fmt.Fprintf(&b, "solution %d :\n", k+1)
	fmt.Fprintf(&b, "t : %s  %s\n", num(&sol.T.Re), num(&sol.T.Im))
	fmt.Fprintf(&b, "m : %d\n", sol.M)
	b.WriteString("the solution for t :\n")
	for c := range sol.Values {
		fmt.Fprintf(&b, " %s : %s  %s\n", sol.Names[c], num(&sol.Values[c].Re), num(&sol.Values[c].Im))
	}
	e, r, s := sol.Err, sol.Rco, sol.Res
	if !sol.HasDiag {
		e, r, s = 0, 1, 0
	}
	fmt.Fprintf(&b, "== err : %s = rco : %s = res : %s ==\n", diag(e), diag(r), diag(s))
	return b.Bytes(), inexact
}

// formatExact writes solution k (0-based) of the MDGEN EXACT SOLUTIONS
// block.
func formatExact(k int, sol *Solution) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "solution %d :\n", k+1)
	fmt.Fprintf(&b, " t : %s %s\n", sol.T.Re.RatString(), sol.T.Im.RatString())
	for c := range sol.Values {
		if sol.Series != nil && len(sol.Series[c]) > 0 {
			for d := range sol.Series[c] {
				z := &sol.Series[c][d]
				fmt.Fprintf(&b, " %s t^%d : %s %s\n", sol.Names[c], d, z.Re.RatString(), z.Im.RatString())
			}
			continue
		}
		z := &sol.Values[c]
		fmt.Fprintf(&b, " %s t^0 : %s %s\n", sol.Names[c], z.Re.RatString(), z.Im.RatString())
	}
	return b.Bytes()
}

// solDecimal writes r in PHCpack's E notation: d.ddd...E±XX with at least
// digits significant digits. A value with a finite decimal expansion of at
// most solMaxExactDigits significant digits is written exactly (exact is
// true); others are rounded to digits significant digits, half to even.
func solDecimal(r *big.Rat, digits int) (s string, exact bool) {
	if r.Sign() == 0 {
		return "0." + strings.Repeat("0", digits-1) + "E+00", true
	}
	var a big.Rat
	a.Abs(r)
	sig, e, ok := solExactDecimal(&a)
	if !ok {
		sig, e = solRound(&a, digits)
	}
	// sig is the string of significant digits (no leading zeros), the value
	// is 0.sig × 10^(e+1), i.e. sig[0].sig[1:] × 10^e.
	frac := sig[1:]
	if len(frac) < digits-1 {
		frac += strings.Repeat("0", digits-1-len(frac))
	}
	var b strings.Builder
	if r.Sign() < 0 {
		b.WriteByte('-')
	}
	b.WriteByte(sig[0])
	b.WriteByte('.')
	b.WriteString(frac)
	b.WriteByte('E')
	if e < 0 {
		b.WriteByte('-')
		e = -e
	} else {
		b.WriteByte('+')
	}
	if e < 10 {
		b.WriteByte('0')
	}
	b.WriteString(strconv.Itoa(e))
	return b.String(), ok
}

// solExactDecimal returns the significant digits and the decimal exponent
// of a > 0 when a is a finite decimal of at most solMaxExactDigits digits.
func solExactDecimal(a *big.Rat) (string, int, bool) {
	den := new(big.Int).Set(a.Denom())
	twos := den.TrailingZeroBits()
	if twos > 4*solMaxExactDigits || den.BitLen() > int(twos)+10*solMaxExactDigits {
		// 2^k with k > 256 or 5^k with k > 256 (2.33k bits) in the
		// denominator: more than 64 significant digits
		return "", 0, false
	}
	den.Rsh(den, twos)
	fives := uint(0)
	five := big.NewInt(5)
	var q, m big.Int
	for den.Cmp(big.NewInt(1)) != 0 {
		q.QuoRem(den, five, &m)
		if m.Sign() != 0 {
			return "", 0, false
		}
		den.Set(&q)
		fives++
		if fives > 4*solMaxExactDigits {
			return "", 0, false
		}
	}
	k := max(twos, fives)
	n := new(big.Int).Set(a.Num())
	n.Mul(n, new(big.Int).Exp(big.NewInt(2), big.NewInt(int64(k-twos)), nil))
	n.Mul(n, new(big.Int).Exp(five, big.NewInt(int64(k-fives)), nil))
	s := n.String()
	t := strings.TrimRight(s, "0")
	if len(t) > solMaxExactDigits {
		return "", 0, false
	}
	return t, len(s) - 1 - int(k), true
}

// solRound returns the digits significant digits of a > 0, rounded half to
// even, and the decimal exponent e (a ≈ d.ddd × 10^e).
func solRound(a *big.Rat, digits int) (string, int) {
	// estimate e = floor(log10 a) from the bit lengths, then correct it
	e := int(math.Floor(float64(a.Num().BitLen()-a.Denom().BitLen()) * math.Log10(2)))
	lo := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(digits-1)), nil)
	hi := new(big.Int).Mul(lo, big.NewInt(10))
	var scaled big.Rat
	for {
		scaled.Set(a)
		sh := digits - 1 - e
		p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(max(sh, -sh))), nil)
		if sh >= 0 {
			scaled.Mul(&scaled, new(big.Rat).SetInt(p))
		} else {
			scaled.Quo(&scaled, new(big.Rat).SetInt(p))
		}
		// lo <= scaled < hi ?
		var il, ih big.Rat
		il.SetInt(lo)
		ih.SetInt(hi)
		switch {
		case scaled.Cmp(&il) < 0:
			e--
			continue
		case scaled.Cmp(&ih) >= 0:
			e++
			continue
		}
		break
	}
	// round scaled to an integer, half to even
	var q, rem big.Int
	q.QuoRem(scaled.Num(), scaled.Denom(), &rem)
	twice := new(big.Int).Lsh(&rem, 1)
	switch c := twice.Cmp(scaled.Denom()); {
	case c > 0, c == 0 && q.Bit(0) == 1:
		q.Add(&q, big.NewInt(1))
	}
	if q.Cmp(hi) == 0 {
		q.Set(lo)
		e++
	}
	return q.String(), e
}
