package stager

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// MemAvailable returns the memory available for new allocations in bytes,
// read from MemAvailable in /proc/meminfo, and whether it is known (false off
// Linux or when the file cannot be read).
func MemAvailable() (int64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	return parseMemAvailable(bufio.NewScanner(f))
}

func parseMemAvailable(sc *bufio.Scanner) (int64, bool) {
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			return 0, false
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil || kb < 0 {
			return 0, false
		}
		if len(fields) > 1 && fields[1] != "kB" {
			return 0, false
		}
		return kb * 1024, true
	}
	return 0, false
}

// CheckMemory returns an error, with the sizes, when the data array of p at n
// limbs (complex or real) would not fit in the available memory. It returns
// nil when the available memory is unknown.
func (p *Plan) CheckMemory(n int, complex bool) error {
	need := p.Bytes(n, complex)
	kind := "real"
	if complex {
		kind = "complex"
	}
	if need < 0 {
		return fmt.Errorf("degree %d: the data array of %d series at %d limbs (%s) overflows 64-bit sizes",
			p.Degree, p.NumSlots(), n, kind)
	}
	if avail, ok := MemAvailable(); ok && need > avail {
		return fmt.Errorf("degree %d: the data array of %d series × %d coefficients × %d limbs (%s) needs %s, "+
			"more than the %s of memory available", p.Degree, p.NumSlots(), p.Degree+1, n, kind,
			FormatBytes(need), FormatBytes(avail))
	}
	return nil
}

// FormatBytes writes a byte count with a binary unit: "512 B", "1.5 MiB".
func FormatBytes(b int64) string {
	if b < 1024 {
		return fmt.Sprintf("%d B", b)
	}
	v, u := float64(b), ""
	for _, unit := range []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"} {
		v /= 1024
		u = unit
		if v < 1024 {
			break
		}
	}
	return fmt.Sprintf("%.1f %s", v, u)
}
