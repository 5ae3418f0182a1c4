package bench

import (
	_ "embed"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// phcpackNewtonCSV holds PHCpack's GPU Newton on the H200 (problem -1),
// one case a row; its comment lines say where the numbers come from.
//
//go:embed phcpack_newton_h200.csv
var phcpackNewtonCSV string

// phcNewtonHeader is the header row of phcpack_newton_h200.csv.
const phcNewtonHeader = "data,prec,n,degree,steps,converged,wall_s,kernel_s,backsub_s,update_s,printed_error,note"

// PHCNewton is PHCpack's run of one case of `mdgen bench -newton`: times in
// seconds, NaN (and Steps 0) where it has no number. A case that gave no
// result within its time limit has Converged "" and only the Note.
type PHCNewton struct {
	Steps     int
	Converged string // "yes", "no" (the step limit), or "" (no result)
	Wall      float64
	Kern      float64
	BackSub   float64
	Update    float64
	Err       float64 // the error it prints
	Note      string
}

// HasResult reports whether PHCpack finished the case (converged or not).
func (p *PHCNewton) HasResult() bool { return p.Converged != "" }

type phcNewtonKey struct {
	Complex bool
	Prec    int
	N       int
	Degree  int
}

// phcNewtonTable maps a case to PHCpack's run; a missing key: PHCpack was
// not run there.
var phcNewtonTable = mustParse("phcpack_newton_h200.csv", phcpackNewtonCSV, parsePHCNewton)

// parsePHCNewton reads the CSV (phcNewtonHeader's columns). A row with a
// result (converged yes or no) has steps, wall, kernels and the printed
// error; a row without one (converged empty) has no number at all and a
// note that says why.
func parsePHCNewton(text string) (map[phcNewtonKey]PHCNewton, error) {
	recs, err := readPHCCSV(text, phcNewtonHeader)
	if err != nil {
		return nil, err
	}
	m := map[phcNewtonKey]PHCNewton{}
	for _, rec := range recs {
		var k phcNewtonKey
		if k.Complex, err = phcComplex(rec); err != nil {
			return nil, err
		}
		var errs [3]error
		k.Prec, errs[0] = strconv.Atoi(rec[1])
		k.N, errs[1] = strconv.Atoi(rec[2])
		k.Degree, errs[2] = strconv.Atoi(rec[3])
		if err := rowErr(rec, errs[:]...); err != nil {
			return nil, err
		}
		p := PHCNewton{Converged: rec[5], Note: rec[11]}
		num := func(s string) (float64, error) {
			if s == "" {
				return math.NaN(), nil
			}
			x, err := strconv.ParseFloat(s, 64)
			if err == nil && (x <= 0 || math.IsInf(x, 0) || math.IsNaN(x)) {
				err = fmt.Errorf("%q: want a positive number", s)
			}
			return x, err
		}
		var ferrs [5]error
		p.Wall, ferrs[0] = num(rec[6])
		p.Kern, ferrs[1] = num(rec[7])
		p.BackSub, ferrs[2] = num(rec[8])
		p.Update, ferrs[3] = num(rec[9])
		p.Err, ferrs[4] = num(rec[10])
		if err := rowErr(rec, ferrs[:]...); err != nil {
			return nil, err
		}
		switch p.Converged {
		case "yes", "no":
			if p.Steps, err = strconv.Atoi(rec[4]); err != nil || p.Steps <= 0 {
				return nil, fmt.Errorf("%v: bad steps %q", rec, rec[4])
			}
			if isNaN(p.Wall) || isNaN(p.Kern) || isNaN(p.Err) {
				return nil, fmt.Errorf("%v: a result needs wall_s, kernel_s and printed_error", rec)
			}
		case "":
			if strings.Join(rec[4:11], "") != "" {
				return nil, fmt.Errorf("%v: a case without a result has no numbers", rec)
			}
			if rec[11] == "" {
				return nil, fmt.Errorf("%v: a case without a result needs a note saying why", rec)
			}
		default:
			return nil, fmt.Errorf("%v: converged %q: want yes, no or empty", rec, rec[5])
		}
		if _, dup := m[k]; dup {
			return nil, fmt.Errorf("case %v twice", rec)
		}
		m[k] = p
	}
	return m, nil
}

// phcNewtonFor returns PHCpack's run of a case, and whether it was run.
func phcNewtonFor(prec, n, degree int, complex bool) (PHCNewton, bool) {
	p, ok := phcNewtonTable[phcNewtonKey{complex, prec, n, degree}]
	if !ok {
		nan := math.NaN()
		p = PHCNewton{Wall: nan, Kern: nan, BackSub: nan, Update: nan, Err: nan}
	}
	return p, ok
}
