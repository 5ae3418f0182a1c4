package bench

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

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
func writeSVG(w io.Writer, rs []Result, title string) error {
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
	svgStart(&b, width, height, 12, title, 14, 18)
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

// svgStart opens an SVG picture of width by height on a white ground, text
// of font size font, with title centred at the top (font size titleFont,
// baseline at y titleY).
func svgStart(b *strings.Builder, width, height float64, font int, title string, titleFont, titleY int) {
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="%d">`+"\n",
		width, height, width, height, font)
	fmt.Fprintf(b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(b, `<text x="%.0f" y="%d" font-size="%d" text-anchor="middle">%s</text>`+"\n", width/2, titleY, titleFont, svgEsc(title))
}
