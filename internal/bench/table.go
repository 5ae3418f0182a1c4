package bench

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// fmtMs prints a time in ms with three significant digits or so.
func fmtMs(x float64) string {
	switch {
	case isNaN(x):
		return "n/a"
	case x >= 100:
		return strconv.FormatFloat(x, 'f', 0, 64)
	case x >= 10:
		return strconv.FormatFloat(x, 'f', 1, 64)
	case x >= 1:
		return strconv.FormatFloat(x, 'f', 2, 64)
	}
	return strconv.FormatFloat(x, 'f', 3, 64)
}

func fmtX(x float64) string {
	if isNaN(x) {
		return "n/a"
	}
	if x >= 10 {
		return strconv.FormatFloat(x, 'f', 0, 64) + "x"
	}
	return strconv.FormatFloat(x, 'f', 1, 64) + "x"
}

// writeTable prints one row per case: ours, PHCpack's, the speed-up, the
// op rate and the check.
func writeTable(w io.Writer, rs []Result) {
	head := []string{"data", "prec", "sys", "deg", "kern ms", "wall ms", "PHC kern", "PHC wall", "wall x", "Gop/s", "%peak", "check"}
	rows := [][]string{head}
	for i := range rs {
		r := &rs[i]
		row := []string{r.dataName(), fmt.Sprintf("%dd", r.Prec), r.System, strconv.Itoa(r.Degree)}
		if !r.ran() {
			row = append(row, "skipped: "+r.Skipped)
			rows = append(rows, row)
			continue
		}
		gops, peak := "n/a", "n/a"
		if rate := r.OpRate(); !isNaN(rate) {
			prec := 0
			if rate < 10e9 {
				prec = 2
			}
			gops = strconv.FormatFloat(rate/1e9, 'f', prec, 64)
			peak = strconv.FormatFloat(100*r.PeakFraction(), 'f', 1, 64)
			if r.Backend == "cpu" {
				peak = "-" // the GPU's peak says nothing of a CPU
			}
		}
		row = append(row, fmtMs(r.KernelMs), fmtMs(r.WallMs), fmtMs(r.PHCKernelMs), fmtMs(r.PHCWallMs),
			fmtX(r.SpeedUp()), gops, peak, r.Check)
		rows = append(rows, row)
	}
	writeAligned(w, rows, 4)
}

// writeAligned prints rows in columns: columns [right, len(row)-1) are
// right-aligned (numbers), the others left-aligned. A row shorter than the
// header (a skipped case) runs on past the widths of its last cell.
func writeAligned(w io.Writer, rows [][]string, right int) {
	ncol := len(rows[0])
	width := make([]int, ncol)
	for _, row := range rows {
		for i, c := range row {
			if len(row) == ncol || i < len(row)-1 {
				width[i] = max(width[i], len([]rune(c)))
			}
		}
	}
	for _, row := range rows {
		var b strings.Builder
		for i, c := range row {
			if i > 0 {
				b.WriteString("  ")
			}
			pad := strings.Repeat(" ", max(width[i]-len([]rune(c)), 0))
			switch {
			case len(row) < ncol && i == len(row)-1:
				b.WriteString(c)
			case i >= right && i < ncol-1:
				b.WriteString(pad + c)
			default:
				b.WriteString(c + pad)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

// writeMatrices prints the results in the paper's shape: one table per
// kind of data, a row per precision and system, a column per degree, each
// cell "kern/wall" ms; then the wall-clock speed-up over PHCpack in the
// same shape.
func writeMatrices(w io.Writer, rs []Result) {
	for _, complex := range []bool{false, true} {
		var sub []Result
		for _, r := range rs {
			if r.Complex == complex {
				sub = append(sub, r)
			}
		}
		if len(sub) == 0 {
			continue
		}
		data := "real"
		if complex {
			data = "complex"
		}
		var degrees []int
		type rowKey struct {
			prec int
			sys  string
		}
		var rowKeys []rowKey
		cell := map[rowKey]map[int]*Result{}
		for i := range sub {
			r := &sub[i]
			if !slices.Contains(degrees, r.Degree) {
				degrees = append(degrees, r.Degree)
			}
			k := rowKey{r.Prec, r.System}
			if cell[k] == nil {
				cell[k] = map[int]*Result{}
				rowKeys = append(rowKeys, k)
			}
			cell[k][r.Degree] = r
		}
		slices.Sort(degrees)
		slices.SortFunc(rowKeys, func(a, b rowKey) int {
			if a.prec != b.prec {
				return a.prec - b.prec
			}
			return strings.Compare(a.sys, b.sys)
		})
		backend := strings.ToUpper(sub[0].Backend)
		for _, what := range []string{"ours", "speed-up"} {
			if what == "ours" && backend == "CPU" {
				fmt.Fprintf(w, "\n### mdgen CPU executor, %s data, wall ms\n", data)
			} else if what == "ours" {
				fmt.Fprintf(w, "\n### mdgen %s, %s data, kern/wall ms\n", backend, data)
			} else {
				fmt.Fprintf(w, "\n### wall-clock speed-up over PHCpack (PHCpack wall / mdgen wall), %s data\n", data)
			}
			head := "| prec poly |"
			sep := "|---|"
			for _, d := range degrees {
				head += fmt.Sprintf(" d=%d |", d)
				sep += "---|"
			}
			fmt.Fprintln(w, head)
			fmt.Fprintln(w, sep)
			for _, k := range rowKeys {
				line := fmt.Sprintf("| %dd %s |", k.prec, k.sys)
				for _, d := range degrees {
					r := cell[k][d]
					switch {
					case r == nil:
						line += " |"
					case !r.ran():
						line += " skipped |"
					case what == "ours" && r.Backend == "cpu":
						line += " " + fmtMs(r.WallMs) + " |"
					case what == "ours":
						line += " " + fmtMs(r.KernelMs) + "/" + fmtMs(r.WallMs) + " |"
					default:
						line += " " + fmtX(r.SpeedUp()) + " |"
					}
				}
				fmt.Fprintln(w, line)
			}
		}
	}
}
