package bench

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mdgen/mdgen/internal/atomicfile"
)

// fmtS prints seconds with three significant digits or so ("n/a" for NaN).
// Below 0.01 s it keeps two significant digits where fmtMs would print
// 0.000.
func fmtS(x float64) string {
	if x < 0.01 {
		return strconv.FormatFloat(x, 'g', 2, 64)
	}
	return fmtMs(x)
}

// fmtE prints an error with three significant digits.
func fmtE(x float64) string {
	if isNaN(x) {
		return "n/a"
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}

// fmtRatio prints a ratio as fmtX does, large ones in E notation and
// small ones with two significant digits.
func fmtRatio(x float64) string {
	switch {
	case isNaN(x):
	case x >= 1e4:
		return strconv.FormatFloat(x, 'g', 3, 64) + "x"
	case x < 1:
		return strconv.FormatFloat(x, 'g', 2, 64) + "x"
	}
	return fmtX(x)
}

// phcNote says what PHCpack's run of a case was beyond the table's
// columns: where its kernel time went, or why it has no result.
func phcNote(p *PHCNewton) string {
	if !p.HasResult() {
		return p.Note
	}
	var parts []string
	if !isNaN(p.BackSub) {
		parts = append(parts, "back substitution "+fmtS(p.BackSub)+" s")
	}
	if !isNaN(p.Update) {
		parts = append(parts, "updates "+fmtS(p.Update)+" s")
	}
	line := "kernels " + fmtS(p.Kern) + " s"
	if len(parts) > 0 {
		line += ": " + strings.Join(parts, ", ")
	}
	if p.Note != "" {
		line += "; " + p.Note
	}
	return line
}

func fmtBits(x float64) string {
	switch {
	case isNaN(x):
		return "n/a"
	case math.IsInf(x, 1):
		return "exact"
	}
	return strconv.FormatFloat(x, 'f', 1, 64)
}

// newtonLegend says what the columns are.
const newtonLegend = `wall_s: the host clock around one Newton solve from x(0) = 1 to convergence (staging the plans excluded: setup_s); the six
stage times (evaluate, QR, Q^H b, back substitution, update, residual): CUDA events on the GPU, the host clock on the CPU.
abs_err: the largest |got - exact| of any coefficient (real and imaginary parts; what PHCpack prints); bits: how far the
worst error lies below the largest exact coefficient of its variable. steps*: not converged (see below).
PHCpack: src/GPU/Newton on the same H200, internal/bench/phcpack_newton_h200.csv (its wall: the whole run; its own
random rates, so its error is of another instance of the problem); n/a where it has no number.
wall_x: PHCpack's wall over ours; err_x: PHCpack's printed error over ours.`

// writeNewtonTable prints one row per case, then the notes of its cases.
func writeNewtonTable(w io.Writer, rs []NewtonResult) {
	head := []string{"data", "prec", "n", "deg", "on", "steps", "wall_s", "setup_s", "eval", "qr", "qhb", "backsub", "update", "resid",
		"abs_err", "bits", "PHC_steps", "PHC_wall", "PHC_kern", "PHC_err", "wall_x", "err_x", "check"}
	rows := [][]string{head}
	var notes []string
	for i := range rs {
		r := &rs[i]
		row := []string{r.dataName(), fmt.Sprintf("%dd", r.Prec), strconv.Itoa(r.N), strconv.Itoa(r.Degree)}
		where := fmt.Sprintf("%dd %s n=%d d=%d", r.Prec, r.dataName(), r.N, r.Degree)
		if r.HasPHC {
			notes = append(notes, fmt.Sprintf("PHCpack %s: %s", where, phcNote(&r.PHC)))
		}
		if !r.ran() {
			rows = append(rows, append(row, "skipped: "+r.Skipped))
			continue
		}
		steps := strconv.Itoa(r.Steps)
		if !r.Converged {
			steps += "*"
			notes = append(notes, fmt.Sprintf("mdgen %s: not converged: %s", where, r.Failure))
		}
		row = append(row, r.Backend, steps, fmtS(r.Wall), fmtS(r.Setup))
		for _, t := range r.Stages {
			row = append(row, fmtS(t))
		}
		phcSteps := "n/a"
		if r.PHC.HasResult() {
			phcSteps = strconv.Itoa(r.PHC.Steps)
			if r.PHC.Converged != "yes" {
				phcSteps += "*"
			}
		}
		check := r.Check
		if strings.HasPrefix(check, "DIFFERS") || strings.HasPrefix(check, "error") {
			notes = append(notes, fmt.Sprintf("check %s: %s", where, check))
			check, _, _ = strings.Cut(check, ":")
		}
		if r.Backend == "gpu" {
			notes = append(notes, r.rateNote())
		}
		row = append(row, fmtE(r.AbsErr), fmtBits(r.Bits), phcSteps, fmtS(r.PHC.Wall), fmtS(r.PHC.Kern), fmtE(r.PHC.Err),
			fmtRatio(r.SpeedUp()), fmtRatio(r.ErrRatio()), check)
		rows = append(rows, row)
	}
	writeAligned(w, rows, 5)
	if len(notes) > 0 {
		fmt.Fprintln(w)
		for _, n := range notes {
			fmt.Fprintln(w, n)
		}
	}
}

// newtonCSVHeader lists every column of the Newton CSV.
var newtonCSVHeader = []string{"backend", "device", "data", "prec", "n", "degree", "skipped", "converged", "failure",
	"steps", "refine_steps", "repeat", "wall_s", "wall_s_min", "setup_s",
	"evaluate_s", "qr_s", "qhb_s", "backsub_s", "update_s", "residual_s", "stage_sum_s",
	"max_abs_error", "bits", "worst_at", "residual", "cond",
	"phcpack_steps", "phcpack_converged", "phcpack_wall_s", "phcpack_kernel_s", "phcpack_backsub_s", "phcpack_update_s",
	"phcpack_printed_error", "phcpack_note", "wall_speedup", "error_ratio", "check", "check_wall_s"}

// writeNewtonCSV writes all columns, one row per case.
func writeNewtonCSV(w io.Writer, rs []NewtonResult) error {
	return writeCSVRows(w, newtonCSVHeader, len(rs), func(i int) []string {
		r := &rs[i]
		conv, steps, refine := "", "", ""
		if r.ran() {
			conv = strconv.FormatBool(r.Converged)
			steps, refine = strconv.Itoa(r.Steps), strconv.Itoa(r.RefineSteps)
		}
		phcSteps := ""
		if r.PHC.HasResult() {
			phcSteps = strconv.Itoa(r.PHC.Steps)
		}
		rec := []string{r.Backend, r.Device, r.dataName(), strconv.Itoa(r.Prec), strconv.Itoa(r.N), strconv.Itoa(r.Degree),
			r.Skipped, conv, r.Failure, steps, refine, strconv.Itoa(r.Repeat), csvFloat(r.Wall), csvFloat(r.WallMin), csvFloat(r.Setup)}
		for _, t := range r.Stages {
			rec = append(rec, csvFloat(t))
		}
		stageSum := math.NaN()
		if r.ran() {
			stageSum = r.StageSum()
		}
		rec = append(rec, csvFloat(stageSum), csvFloat(r.AbsErr), csvFloat(r.Bits), r.WorstAt, csvFloat(r.Residual), csvFloat(r.Cond),
			phcSteps, r.PHC.Converged, csvFloat(r.PHC.Wall), csvFloat(r.PHC.Kern), csvFloat(r.PHC.BackSub), csvFloat(r.PHC.Update),
			csvFloat(r.PHC.Err), r.PHC.Note, csvFloat(r.SpeedUp()), csvFloat(r.ErrRatio()), r.Check, csvFloat(r.CheckWall))
		return rec
	})
}

// writeNewtonSVG draws two panels of horizontal bars on log10 scales, one
// bar pair per case: the wall clock in seconds and the largest error,
// mdgen's (solid) above PHCpack's (pale, dashed outline), "n/a" with
// PHCpack's note where it has no number.
func writeNewtonSVG(w io.Writer, rs []NewtonResult, title string) error {
	type panel struct {
		name         string
		ours, theirs func(r *NewtonResult) float64
		lo, hi       float64
	}
	panels := []*panel{
		{name: "wall clock of the Newton run, log10(s)", ours: func(r *NewtonResult) float64 { return r.Wall },
			theirs: func(r *NewtonResult) float64 { return r.PHC.Wall }},
		{name: "largest error against the exact series, log10", ours: func(r *NewtonResult) float64 { return r.AbsErr },
			theirs: func(r *NewtonResult) float64 { return r.PHC.Err }},
	}
	ok := func(x float64) bool { return !isNaN(x) && x > 0 && !math.IsInf(x, 0) }
	for _, p := range panels {
		p.lo, p.hi = math.Inf(1), math.Inf(-1)
		for i := range rs {
			for _, x := range []float64{p.ours(&rs[i]), p.theirs(&rs[i])} {
				if ok(x) {
					y := math.Log10(x)
					p.lo, p.hi = math.Min(p.lo, y), math.Max(p.hi, y)
				}
			}
		}
		if math.IsInf(p.lo, 0) {
			p.lo, p.hi = 0, 1
		}
		p.lo, p.hi = math.Floor(p.lo)-1, math.Ceil(p.hi)
	}
	const label, pw, gap, rowH, barH, top, bottom = 190.0, 330.0, 40.0, 34.0, 12.0, 50.0, 40.0
	width := label + 2*pw + gap + 30
	height := top + float64(max(len(rs), 1))*rowH + bottom
	var b strings.Builder
	svgStart(&b, width, height, 11, title, 13, 16)
	for pi, p := range panels {
		x0 := label + float64(pi)*(pw+gap)
		sx := func(y float64) float64 { return x0 + (y-p.lo)/(p.hi-p.lo)*pw }
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="12">%s</text>`+"\n", x0+pw/2, top-18, svgEsc(p.name))
		step := math.Max(1, math.Ceil((p.hi-p.lo)/8))
		for y := p.lo; y <= p.hi+1e-9; y += step {
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`, sx(y), top-6, sx(y), height-bottom)
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%g</text>`+"\n", sx(y), height-bottom+14, y)
		}
		for i := range rs {
			r := &rs[i]
			y := top + float64(i)*rowH
			for j, v := range []float64{p.ours(r), p.theirs(r)} {
				yy := y + float64(j)*(barH+2)
				style := fmt.Sprintf(`fill="%s"`, svgColor(r.Prec))
				if j == 1 {
					style = fmt.Sprintf(`fill="%s" fill-opacity="0.35" stroke="%s" stroke-dasharray="3,2"`, svgColor(r.Prec), svgColor(r.Prec))
				}
				if !ok(v) {
					what := "n/a"
					if j == 0 && !r.ran() {
						what = "not run"
					} else if j == 1 && r.HasPHC && r.PHC.Note != "" && !r.PHC.HasResult() {
						what = "n/a: " + r.PHC.Note
					}
					who := "mdgen"
					if j == 1 {
						who = "PHCpack"
					}
					fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" fill="#666">%s %s</text>`+"\n", x0+2, yy+barH-2, who, svgEsc(what))
					continue
				}
				fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" %s/>`, x0, yy, math.Max(sx(math.Log10(v))-x0, 1), barH, style)
				fmt.Fprintf(&b, `<text x="%.1f" y="%.1f">%s</text>`+"\n", sx(math.Log10(v))+3, yy+barH-2, svgEsc(fmtE(v)))
			}
		}
	}
	for i := range rs {
		r := &rs[i]
		y := top + float64(i)*rowH
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end">%dd %s n=%d d=%d (%s)</text>`+"\n", label-8, y+barH+2,
			r.Prec, r.dataName(), r.N, r.Degree, svgEsc(strings.ToUpper(r.Backend)))
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" fill="#444">upper bar: mdgen; lower (pale, dashed): PHCpack on the H200</text>`+"\n", label, height-8)
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// writeFile writes path with f ("": nothing), making its folder; a
// failure leaves the file as it was.
func writeFile(path string, f func(io.Writer) error) error {
	if path == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if err := atomicfile.Write(path, 0o644, f); err != nil {
		return fmt.Errorf("bench: writing %s: %w", path, err)
	}
	return nil
}

// newtonTitle is the SVG's title.
func newtonTitle(rs []NewtonResult) string {
	on := "CPU"
	for _, r := range rs {
		if r.Backend == "gpu" {
			on = "GPU"
		}
	}
	return "Newton on Taylor series, PHCpack's problem -1: mdgen " + on + " vs PHCpack's GPU Newton on the H200"
}

// report prints the table and writes the files.
func (s *newtonSession) report(out io.Writer) error {
	rs := s.results
	var text strings.Builder
	for _, n := range s.notes {
		fmt.Fprintln(&text, n)
	}
	fmt.Fprintln(&text, newtonLegend)
	fmt.Fprintln(&text)
	writeNewtonTable(&text, rs)
	differ := 0
	for _, r := range rs {
		if strings.HasPrefix(r.Check, "DIFFERS") {
			differ++
		}
	}
	if _, err := io.WriteString(out, text.String()); err != nil {
		return err
	}
	files := []struct {
		path string
		f    func(io.Writer) error
	}{
		{s.cfg.CSV, func(w io.Writer) error { return writeNewtonCSV(w, rs) }},
		{s.cfg.Plot, func(w io.Writer) error { return writeNewtonSVG(w, rs, newtonTitle(rs)) }},
	}
	if s.cfg.OutDir != "" {
		files = append(files, struct {
			path string
			f    func(io.Writer) error
		}{filepath.Join(s.cfg.OutDir, "newton.txt"), func(w io.Writer) error {
			_, err := io.WriteString(w, text.String())
			return err
		}})
	}
	for _, f := range files {
		if err := writeFile(f.path, f.f); err != nil {
			return err
		}
		if f.path != "" {
			s.logf("bench: wrote %s", f.path)
		}
	}
	if differ > 0 {
		return fmt.Errorf("bench -newton: %d cases differ from the CPU Newton", differ)
	}
	return nil
}

// writePartial rewrites the CSV file after every case, so that a run cut
// short still leaves its numbers.
func (s *newtonSession) writePartial() {
	// A failure keeps the last good file; the final report says what failed.
	writeFile(s.cfg.CSV, func(w io.Writer) error { return writeNewtonCSV(w, s.results) })
}
