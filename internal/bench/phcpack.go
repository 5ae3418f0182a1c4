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
var phcTable = mustParsePHC(phcpackCSV)

func mustParsePHC(text string) map[phcKey]phcTimes {
	m, err := parsePHC(text)
	if err != nil {
		panic("bench: phcpack_h200.csv: " + err.Error())
	}
	return m
}

// parsePHC reads the CSV: data (real or complex), prec, system, degree,
// kernel_ms, wall_ms.
func parsePHC(text string) (map[phcKey]phcTimes, error) {
	r := csv.NewReader(strings.NewReader(text))
	r.Comment = '#'
	recs, err := r.ReadAll()
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 || strings.Join(recs[0], ",") != "data,prec,system,degree,kernel_ms,wall_ms" {
		return nil, fmt.Errorf("bad header %v", recs[:min(1, len(recs))])
	}
	m := map[phcKey]phcTimes{}
	for _, rec := range recs[1:] {
		var k phcKey
		var t phcTimes
		var errs [4]error
		switch rec[0] {
		case "real":
		case "complex":
			k.Complex = true
		default:
			return nil, fmt.Errorf("bad data %q in %v", rec[0], rec)
		}
		k.System = rec[2]
		k.Prec, errs[0] = strconv.Atoi(rec[1])
		k.Degree, errs[1] = strconv.Atoi(rec[3])
		t.Kern, errs[2] = strconv.ParseFloat(rec[4], 64)
		t.Wall, errs[3] = strconv.ParseFloat(rec[5], 64)
		for _, err := range errs {
			if err != nil {
				return nil, fmt.Errorf("%v: %w", rec, err)
			}
		}
		if _, dup := m[k]; dup {
			return nil, fmt.Errorf("case %v twice", rec)
		}
		m[k] = t
	}
	return m, nil
}
