package bench

import (
	"encoding/csv"
	"io"
	"strconv"
)

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
func writeCSV(w io.Writer, rs []Result) error {
	return writeCSVRows(w, csvHeader, len(rs), func(i int) []string {
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
		return rec
	})
}

// writeCSVRows writes header and then the rows row(0) ... row(n-1).
func writeCSVRows(w io.Writer, header []string, n int, row func(i int) []string) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	for i := range n {
		if err := cw.Write(row(i)); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
