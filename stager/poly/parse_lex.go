package poly

import (
	"fmt"
	"math/big"
	"unicode/utf8"
)

// This file holds the lexer of the system reader (parse.go). Tokens carry
// byte offsets; parse.go turns them into line:column when it reports.

type sysTokKind uint8

const (
	tkEOF    sysTokKind = iota
	tkNum               // unsigned number literal: 12, 0.1, .5, 3., 1.0e-2, 1E+3
	tkIdent             // variable name
	tkImag              // i or I, the imaginary unit
	tkPlus              // +
	tkMinus             // -
	tkStar              // *
	tkSlash             // /
	tkPow               // ^ or **
	tkLParen            // (
	tkRParen            // )
	tkSemi              // ;
	tkBad               // lexical error; sysToken.err says why
)

type sysToken struct {
	kind     sysTokKind
	off, end int    // byte offsets [off, end) in the source
	text     string // the token's text
	err      string // tkBad: the reason
	isInt    bool   // tkNum: digits only (usable as an exponent)
}

// describe names a token in error messages.
func (t *sysToken) describe() string {
	switch t.kind {
	case tkEOF:
		return "end of file"
	case tkNum:
		return "number " + t.text
	case tkIdent:
		return "identifier " + t.text
	case tkImag:
		return "imaginary unit " + t.text
	}
	return fmt.Sprintf("%q", t.text)
}

type sysLexer struct {
	src []byte
	off int
}

func lexIsLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// IsDigit reports whether c is a decimal digit, as PHCpack's reader of
// systems and solution lists takes one (ASCII 0-9 only).
func IsDigit(c byte) bool { return '0' <= c && c <= '9' }

// IsSpace reports whether c is white space between the words of a system
// or a solution list: ASCII blank, tab, newline, carriage return, form feed
// and vertical tab.
func IsSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func (lx *sysLexer) peek(k int) byte {
	if lx.off+k < len(lx.src) {
		return lx.src[lx.off+k]
	}
	return 0
}

func (lx *sysLexer) next() sysToken {
	for lx.off < len(lx.src) && IsSpace(lx.src[lx.off]) {
		lx.off++
	}
	start := lx.off
	tok := sysToken{off: start}
	if start >= len(lx.src) {
		tok.kind, tok.end = tkEOF, start
		return tok
	}
	c := lx.src[start]
	switch {
	case IsDigit(c) || c == '.' && IsDigit(lx.peek(1)):
		lx.number(&tok)
		return tok
	case lexIsLetter(c):
		for lx.off < len(lx.src) && (lexIsLetter(lx.src[lx.off]) || IsDigit(lx.src[lx.off]) || lx.src[lx.off] == '_') {
			lx.off++
		}
		tok.end = lx.off
		tok.text = string(lx.src[start:lx.off])
		switch tok.text {
		case "i", "I":
			tok.kind = tkImag
		default:
			// e and E are variables too: a lone e is never part of a
			// number here (1e5 is lexed as one number; 2e is a malformed
			// one), though PHCpack reads it as an exponent (Parse warns).
			tok.kind = tkIdent
		}
		return tok
	}
	lx.off++
	switch c {
	case '+':
		tok.kind = tkPlus
	case '-':
		tok.kind = tkMinus
	case '*':
		tok.kind = tkStar
		if lx.peek(0) == '*' {
			lx.off++
			tok.kind = tkPow
		}
	case '/':
		tok.kind = tkSlash
	case '^':
		tok.kind = tkPow
	case '(':
		tok.kind = tkLParen
	case ')':
		tok.kind = tkRParen
	case ';':
		tok.kind = tkSemi
	default:
		tok.kind = tkBad
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRune(lx.src[start:])
			lx.off = start + size
			if r == utf8.RuneError && size <= 1 {
				tok.err = "invalid UTF-8 byte"
			} else {
				tok.err = fmt.Sprintf("unexpected character %q", r)
			}
		} else {
			tok.err = fmt.Sprintf("unexpected character %q", rune(c))
		}
	}
	tok.end = lx.off
	tok.text = string(lx.src[start:lx.off])
	return tok
}

// number scans digits [. digits] [(e|E) [+|-] digits], with at least one
// digit before the exponent. PHCpack (Standard_Parse_Numbers) accepts E and
// e only: Fortran's D is rejected with a hint.
func (lx *sysLexer) number(tok *sysToken) {
	start := lx.off
	tok.kind = tkNum
	tok.isInt = true
	for lx.off < len(lx.src) && IsDigit(lx.src[lx.off]) {
		lx.off++
	}
	if lx.peek(0) == '.' {
		tok.isInt = false
		lx.off++
		for lx.off < len(lx.src) && IsDigit(lx.src[lx.off]) {
			lx.off++
		}
	}
	bad := func(reason string) {
		// Swallow the rest of the word so that the error is reported once.
		for lx.off < len(lx.src) && (lexIsLetter(lx.src[lx.off]) || IsDigit(lx.src[lx.off]) || lx.src[lx.off] == '_' || lx.src[lx.off] == '.') {
			lx.off++
		}
		tok.kind = tkBad
		tok.end = lx.off
		tok.text = string(lx.src[start:lx.off])
		tok.err = fmt.Sprintf("malformed number %q: %s", tok.text, reason)
	}
	if c := lx.peek(0); c == 'e' || c == 'E' {
		tok.isInt = false
		k := 1
		if s := lx.peek(1); s == '+' || s == '-' {
			k = 2
		}
		if !IsDigit(lx.peek(k)) {
			lx.off++
			bad("missing exponent digits")
			return
		}
		lx.off += k
		for lx.off < len(lx.src) && IsDigit(lx.src[lx.off]) {
			lx.off++
		}
	} else if (c == 'd' || c == 'D') && (IsDigit(lx.peek(1)) || (lx.peek(1) == '+' || lx.peek(1) == '-') && IsDigit(lx.peek(2))) {
		lx.off++
		if !IsDigit(lx.peek(0)) {
			lx.off++
		}
		bad("exponent letter D is not supported, write E")
		return
	}
	switch c := lx.peek(0); {
	case c == '.':
		bad("unexpected '.'")
		return
	case IsDigit(c) || c == '_':
		bad("unexpected " + string(rune(c)))
		return
	}
	tok.end = lx.off
	tok.text = string(lx.src[start:lx.off])
}

// parseNumberValue converts a tkNum literal exactly: 0.1 is 1/10. The decimal
// exponent is limited to ±parseMaxNumberExp (10^10000 has 33,220 bits).
func parseNumberValue(text string) (*big.Rat, string) {
	var mant big.Int
	digits := make([]byte, 0, len(text))
	frac := 0
	i := 0
	for ; i < len(text) && IsDigit(text[i]); i++ {
		digits = append(digits, text[i])
	}
	if i < len(text) && text[i] == '.' {
		i++
		for ; i < len(text) && IsDigit(text[i]); i++ {
			digits = append(digits, text[i])
			frac++
		}
	}
	exp := 0
	if i < len(text) && (text[i] == 'e' || text[i] == 'E') {
		i++
		neg := false
		if text[i] == '+' || text[i] == '-' {
			neg = text[i] == '-'
			i++
		}
		for ; i < len(text); i++ {
			if exp <= parseMaxNumberExp {
				exp = exp*10 + int(text[i]-'0')
			}
		}
		if exp > parseMaxNumberExp {
			return nil, fmt.Sprintf("number %s: exponent out of range (at most %d in magnitude)", text, parseMaxNumberExp)
		}
		if neg {
			exp = -exp
		}
	}
	// Without leading zeros, and without the trailing zeros of the
	// fraction (1.000 is 1), the digits bound the size of the value: refuse
	// a long mantissa before converting it (big.Int's decimal conversion
	// is quadratic), and a scale 10^(exp-frac) beyond the exponent limit.
	for len(digits) > 0 && digits[0] == '0' {
		digits = digits[1:]
	}
	for frac > 0 && len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		frac--
	}
	if len(digits) == 0 {
		return new(big.Rat), ""
	}
	if len(digits) > parseMaxDigits {
		return nil, fmt.Sprintf("number too large (more than %d significant digits)", parseMaxDigits)
	}
	if e := exp - frac; e > parseMaxNumberExp || e < -parseMaxNumberExp {
		return nil, fmt.Sprintf("number %s: exponent out of range (at most %d in magnitude, counting the digits after the point)",
			text, parseMaxNumberExp)
	}
	mant.SetString(string(digits), 10)
	exp -= frac
	r := new(big.Rat).SetInt(&mant)
	if exp != 0 && mant.Sign() != 0 {
		var p big.Int
		p.Exp(big.NewInt(10), big.NewInt(int64(max(exp, -exp))), nil)
		var q big.Rat
		q.SetInt(&p)
		if exp > 0 {
			r.Mul(r, &q)
		} else {
			r.Quo(r, &q)
		}
	}
	return r, ""
}
