package ref

import (
	"math/big"
	"testing"

	"github.com/mdgen/mdgen/stager/poly"
)

func parse(t *testing.T, src string) *poly.System {
	t.Helper()
	sys, err := poly.Parse("test", []byte(src), poly.ParseOptions{Param: "t"})
	if err != nil {
		t.Fatal(err)
	}
	return sys
}

func start(prec uint, vals ...float64) []Complex {
	s := make([]Complex, len(vals))
	for i, v := range vals {
		s[i] = Complex{new(big.Float).SetPrec(prec).SetFloat64(v), new(big.Float).SetPrec(prec)}
	}
	return s
}

// binomialHalf returns (1/2 choose k), the coefficient of t^k in sqrt(1+t).
func binomialHalf(k int) *big.Rat {
	c := big.NewRat(1, 1)
	for i := 0; i < k; i++ {
		c.Mul(c, big.NewRat(int64(1-2*i), int64(2*(i+1))))
	}
	return c
}

// TestNewtonSeriesSqrt: x^2 = 1 + t from x(0) = 1 gives sqrt(1+t), whose
// coefficients are exact binomials.
func TestNewtonSeriesSqrt(t *testing.T) {
	const prec, d = 400, 24
	sys := parse(t, "1 2\n x^2 - 1 - t;\n")
	res, err := NewtonSeries(sys, start(prec, 1.1), d, prec, 40)
	if err != nil {
		t.Fatal(err)
	}
	tol := new(big.Float).SetMantExp(big.NewFloat(1), -prec+40)
	for k := 0; k <= d; k++ {
		want := new(big.Float).SetPrec(prec).SetRat(binomialHalf(k))
		diff := new(big.Float).Sub(res.Series[0][k].Re, want)
		if diff.Abs(diff).Cmp(tol) > 0 || res.Series[0][k].Im.Sign() != 0 {
			t.Errorf("coefficient %d: got %s, want %s", k, res.Series[0][k].Re.Text('g', 30), want.Text('g', 30))
		}
	}
}

// TestNewtonSeriesOverdetermined: the same path, written twice (m = 2 > n = 1)
// and in a complex coupled form, gives the same series.
func TestNewtonSeriesOverdetermined(t *testing.T) {
	const prec, d = 300, 12
	sys := parse(t, "2 2\n x^2 - 1 - t;\n 2*x^2 - 2 - 2*t;\n")
	res, err := NewtonSeries(sys, start(prec, 0.9), d, prec, 40)
	if err != nil {
		t.Fatal(err)
	}
	tol := new(big.Float).SetMantExp(big.NewFloat(1), -prec+40)
	for k := 0; k <= d; k++ {
		want := new(big.Float).SetPrec(prec).SetRat(binomialHalf(k))
		if diff := new(big.Float).Sub(res.Series[0][k].Re, want); diff.Abs(diff).Cmp(tol) > 0 {
			t.Errorf("coefficient %d: got %s", k, res.Series[0][k].Re.Text('g', 30))
		}
	}
}

// TestNewtonSeriesCoupled: x*y = 1 + t, x - y = 0 ... x = y = sqrt(1+t);
// a complex coefficient path: x^2 = 1 + i t.
func TestNewtonSeriesCoupled(t *testing.T) {
	const prec, d = 300, 10
	sys := parse(t, "2 3\n x*y - 1 - t;\n x - y;\n")
	res, err := NewtonSeries(sys, start(prec, 1, 1), d, prec, 40)
	if err != nil {
		t.Fatal(err)
	}
	tol := new(big.Float).SetMantExp(big.NewFloat(1), -prec+40)
	for v := 0; v < 2; v++ {
		for k := 0; k <= d; k++ {
			want := new(big.Float).SetPrec(prec).SetRat(binomialHalf(k))
			if diff := new(big.Float).Sub(res.Series[v][k].Re, want); diff.Abs(diff).Cmp(tol) > 0 {
				t.Errorf("var %d coefficient %d: got %s", v, k, res.Series[v][k].Re.Text('g', 30))
			}
		}
	}
	csys := parse(t, "1 2\n x^2 - 1 - i*t;\n")
	cres, err := NewtonSeries(csys, start(prec, 1), d, prec, 40)
	if err != nil {
		t.Fatal(err)
	}
	// sqrt(1 + i t) = sum binom(1/2, k) i^k t^k.
	for k := 0; k <= d; k++ {
		b := new(big.Float).SetPrec(prec).SetRat(binomialHalf(k))
		wantRe, wantIm := new(big.Float), new(big.Float)
		switch k % 4 {
		case 0:
			wantRe.Set(b)
		case 1:
			wantIm.Set(b)
		case 2:
			wantRe.Neg(b)
		case 3:
			wantIm.Neg(b)
		}
		dr := new(big.Float).Sub(cres.Series[0][k].Re, wantRe)
		di := new(big.Float).Sub(cres.Series[0][k].Im, wantIm)
		if dr.Abs(dr).Cmp(tol) > 0 || di.Abs(di).Cmp(tol) > 0 {
			t.Errorf("complex coefficient %d: got %s + %s i", k, cres.Series[0][k].Re.Text('g', 20), cres.Series[0][k].Im.Text('g', 20))
		}
	}
}

func TestNewtonSeriesSingular(t *testing.T) {
	sys := parse(t, "2 3\n x*y - 1 - t;\n 2*x*y - 2 - 2*t;\n")
	if _, err := NewtonSeries(sys, start(200, 1, 1), 4, 200, 20); err == nil {
		t.Fatal("rank-deficient Jacobian accepted")
	}
}
