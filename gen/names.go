package gen

import (
	"fmt"

	"github.com/mdgen/mdgen/mdops/alg"
)

// goMethod maps an IR operation to its Go method name.
var goMethod = map[string]string{
	"neg": "Neg", "abs": "Abs", "add": "Add", "sub": "Sub", "mulf64": "MulFloat64",
	"mul": "Mul", "sqr": "Sqr", "madd": "MulAdd", "div": "Div", "sqrt": "Sqrt",
	"cadd": "Add", "csub": "Sub", "cmul": "Mul", "cmadd": "MulAdd", "cdiv": "Div", "cabs": "Abs",
}

// goDoc is the first line of each Go method's doc comment.
var goDoc = map[string]string{
	"neg": "Neg returns -x.", "abs": "Abs returns |x|.", "add": "Add returns x + y.",
	"sub": "Sub returns x - y.", "mulf64": "MulFloat64 returns x * f for a float64 f.",
	"mul": "Mul returns x * y.", "sqr": "Sqr returns x * x.", "div": "Div returns x / y.",
	"sqrt": "Sqrt returns the square root of x.",
	"madd": "MulAdd returns acc + x*y (error relative to |acc| + |x*y|; fused: cheaper than Mul then Add).",
	"cadd": "Add returns a + b.", "csub": "Sub returns a - b.", "cmul": "Mul returns a * b.",
	"cmadd": "MulAdd returns acc + x*y (two real MulAdds per part).",
	"cdiv":  "Div returns a / b.", "cabs": "Abs returns |a|.",
}

func realType(n int) string    { return fmt.Sprintf("F%d", n) }
func complexType(n int) string { return fmt.Sprintf("C%d", n) }
func cudaType(n int) string    { return fmt.Sprintf("md%d", n) }
func cudaCType(n int) string   { return fmt.Sprintf("cmd%d", n) }

// isComplex reports whether p is one of the complex operations.
func isComplex(p *alg.Program) bool { return len(p.Op) > 1 && p.Op[0] == 'c' }

// countsLine describes a program's cost for doc comments.
func countsLine(p *alg.Program) string {
	c := p.Count()
	return fmt.Sprintf("Cost: %d flops (%d add/sub, %d mul, %d fma, %d div/sqrt), %d selections.",
		c.Flops(), c.Adds, c.Muls, c.FMAs, c.Divs, c.Selects)
}
