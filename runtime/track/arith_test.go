package track

import (
	"math"
	"math/big"
	"testing"
)

// series writes the real coefficients c to a flat complex buffer at n doubles.
func series(n int, c []float64) []float64 {
	buf := make([]float64, len(c)*2*n)
	for k, x := range c {
		buf[k*2*n] = x
	}
	return buf
}

func TestShift(t *testing.T) {
	for _, n := range []int{1, 2, 4} {
		ar, _ := arithFor(n)
		coef := series(n, []float64{1, 2, 3}) // 1 + 2 tau + 3 tau^2
		dst := make([]float64, len(coef))
		ar.shift(dst, coef, 0.5)
		// c(0.5 - s) = 2.75 - 5 s + 3 s^2, exactly
		for k, want := range []float64{2.75, -5, 3} {
			if got := dst[k*2*n]; got != want || dst[k*2*n+1] != 0 {
				t.Errorf("%d doubles: coefficient %d = %v, want %v", n, k, dst[k*2*n:(k+1)*2*n], want)
			}
		}
	}
}

func TestPade(t *testing.T) {
	for _, n := range []int{1, 2, 8} {
		ar, _ := arithFor(n)
		// 1/(1 - 2s) = sum 2^k s^k: [2/1] is exact, pole at 1/2, no error.
		x := series(n, []float64{1, 2, 4, 8, 16})
		pd := newPadeSet(2, 1, 1, 2*n)
		ar.pade(pd, x, 1, 4)
		if pd.Taylor[0] || pd.Pole[0] != 0.5 || pd.Err[0] != 0 {
			t.Errorf("%d doubles: 1/(1-2s): taylor %v pole %v err %v", n, pd.Taylor[0], pd.Pole[0], pd.Err[0])
		}
		out := make([]float64, 2*n)
		ar.predict(out, pd, 0.1)
		// The exact value at s = fl(0.1), in big.Float.
		want := new(big.Float).SetPrec(2000).SetFloat64(0.1)
		want.Mul(want, big.NewFloat(2)).Neg(want).Add(want, big.NewFloat(1))
		want.Quo(new(big.Float).SetPrec(2000).SetInt64(1), want)
		got := new(big.Float).SetPrec(2000)
		for _, l := range out[:n] {
			got.Add(got, big.NewFloat(l))
		}
		diff, _ := got.Sub(got, want).Float64()
		if math.Abs(diff) > math.Ldexp(4, -53*n) {
			t.Errorf("%d doubles: 1/(1-2s) at s = 0.1 is %v, off by %g", n, out[:n], diff)
		}
		// 1/((1-s)(1-3s)) = sum (3^(k+1)-1)/2 s^k: [1/2] exact, poles 1 and
		// 1/3; Fujiwara's bound 1/(2 max(|q_1|, |q_2|^(1/2))) = 1/8.
		c := make([]float64, 5)
		for k := range c {
			c[k] = (math.Pow(3, float64(k+1)) - 1) / 2
		}
		pd2 := newPadeSet(1, 2, 1, 2*n)
		ar.pade(pd2, series(n, c), 1, 4)
		if pd2.Taylor[0] || math.Abs(pd2.Pole[0]-0.125) > 1e-15 || pd2.Err[0] > 1e-12 {
			t.Errorf("%d doubles: [1/2]: taylor %v pole %v err %v", n, pd2.Taylor[0], pd2.Pole[0], pd2.Err[0])
		}
		ar.predict(out, pd2, 0.1)
		if want := 1 / (0.9 * 0.7); math.Abs(out[0]-want) > 1e-15 {
			t.Errorf("%d doubles: [1/2] at 0.1 = %v, want %v", n, out[0], want)
		}
		// A constant: the denominator's system is singular: Taylor.
		pd.Taylor[0] = false
		ar.pade(pd, series(n, []float64{3, 0, 0, 0, 0}), 1, 4)
		if !pd.Taylor[0] || !math.IsInf(pd.Pole[0], 1) || pd.Err[0] != 0 {
			t.Errorf("%d doubles: constant: taylor %v pole %v err %v", n, pd.Taylor[0], pd.Pole[0], pd.Err[0])
		}
	}
}
