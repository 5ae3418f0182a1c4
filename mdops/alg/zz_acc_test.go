package alg

import (
	"fmt"
	"testing"
)

func TestPrintAcc(t *testing.T) {
	for _, n := range []int{2, 3, 4, 5, 8, 10, 16} {
		l := Build(n)
		for _, op := range []string{"add", "sub", "mul", "sqr", "mulf64", "div", "sqrt"} {
			p := l.Program(op)
			w, un := Measure(p, Corpus(op, n, 1000, 1))
			fmt.Printf("N=%d %-6s flops=%5d worst=%7.1f (target %d) kind=%s unnorm=%d\n", n, op, p.Count().Flops(), w.Bits, 53*n, w.Case.Kind, un)
		}
	}
}
