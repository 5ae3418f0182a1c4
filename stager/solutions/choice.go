package solutions

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mdgen/mdgen/stager/poly"
)

// Choice says which solution lists were read of a file that holds several
// banner lists ("THE ... SOLUTIONS :"), as PHCpack's output files do: phc
// -b, -p and -u write the start solutions, the solutions at the ends of
// the paths (phc -b with its path diagnostics "== 1 = #step ..." in place
// of "solution 1 :", a format this reader does not take) and, last, the
// solutions as its root refiner leaves them; phc -v writes the refined
// list after its echo of the system.
//
// The lists taken are those of PHCpack's root refiner (a list followed by
// its summary "A list of N solutions has been refined :"), all of them in
// order: phc -b refines the solutions with zero coordinates (from the
// stable mixed volume) in a list of their own, before the others. A file
// without such a summary gives its last complete list (one that holds
// every solution its count line announces, in the format above). A file
// with one banner list is read as before: its list, or its error.
type Choice struct {
	Lists []ListInfo // the banner lists, in the order of the file
}

// ListInfo is one banner list of a file.
type ListInfo struct {
	Line    int   // the line of its banner (1-based)
	Count   int   // the solutions it holds (0 when not complete)
	Err     error // why it is not a complete list (nil when it is)
	Refined bool  // followed by PHCpack's refinement summary
	// PathDiagnostics: not complete, and its first solution starts with
	// phc's path diagnostics "== 1 = #step ..." (the ends of the paths as
	// the tracker left them, refined in a later list)
	PathDiagnostics bool
	Taken           bool // its solutions were read
}

// Several says whether the file held more than one banner list, so that
// the one read is worth naming.
func (c Choice) Several() bool { return len(c.Lists) > 1 }

// String says which lists were read and which were skipped, for a note:
// "read the 70 solutions of the last complete list (line 1528); skipped 1
// earlier list (line 813: ...)".
func (c Choice) String() string {
	var taken, skipped []ListInfo
	count := 0
	for _, l := range c.Lists {
		if l.Taken {
			taken = append(taken, l)
			count += l.Count
		} else {
			skipped = append(skipped, l)
		}
	}
	var b strings.Builder
	switch {
	case len(taken) == 0:
		b.WriteString("no complete solution list")
	case len(taken) == 1 && taken[0].Refined:
		fmt.Fprintf(&b, "read the %d solutions of the list refined by PHCpack (line %d)", count, taken[0].Line)
	case len(taken) == 1:
		fmt.Fprintf(&b, "read the %d solutions of the last complete list (line %d)", count, taken[0].Line)
	default:
		parts := make([]string, len(taken))
		for k, l := range taken {
			parts[k] = fmt.Sprintf("%d at line %d", l.Count, l.Line)
		}
		fmt.Fprintf(&b, "read the %d solutions of the %d lists refined by PHCpack (%s)", count, len(taken), strings.Join(parts, ", "))
	}
	if len(skipped) > 0 {
		fmt.Fprintf(&b, "; skipped %d %s (", len(skipped), plural(len(skipped), "other list"))
		for k, l := range skipped {
			if k > 0 {
				b.WriteString("; ")
			}
			b.WriteString("line " + strconv.Itoa(l.Line) + ": ")
			switch {
			case l.PathDiagnostics:
				b.WriteString("PHCpack's path diagnostics (\"== 1 = #step ...\")")
			case l.Err != nil:
				b.WriteString("not a complete list: " + reason(l.Err))
			default:
				fmt.Fprintf(&b, "%d solutions", l.Count)
			}
		}
		b.WriteString(")")
	}
	return b.String()
}

func plural(n int, unit string) string {
	if n == 1 {
		return unit
	}
	return unit + "s"
}

// reason returns the reason of a *poly.ParseError with its line, else
// the error's text.
func reason(err error) string {
	var pe *poly.ParseError
	if errors.As(err, &pe) {
		return fmt.Sprintf("%s (line %d)", pe.Reason, pe.Line)
	}
	return err.Error()
}

// choose reads the banner lists from line b (a banner) on and returns the
// solutions of those the Choice takes; p.nameOffs is theirs. With one
// banner list, its error is the error; with several and none complete,
// the error of the last.
func (p *solParser) choose(b int) ([]Solution, Choice, error) {
	var choice Choice
	type read struct {
		sols     []Solution
		nameOffs [][]int
	}
	var reads []read
	var lastErr error
	for ; b >= 0; b = p.findBanner(b + 1) {
		info := ListInfo{Line: b + 1}
		sols, err := p.list(b + 1)
		if err != nil {
			info.Err, lastErr = err, err
			info.PathDiagnostics = p.pathDiagnostics(b + 1)
		} else {
			info.Count = len(sols)
			info.Refined = p.refinedSummary(p.listEnd, len(sols))
		}
		choice.Lists = append(choice.Lists, info)
		reads = append(reads, read{sols, p.nameOffs})
	}
	if len(choice.Lists) == 1 {
		if lastErr != nil {
			return nil, choice, lastErr
		}
		choice.Lists[0].Taken = true
		return reads[0].sols, choice, nil
	}
	refined := false
	for _, l := range choice.Lists {
		refined = refined || l.Refined
	}
	last := -1
	for k, l := range choice.Lists {
		switch {
		case refined && l.Refined:
			choice.Lists[k].Taken = true
		case !refined && l.Err == nil:
			last = k
		}
	}
	if last >= 0 {
		choice.Lists[last].Taken = true
	}
	var sols []Solution
	p.nameOffs = nil
	dim, taken := -1, 0
	for k, l := range choice.Lists {
		if !l.Taken {
			continue
		}
		taken++
		for _, s := range reads[k].sols {
			if dim >= 0 && len(s.Values) != dim {
				return nil, choice, p.errLine(l.Line-1, "the solutions of this list have %d coordinates, those of the refined list before %d", len(s.Values), dim)
			}
			dim = len(s.Values)
		}
		sols = append(sols, reads[k].sols...)
		p.nameOffs = append(p.nameOffs, reads[k].nameOffs...)
	}
	if taken == 0 {
		return nil, choice, fmt.Errorf("%w (and %d earlier solution lists not complete either)", lastErr, len(choice.Lists)-1)
	}
	return sols, choice, nil
}

// refinedSummary says whether PHCpack's summary "A list of n solutions has
// been refined :" follows line i (after blank lines and lines of '=').
func (p *solParser) refinedSummary(i, n int) bool {
	i = p.skipBlankSep(i)
	return i < len(p.lines) && p.trim(i) == fmt.Sprintf("A list of %d solutions has been refined :", n)
}

// pathDiagnostics says whether the first solution of the list after line
// i (after its count line and lines of '=') starts with phc's "== 1 =
// #step".
func (p *solParser) pathDiagnostics(i int) bool {
	i = p.skipBlank(i)
	if i < len(p.lines) {
		if _, _, ok := solCountLine(p.trim(i)); ok {
			i++
		}
	}
	i = p.skipBlankSep(i)
	return i < len(p.lines) && strings.HasPrefix(p.trim(i), "== 1 =") && strings.Contains(p.trim(i), "#step")
}
