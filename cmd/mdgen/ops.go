package main

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/mdgen/mdgen/gen"
	"github.com/mdgen/mdgen/mdops/alg"
)

// opReport is one row of `mdgen ops`.
type opReport struct {
	N            int     `json:"n"`
	Op           string  `json:"op"`
	Adds         int     `json:"adds"`
	Muls         int     `json:"muls"`
	FMAs         int     `json:"fmas"`
	Divs         int     `json:"divs"`
	Selects      int     `json:"selects"`
	Flops        int     `json:"flops"`
	AccurateBits float64 `json:"accurate_bits"`
	WorstKind    string  `json:"worst_case"`
	Samples      int     `json:"samples"`
}

func runOps(args []string, out, stderr io.Writer) error {
	fs := newFlagSet("ops", "usage: mdgen ops [-n list] [-samples k] [-seed s] [-json]\n\n"+
		"Prints the flop counts and the measured worst-case accurate bits of every operation,\n"+
		"built from the IR (any N in 1..16, generated or not).\n\nflags:"+"\n", stderr)
	nlist := fs.String("n", joinInts(gen.DefaultNs), "comma-separated precisions (any of 1..16)")
	samples := fs.Int("samples", 2000, "corpus size per operation for the accuracy measurement")
	seed := fs.Uint64("seed", 1, "corpus seed")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseFlags(fs, args, out); err != nil {
		return err
	}
	if err := checkArgs(fs, 0, "no arguments (flags only)"); err != nil {
		return err
	}
	if err := checkRange("-samples", *samples, 1, 10000000, "cases per operation"); err != nil {
		return err
	}
	ns, err := parseNs(*nlist)
	if err != nil {
		return err
	}
	var rows []opReport
	for _, n := range ns {
		fmt.Fprintf(stderr, "mdgen: measuring N = %d on %d cases per operation...\n", n, *samples)
		l := alg.Build(n)
		for _, op := range alg.MeasuredOps {
			p := l.Program(op)
			c := p.Count()
			w, _ := alg.Measure(p, alg.Corpus(op, n, *samples, *seed))
			bits := w.Bits
			if math.IsInf(bits, 1) {
				bits = float64(64*n + 200) // exact on every case: report the reference precision
			}
			rows = append(rows, opReport{N: n, Op: op, Adds: c.Adds, Muls: c.Muls, FMAs: c.FMAs, Divs: c.Divs,
				Selects: c.Selects, Flops: c.Flops(), AccurateBits: math.Round(bits*10) / 10,
				WorstKind: w.Case.Kind, Samples: *samples})
		}
	}
	if *asJSON {
		return writeJSON(out, rows)
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "N\top\tadd/sub\tmul\tfma\tdiv/sqrt\tflops\tselects\taccurate bits\t53N\tworst case\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%.1f\t%d\t%s\t\n", r.N, r.Op, r.Adds, r.Muls, r.FMAs,
			r.Divs, r.Flops, r.Selects, r.AccurateBits, 53*r.N, r.WorstKind)
	}
	return tw.Flush()
}
