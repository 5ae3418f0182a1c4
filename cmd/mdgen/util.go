package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"
)

// reorderFlags moves flags after positional arguments to the front, so that
// `mdgen eval system.txt -prec 8` works as well as `mdgen eval -prec 8 system.txt`.
func reorderFlags(fs *flag.FlagSet, args []string) []string {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			pos = append(pos, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		f := fs.Lookup(name)
		if f == nil {
			continue
		}
		if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && bf.IsBoolFlag() {
			continue
		}
		if i+1 < len(args) {
			flags = append(flags, args[i+1])
			i++
		}
	}
	return append(flags, pos...)
}

// median returns the median of xs (NaN for none), leaving xs as it is.
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n == 0 {
		return math.NaN()
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func minOf(xs []float64) float64 { return slices.Min(xs) }

func round1(x float64) float64 { return math.Round(x*10) / 10 }

// progress prints at most one line per second to w while long work runs.
type progress struct {
	w     io.Writer
	what  string
	total int
	start time.Time
	last  time.Time
	shown bool
}

func newProgress(w io.Writer, what string, total int) *progress {
	now := time.Now()
	return &progress{w: w, what: what, total: total, start: now, last: now}
}

func (p *progress) step(done int) { p.fraction(p.what, done, p.total) }

func (p *progress) fraction(what string, done, total int) {
	now := time.Now()
	if now.Sub(p.last) < time.Second || total == 0 {
		return
	}
	p.last = now
	p.shown = true
	fmt.Fprintf(p.w, "\rmdgen: %s %d/%d (%.0f%%, %s)   ", what, done, total, 100*float64(done)/float64(total),
		now.Sub(p.start).Round(time.Second))
}

func (p *progress) done() {
	if p.shown {
		fmt.Fprintln(p.w)
	}
	p.shown = false
	p.start, p.last = time.Now(), time.Now()
}
