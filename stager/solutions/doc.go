// Package solutions reads and writes PHCpack's solution lists (Parse,
// Format), alone or after the system they solve (ParseWithSystem), with
// mdgen's exact block for values and series that a decimal cannot hold
// (see Solution), and turns a listed solution into a start point of
// Newton's method (ParseStarts). Of a file with several lists, such as
// phc's output files, it reads the lists of phc's root refiner, else the
// last complete one, and says which (Choice, ParseChoice).
//
// The neighbours: package stager/poly holds the System a list solves and
// reads it; stager/families builds systems whose start solutions are known;
// package stager stages a System.
package solutions
