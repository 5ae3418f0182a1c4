package la

import "github.com/mdgen/mdgen/mdops/fp"

// InvNorm1Vec is the work vector x of InvNorm1Estimate with the solves by
// an n x n upper triangular R: la's float64 estimate keeps x as float64s
// (LeadR), runtime/gpu's host side as multiple doubles whose solves run on
// the device. Every decision of the estimate reads leading limbs only, so
// the control flow is one (here) for both.
type InvNorm1Vec interface {
	// Set sets x_i = re + im i (re for real data), every other limb 0.
	Set(i int, re, im float64)
	// Lead returns the leading limbs of x_i (im 0 for real data).
	Lead(i int) (re, im float64)
	// Norm returns LeadNorm1(x).
	Norm() float64
	// Solve sets x = R^-1 x; SolveRH sets x = R^-H x.
	Solve() error
	SolveRH() error
}

// InvNorm1Estimate is LAPACK's dlacn2/zlacn2 estimate of ||R^-1||_1 in
// Cond's order (the specification's decisions: x = (1/n, ..., 1/n) solved
// by R; the signs of x (complex: x_i/|x_i|, 1 where x_i = 0), solved by
// R^H, the unit vector of the argmax, solved by R, until the signs repeat
// (real), the estimate stops growing, the argmax keeps its modulus or five
// iterations; then the alternating vector's test 2 ||R^-1 b||_1 / (3n)).
// sgn is n float64s of work (the real signs); the error is a solve's.
func InvNorm1Estimate(n int, complex bool, x InvNorm1Vec, sgn []float64) (float64, error) {
	for i := 0; i < n; i++ {
		x.Set(i, 1/float64(n), 0)
	}
	if err := x.Solve(); err != nil {
		return 0, err
	}
	if n == 1 {
		return x.Norm(), nil
	}
	est := x.Norm()
	clear(sgn)
	signs := func() (same bool) {
		if complex {
			for i := 0; i < n; i++ {
				re, im := x.Lead(i)
				if a := fp.Hypot(re, im); a > 0 {
					x.Set(i, re/a, im/a)
				} else {
					x.Set(i, 1, 0)
				}
			}
			return false
		}
		same = true
		for i := 0; i < n; i++ {
			s := 1.0
			if re, _ := x.Lead(i); re < 0 {
				s = -1
			}
			if s != sgn[i] {
				same = false
			}
			sgn[i] = s
			x.Set(i, s, 0)
		}
		return same
	}
	argmax := func() int {
		j, best := 0, -1.0
		for i := 0; i < n; i++ {
			re, im := x.Lead(i)
			if a := fp.Hypot(re, im); a > best {
				j, best = i, a
			}
		}
		return j
	}
	signs()
	if err := x.SolveRH(); err != nil {
		return 0, err
	}
	j := argmax()
	for iter := 2; ; iter++ {
		for i := 0; i < n; i++ {
			x.Set(i, 0, 0)
		}
		x.Set(j, 1, 0)
		if err := x.Solve(); err != nil {
			return 0, err
		}
		old := est
		est = x.Norm()
		if signs() || est <= old {
			break
		}
		if err := x.SolveRH(); err != nil {
			return 0, err
		}
		jlast := j
		j = argmax()
		re1, im1 := x.Lead(jlast)
		re2, im2 := x.Lead(j)
		if fp.Hypot(re1, im1) == fp.Hypot(re2, im2) || iter >= 5 {
			break
		}
	}
	alt := 1.0
	for i := 0; i < n; i++ {
		x.Set(i, alt*(1+float64(i)/float64(n-1)), 0)
		alt = -alt
	}
	if err := x.Solve(); err != nil {
		return 0, err
	}
	if t := 2 * x.Norm() / float64(3*n); t > est {
		est = t
	}
	return est, nil
}
