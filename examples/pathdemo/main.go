// Command pathdemo computes the Taylor series of one solution path of a
// Newton homotopy for the cyclic 7-roots problem, in 4-double arithmetic,
// with the solver that mdgen generates into this package (see the
// go:generate line: `mdgen FILE` under go generate writes cyclic7.go,
// cyclic7_test.go, cyclic7.cu and cyclic7_system.txt here). The system
// file cyclic7.txt is what `mdgen system cyclic7:newton` writes: the
// homotopy f(x) - (1-t) f(z) and its start solution x(0) = z.
//
// It prints the series as `mdgen solve cyclic7.txt -prec 4 -degree 16`
// does, digit for digit (examples/ci.sh checks it); on a GPU (built with
// -tags cuda and the fatbin) the bits are the same, with the evaluation and
// the linear algebra of Newton's method on the device. -fatbin FILE loads
// the kernels from FILE (nvcc's output for cyclic7.cu, with the job tables
// baked in) instead of the embedded fatbin/.
//
//	go generate && go build && ./pathdemo
package main

//go:generate go run github.com/mdgen/mdgen/cmd/mdgen cyclic7.txt -prec 4 -degree 16

import (
	"errors"
	"flag"
	"fmt"
	"log"
	"strings"

	"github.com/mdgen/mdgen/runtime/newton"
)

func main() {
	log.SetFlags(0)
	fatbin := flag.String("fatbin", "", "load the GPU kernels from this fatbin (of cyclic7.cu) instead of the embedded one")
	flag.Parse()
	var opts []Option
	if *fatbin != "" {
		opts = append(opts, WithFatbin(*fatbin), WithModuleTables(true))
	}
	s, err := New(opts...)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	if r := s.FallbackReason(); r != nil {
		fmt.Printf("(not on the GPU: %v)\n", r)
	}
	starts, err := Starts()
	if err != nil {
		log.Fatal(err)
	}
	res, err := s.Solve(starts[0])
	if errors.Is(err, newton.ErrDiverging) {
		log.Fatalf("the start is not a solution at t = 0: %v", err)
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: the series of path 1 to degree %d in %d doubles, on the %s (linear algebra on the %s)\n",
		Name, Degree, Precision, res.Backend, res.LinearAlgebra)
	if r := res.LinearAlgebraReason; r != nil {
		fmt.Printf("(linear algebra not on the GPU: %v)\n", r)
	}
	fmt.Printf("converged in %d steps (%d refining x(0)); residual %.1e, condition %.1e\n",
		res.Steps, res.RefineSteps, res.Residual, res.Cond)
	t := res.Times
	fmt.Printf("stages (s): evaluate %.3g, qr %.3g, qhb %.3g, backsub %.3g, update %.3g, residual %.3g\n",
		t.Evaluate.Seconds(), t.QR.Seconds(), t.QHB.Seconds(), t.BackSub.Seconds(), t.Update.Seconds(), t.Residual.Seconds())
	// The lines of `mdgen solve`: every coefficient with all the digits
	// of the precision, real and imaginary parts.
	for v, name := range res.Vars {
		for k := 0; k <= res.Degree; k++ {
			re, im := res.Text(v, k)
			fmt.Printf("  %s t^%d : %s  %s\n", name, k, signPad(re), signPad(im))
		}
	}
	// The radius of convergence from the last two coefficients of x1
	// (Cauchy-Hadamard's ratio estimate): how far t can go from 0.
	last, prev := res.Float(0, res.Degree), res.Float(0, res.Degree-1)
	fmt.Printf("ratio estimate of the radius of convergence: %.3g\n", abs(prev)/abs(last))
}

// signPad puts a space before a number without a sign, as mdgen solve does.
func signPad(x string) string {
	if strings.HasPrefix(x, "-") {
		return x
	}
	return " " + x
}

func abs(z complex128) float64 { return max(-real(z), real(z)) + max(-imag(z), imag(z)) }
