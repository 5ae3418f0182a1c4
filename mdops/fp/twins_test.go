package fp

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mdgen/mdgen/internal/xcheck"
)

// twinsDriver reads lines "op a b c d" (the inputs' bits in hex) and
// writes the results' bits: the device twins of generated/cuda/mdfp.cuh
// run on the host.
const twinsDriver = `#include <cstdio>
#include <cstdint>
#include <cstring>
#include "mdfp.cuh"
static double d(uint64_t b) { double x; std::memcpy(&x, &b, 8); return x; }
static uint64_t u(double x) { uint64_t b; std::memcpy(&b, &x, 8); return b; }
int main() {
  char op[16];
  unsigned long long a, b, c, e;
  while (std::scanf("%15s %llx %llx %llx %llx", op, &a, &b, &c, &e) == 5) {
    double r0 = 0, r1 = 0;
    if (!std::strcmp(op, "pow")) r0 = mdfp_pow(d(a), d(b));
    else if (!std::strcmp(op, "hypot")) r0 = mdfp_hypot(d(a), d(b));
    else if (!std::strcmp(op, "sincos")) mdfp_sincos(d(a), &r0, &r1);
    else if (!std::strcmp(op, "mul")) mdfp_cmul(d(a), d(b), d(c), d(e), &r0, &r1);
    else if (!std::strcmp(op, "div")) mdfp_cdiv(d(a), d(b), d(c), d(e), &r0, &r1);
    std::printf("%llx %llx\n", (unsigned long long)u(r0), (unsigned long long)u(r1));
  }
  return 0;
}
`

// TestDeviceTwins: generated/cuda/mdfp.cuh, the device's twins of this
// package, compiled with g++ -ffp-contract=off (the host's reading of the
// header: plain operators, each rounded alone, as nvcc -fmad=false and the
// rounded intrinsics compute them on the device), gives every function's
// bits on random and adversarial inputs: Pow over the whole range and
// the tracker's exponents, Hypot, Sincos over the tracker's angles, the
// complex product and quotient. Skipped without g++ unless
// MDGEN_REQUIRE_CXX=1 (xcheck.NeedCXX).
func TestDeviceTwins(t *testing.T) {
	bin := xcheck.CompileHeaders(t, twinsDriver)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	type call struct {
		op         string
		a, b, c, d float64
	}
	var calls []call
	r := rand.New(rand.NewPCG(9, 10))
	wide := func() float64 { return math.Ldexp(r.Float64()+0.5, r.IntN(2095)-1073) }
	for _, x := range adversarial {
		for _, y := range adversarial {
			calls = append(calls, call{"pow", x, y, 0, 0}, call{"hypot", x, y, 0, 0})
		}
		for k := 1; k <= 16; k++ {
			calls = append(calls, call{"pow", x, 1 / float64(k), 0, 0})
		}
		calls = append(calls, call{"sincos", x, 0, 0, 0})
	}
	n := 20000
	if testing.Short() {
		n = 2000
	}
	for range n {
		x := wide()
		calls = append(calls,
			call{"pow", x, 1 / float64(1+r.IntN(16)), 0, 0}, call{"pow", x, 0.75, 0, 0},
			call{"pow", x, 10 * r.Float64(), 0, 0}, call{"pow", 1 + math.Ldexp(r.Float64()-0.5, -r.IntN(40)), math.Ldexp(r.Float64(), r.IntN(12)), 0, 0},
			call{"hypot", wide() * float64(1-2*r.IntN(2)), wide(), 0, 0},
			call{"sincos", 2 * math.Pi * float64(r.IntN(64)) / float64(1+r.IntN(64)), 0, 0, 0},
			call{"sincos", math.Pi / 4 * (2*r.Float64() - 1), 0, 0, 0},
			call{"sincos", 1000 * (r.Float64() - 0.5), 0, 0, 0},
		)
		p := func() float64 { return math.Ldexp(r.Float64()-0.5, r.IntN(200)-100) }
		calls = append(calls, call{"mul", p(), p(), p(), p()}, call{"div", p(), p(), p(), p()})
	}
	var in bytes.Buffer
	for _, c := range calls {
		fmt.Fprintf(&in, "%s %x %x %x %x\n", c.op, math.Float64bits(c.a), math.Float64bits(c.b), math.Float64bits(c.c), math.Float64bits(c.d))
	}
	cmd := exec.CommandContext(ctx, bin)
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the driver: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	bad := 0
	for i := 0; sc.Scan(); i++ {
		if i >= len(calls) {
			t.Fatalf("the driver wrote more lines than calls")
		}
		c := calls[i]
		var r0, r1 uint64
		if _, err := fmt.Sscanf(sc.Text(), "%x %x", &r0, &r1); err != nil {
			t.Fatalf("line %d: %q: %v", i+1, sc.Text(), err)
		}
		var w0, w1 float64
		switch c.op {
		case "pow":
			w0 = Pow(c.a, c.b)
		case "hypot":
			w0 = Hypot(c.a, c.b)
		case "sincos":
			w0, w1 = Sincos(c.a)
		case "mul":
			z := Mul(complex(c.a, c.b), complex(c.c, c.d))
			w0, w1 = real(z), imag(z)
		case "div":
			z := Div(complex(c.a, c.b), complex(c.c, c.d))
			w0, w1 = real(z), imag(z)
		}
		same := func(got uint64, want float64) bool {
			return got == math.Float64bits(want) || math.IsNaN(want) && math.IsNaN(math.Float64frombits(got))
		}
		if !same(r0, w0) || !same(r1, w1) {
			if bad++; bad <= 10 {
				t.Errorf("%s(%g, %g, %g, %g): the twin %g, %g; Go %g, %g", c.op, c.a, c.b, c.c, c.d,
					math.Float64frombits(r0), math.Float64frombits(r1), w0, w1)
			}
		}
		if i == len(calls)-1 {
			t.Logf("%d calls (%s), %d differ", len(calls), strings.Join([]string{"pow", "hypot", "sincos", "mul", "div"}, ", "), bad)
			return
		}
	}
	t.Fatalf("the driver wrote fewer lines than calls")
}
