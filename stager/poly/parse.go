package poly

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"slices"
	"sort"
	"strings"

	"github.com/mdgen/mdgen/internal/boundedread"
)

// ParseOptions controls how Parse reads a system.
type ParseOptions struct {
	// Param names the series (homotopy) parameter. When empty, a line
	// "SERIES PARAMETER : name" (or "NO SERIES PARAMETER") after the
	// polynomials decides, as Format writes it; without one, PHCpack's rule
	// applies: a system of n polynomials in n+1 variables has the
	// parameter t; any other system has none. When set, the named variable
	// must occur and becomes the parameter whatever the counts and the
	// file say.
	Param string
}

// ParseError is one error in a system file. Line and Col are 1-based; Col
// counts bytes (a tab is one column, as in go/scanner).
type ParseError struct {
	File   string
	Line   int
	Col    int
	Reason string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Reason)
}

// ErrorList is the list of errors Parse returns (at most 10, in file
// order). errors.As(err, &pe) with pe of type *ParseError gives the first.
type ErrorList []*ParseError

func (l ErrorList) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Unwrap lets errors.Is and errors.As see every ParseError.
func (l ErrorList) Unwrap() []error {
	r := make([]error, len(l))
	for i, e := range l {
		r[i] = e
	}
	return r
}

// MaxFileBytes is the most a system file may hold (with what follows the
// system: its solution list): more than the largest system mdgen system
// writes (chandra at n = 4096: 431 MB). ReadFile refuses a longer one.
var MaxFileBytes int64 = 1 << 30

// ReadFile reads a system file (a pipe, /dev/stdin too), refusing one of
// more than MaxFileBytes with an error that names the limit
// (boundedread): every reader of a system file reads it with ReadFile.
func ReadFile(path string) ([]byte, error) {
	return boundedread.ReadFile(path, "a system file", MaxFileBytes)
}

// ParseFile reads a system file with Parse; errors name the file by path.
func ParseFile(path string, opt ParseOptions) (*System, error) {
	src, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, src, opt)
}

// Parse reads a polynomial system in PHCpack's plain format:
//
//	neq [nvar]
//	p_1; p_2; ... p_neq;
//	anything (title, root counts, solutions: ignored)
//
// Each polynomial ends with ';' and may span lines. Terms are products ('*';
// implicit products are errors, as in PHCpack) of numbers, the imaginary
// unit i or I, variables and parenthesized sums, each optionally raised to a
// non-negative integer power with '^' or '**'; '/' divides by a number
// literal (5/7, (1/3)*x); '+' and '-' may start a sum. Numbers are exact:
// 12, 0.1 (= 1/10), .5, 3., 1.0e-2, 1E+3 (no Fortran 'D'). Variables are
// identifiers (ASCII letters, digits, '_', starting with a letter) other than
// i, I, e and E, numbered in order of first appearance. Parentheses are
// multiplied out exactly.
//
// Series parameter: see ParseOptions. Terms are grouped by their exponents
// in the other variables; the coefficient of t^k goes to index k of the
// monomial's Series. When the first line gives nvar, the polynomials must
// use exactly nvar variables (the parameter included). System.Warnings
// notes a variable t that PHCpack's rule reads as an ordinary variable in
// a system that is not square with it.
//
// Coefficients are exact, but every executor rounds them to doubles (the
// leading limb of a multiple-double): a number literal, or a coefficient
// after expansion and like terms are combined, must round to a finite,
// normal double, 2^-1022 <= |c| <= about 1.8e308 (real and imaginary parts
// alike), or Parse reports it at the literal or at the term that made it.
// A smaller value would be subnormal or 0 in every precision (the lower
// limbs are smaller still), which silently changes the system.
//
// Text: ASCII (UTF-8 is accepted in the trailing text); a UTF-8 byte order
// mark at the start is skipped; lines end with LF, CR LF or a lone CR.
//
// Cost: time and memory linear in the size of the file for plain terms (a
// product x1*x2*...*xn is gathered into one monomial, not multiplied out
// left to right); expansions of powers and products of sums are bounded by
// the limits in parse_expand.go, which grow with the file's size.
//
// PHCpack reads exactly neq polynomials and ignores the rest of the file.
// Parse does the same, except that it reports "more polynomials than
// declared" when the text right after the last ';' is itself a complete
// polynomial ended by ';' that uses only variables already seen (a title, a
// root count or a solution list never is).
//
// On error Parse returns a nil System and an ErrorList of up to 10
// *ParseError: after an error inside a polynomial it skips to the next ';'
// and goes on; errors that leave nothing sensible to read (end of file,
// missing polynomials) end the list.
func Parse(name string, src []byte, opt ParseOptions) (*System, error) {
	// A UTF-8 byte order mark is skipped (columns count from after it); a
	// UTF-16 one means a file in an encoding the reader does not take.
	src = bytes.TrimPrefix(src, []byte("\xEF\xBB\xBF"))
	if bytes.HasPrefix(src, []byte("\xFF\xFE")) || bytes.HasPrefix(src, []byte("\xFE\xFF")) {
		return nil, ErrorList{{File: name, Line: 1, Col: 1,
			Reason: "the file is in UTF-16 (it starts with a UTF-16 byte order mark): convert it to ASCII or UTF-8"}}
	}
	p := &sysParser{file: name, src: src, varIdx: map[string]int{}, x: newParseExpander(len(src))}
	// Lines end with LF, CR LF, or a lone CR (old Mac files).
	p.lineStarts = append(p.lineStarts, 0)
	for i, c := range src {
		if c == '\n' || c == '\r' && (i+1 == len(src) || src[i+1] != '\n') {
			p.lineStarts = append(p.lineStarts, i+1)
		}
	}
	sys := p.run(opt)
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	sys.Source = name
	sys.Warnings = p.warns
	return sys, nil
}

type sysParser struct {
	file       string
	src        []byte
	lineStarts []int
	lx         sysLexer
	tok        sysToken
	prevEnd    int // end offset of the token before tok
	vars       []string
	varIdx     map[string]int
	varOff     []int // offset of the first occurrence of each variable
	warns      []*ParseError
	frozen     bool // reading trailing text: unknown identifiers end the attempt
	depth      int
	x          parseExpander
	errs       ErrorList
	// per polynomial
	polyNum   int // 1-based number of the polynomial being read
	polyStart sysToken
	polyNext  sysToken // the token after polyStart
	known     int      // number of variables known when the polynomial started
	neq       int
	polyOffs  []int // offset of each polynomial's first token, for System.PolyPos
}

func (p *sysParser) position(off int) (line, col int) {
	i := sort.Search(len(p.lineStarts), func(i int) bool { return p.lineStarts[i] > off }) - 1
	return i + 1, off - p.lineStarts[i] + 1
}

func (p *sysParser) errorAt(off int, format string, args ...any) {
	line, col := p.position(off)
	p.errs = append(p.errs, &ParseError{File: p.file, Line: line, Col: col, Reason: fmt.Sprintf(format, args...)})
}

func (p *sysParser) warnAt(off int, format string, args ...any) {
	line, col := p.position(off)
	p.warns = append(p.warns, &ParseError{File: p.file, Line: line, Col: col, Reason: fmt.Sprintf(format, args...)})
}

// parseBailout unwinds the reading of one polynomial.
type parseBailout struct {
	off    int
	reason string
	// resume says how reading may go on: skip to the next ';', start the
	// next polynomial at the current token, or stop.
	resume parseResume
}

type parseResume uint8

const (
	resumeSkip parseResume = iota
	resumeHere
	resumeStop
)

func (p *sysParser) fail(off int, resume parseResume, format string, args ...any) {
	panic(parseBailout{off: off, reason: fmt.Sprintf(format, args...), resume: resume})
}

func (p *sysParser) next() {
	p.prevEnd = p.tok.end
	p.tok = p.lx.next()
}

// peekSlash reports whether the token after p.tok is '/' (the lexer is a
// value: a copy reads ahead without moving p's).
func (p *sysParser) peekSlash() bool {
	lx := p.lx
	return lx.next().kind == tkSlash
}

func (p *sysParser) run(opt ParseOptions) *System {
	neq, nvar, neqOff, nvarOff, ok := p.header()
	if !ok {
		return nil
	}
	p.neq = neq
	p.next()
	var polys []*xpoly
	for k := 1; k <= neq; k++ {
		if p.tok.kind == tkEOF {
			p.errorAt(p.tok.off, "expected %d polynomials (line 1), found %d", neq, k-1)
			return nil
		}
		p.polyOffs = append(p.polyOffs, p.tok.off)
		poly, resume := p.polynomial(k)
		polys = append(polys, poly)
		if resume == resumeStop || len(p.errs) >= parseMaxErrors {
			return nil
		}
	}
	if len(p.errs) > 0 {
		return nil
	}
	if start := p.tok.off; p.tok.kind != tkEOF && p.looksLikePolynomial() {
		p.errorAt(start, "more polynomials than the %d declared on line 1", neq)
		return nil
	}
	mark, ok := p.paramLine(p.prevEnd)
	if !ok {
		return nil
	}
	return p.build(opt, mark, polys, nvar, neqOff, nvarOff)
}

// paramMark is what a SERIES PARAMETER line in the trailing text says.
type paramMark struct {
	set  bool   // a line was found
	name string // the parameter; "" for NO SERIES PARAMETER
	off  int    // offset of the name (of the line for NO SERIES PARAMETER)
}

// paramLine looks in the text after the last polynomial (from off) for a
// line that names the series parameter, as Format writes it:
//
//	SERIES PARAMETER : t
//	NO SERIES PARAMETER
//
// The words may be in any case, the ':' may be left out, and the line may
// be anywhere in the trailing text (PHCpack ignores that text), but it must
// start with those words. It reports false after recording an error.
func (p *sysParser) paramLine(off int) (paramMark, bool) {
	var mark paramMark
	src := p.src
	for i := off; i < len(src); {
		end := i
		for end < len(src) && src[end] != '\n' && src[end] != '\r' {
			end++
		}
		line := i
		i = end + 1
		w := lineWords(src, line, end)
		no := len(w) > 0 && bytes.EqualFold(src[w[0][0]:w[0][1]], []byte("NO"))
		if no {
			w = w[1:]
		}
		if len(w) < 2 || !bytes.EqualFold(src[w[0][0]:w[0][1]], []byte("SERIES")) ||
			!bytes.EqualFold(src[w[1][0]:w[1][1]], []byte("PARAMETER")) {
			continue
		}
		start := w[0][0]
		if mark.set {
			l, c := p.position(mark.off)
			p.errorAt(start, "a second SERIES PARAMETER line (the first is at %d:%d)", l, c)
			return mark, false
		}
		w = w[2:]
		if len(w) > 0 && src[w[0][0]] == ':' {
			if w[0][1]-w[0][0] > 1 { // "PARAMETER :t"
				w[0][0]++
			} else {
				w = w[1:]
			}
		}
		switch {
		case no && len(w) == 0:
			mark = paramMark{set: true, off: start}
		case no:
			p.errorAt(w[0][0], "unexpected %q after NO SERIES PARAMETER", src[w[0][0]:w[0][1]])
			return mark, false
		case len(w) != 1 || !lexIsIdent(src[w[0][0]:w[0][1]]):
			at := end
			if len(w) > 0 {
				at = w[0][0]
			}
			p.errorAt(at, "expected \"SERIES PARAMETER : name\" with one variable name")
			return mark, false
		default:
			mark = paramMark{set: true, name: string(src[w[0][0]:w[0][1]]), off: w[0][0]}
		}
	}
	return mark, true
}

// lineWords splits src[from:to] at blanks and before a ':' that ends a word.
func lineWords(src []byte, from, to int) [][2]int {
	var w [][2]int
	for i := from; i < to; {
		for i < to && (src[i] == ' ' || src[i] == '\t' || src[i] == '\f' || src[i] == '\v') {
			i++
		}
		if i == to {
			break
		}
		j := i + 1
		for j < to && src[j] != ' ' && src[j] != '\t' && src[j] != '\f' && src[j] != '\v' && src[j] != ':' {
			j++
		}
		w = append(w, [2]int{i, j})
		i = j
	}
	return w
}

// lexIsIdent reports whether b is a variable name: a letter, then letters,
// digits and '_', and not the imaginary unit i or I.
func lexIsIdent(b []byte) bool {
	if len(b) == 0 || !lexIsLetter(b[0]) {
		return false
	}
	for _, c := range b {
		if !lexIsLetter(c) && !IsDigit(c) && c != '_' {
			return false
		}
	}
	switch string(b) {
	case "i", "I":
		return false
	}
	return true
}

// header reads the first line: neq [nvar]. nvar is -1 when absent.
func (p *sysParser) header() (neq, nvar, neqOff, nvarOff int, ok bool) {
	src := p.src
	i := 0
	for i < len(src) && IsSpace(src[i]) {
		i++
	}
	num := func() (int, int, bool) {
		start := i
		v := 0
		for i < len(src) && IsDigit(src[i]) {
			if v <= 1<<30 {
				v = v*10 + int(src[i]-'0')
			}
			i++
		}
		return v, start, i > start
	}
	var got bool
	neq, neqOff, got = num()
	if !got {
		if i >= len(src) {
			p.errorAt(i, "empty file: expected the number of polynomials")
		} else {
			p.errorAt(i, "expected the number of polynomials on the first line (\"neq [nvar]\")")
		}
		return
	}
	if neq > 1<<30 {
		p.errorAt(neqOff, "number of polynomials %s too large", src[neqOff:i])
		return
	}
	if neq == 0 {
		p.errorAt(neqOff, "empty system: 0 polynomials")
		return
	}
	hspace := func() {
		for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\f' || src[i] == '\v') {
			i++
		}
	}
	hspace()
	nvar = -1
	if i < len(src) && IsDigit(src[i]) {
		nvar, nvarOff, _ = num()
		if nvar > 1<<30 {
			p.errorAt(nvarOff, "number of variables %s too large", src[nvarOff:i])
			return
		}
		hspace()
	}
	if i < len(src) && src[i] != '\n' && src[i] != '\r' {
		p.errorAt(i, "unexpected %q on the first line: expected \"neq [nvar]\" alone", parseFirstWord(src[i:]))
		return
	}
	p.lx = sysLexer{src: src, off: i}
	return neq, nvar, neqOff, nvarOff, true
}

func parseFirstWord(b []byte) string {
	n := 0
	for n < len(b) && n < 20 && !IsSpace(b[n]) {
		n++
	}
	if n == 0 {
		n = 1
	}
	return string(b[:n])
}

// polynomial reads polynomial k and its ';'. On error it records the error
// and positions the parser for the next polynomial as far as it can.
func (p *sysParser) polynomial(k int) (poly *xpoly, resume parseResume) {
	p.polyNum = k
	p.polyStart = p.tok
	ahead := p.lx
	p.polyNext = ahead.next()
	p.known = len(p.vars)
	p.depth = 0
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		b, ok := r.(parseBailout)
		if !ok {
			panic(r)
		}
		reason := b.reason
		if k > 1 && b.resume != resumeHere && p.startsWithNewWord() {
			reason += fmt.Sprintf(" (polynomial %d of %d: fewer polynomials than declared on line 1?)", k, p.neq)
			b.resume = resumeStop
		}
		p.errorAt(b.off, "%s", reason)
		poly, resume = nil, b.resume
		if resume == resumeSkip {
			for p.tok.kind != tkSemi && p.tok.kind != tkEOF {
				p.next()
			}
			if p.tok.kind == tkEOF {
				resume = resumeStop
			} else {
				p.next()
			}
		}
	}()
	e := p.expr()
	switch p.tok.kind {
	case tkSemi:
		p.next()
		return e, resumeSkip
	case tkEOF:
		p.fail(p.prevEnd, resumeStop, "missing ';' at the end of polynomial %d (end of file)", k)
	case tkNum, tkIdent, tkImag, tkLParen:
		if p.lineOf(p.tok.off) > p.lineOf(p.prevEnd) {
			p.fail(p.prevEnd, resumeHere, "missing ';' at the end of polynomial %d", k)
		}
		p.fail(p.tok.off, resumeSkip, "missing operator before %s (implicit products are not allowed: write '*')", p.tok.describe())
	case tkBad:
		p.fail(p.tok.off, resumeSkip, "%s", p.tok.err)
	case tkRParen:
		p.fail(p.tok.off, resumeSkip, "unmatched ')'")
	}
	p.fail(p.tok.off, resumeSkip, "unexpected %s", p.tok.describe())
	return nil, resumeSkip
}

func (p *sysParser) lineOf(off int) int {
	l, _ := p.position(off)
	return l
}

// startsWithNewWord reports whether the polynomial being read starts like
// prose (TITLE :, THE SOLUTIONS): with a character that cannot start a
// polynomial, or with an identifier not seen before it that no operator
// follows. That is the mark of a file with fewer polynomials than declared.
func (p *sysParser) startsWithNewWord() bool {
	t := p.polyStart
	if t.kind == tkBad {
		return true
	}
	if t.kind != tkIdent {
		return false
	}
	if i, ok := p.varIdx[t.text]; ok && i < p.known {
		return false
	}
	switch p.polyNext.kind {
	case tkPlus, tkMinus, tkStar, tkSlash, tkPow, tkSemi:
		return false
	}
	return true
}

// looksLikePolynomial reads the trailing text as a polynomial ended by ';'
// that uses known variables only, without reporting anything.
func (p *sysParser) looksLikePolynomial() (yes bool) {
	saveLx, saveTok, savePrev, saveX := p.lx, p.tok, p.prevEnd, p.x
	p.frozen = true
	p.depth = 0
	p.x = parseExpander{budget: parseMaxWork / 16, maxTerms: parseMaxTerms}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(parseBailout); !ok {
				panic(r)
			}
			yes = false
		}
		p.lx, p.tok, p.prevEnd, p.x = saveLx, saveTok, savePrev, saveX
		p.frozen = false
	}()
	p.expr()
	return p.tok.kind == tkSemi
}

// expr reads [+|-] term {(+|-) term}. While a term is read, p.x.off is the
// offset of its first token: the position of the coefficients it makes.
func (p *sysParser) expr() *xpoly {
	outer := p.x.off
	neg := false
	if p.tok.kind == tkPlus || p.tok.kind == tkMinus {
		neg = p.tok.kind == tkMinus
		p.next()
	}
	p.x.off = p.tok.off
	e := p.term()
	if neg {
		e.negate()
	}
	for p.tok.kind == tkPlus || p.tok.kind == tkMinus {
		op := p.tok
		p.next()
		p.x.off = p.tok.off
		t := p.term()
		if msg := p.x.addPoly(e, t, op.kind == tkMinus); msg != "" {
			p.fail(op.off, resumeSkip, "%s", msg)
		}
	}
	p.x.off = outer
	return e
}

// term reads factor {* factor | / number}.
//
// A product is not multiplied out left to right, which costs O(n²) for
// x1*x2*...*xn: the factors with one term (numbers, variables, powers of
// monomials) are gathered into one monomial (termAcc), the factors with
// several terms are multiplied in order, and the product of those is
// multiplied by the monomial at the end. The result is the one the left to
// right product gives, down to the order of the terms and to the terms
// whose coefficients cancelled in the last product (which keep their places
// in the sum until compact drops them): a monomial factor maps distinct
// exponent vectors to distinct ones, so it changes neither.
func (p *sysParser) term() *xpoly {
	first := p.factor()
	if p.tok.kind != tkStar && p.tok.kind != tkSlash {
		return first
	}
	raw := first // the first factor, until a '*' (a '/' scales it in place)
	var acc termAcc
	acc.c.Re.SetInt64(1)
	var g *xpoly  // the product of the factors with several terms
	keep := false // the last '*' factor had several terms: keep the cancelled terms of g
	zero := false // a factor was zero
	lastOp := 0
	take := func(f *xpoly, op int) {
		f.compact()
		switch {
		case zero:
		case len(f.terms) == 0:
			zero = true
		case len(f.terms) == 1:
			if msg := acc.mul(&p.x, f.terms[0]); msg != "" {
				p.fail(op, resumeSkip, "%s", msg)
			}
			keep = false
		case g == nil:
			g, keep = f, false
		default:
			var msg string
			if g, msg = p.x.mul(g, f); msg != "" {
				p.fail(op, resumeSkip, "%s", msg)
			}
			keep = true
		}
	}
	for {
		switch p.tok.kind {
		case tkStar:
			op := p.tok
			lastOp = op.off
			p.next()
			f := p.factor()
			if raw != nil {
				take(raw, op.off)
				raw = nil
			}
			take(f, op.off)
		case tkSlash:
			op := p.tok
			p.next()
			if p.tok.kind != tkNum {
				if p.tok.kind == tkBad {
					p.fail(p.tok.off, resumeSkip, "%s", p.tok.err)
				}
				p.fail(p.tok.off, resumeSkip, "division by %s: only division by a number literal is allowed", p.tok.describe())
			}
			q := p.number(true)
			if q.Sign() == 0 {
				p.fail(p.tok.off, resumeSkip, "division by zero")
			}
			p.next()
			q.Inv(q)
			var msg string
			if raw != nil {
				msg = p.x.scale(raw, q)
			} else if !zero {
				msg = acc.scale(&p.x, q)
			}
			if msg != "" {
				p.fail(op.off, resumeSkip, "%s", msg)
			}
		default:
			switch {
			case raw != nil:
				return raw
			case zero:
				return &xpoly{}
			case g == nil:
				r := &xpoly{}
				r.add(acc.sorted(), &acc.c, false, nil, p.x.off, 1)
				return r
			}
			if !keep {
				g.compact()
			}
			if !acc.isOne() {
				if msg := p.x.mulMono(g, &acc.c, acc.sorted()); msg != "" {
					p.fail(lastOp, resumeSkip, "%s", msg)
				}
			}
			return g
		}
	}
}

// termAcc is the product of the one-term factors of a term: a coefficient
// and a monomial, its exponents in order of arrival, found by a linear
// search while there are few and by a map after that.
type termAcc struct {
	c    Rational
	exps []xexp
	at   map[int]int // variable → index in exps, once there are more than xpolySmall
}

// mul multiplies the accumulated monomial by the term t.
func (a *termAcc) mul(x *parseExpander, t *xterm) string {
	if !x.charge(productUnits(&a.c, &t.c) + int64(len(t.exps))/8) {
		return x.errWork()
	}
	if !a.isOneCoef() {
		var c Rational
		parseRatMul(&c, &a.c, &t.c)
		a.c.Re.Set(&c.Re)
		a.c.Im.Set(&c.Im)
	} else {
		a.c.Re.Set(&t.c.Re)
		a.c.Im.Set(&t.c.Im)
	}
	if parseRatBits(&a.c) > parseMaxCoefBits {
		return parseErrCoefTooLarge()
	}
	for _, e := range t.exps {
		i := a.find(e.v)
		if i < 0 {
			a.exps = append(a.exps, e)
			if a.at != nil {
				a.at[e.v] = len(a.exps) - 1
			} else if len(a.exps) > xpolySmall {
				a.at = make(map[int]int, 2*len(a.exps))
				for k, f := range a.exps {
					a.at[f.v] = k
				}
			}
			continue
		}
		if a.exps[i].p+e.p > parseMaxExponent {
			return parseErrExponentTooLarge()
		}
		a.exps[i].p += e.p
	}
	return ""
}

func (a *termAcc) find(v int) int {
	if a.at != nil {
		if i, ok := a.at[v]; ok {
			return i
		}
		return -1
	}
	for i, e := range a.exps {
		if e.v == v {
			return i
		}
	}
	return -1
}

// scale multiplies the coefficient by the real rational q.
func (a *termAcc) scale(x *parseExpander, q *big.Rat) string {
	var qc Rational
	qc.Re.Set(q)
	if !x.charge(2 * productUnits(&a.c, &qc)) {
		return x.errWork()
	}
	a.c.Re.Mul(&a.c.Re, q)
	a.c.Im.Mul(&a.c.Im, q)
	if parseRatBits(&a.c) > parseMaxCoefBits {
		return parseErrCoefTooLarge()
	}
	return ""
}

func (a *termAcc) isOneCoef() bool {
	return a.c.Im.Sign() == 0 && a.c.Re.IsInt() && a.c.Re.Num().IsInt64() && a.c.Re.Num().Int64() == 1
}

func (a *termAcc) isOne() bool { return len(a.exps) == 0 && a.isOneCoef() }

// sorted returns the exponents by increasing variable.
func (a *termAcc) sorted() []xexp {
	slices.SortFunc(a.exps, func(e, f xexp) int { return cmp.Compare(e.v, f.v) })
	a.at = nil
	return a.exps
}

// factor reads primary [(^|**) exponent].
func (p *sysParser) factor() *xpoly {
	f := p.primary()
	if p.tok.kind != tkPow {
		return f
	}
	op := p.tok
	p.next()
	k := p.exponent()
	f, msg := p.x.pow(f, k)
	if msg != "" {
		p.fail(op.off, resumeSkip, "%s", msg)
	}
	return f
}

// exponent reads a non-negative integer literal, optionally in parentheses.
func (p *sysParser) exponent() int {
	paren := p.tok.kind == tkLParen
	var open sysToken
	if paren {
		open = p.tok
		p.next()
	}
	if p.tok.kind == tkPlus {
		p.next()
	}
	if p.tok.kind == tkMinus {
		p.fail(p.tok.off, resumeSkip, "negative exponent: exponents must be non-negative integers")
	}
	if p.tok.kind == tkBad {
		p.fail(p.tok.off, resumeSkip, "%s", p.tok.err)
	}
	if p.tok.kind != tkNum {
		p.fail(p.tok.off, resumeSkip, "expected an exponent, found %s", p.tok.describe())
	}
	if !p.tok.isInt {
		p.fail(p.tok.off, resumeSkip, "exponent %s is not an integer: exponents must be non-negative integers", p.tok.text)
	}
	k := 0
	for _, c := range p.tok.text {
		k = k*10 + int(c-'0')
		if k > parseMaxExponent {
			p.fail(p.tok.off, resumeSkip, "%s", parseErrExponentTooLarge())
		}
	}
	p.next()
	if paren {
		if p.tok.kind != tkRParen {
			l, c := p.position(open.off)
			p.fail(p.tok.off, resumeSkip, "expected ')' to close the '(' at %d:%d, found %s", l, c, p.tok.describe())
		}
		p.next()
	}
	return k
}

// number returns the value of the tkNum p.tok; divisor says that it
// divides. A literal outside the range of a double is refused at once,
// unless it is a numerator p or a divisor q of p/q: the range is that of
// the value (mdgen system writes p/q with p and q past 1e308 for a value
// of 1e-18), which the check of every coefficient in build applies.
func (p *sysParser) number(divisor bool) *big.Rat {
	v, msg := parseNumberValue(p.tok.text)
	if msg != "" {
		p.fail(p.tok.off, resumeSkip, "%s", msg)
	}
	if max(v.Num().BitLen(), v.Denom().BitLen()) > parseMaxCoefBits {
		p.fail(p.tok.off, resumeSkip, "number too large (more than %d bits)", parseMaxCoefBits)
	}
	if divisor || p.peekSlash() {
		return v
	}
	if msg := doubleRange(v); msg != "" {
		p.fail(p.tok.off, resumeSkip, "number %s %s", p.tok.text, msg)
	}
	return v
}

// doubleRange returns why the nonzero rational r cannot be a coefficient of
// a system that executors round to doubles: "" when its double, the
// leading limb of every multiple-double, is finite and normal.
//
// A value above the largest double (about 1.8e308, after rounding) would be
// Inf. A value below the smallest normal double (2^-1022, about 2.2e-308)
// would be subnormal or 0: it would lose its low bits, or the term would
// vanish, in every precision, since the lower limbs of a multiple-double are
// smaller still. Both are refused rather than changed silently.
func doubleRange(r *big.Rat) string {
	if r.Sign() == 0 {
		return ""
	}
	if r.Num().IsInt64() && r.Denom().IsInt64() {
		return "" // between 2^-63 and 2^63 in magnitude: no division needed
	}
	f, _ := r.Float64()
	switch {
	case math.IsInf(f, 0):
		return "is too large for a double (the largest is about 1.8e308): every executor rounds coefficients to doubles, so it would be Inf"
	case math.Abs(f) < 0x1p-1022:
		return "is too small for a double (the smallest normal one is about 2.2e-308): every executor rounds coefficients to doubles, so it would be subnormal or 0"
	}
	return ""
}

// DoubleRange says why c does not round to a double (its real or imaginary
// part too large or too small for one, as doubleRange), or "" if it does.
func (c *Rational) DoubleRange() string {
	if msg := doubleRange(&c.Re); msg != "" {
		if c.IsReal() {
			return msg
		}
		return "(its real part) " + msg
	}
	if msg := doubleRange(&c.Im); msg != "" {
		return "(its imaginary part) " + msg
	}
	return ""
}

// ratText writes r for a message: exactly when short, else in e-notation.
func ratText(r *big.Rat) string {
	if s := r.RatString(); len(s) <= 24 {
		return s
	}
	return new(big.Float).SetPrec(64).SetRat(r).Text('g', 6)
}

func (p *sysParser) primary() *xpoly {
	t := p.tok
	switch t.kind {
	case tkNum:
		var c Rational
		c.Re.Set(p.number(false))
		p.next()
		return xconst(&c, p.x.off)
	case tkImag:
		var c Rational
		c.Im.SetInt64(1)
		p.next()
		return xconst(&c, p.x.off)
	case tkIdent:
		v, ok := p.varIdx[t.text]
		if !ok {
			if p.frozen {
				p.fail(t.off, resumeSkip, "unknown")
			}
			v = len(p.vars)
			p.vars = append(p.vars, t.text)
			p.varIdx[t.text] = v
			p.varOff = append(p.varOff, t.off)
			if t.text == "e" || t.text == "E" {
				p.warnAt(t.off, "%s is read as a variable; PHCpack reads a lone %s as the exponent of a number (phc reads a+%s-1 as a-1): rename it to give this file to phc", t.text, t.text, t.text)
			}
		}
		p.next()
		return xvar(v, p.x.off)
	case tkLParen:
		if p.depth >= parseMaxNesting {
			p.fail(t.off, resumeSkip, "parentheses nested too deeply (more than %d)", parseMaxNesting)
		}
		p.depth++
		p.next()
		e := p.expr()
		if p.tok.kind != tkRParen {
			l, c := p.position(t.off)
			switch p.tok.kind {
			case tkEOF:
				p.fail(p.prevEnd, resumeStop, "missing ')' to close the '(' at %d:%d (end of file)", l, c)
			case tkSemi:
				p.fail(p.tok.off, resumeSkip, "missing ')' to close the '(' at %d:%d", l, c)
			case tkBad:
				p.fail(p.tok.off, resumeSkip, "%s", p.tok.err)
			case tkNum, tkIdent, tkImag, tkLParen:
				p.fail(p.tok.off, resumeSkip, "missing operator before %s (implicit products are not allowed: write '*')", p.tok.describe())
			}
			p.fail(p.tok.off, resumeSkip, "expected ')' to close the '(' at %d:%d, found %s", l, c, p.tok.describe())
		}
		p.depth--
		p.next()
		return e
	case tkBad:
		p.fail(t.off, resumeSkip, "%s", t.err)
	case tkEOF:
		p.fail(p.prevEnd, resumeStop, "unexpected end of file in polynomial %d (missing ';'?)", p.polyNum)
	case tkSemi:
		p.fail(t.off, resumeSkip, "unexpected ';': expected a term")
	}
	p.fail(t.off, resumeSkip, "unexpected %s: expected a term", t.describe())
	return nil
}

// build groups the expanded polynomials into a System.
//
// The series parameter: opt.Param when set; else the variable that a
// SERIES PARAMETER line names (or none after NO SERIES PARAMETER); else
// PHCpack's convention (t when there is one more variable than equations).
func (p *sysParser) build(opt ParseOptions, mark paramMark, polys []*xpoly, nvar, neqOff, nvarOff int) *System {
	neq := len(polys)
	counted := len(p.vars)
	if nvar >= 0 && nvar != counted {
		p.errorAt(nvarOff, "line 1 declares %d variables, but the polynomials use %d (%s)", nvar, counted, NameList(p.vars))
		return nil
	}
	if nvar < 0 {
		nvar = counted
	}
	param := -1
	switch {
	case opt.Param != "":
		v, ok := p.varIdx[opt.Param]
		if !ok {
			p.errorAt(neqOff, "series parameter %s does not occur in the polynomials (variables: %s)", opt.Param, NameList(p.vars))
			return nil
		}
		param = v
		if mark.set && mark.name != opt.Param {
			named := "no series parameter"
			if mark.name != "" {
				named = "the series parameter " + mark.name
			}
			p.warnAt(mark.off, "the file names %s; the parameter %s given to the reader overrides it", named, opt.Param)
		}
	case mark.set && mark.name != "":
		v, ok := p.varIdx[mark.name]
		if !ok {
			p.errorAt(mark.off, "series parameter %s does not occur in the polynomials (variables: %s)", mark.name, NameList(p.vars))
			return nil
		}
		param = v
	case mark.set:
	case nvar == neq+1:
		v, ok := p.varIdx["t"]
		if !ok {
			p.errorAt(neqOff, "%d polynomials in %d variables: the extra variable is the series parameter, but t does not occur; name the parameter (variables: %s)", neq, nvar, NameList(p.vars))
			return nil
		}
		param = v
	default:
		// By PHCpack's convention there is no parameter. A variable named
		// t in a system that is not square with it looks like one (a file
		// an older Format wrote, p2's one equation in 128 variables and t).
		if v, ok := p.varIdx["t"]; ok && nvar != neq {
			p.warnAt(p.varOff[v], "t is read as an ordinary variable, by PHCpack's convention (%d polynomials in %d variables, t included: "+
				"the parameter is the extra variable only with one more variable than polynomials); if t is the series parameter, "+
				"name it (-param t, or a line \"SERIES PARAMETER : t\" after the polynomials)", neq, nvar)
		}
	}
	sys := &System{Vars: make([]string, 0, counted), Polys: make([]Polynomial, neq), PolyPos: make([]Pos, neq)}
	for k := range sys.PolyPos {
		sys.PolyPos[k].Line, sys.PolyPos[k].Col = p.position(p.polyOffs[k])
	}
	newIdx := make([]int, counted)
	for v, name := range p.vars {
		if v == param {
			newIdx[v] = -1
			continue
		}
		newIdx[v] = len(sys.Vars)
		sys.Vars = append(sys.Vars, name)
	}
	if param >= 0 {
		sys.Param = p.vars[param]
	}

	// Group the terms of every polynomial by their exponents in the
	// non-parameter variables, sizing the series first so that an
	// oversized file fails before it allocates.
	type group struct {
		vars, pows []int
		deg        int
		terms      []*xterm
		tdeg       []int
	}
	groups := make([][]*group, neq)
	total := 0
	var kb []byte
	var vs, ps []int
	for k, xp := range polys {
		xp.compact()
		var idx map[string]*group // made once the polynomial has many groups
		for _, t := range xp.terms {
			// Every coefficient must round to a finite, normal double.
			if msg := t.c.DoubleRange(); msg != "" {
				p.errorAt(t.off, "coefficient %s of %s in polynomial %d %s; scale the polynomial",
					t.c.Text(), p.monoText(t.exps), k+1, msg)
				if len(p.errs) >= parseMaxErrors {
					return nil
				}
			}
			d := 0
			vs, ps = vs[:0], ps[:0]
			for _, e := range t.exps {
				if e.v == param {
					d = e.p
					continue
				}
				vs = append(vs, newIdx[e.v])
				ps = append(ps, e.p)
			}
			var g *group
			if idx == nil {
				for _, h := range groups[k] {
					if slices.Equal(h.vars, vs) && slices.Equal(h.pows, ps) {
						g = h
						break
					}
				}
			} else {
				kb = kb[:0]
				for i := range vs {
					kb = binary.AppendUvarint(kb, uint64(vs[i]))
					kb = binary.AppendUvarint(kb, uint64(ps[i]))
				}
				g = idx[string(kb)]
			}
			if g == nil {
				g = &group{vars: slices.Clone(vs), pows: slices.Clone(ps)}
				groups[k] = append(groups[k], g)
				if idx != nil {
					idx[string(kb)] = g
				} else if len(groups[k]) > xpolySmall {
					idx = make(map[string]*group, 2*len(groups[k]))
					for _, h := range groups[k] {
						kb = kb[:0]
						for i := range h.vars {
							kb = binary.AppendUvarint(kb, uint64(h.vars[i]))
							kb = binary.AppendUvarint(kb, uint64(h.pows[i]))
						}
						idx[string(kb)] = h
					}
				}
			}
			g.terms = append(g.terms, t)
			g.tdeg = append(g.tdeg, d)
			g.deg = max(g.deg, d)
		}
		for _, g := range groups[k] {
			total += g.deg + 1
		}
		if limit := parseMaxSeriesCoefs + len(p.src); total > limit {
			p.errorAt(neqOff, "series coefficients too large: more than %d coefficients of powers of %s", limit, sys.Param)
			return nil
		}
	}
	if len(p.errs) > 0 {
		return nil
	}
	for k := range groups {
		pol := &sys.Polys[k]
		for _, g := range groups[k] {
			s := make(Series, g.deg+1)
			for j, t := range g.terms {
				c := &s[g.tdeg[j]]
				c.Re.Set(&t.c.Re)
				c.Im.Set(&t.c.Im)
			}
			s = s.Trim()
			if len(s) == 0 {
				continue
			}
			if len(g.vars) == 0 {
				pol.Const = s
				continue
			}
			pol.Terms = append(pol.Terms, Monomial{Coef: s, Vars: g.vars, Pows: g.pows})
		}
		groups[k], polys[k] = nil, nil // free the expanded terms as we go
	}
	return sys
}

// Text writes c for a message: exactly when short, else in e-notation.
func (c *Rational) Text() string {
	switch {
	case c.IsReal():
		return ratText(&c.Re)
	case c.Re.Sign() == 0:
		return ratText(&c.Im) + "*i"
	}
	return "(" + ratText(&c.Re) + " + " + ratText(&c.Im) + "*i)"
}

// monoText writes a monomial of the file's variables (the parameter
// included): "x*y^2", or "the constant term".
func (p *sysParser) monoText(exps []xexp) string {
	if len(exps) == 0 {
		return "the constant term"
	}
	var b strings.Builder
	for i, e := range exps {
		if i == 8 {
			fmt.Fprintf(&b, "*... (%d variables)", len(exps))
			break
		}
		if i > 0 {
			b.WriteByte('*')
		}
		b.WriteString(p.vars[e.v])
		if e.p > 1 {
			fmt.Fprintf(&b, "^%d", e.p)
		}
	}
	return b.String()
}

// NameList writes names for a message: at most 12 of them, then their
// count.
func NameList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	if len(names) > 12 {
		return strings.Join(names[:12], " ") + fmt.Sprintf(" ... (%d in all)", len(names))
	}
	return strings.Join(names, " ")
}
