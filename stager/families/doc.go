// Package families builds the families of test systems (cyclic n-roots,
// katsura, Chandrasekhar's H-equation, noon, eco, the monomial homotopies
// and Newton homotopies of them; see Build, Spec and the list in
// families.go) with exact coefficients and, where known, their start
// solutions, and PHCpack's benchmark systems p1, p2, p3 (BenchmarkSystem).
//
// The neighbours: package stager/poly holds the System every family builds;
// stager/solutions writes the start solutions; package stager stages a
// System.
package families
