package bench

import (
	_ "embed"
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"
)

// phcpackCSV holds PHCpack's GPU times on the H200, one case a row; its
// comment lines say where they come from.
//
//go:embed phcpack_h200.csv
var phcpackCSV string

// phcTimes are PHCpack's GPU kernel and wall-clock times in ms.
type phcTimes struct{ Kern, Wall float64 }

type phcKey struct {
	Prec    int
	System  string
	Complex bool
	Degree  int
}

// phcTable maps a case to PHCpack's numbers; a missing key is n/a.
var phcTable = mustParse("phcpack_h200.csv", phcpackCSV, parsePHC)

// mustParse parses an embedded file whose name is name with parse; the
// tests keep the embedded files valid.
func mustParse[T any](name, text string, parse func(string) (T, error)) T {
	m, err := parse(text)
	if err != nil {
		panic("bench: " + name + ": " + err.Error())
	}
	return m
}

// parsePHC reads the CSV: data (real or complex), prec, system, degree,
// kernel_ms, wall_ms.
func parsePHC(text string) (map[phcKey]phcTimes, error) {
	recs, err := readPHCCSV(text, "data,prec,system,degree,kernel_ms,wall_ms")
	if err != nil {
		return nil, err
	}
	m := map[phcKey]phcTimes{}
	for _, rec := range recs {
		var k phcKey
		var t phcTimes
		var errs [4]error
		if k.Complex, err = phcComplex(rec); err != nil {
			return nil, err
		}
		k.System = rec[2]
		k.Prec, errs[0] = strconv.Atoi(rec[1])
		k.Degree, errs[1] = strconv.Atoi(rec[3])
		t.Kern, errs[2] = strconv.ParseFloat(rec[4], 64)
		t.Wall, errs[3] = strconv.ParseFloat(rec[5], 64)
		if err := rowErr(rec, errs[:]...); err != nil {
			return nil, err
		}
		if _, dup := m[k]; dup {
			return nil, fmt.Errorf("case %v twice", rec)
		}
		m[k] = t
	}
	return m, nil
}

// readPHCCSV reads one of PHCpack's CSV files (comment lines start with
// '#'), checks its header row and returns the rows after it.
func readPHCCSV(text, header string) ([][]string, error) {
	r := csv.NewReader(strings.NewReader(text))
	r.Comment = '#'
	recs, err := r.ReadAll()
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 || strings.Join(recs[0], ",") != header {
		return nil, fmt.Errorf("bad header %v, want %s", recs[:min(1, len(recs))], header)
	}
	return recs[1:], nil
}

// phcComplex reads a row's data column: real or complex.
func phcComplex(rec []string) (bool, error) {
	switch rec[0] {
	case "real":
		return false, nil
	case "complex":
		return true, nil
	}
	return false, fmt.Errorf("bad data %q in %v", rec[0], rec)
}

// rowErr returns the first of errs that is not nil, prefixed with the row
// it came from.
func rowErr(rec []string, errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return fmt.Errorf("%v: %w", rec, err)
		}
	}
	return nil
}
