package main

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// The defaults of `mdgen FILE`: the precision and degree of a solver
// package when the command line names none (-prec and -degree override
// them). Four doubles (about 62 decimal digits) and series to degree 16
// are what `mdgen solve` examples and the go:generate demos use; a user
// who wants more says so.
const (
	fileDefaultPrec   = 4
	fileDefaultDegree = 16
)

var emitFileUsage = fmt.Sprintf(`usage: mdgen FILE [-prec n] [-degree d] [-complex] [-o dir] [-pkg name] [-nvcc path] [-arch list]

Writes the Go solver package for the system in FILE (PHCpack's format, the
start solutions after it, as mdgen system writes them) into a folder named
after the file: mdgen cyclic7.txt writes ./cyclic7 (package cyclic7), as
mdgen emit FILE -prec %d -degree %d would, and lists the files it wrote.
The package evaluates the system and solves it with Newton's method on
Taylor series (New, Solver.Solve, Starts; see its doc and its Example);
for a square system without a parameter it also has Track, which finds
every isolated solution by the total-degree homotopy (runtime/track).
Without nvcc it prints the command that builds the fatbin. A file that is
not a system (a folder, a binary file) is an error, with the position the
reader stopped at, and nothing is written.

Under go generate (//go:generate go run github.com/mdgen/mdgen/cmd/mdgen
system.txt) it writes into the package of the directive, as mdgen emit does.
`, fileDefaultPrec, fileDefaultDegree)

// isFileArg reports whether the first argument of mdgen, which is no
// command, names a system file: a path that exists, or one that looks
// like a file name (a folder or an extension in it), so that a misspelt
// command stays an unknown command and a misspelt file name gets the
// reader's "no such file".
func isFileArg(arg string) bool {
	if arg == "" || strings.HasPrefix(arg, "-") {
		return false
	}
	if _, err := os.Stat(arg); err == nil {
		return true
	}
	return strings.ContainsAny(arg, `./\`)
}

// runEmitFile is `mdgen FILE [flags]`: mdgen emit with the defaults of a
// solver package (fileDefaultPrec, fileDefaultDegree) and the files listed
// on stdout.
func runEmitFile(args []string, stdout, stderr io.Writer) error {
	file := args[0]
	st, err := os.Stat(file)
	if err != nil {
		return err // "stat x.txt: no such file or directory"
	}
	if st.IsDir() {
		return fmt.Errorf("%s: is a directory, not a system file (PHCpack's format: the number of polynomials on the first line, then the polynomials)", file)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file (%s), not a system file", file, st.Mode().Type())
	}
	return emitCommand(args, stdout, stderr, emitMode{prec: fileDefaultPrec, degree: fileDefaultDegree, list: true, usage: emitFileUsage})
}
