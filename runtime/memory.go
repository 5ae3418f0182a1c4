package runtime

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// AvailableMemory returns the bytes of memory the system can still give
// (MemAvailable from /proc/meminfo), or -1 where that is unknown.
func AvailableMemory() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "MemAvailable:"); ok {
			fields := strings.Fields(rest)
			if len(fields) == 0 {
				return -1
			}
			kb, err := strconv.ParseInt(fields[0], 10, 64)
			if err != nil {
				return -1
			}
			return kb * 1024
		}
	}
	return -1
}

// CheckMemory refuses, before anything is allocated, an allocation of need
// bytes that the machine cannot hold, naming what it was for and the sizes.
func CheckMemory(need int64, what string) error {
	avail := AvailableMemory()
	if avail >= 0 && need > avail {
		return fmt.Errorf("%s needs %s but only %s of memory is available; lower the degree or the precision",
			what, FormatBytes(need), FormatBytes(avail))
	}
	return nil
}

// FormatBytes prints a byte count in binary units.
func FormatBytes(b int64) string {
	const unit = 1024
	if b < unit {
		return fmt.Sprintf("%d B", b)
	}
	div, exp := int64(unit), 0
	for n := b / unit; n >= unit; n /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(b)/float64(div), "KMGTPE"[exp])
}
