// Command evaldemo evaluates and differentiates a polynomial system at
// random power series with the solver that mdgen emit generates into this
// package (see the go:generate line): on a GPU when the program is built
// with -tags cuda and the fatbin was built, on the CPU otherwise.
//
//	go generate && go build && ./evaldemo
package main

//go:generate go run github.com/mdgen/mdgen/cmd/mdgen emit ../systems/cyclic4t.txt -prec 4 -degree 16

import (
	"fmt"
	"log"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
)

func main() {
	log.SetFlags(0)
	s, err := New()
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	fmt.Printf("%s: %d polynomials in %d variables, degree %d, %d doubles per number, on the %s\n",
		Name, NumPolys, NumVars, Degree, Precision, s.Backend())
	if r := s.FallbackReason(); r != nil {
		fmt.Printf("(not on the GPU: %v)\n", r)
	}
	if err := s.SetInputs(backend.RandomInputs(NumVars, Layout(), 1)); err != nil {
		log.Fatal(err)
	}
	if err := s.Run(); err != nil {
		log.Fatal(err)
	}
	w := Layout().W()
	for p := 0; p < NumPolys; p++ {
		v := s.Value(p)
		var c mdops.F4
		copy(c[:], v[0:w])
		fmt.Printf("p%d(z) = %s + ...\n", p+1, c)
	}
	fmt.Println("checksum", s.Checksum())
}
