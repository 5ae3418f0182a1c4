package bench

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
)

// report prints the tables and writes the files.
func (s *session) report(out io.Writer) error {
	cfg := s.cfg
	rs := s.results
	sortResults(rs)
	checked, same, differ, unfinished := 0, 0, 0, 0
	for _, r := range rs {
		switch r.Check {
		case "unfinished (deadline)":
			unfinished++
		case "identical":
			checked++
			same++
		case "DIFFERS":
			checked++
			differ++
		default:
			if strings.HasPrefix(r.Check, "error") {
				checked++
			}
		}
	}
	var summary string
	if len(rs) > 0 && rs[0].Backend == "gpu" {
		rule := cfg.CheckRule()
		if len(cfg.Merge) > 0 {
			rule = "as each merged run asked"
		}
		summary = fmt.Sprintf("checked against the CPU executor (%s): %d of %d cases, %d bit-identical, %d differ",
			rule, checked, len(rs), same, differ)
		if unfinished > 0 {
			summary += fmt.Sprintf(", %d unfinished at the deadline", unfinished)
		}
	}
	var text strings.Builder
	for _, n := range s.notes {
		fmt.Fprintln(&text, n)
	}
	fmt.Fprintln(&text, "PHCpack: its GPU code (src/GPU at 18c6b6c8) on the same H200, internal/bench/phcpack_h200.csv; n/a where it has no number.")
	fmt.Fprintln(&text, "kern: CUDA events around all launches; wall: host clock from the first launch to the result ready on the device;")
	fmt.Fprintln(&text, "both exclude input/output transfers. Gop/s: double operations (backend.CountOps, FMA = 1) over kern;", "%peak: its fraction of 15.7e12/s.")
	fmt.Fprintln(&text)
	writeTable(&text, rs)
	writeMatrices(&text, rs)
	if summary != "" {
		fmt.Fprintln(&text)
		fmt.Fprintln(&text, summary)
	}
	if cfg.JSON {
		if err := writeJSON(out, s.notes, rs); err != nil {
			return err
		}
	} else if _, err := io.WriteString(out, text.String()); err != nil {
		return err
	}
	write := func(path string, f func(io.Writer) error) error {
		if err := writeFile(path, f); err != nil || path == "" {
			return err
		}
		s.logf("bench: wrote %s", path)
		return nil
	}
	if err := write(cfg.CSV, func(w io.Writer) error { return writeCSV(w, rs) }); err != nil {
		return err
	}
	title := "mdgen GPU (solid) vs PHCpack (dashed) on the H200, real data: log2 of the wall clock in ms"
	if len(rs) > 0 && rs[0].Backend == "cpu" {
		title = "mdgen CPU executor (solid) vs PHCpack GPU (dashed), real data: log2 of the wall clock in ms"
	}
	if err := write(cfg.Plot, func(w io.Writer) error { return writeSVG(w, rs, title) }); err != nil {
		return err
	}
	if cfg.OutDir != "" {
		if err := write(filepath.Join(cfg.OutDir, "bench.txt"), func(w io.Writer) error {
			_, err := io.WriteString(w, text.String())
			return err
		}); err != nil {
			return err
		}
		if err := write(filepath.Join(cfg.OutDir, "bench.json"), func(w io.Writer) error { return writeJSON(w, s.notes, rs) }); err != nil {
			return err
		}
	}
	if differ > 0 {
		return fmt.Errorf("bench: %d cases differ from the CPU executor", differ)
	}
	return nil
}

// writePartial rewrites the CSV file after every case, so that a run cut
// short (a device time limit) still leaves its numbers; report writes the
// final one, with the checks.
func (s *session) writePartial() {
	if s.cfg.CSV == "" {
		return
	}
	s.mu.Lock()
	rs := slices.Clone(s.results)
	s.mu.Unlock()
	sortResults(rs)
	// A failure keeps the last good file; the final report says what failed.
	writeFile(s.cfg.CSV, func(w io.Writer) error { return writeCSV(w, rs) })
}
