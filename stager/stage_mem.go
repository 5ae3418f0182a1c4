package stager

import (
	"bufio"
	"fmt"
	"math"
	"math/big"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/mdgen/mdgen/stager/poly"
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

// memAvailable is MemAvailable; tests replace it.
var memAvailable = MemAvailable

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

// MemEstimate is the memory, in bytes, that a Plan and the data array of a
// run of it take, part by part. Sizes are those of the Go values (slice
// elements, map entries, big.Rat words), not counting allocator slack.
type MemEstimate struct {
	Degree  int
	Limbs   int  // doubles per coefficient in the data array
	Complex bool // a real and an imaginary part
	Series  int  // slots: series in the data array

	// Data is the data array: Series·(Degree+1)·Limbs·8 bytes, twice that
	// for complex data; -1 when that overflows an int64.
	Data int64
	// Jobs is the job tables: 12 bytes a convolution, 8 an addition, and
	// the layer headers.
	Jobs int64
	// Slots is the slot tables: Kinds, Inputs and the exact read-only
	// Values (map entries, big.Rat values and their words).
	Slots int64
	// Outputs is Value, Partials and the dense Deriv when there is one.
	Outputs int64
	// Staging is what Stage holds only while it builds (per-slot layers,
	// term lists, the table of powers); zero in Plan.Memory.
	Staging int64
}

// Total returns the sum of the parts, or -1 when Data overflows or the sum
// does.
func (m MemEstimate) Total() int64 {
	if m.Data < 0 {
		return -1
	}
	t := m.Data
	for _, x := range []int64{m.Jobs, m.Slots, m.Outputs, m.Staging} {
		if t > math.MaxInt64-x {
			return -1
		}
		t += x
	}
	return t
}

// DataShape describes the data array: "18,217 series × 100,000,001
// coefficients × 16 limbs × 2 parts × 8 bytes".
func (m MemEstimate) DataShape() string {
	coefs := plural(int64(m.Degree)+1, "coefficient")
	if m.Degree == math.MaxInt64 { // d+1 = 2^63 overflows int64
		coefs = "2^63 coefficients"
	}
	s := fmt.Sprintf("%s series × %s × %s", groupDigits(int64(m.Series)), coefs, plural(int64(m.Limbs), "limb"))
	if m.Complex {
		s += " × 2 parts"
	}
	return s + " × 8 bytes"
}

// String lists the parts: "data array 1.2 GiB (18,217 series × ...) + job
// tables 312.4 KiB + slot tables 1.2 MiB + outputs 1.1 KiB".
func (m MemEstimate) String() string {
	data := "more than 8 EiB"
	if m.Data >= 0 {
		data = FormatBytes(m.Data)
	}
	s := fmt.Sprintf("data array %s (%s) + job tables %s + slot tables %s + outputs %s",
		data, m.DataShape(), FormatBytes(m.Jobs), FormatBytes(m.Slots), FormatBytes(m.Outputs))
	if m.Staging > 0 {
		s += " + staging " + FormatBytes(m.Staging)
	}
	return s
}

// precision names the precision of the estimate: "16 limbs, complex".
func (m MemEstimate) precision() string {
	kind := "real"
	if m.Complex {
		kind = "complex"
	}
	return plural(int64(m.Limbs), "limb") + ", " + kind
}

// check returns an error with the breakdown when m overflows or does not
// fit in the available memory (nil when that is unknown). stage says that
// the estimate is Stage's own, at one limb of real data.
func (m MemEstimate) check(stage bool) error {
	at := fmt.Sprintf("degree %d at %s", m.Degree, m.precision())
	if stage {
		at = fmt.Sprintf("degree %d, even at %s (the least any precision needs)", m.Degree, m.precision())
	}
	need := m.Total()
	if need < 0 {
		return fmt.Errorf("%s: the data array of %s overflows 64-bit sizes", at, m.DataShape())
	}
	if avail, ok := memAvailable(); ok && need > avail {
		return fmt.Errorf("%s: the plan and its data array need %s, more than the %s of memory available: %s",
			at, FormatBytes(need), FormatBytes(avail), m)
	}
	return nil
}

// Memory returns the memory that p and the data array of a run of it at n
// limbs per coefficient (complex or real) take, part by part.
func (p *Plan) Memory(n int, complex bool) MemEstimate {
	m := MemEstimate{Degree: p.Degree, Limbs: n, Complex: complex, Series: p.NumSlots(), Data: p.Bytes(n, complex)}
	m.Jobs = int64(p.ConvJobs())*convJobBytes + int64(p.AddJobs())*addJobBytes +
		int64(len(p.ConvLayers)+len(p.AddLayers))*sliceHeaderBytes
	m.Slots = int64(len(p.Kinds)) + int64(len(p.Inputs))*slotBytes
	for _, v := range p.Values {
		m.Slots += valueEntryBytes + seriesBytes(v)
	}
	m.Outputs = int64(len(p.Value))*slotBytes + int64(len(p.Partials))*sliceHeaderBytes
	for _, row := range p.Partials {
		m.Outputs += int64(len(row)) * partialBytes
	}
	for _, row := range p.Deriv {
		m.Outputs += sliceHeaderBytes + int64(len(row))*slotBytes
	}
	return m
}

// estimate is Memory for the Plan that Stage will make from sv, plus
// Stage's temporaries, at n limbs.
func (sv *stageSurvey) estimate(n int, complex bool) MemEstimate {
	m := MemEstimate{Degree: sv.degree, Limbs: n, Complex: complex, Series: sv.slots}
	m.Data = bytesOf(sv.degree, sv.slots, n, complex)
	m.Jobs = int64(sv.convJobs)*convJobBytes + int64(sv.addJobs)*addJobBytes + int64(sv.layers)*sliceHeaderBytes
	m.Slots = int64(sv.slots) + int64(sv.nvars)*slotBytes + sv.valueMem +
		int64(sv.consts+sv.monos+len(sv.exps))*valueEntryBytes
	m.Outputs = int64(sv.npolys)*(slotBytes+sliceHeaderBytes) + int64(sv.partials)*partialBytes
	if denseDeriv(sv.npolys, sv.nvars, sv.partials) {
		m.Outputs += int64(sv.npolys)*sliceHeaderBytes + int64(sv.npolys)*int64(sv.nvars)*slotBytes
	}
	m.Staging = sv.staging
	return m
}

// Sizes of the Go values a Plan is made of.
const (
	slotBytes        = 4
	convJobBytes     = 12
	addJobBytes      = 8
	partialBytes     = 8
	sliceHeaderBytes = 24
	valueEntryBytes  = 48 // a map[Slot]Series entry: key, slice header, hash table overhead
	powEntryBytes    = 40 // a map[powKey]Slot entry
	ratBytes         = 64 // a big.Rat without its words
)

// seriesBytes is the size of a Series: two big.Rat per coefficient and
// their words.
func seriesBytes(s poly.Series) int64 {
	b := int64(len(s)) * 2 * ratBytes
	for i := range s {
		for _, r := range []*big.Rat{&s[i].Re, &s[i].Im} {
			b += int64(len(r.Num().Bits())) * 8
			if !r.IsInt() {
				b += int64(len(r.Denom().Bits())) * 8
			}
		}
	}
	return b
}

// CheckMemory returns an error, with the sizes part by part, when p and the
// data array of a run of it at n limbs per coefficient (complex or real)
// would not fit in the available memory. It returns nil when the available
// memory is unknown.
//
// The count includes the plan's own tables (job tables, slot tables and
// Values, outputs; see Memory) although they are already allocated when
// CheckMemory runs: a garbage-collected heap needs about that much room
// again (GOGC=100 lets the heap grow to twice what is live before a
// collection), so the margin is the one a run needs anyway.
func (p *Plan) CheckMemory(n int, complex bool) error {
	return p.Memory(n, complex).check(false)
}

// plural writes "1 limb", "16 limbs".
func plural(n int64, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%s %ss", groupDigits(n), unit)
}

// groupDigits writes n with thousands separators: 100,000,001.
func groupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
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

// CheckMemoryTogether returns an error, with the sizes, when the plans of
// s at every degree of degrees and the data arrays of runs of them at n
// limbs (complex or real) would not fit in the available memory together:
// Newton's method keeps an executor per working degree, and checking each
// against the free memory alone let their sum run out of memory. Nothing
// is staged: the sizes come from Stage's first pass, largest degree first,
// stopping as soon as the sum is too large (a degree near math.MaxInt is
// refused at once). Stage's temporaries count once, at their largest. It
// returns nil when the available memory is unknown and no size overflows.
func CheckMemoryTogether(s *poly.System, degrees []int, n int, complex bool) error {
	if err := validate(s); err != nil {
		return err
	}
	ds := slices.Clone(degrees)
	slices.Sort(ds)
	slices.Reverse(ds)
	ds = slices.Compact(ds)
	avail, known := memAvailable()
	var total, staging int64
	var parts []string
	for _, d := range ds {
		sv, err := survey(s, d)
		if err != nil {
			return err
		}
		m := sv.estimate(n, complex)
		t := m.Total()
		if t < 0 || total > math.MaxInt64-t {
			return fmt.Errorf("degree %d at %s: the data array of %s overflows 64-bit sizes", d, m.precision(), m.DataShape())
		}
		total += t - m.Staging
		staging = max(staging, m.Staging)
		parts = append(parts, fmt.Sprintf("degree %d %s", d, FormatBytes(t-m.Staging)))
		if known && total+staging > avail {
			more := ""
			if len(parts) < len(ds) {
				more = fmt.Sprintf(", and %d lower degrees", len(ds)-len(parts))
			}
			return fmt.Errorf("degree %d at %s: the plans and data arrays of the %d working degrees (%s) need more than %s together (%s%s), more than the %s of memory available",
				ds[0], m.precision(), len(ds), joinDegrees(ds), FormatBytes(total+staging), strings.Join(parts, ", "), more, FormatBytes(avail))
		}
	}
	return nil
}

// joinDegrees writes degrees (descending) as "16, 11, 7, 4, 2, 1, 0", or
// its first and last three when there are more than eight.
func joinDegrees(ds []int) string {
	s := make([]string, len(ds))
	for i, d := range ds {
		s[i] = strconv.Itoa(d)
	}
	if len(s) > 8 {
		s = append(append(s[:3:3], "..."), s[len(s)-3:]...)
	}
	return strings.Join(s, ", ")
}
