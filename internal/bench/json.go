package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"

	"github.com/mdgen/mdgen/internal/boundedread"
)

// merge reads the bench.json files of earlier runs and reports them
// as one run.
func (s *session) merge(out io.Writer) error {
	type key struct {
		sys          string
		prec, degree int
		complex      bool
		backend      string
	}
	at := map[key]int{}
	for _, path := range s.cfg.Merge {
		notes, rs, err := readJSON(path)
		if err != nil {
			return err
		}
		for _, n := range notes {
			s.notes = append(s.notes, filepath.Base(filepath.Dir(path))+"/"+filepath.Base(path)+": "+n)
		}
		for _, r := range rs {
			k := key{r.System, r.Prec, r.Degree, r.Complex, r.Backend}
			if i, ok := at[k]; ok && r.ran() {
				s.results[i] = r
				continue
			} else if ok {
				continue // keep a case that ran over one that did not
			}
			at[k] = len(s.results)
			s.results = append(s.results, r)
		}
	}
	s.logf("bench: merged %d cases from %d files", len(s.results), len(s.cfg.Merge))
	return s.report(out)
}

// readJSON reads what writeJSON wrote.
func readJSON(path string) (notes []string, rs []Result, err error) {
	b, err := boundedread.ReadFile(path, "a bench report", 256<<20)
	if err != nil {
		return nil, nil, fmt.Errorf("bench: %w", err)
	}
	var doc struct {
		Notes   []string
		Results []struct {
			System, Backend, Skipped, Checksum, Check string
			CPUChecksum                               string `json:"cpu_checksum"`
			Prec, Degree, Repeat, Launches            int
			Complex                                   bool
			KernelMs                                  *float64 `json:"kernel_ms"`
			WallMs                                    *float64 `json:"wall_ms"`
			KernelMsLo                                *float64 `json:"kernel_ms_min"`
			WallMsLo                                  *float64 `json:"wall_ms_min"`
			DoubleOps                                 *float64 `json:"double_ops"`
			ConvJobs                                  int      `json:"convolution_jobs"`
			AddJobs                                   int      `json:"addition_jobs"`
			DeviceBytes                               int64    `json:"device_bytes"`
			Seed                                      uint64
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, nil, fmt.Errorf("bench: reading %s: %w", path, err)
	}
	f := func(p *float64) float64 {
		if p == nil {
			return math.NaN()
		}
		return *p
	}
	for _, x := range doc.Results {
		r := Result{System: x.System, Prec: x.Prec, Degree: x.Degree, Complex: x.Complex, Backend: x.Backend,
			Skipped: x.Skipped, Repeat: x.Repeat, KernelMs: f(x.KernelMs), WallMs: f(x.WallMs),
			KernelMsLo: f(x.KernelMsLo), WallMsLo: f(x.WallMsLo), ConvJobs: x.ConvJobs, AddJobs: x.AddJobs,
			Launches: x.Launches, DeviceBytes: x.DeviceBytes, DoubleOps: f(x.DoubleOps), Seed: x.Seed,
			Checksum: x.Checksum, Check: x.Check, CPUChecksum: x.CPUChecksum}
		r.setPHC() // PHCpack's numbers come from this binary's table
		rs = append(rs, r)
	}
	return doc.Notes, rs, nil
}

// writeJSON writes the notes and the results; NaN becomes null.
func writeJSON(w io.Writer, notes []string, rs []Result) error {
	type row map[string]any
	var rows []row
	num := func(x float64) any {
		if isNaN(x) || math.IsInf(x, 0) {
			return nil
		}
		return x
	}
	for i := range rs {
		r := &rs[i]
		rows = append(rows, row{
			"system": r.System, "prec": r.Prec, "degree": r.Degree, "complex": r.Complex, "backend": r.Backend,
			"skipped": r.Skipped, "repeat": r.Repeat,
			"kernel_ms": num(r.KernelMs), "wall_ms": num(r.WallMs), "kernel_ms_min": num(r.KernelMsLo), "wall_ms_min": num(r.WallMsLo),
			"phcpack_kernel_ms": num(r.PHCKernelMs), "phcpack_wall_ms": num(r.PHCWallMs), "wall_speedup": num(r.SpeedUp()),
			"double_ops": num(r.DoubleOps), "double_ops_per_s": num(r.OpRate()), "fraction_of_peak": num(r.PeakFraction()),
			"convolution_jobs": r.ConvJobs, "addition_jobs": r.AddJobs, "launches": r.Launches, "device_bytes": r.DeviceBytes,
			"seed": r.Seed, "checksum": r.Checksum, "check": r.Check, "cpu_checksum": r.CPUChecksum,
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{"notes": notes, "peak_double_ops_per_s": PeakOps, "results": rows})
}
