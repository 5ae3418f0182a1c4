package main

// The output side of `mdgen bench`: PHCpack's numbers, the text tables, the
// CSV file and the SVG plot. No GPU, no dependencies: everything here is
// tested on made-up results.

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// benchPeakOps is the H200's FP64 instruction rate measured with an FMA
// chain (ANCHORS.md section 1 and 4): 15.7e12 FMA/s.
const benchPeakOps = 15.7e12

// phcTimes are PHCpack's GPU kernel and wall-clock times in ms.
type phcTimes struct{ Kern, Wall float64 }

type phcKey struct {
	Prec    int
	System  string
	Complex bool
	Degree  int
}

// phcRealTable and phcComplexTable are PHCpack's numbers, kern/wall ms, as
// measured on the lent H200 and written down in ANCHORS.md section 1:
// PHCpack (github janverschelde/PHCpack, GPL-3) src/GPU at commit 18c6b6c8,
// Polynomials/run_dbl{,2,3,4,5,8,10}_polynomials, seed 1, mode 0 (GPU only),
// built for sm_90 with nvcc 13.0; driver 580.159.04, CUDA 13.0. "kern" is the
// sum of cudaEventElapsedTime over its kernels, "wall" its own wall clock of
// one evaluation and differentiation (host staging and per-layer
// allocations included, input/output transfers excluded). Its drivers do
// not run 3d, 5d and 10d complex data; its shared-memory design stops at
// d = 152 for 10d (n/a at 191).
var phcDegrees = []int{0, 8, 31, 63, 127, 152, 191}

const phcRealTable = `
1d p1 | 0.22/2 | 0.12/2 | 0.16/3 | 0.15/3 | 0.27/4 | 0.31/3 | 0.36/3
1d p2 | 0.48/6 | 0.47/5 | 0.66/13 | 0.63/11 | 0.74/12 | 0.79/12 | 0.92/12
1d p3 | 0.14/3 | 0.14/4 | 0.16/4 | 0.19/5 | 0.29/4 | 0.39/4 | 0.51/5
2d p1 | 0.29/3 | 0.19/2 | 0.27/4 | 0.48/4 | 1.15/4 | 1.81/4 | 2.53/5
2d p2 | 0.53/6 | 0.61/7 | 0.87/12 | 1.19/12 | 2.44/14 | 3.65/15 | 4.73/17
2d p3 | 0.17/3 | 0.15/4 | 0.31/6 | 0.57/6 | 1.61/6 | 2.62/9 | 3.66/8
3d p1 | 0.26/3 | 1.00/3 | 3.15/6 | 7.22/10 | 23.08/25 | 38.07/40 | 54.89/57
3d p2 | 0.63/23 | 2.73/25 | 8.88/31 | 18.58/41 | 47.72/71 | 73.95/97 | 101.70/125
3d p3 | 0.26/4 | 1.34/5 | 4.31/9 | 10.12/13 | 33.37/37 | 55.54/61 | 79.89/83
4d p1 | 0.44/5 | 0.44/4 | 1.17/6 | 2.92/8 | 10.15/15 | 16.39/20 | 24.00/29
4d p2 | 0.71/25 | 1.62/26 | 4.56/36 | 8.92/42 | 22.39/55 | 33.95/65 | 45.55/73
4d p3 | 0.23/5 | 0.59/7 | 1.51/6 | 3.97/9 | 14.53/20 | 23.79/29 | 34.79/41
5d p1 | 0.28/2 | 0.59/3 | 1.81/4 | 4.63/7 | 15.93/18 | 25.98/28 | 37.45/40
5d p2 | 0.62/23 | 2.03/24 | 6.55/38 | 13.12/48 | 35.33/65 | 52.82/82 | 70.89/100
5d p3 | 0.31/5 | 0.88/5 | 2.67/7 | 6.51/11 | 22.78/26 | 37.59/41 | 54.31/58
8d p1 | 0.67/4 | 2.21/5 | 7.59/11 | 16.66/21 | 48.28/53 | 77.14/81 | 112.29/116
8d p2 | 0.83/23 | 4.74/27 | 16.11/42 | 35.74/72 | 98.82/129 | 142.95/171 | 214.67/242
8d p3 | 0.47/5 | 3.13/8 | 10.87/19 | 23.14/28 | 69.24/75 | 110.63/116 | 161.51/167
10d p1 | 0.70/3 | 3.88/7 | 12.91/16 | 28.85/32 | 98.15/102 | 166.76/170 | n/a
10d p2 | 1.21/27 | 7.63/32 | 26.82/51 | 60.92/87 | 177.95/205 | 309.19/337 | n/a
10d p3 | 0.68/4 | 5.64/10 | 18.20/22 | 38.67/43 | 132.76/137 | 234.63/239 | n/a
`

const phcComplexTable = `
1d p1 | 0.28/8 | 0.28/9 | 0.27/8 | 0.34/8 | 0.66/9 | 0.88/11 | 1.17/11
1d p2 | 1.57/62 | 1.83/75 | 2.08/89 | 1.94/79 | 2.36/77 | 2.61/74 | 3.31/80
1d p3 | 0.26/9 | 0.31/10 | 0.30/11 | 0.40/11 | 0.89/13 | 1.23/14 | 1.67/14
2d p1 | 0.38/10 | 0.46/13 | 0.62/12 | 1.34/12 | 4.15/12 | 6.81/15 | 9.70/21
2d p2 | 1.54/67 | 1.82/79 | 2.15/83 | 3.34/80 | 7.86/81 | 12.15/85 | 16.84/98
2d p3 | 0.28/9 | 0.34/10 | 0.73/17 | 1.72/12 | 6.09/22 | 9.99/22 | 14.23/26
4d p1 | 0.42/22 | 1.35/25 | 4.00/25 | 10.52/32 | 38.35/53 | 63.52/81 | 92.63/113
4d p2 | 2.00/142 | 4.24/161 | 8.87/171 | 20.73/179 | 66.21/221 | 105.73/264 | 152.15/298
4d p3 | 0.48/29 | 1.72/26 | 5.53/30 | 15.30/45 | 56.51/84 | 94.02/124 | 136.79/164
8d p1 | 1.12/17 | 8.08/23 | 28.53/47 | 63.19/85 | 183.19/200 | 292.97/308 | 434.85/451
8d p2 | 2.60/126 | 14.10/153 | 45.31/202 | 101.67/255 | 302.60/442 | 475.49/615 | 692.94/833
8d p3 | 1.38/26 | 11.97/42 | 42.02/74 | 91.34/115 | 267.14/294 | 429.84/457 | 628.27/658
`

// phcTable maps a case to PHCpack's numbers; a missing key is n/a.
var phcTable = parsePHC()

func parsePHC() map[phcKey]phcTimes {
	m := map[phcKey]phcTimes{}
	for _, t := range []struct {
		text    string
		complex bool
	}{{phcRealTable, false}, {phcComplexTable, true}} {
		for _, line := range strings.Split(strings.TrimSpace(t.text), "\n") {
			cells := strings.Split(line, "|")
			head := strings.Fields(cells[0])
			prec, err := strconv.Atoi(strings.TrimSuffix(head[0], "d"))
			if err != nil || len(head) != 2 || len(cells) != 1+len(phcDegrees) {
				panic("mdgen: bad PHCpack table line: " + line)
			}
			for i, c := range cells[1:] {
				c = strings.TrimSpace(c)
				if c == "n/a" {
					continue
				}
				kw := strings.Split(c, "/")
				k, err1 := strconv.ParseFloat(kw[0], 64)
				w, err2 := strconv.ParseFloat(kw[len(kw)-1], 64)
				if len(kw) != 2 || err1 != nil || err2 != nil {
					panic("mdgen: bad PHCpack table cell: " + c)
				}
				m[phcKey{prec, head[1], t.complex, phcDegrees[i]}] = phcTimes{k, w}
			}
		}
	}
	return m
}

// benchResult is one case of the table (writeBenchJSON writes it; NaN
// marks a number that does not exist).
type benchResult struct {
	System  string
	Prec    int
	Degree  int
	Complex bool
	Backend string // "gpu" or "cpu"

	Skipped string // why the case did not run

	Repeat     int
	KernelMs   float64 // median; NaN on the CPU
	WallMs     float64 // median
	KernelMsLo float64
	WallMsLo   float64

	PHCKernelMs float64 // NaN where PHCpack has none
	PHCWallMs   float64

	ConvJobs    int
	AddJobs     int
	Launches    int
	DeviceBytes int64
	DoubleOps   float64

	Seed        uint64
	Checksum    string
	Check       string // identical, DIFFERS, not checked, reference, error: ...
	CPUChecksum string
}

// OpRate returns double operations per second over the kernel time (the
// wall time on the CPU).
func (r *benchResult) OpRate() float64 {
	t := r.KernelMs
	if r.Backend == "cpu" || isNaN(t) {
		t = r.WallMs
	}
	if t <= 0 || isNaN(t) {
		return math.NaN()
	}
	return r.DoubleOps / (t / 1e3)
}

// PeakFraction is OpRate over the H200's FP64 instruction rate.
func (r *benchResult) PeakFraction() float64 { return r.OpRate() / benchPeakOps }

// SpeedUp is PHCpack's wall clock over ours.
func (r *benchResult) SpeedUp() float64 {
	if isNaN(r.PHCWallMs) || r.WallMs <= 0 || isNaN(r.WallMs) {
		return math.NaN()
	}
	return r.PHCWallMs / r.WallMs
}

func isNaN(x float64) bool { return math.IsNaN(x) }

func (r *benchResult) dataName() string {
	if r.Complex {
		return "complex"
	}
	return "real"
}

func (r *benchResult) ran() bool { return r.Skipped == "" }

// setPHC fills PHCpack's numbers for the case, NaN where it has none.
func (r *benchResult) setPHC() {
	r.PHCKernelMs, r.PHCWallMs = math.NaN(), math.NaN()
	if t, ok := phcTable[phcKey{r.Prec, r.System, r.Complex, r.Degree}]; ok {
		r.PHCKernelMs, r.PHCWallMs = t.Kern, t.Wall
	}
}

// sortResults orders real before complex, then precision, system, degree.
func sortResults(rs []benchResult) {
	slices.SortStableFunc(rs, func(a, b benchResult) int {
		switch {
		case a.Complex != b.Complex:
			if !a.Complex {
				return -1
			}
			return 1
		case a.Prec != b.Prec:
			return a.Prec - b.Prec
		case a.System != b.System:
			return strings.Compare(a.System, b.System)
		}
		return a.Degree - b.Degree
	})
}

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
func writeTable(w io.Writer, rs []benchResult) {
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

// writeMatrices prints the results in ANCHORS.md's shape: one table per
// kind of data, a row per precision and system, a column per degree, each
// cell "kern/wall" ms; then the wall-clock speed-up over PHCpack in the
// same shape.
func writeMatrices(w io.Writer, rs []benchResult) {
	for _, complex := range []bool{false, true} {
		var sub []benchResult
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
		cell := map[rowKey]map[int]*benchResult{}
		for i := range sub {
			r := &sub[i]
			if !slices.Contains(degrees, r.Degree) {
				degrees = append(degrees, r.Degree)
			}
			k := rowKey{r.Prec, r.System}
			if cell[k] == nil {
				cell[k] = map[int]*benchResult{}
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

// csvHeader lists every column of the CSV file.
var csvHeader = []string{"backend", "data", "prec", "system", "degree", "skipped", "repeat",
	"kernel_ms", "wall_ms", "kernel_ms_min", "wall_ms_min", "phcpack_kernel_ms", "phcpack_wall_ms",
	"wall_speedup", "double_ops", "double_ops_per_s", "fraction_of_15.7e12",
	"convolution_jobs", "addition_jobs", "launches", "device_bytes", "seed", "checksum", "check", "cpu_checksum"}

func csvFloat(x float64) string {
	if isNaN(x) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', 6, 64)
}

// writeCSV writes all columns, one row per case.
func writeCSV(w io.Writer, rs []benchResult) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvHeader); err != nil {
		return err
	}
	for i := range rs {
		r := &rs[i]
		rec := []string{r.Backend, r.dataName(), strconv.Itoa(r.Prec), r.System, strconv.Itoa(r.Degree), r.Skipped,
			strconv.Itoa(r.Repeat), csvFloat(r.KernelMs), csvFloat(r.WallMs), csvFloat(r.KernelMsLo), csvFloat(r.WallMsLo),
			csvFloat(r.PHCKernelMs), csvFloat(r.PHCWallMs), csvFloat(r.SpeedUp()), csvFloat(r.DoubleOps),
			csvFloat(r.OpRate()), csvFloat(r.PeakFraction()), strconv.Itoa(r.ConvJobs), strconv.Itoa(r.AddJobs),
			strconv.Itoa(r.Launches), strconv.FormatInt(r.DeviceBytes, 10), strconv.FormatUint(r.Seed, 10),
			r.Checksum, r.Check, r.CPUChecksum}
		if !r.ran() {
			for j := 7; j < len(rec)-3; j++ {
				if j != 11 && j != 12 { // keep PHCpack's numbers
					rec[j] = ""
				}
			}
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// svgColors gives each precision a line color.
var svgColors = map[int]string{1: "#1f77b4", 2: "#ff7f0e", 3: "#2ca02c", 4: "#d62728", 5: "#9467bd",
	8: "#8c564b", 10: "#e377c2", 16: "#7f7f7f"}

func svgColor(prec int) string {
	if c, ok := svgColors[prec]; ok {
		return c
	}
	return "#17becf"
}

func svgEsc(s string) string {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")
	return r.Replace(s)
}

// writeSVG draws log2 of the wall clock (ms) against the degree, one line
// per precision (solid: mdgen, dashed: PHCpack), one panel per system, for
// real data, like the figures of Verschelde's paper.
func writeSVG(w io.Writer, rs []benchResult, title string) error {
	var systems []string
	var precs []int
	maxDeg := 0
	lo, hi := math.Inf(1), math.Inf(-1)
	type pt struct{ d, y float64 }
	ours := map[string]map[int][]pt{}
	phc := map[string]map[int][]pt{}
	add := func(m map[string]map[int][]pt, sys string, prec int, d int, ms float64) {
		if isNaN(ms) || ms <= 0 {
			return
		}
		y := math.Log2(ms)
		lo, hi = math.Min(lo, y), math.Max(hi, y)
		if m[sys] == nil {
			m[sys] = map[int][]pt{}
		}
		m[sys][prec] = append(m[sys][prec], pt{float64(d), y})
	}
	for _, r := range rs {
		if r.Complex {
			continue
		}
		if !slices.Contains(systems, r.System) {
			systems = append(systems, r.System)
		}
		if !slices.Contains(precs, r.Prec) {
			precs = append(precs, r.Prec)
		}
		maxDeg = max(maxDeg, r.Degree)
		if r.ran() {
			add(ours, r.System, r.Prec, r.Degree, r.WallMs)
		}
		add(phc, r.System, r.Prec, r.Degree, r.PHCWallMs)
	}
	slices.Sort(systems)
	slices.Sort(precs)
	if math.IsInf(lo, 0) {
		lo, hi = 0, 1
	}
	lo, hi = math.Floor(lo), math.Ceil(hi)
	if hi <= lo {
		hi = lo + 1
	}
	if maxDeg == 0 {
		maxDeg = 1
	}
	const pw, ph, ml, mr, mt, mb = 360.0, 280.0, 56.0, 16.0, 48.0, 44.0
	panels := max(len(systems), 1)
	width := float64(panels)*(pw+ml+mr) + 130
	height := ph + mt + mb
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="12">`+"\n",
		width, height, width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%.0f" y="18" font-size="14" text-anchor="middle">%s</text>`+"\n", width/2, svgEsc(title))
	for i, sys := range systems {
		x0 := float64(i)*(pw+ml+mr) + ml
		y0 := mt
		sx := func(d float64) float64 { return x0 + d/float64(maxDeg)*pw }
		sy := func(y float64) float64 { return y0 + ph - (y-lo)/(hi-lo)*ph }
		fmt.Fprintf(&b, `<g><text x="%.1f" y="%.1f" text-anchor="middle" font-size="13">%s (real)</text>`+"\n", x0+pw/2, y0-8, svgEsc(sys))
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#444"/>`+"\n", x0, y0, pw, ph)
		// y grid: every integer of log2(ms)
		step := math.Max(1, math.Ceil((hi-lo)/10))
		for y := lo; y <= hi+1e-9; y += step {
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`, x0, sy(y), x0+pw, sy(y))
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end">%g</text>`+"\n", x0-4, sy(y)+4, y)
		}
		// x ticks
		xstep := 32
		if maxDeg > 256 {
			xstep = 128
		} else if maxDeg <= 64 {
			xstep = 8
		}
		for d := 0; d <= maxDeg; d += xstep {
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`, sx(float64(d)), y0, sx(float64(d)), y0+ph)
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%d</text>`+"\n", sx(float64(d)), y0+ph+16, d)
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">degree</text>`+"\n", x0+pw/2, y0+ph+34)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" transform="rotate(-90 %.1f %.1f)">log2(wall ms)</text>`+"\n",
			x0-38, y0+ph/2, x0-38, y0+ph/2)
		for _, m := range []struct {
			pts  map[int][]pt
			dash string
		}{{phc[sys], ` stroke-dasharray="5,4"`}, {ours[sys], ""}} {
			for _, p := range precs {
				pts := m.pts[p]
				if len(pts) == 0 {
					continue
				}
				slices.SortFunc(pts, func(a, b pt) int { return int(a.d - b.d) })
				var path strings.Builder
				for j, q := range pts {
					cmd := "L"
					if j == 0 {
						cmd = "M"
					}
					fmt.Fprintf(&path, "%s%.1f,%.1f ", cmd, sx(q.d), sy(q.y))
				}
				fmt.Fprintf(&b, `<path d="%s" fill="none" stroke="%s" stroke-width="1.6"%s/>`+"\n", strings.TrimSpace(path.String()), svgColor(p), m.dash)
				if m.dash == "" {
					for _, q := range pts {
						fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="2.2" fill="%s"/>`, sx(q.d), sy(q.y), svgColor(p))
					}
					b.WriteString("\n")
				}
			}
		}
		b.WriteString("</g>\n")
	}
	// legend
	lx := float64(panels)*(pw+ml+mr) + 8
	fmt.Fprintf(&b, `<g><text x="%.1f" y="%.1f">precision</text>`+"\n", lx, mt+4)
	for i, p := range precs {
		y := mt + 22 + float64(i)*18
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2"/><text x="%.1f" y="%.1f">%dd</text>`+"\n",
			lx, y, lx+24, y, svgColor(p), lx+30, y+4, p)
	}
	y := mt + 22 + float64(len(precs))*18 + 10
	fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#000" stroke-width="1.6"/><text x="%.1f" y="%.1f">mdgen</text>`+"\n", lx, y, lx+24, y, lx+30, y+4)
	fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#000" stroke-width="1.6" stroke-dasharray="5,4"/><text x="%.1f" y="%.1f">PHCpack</text>`+"\n", lx, y+18, lx+24, y+18, lx+30, y+22)
	b.WriteString("</g>\n</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}
