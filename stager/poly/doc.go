// Package poly holds polynomial systems whose coefficients are truncated
// power series in a parameter t with exact rational coefficients (Rational,
// Series, Monomial, Polynomial, System), their exact evaluation (EvalAt,
// EvalSeries), and PHCpack's plain format: the reader (Parse, ParseFile)
// and the writer (Format).
//
// Scale. Parse takes time and memory linear in the size of its input: a
// file of 10^5 sparse equations is read in about a second. Expansions in a
// file (powers and products of sums) are bounded by limits that grow with
// the file, so that a small file cannot ask for much.
//
// The file format is PHCpack's, with one addition that PHCpack ignores: a
// line "SERIES PARAMETER : t" (or "NO SERIES PARAMETER") after the
// polynomials names the series parameter where PHCpack's convention (one
// more variable than equations) cannot. Format writes it where needed, so
// that what Format writes reads back as the same System with no options.
//
// The neighbours: package stager/solutions reads the solution lists that
// follow a system in PHCpack's files; stager/families builds systems of
// known families; package stager stages a System into a Plan.
package poly
