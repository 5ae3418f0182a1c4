package stager

import (
	"encoding/binary"
	"fmt"
	"math/big"
	"os"
	"sort"
	"strings"
)

// ParseOptions controls how Parse reads a system.
type ParseOptions struct {
	// Param names the series (homotopy) parameter. When empty, PHCpack's
	// rule applies: a system of n polynomials in n+1 variables has the
	// parameter t; any other system has none. When set, the named variable
	// must occur and becomes the parameter whatever the counts.
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

// ParseFile reads a system file with Parse; errors name the file by path.
func ParseFile(path string, opt ParseOptions) (*System, error) {
	src, err := os.ReadFile(path)
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
// use exactly nvar variables (the parameter included).
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
	p := &sysParser{file: name, src: src, varIdx: map[string]int{}}
	p.lineStarts = append(p.lineStarts, 0)
	for i, c := range src {
		if c == '\n' {
			p.lineStarts = append(p.lineStarts, i+1)
		}
	}
	sys := p.run(opt)
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	sys.Source = name
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
}

func (p *sysParser) position(off int) (line, col int) {
	i := sort.Search(len(p.lineStarts), func(i int) bool { return p.lineStarts[i] > off }) - 1
	return i + 1, off - p.lineStarts[i] + 1
}

func (p *sysParser) errorAt(off int, format string, args ...any) {
	line, col := p.position(off)
	p.errs = append(p.errs, &ParseError{File: p.file, Line: line, Col: col, Reason: fmt.Sprintf(format, args...)})
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
	return p.build(opt, polys, nvar, neqOff, nvarOff)
}

// header reads the first line: neq [nvar]. nvar is -1 when absent.
func (p *sysParser) header() (neq, nvar, neqOff, nvarOff int, ok bool) {
	src := p.src
	i := 0
	for i < len(src) && lexIsSpace(src[i]) {
		i++
	}
	num := func() (int, int, bool) {
		start := i
		v := 0
		for i < len(src) && lexIsDigit(src[i]) {
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
		for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\r') {
			i++
		}
	}
	hspace()
	nvar = -1
	if i < len(src) && lexIsDigit(src[i]) {
		nvar, nvarOff, _ = num()
		if nvar > 1<<30 {
			p.errorAt(nvarOff, "number of variables %s too large", src[nvarOff:i])
			return
		}
		hspace()
	}
	if i < len(src) && src[i] != '\n' {
		p.errorAt(i, "unexpected %q on the first line: expected \"neq [nvar]\" alone", parseFirstWord(src[i:]))
		return
	}
	p.lx = sysLexer{src: src, off: i}
	return neq, nvar, neqOff, nvarOff, true
}

func parseFirstWord(b []byte) string {
	n := 0
	for n < len(b) && n < 20 && !lexIsSpace(b[n]) {
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
	p.x = parseExpander{work: parseMaxWork - parseMaxWork/16}
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

// expr reads [+|-] term {(+|-) term}.
func (p *sysParser) expr() *xpoly {
	neg := false
	if p.tok.kind == tkPlus || p.tok.kind == tkMinus {
		neg = p.tok.kind == tkMinus
		p.next()
	}
	e := p.term()
	if neg {
		e.negate()
	}
	for p.tok.kind == tkPlus || p.tok.kind == tkMinus {
		op := p.tok
		p.next()
		t := p.term()
		if msg := p.x.addPoly(e, t, op.kind == tkMinus); msg != "" {
			p.fail(op.off, resumeSkip, "%s", msg)
		}
	}
	return e
}

// term reads factor {* factor | / number}.
func (p *sysParser) term() *xpoly {
	f := p.factor()
	for {
		switch p.tok.kind {
		case tkStar:
			op := p.tok
			p.next()
			g := p.factor()
			var msg string
			if f, msg = p.x.mul(f, g); msg != "" {
				p.fail(op.off, resumeSkip, "%s", msg)
			}
		case tkSlash:
			op := p.tok
			p.next()
			if p.tok.kind != tkNum {
				if p.tok.kind == tkBad {
					p.fail(p.tok.off, resumeSkip, "%s", p.tok.err)
				}
				p.fail(p.tok.off, resumeSkip, "division by %s: only division by a number literal is allowed", p.tok.describe())
			}
			q := p.number()
			if q.Sign() == 0 {
				p.fail(p.tok.off, resumeSkip, "division by zero")
			}
			p.next()
			if msg := p.x.scale(f, q.Inv(q)); msg != "" {
				p.fail(op.off, resumeSkip, "%s", msg)
			}
		default:
			return f
		}
	}
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

// number returns the value of the tkNum p.tok.
func (p *sysParser) number() *big.Rat {
	v, msg := parseNumberValue(p.tok.text)
	if msg != "" {
		p.fail(p.tok.off, resumeSkip, "%s", msg)
	}
	if max(v.Num().BitLen(), v.Denom().BitLen()) > parseMaxCoefBits {
		p.fail(p.tok.off, resumeSkip, "number too large (more than %d bits)", parseMaxCoefBits)
	}
	return v
}

func (p *sysParser) primary() *xpoly {
	t := p.tok
	switch t.kind {
	case tkNum:
		var c Rational
		c.Re.Set(p.number())
		p.next()
		return xconst(&c)
	case tkImag:
		var c Rational
		c.Im.SetInt64(1)
		p.next()
		return xconst(&c)
	case tkIdent:
		v, ok := p.varIdx[t.text]
		if !ok {
			if p.frozen {
				p.fail(t.off, resumeSkip, "unknown")
			}
			v = len(p.vars)
			p.vars = append(p.vars, t.text)
			p.varIdx[t.text] = v
		}
		p.next()
		return xvar(v)
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
func (p *sysParser) build(opt ParseOptions, polys []*xpoly, nvar, neqOff, nvarOff int) *System {
	neq := len(polys)
	counted := len(p.vars)
	if nvar >= 0 && nvar != counted {
		p.errorAt(nvarOff, "line 1 declares %d variables, but the polynomials use %d (%s)", nvar, counted, parseListNames(p.vars))
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
			p.errorAt(neqOff, "series parameter %s does not occur in the polynomials (variables: %s)", opt.Param, parseListNames(p.vars))
			return nil
		}
		param = v
	case nvar == neq+1:
		v, ok := p.varIdx["t"]
		if !ok {
			p.errorAt(neqOff, "%d polynomials in %d variables: the extra variable is the series parameter, but t does not occur; name the parameter (variables: %s)", neq, nvar, parseListNames(p.vars))
			return nil
		}
		param = v
	}
	sys := &System{Vars: make([]string, 0, counted), Polys: make([]Polynomial, neq)}
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
	for k, xp := range polys {
		xp.compact()
		idx := map[string]*group{}
		for _, t := range xp.terms {
			d := 0
			var vs, ps []int
			kb = kb[:0]
			for _, e := range t.exps {
				if e.v == param {
					d = e.p
					continue
				}
				vs = append(vs, newIdx[e.v])
				ps = append(ps, e.p)
				kb = binary.AppendUvarint(kb, uint64(e.v))
				kb = binary.AppendUvarint(kb, uint64(e.p))
			}
			g, ok := idx[string(kb)]
			if !ok {
				g = &group{vars: vs, pows: ps}
				idx[string(kb)] = g
				groups[k] = append(groups[k], g)
			}
			g.terms = append(g.terms, t)
			g.tdeg = append(g.tdeg, d)
			g.deg = max(g.deg, d)
		}
		for _, g := range groups[k] {
			total += g.deg + 1
		}
		if total > parseMaxSeriesCoefs {
			p.errorAt(neqOff, "series coefficients too large: more than %d coefficients of powers of %s", parseMaxSeriesCoefs, sys.Param)
			return nil
		}
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
			s = parseTrimSeries(s)
			if len(s) == 0 {
				continue
			}
			if len(g.vars) == 0 {
				pol.Const = s
				continue
			}
			pol.Terms = append(pol.Terms, Monomial{Coef: s, Vars: g.vars, Pows: g.pows})
		}
	}
	return sys
}

// parseTrimSeries drops trailing zero coefficients.
func parseTrimSeries(s Series) Series {
	n := len(s)
	for n > 0 && s[n-1].IsZero() {
		n--
	}
	if n == 0 {
		return nil
	}
	return s[:n]
}

func parseListNames(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	if len(names) > 12 {
		return strings.Join(names[:12], " ") + fmt.Sprintf(" ... (%d in all)", len(names))
	}
	return strings.Join(names, " ")
}
