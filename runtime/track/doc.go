// Package track is the path tracker: it solves a polynomial system by
// homotopy continuation, following each solution of a start system from
// t = 0 to t = 1, with Newton's method on Taylor series (runtime/newton)
// for the series of the path and Padé approximants for the predictor (the
// robust tracker of Telen, Van Barel and Verschelde, SIAM J. Sci. Comput.
// 42(6), 2020).
package track
