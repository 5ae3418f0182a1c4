// Package tune holds tuning profiles: the launch shapes of the evaluation
// kernels (the convolution kernel's block size and dynamic shared memory)
// that `mdgen tune` measured fastest on one GPU, in a JSON file that
// `mdgen emit`, `mdgen solve` and `mdgen bench` read (-profile FILE, else
// DefaultPath when it exists). Without a profile, or for a case it lacks,
// the launch shape is gpuabi.LaunchShape's fitted model.
//
// A launch shape never changes the results: the convolution kernel
// (templates/kernels.cu.tmpl) accepts any block size up to its
// __launch_bounds__ and any dynamic shared memory, runs every chain of
// multiply-adds in the CPU's order whatever the block, and stages in
// shared memory what fits (real data: a and b, 2 sets; complex data: 7, 4
// or 1 sets, see gpuabi.LaunchShape; a set is gpuabi.SetBytes). The split
// schedule of complex data at N >= 5 is not a launch parameter of its own:
// the kernel runs it when the derived series are staged (4 or 7 sets), so
// the choice of sets is the choice of split on or off. `mdgen tune` still
// checks every shape it keeps against the CPU, bit for bit.
//
// # Keys
//
// A profile holds one list of entries per GPU, keyed by the device's name
// and compute capability (cudadev.Info: "NVIDIA H200", "9.0"); an entry is
// keyed by the precision (doubles per number), the kind of data (real or
// complex) and the size class of the plan:
//
//   - the degree class: degrees in bands of 32, "0-31", "32-63", ...,
//     "160-191" (DegreeClass); within a band the pairs of chains per job
//     differ by at most 16, so the fastest block is the same or a
//     neighbour;
//   - the jobs class: the convolution jobs per layer, on average, which is
//     the number of blocks of one launch (JobsClass): "narrow" below 1024
//     (a launch does not fill the 132 SMs of an H200 at a few blocks each;
//     p2: 378), "medium" below 8192 (p1: 4095), "wide" from 8192 on (p3:
//     12192).
//
// # Safety
//
// A profile of another layout version (LayoutVersion), of kernels of
// another GPU contract (gpuabi.LayoutVersion), or one that does not parse
// or holds a shape the kernels cannot take, is refused as a whole (Read
// returns an error that says why; the commands print it as a warning and
// use the fitted model). A profile without entries for the device at hand
// gives the fitted model (Shapes). An entry applied at a degree of its band
// whose shared memory would exceed what the GPU allowed when it was tuned
// gives the fitted model for that launch.
//
// Processes install a profile with Install: runtime/gpu's executors then
// take their shapes from it (gpu.DeviceShape) unless gpu.Options.Shape
// names one. Emitted packages carry the part of the profile they were
// emitted with and install it when they are loaded.
package tune

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/internal/atomicfile"
	"github.com/mdgen/mdgen/internal/boundedread"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/mdops/alg"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
	"github.com/mdgen/mdgen/stager"
)

// LayoutVersion is the version of the profile's JSON layout; a profile of
// another version is refused (ErrVersion), except those of version
// OldestLayout and later, which read as this version (version 1: no
// Newton entries).
const LayoutVersion = 2

// OldestLayout is the oldest layout version Parse still reads.
const OldestLayout = 1

// ErrVersion is wrapped by the error of a profile of another layout
// version or of kernels of another GPU contract.
var ErrVersion = errors.New("tuning profile of another version")

// ErrCorrupt is wrapped by the error of a profile that does not parse or
// holds an entry the kernels cannot take.
var ErrCorrupt = errors.New("corrupt tuning profile")

// Device names a GPU: its name and compute capability.
type Device struct {
	Name string `json:"name"` // cudadev.Info.Name, e.g. "NVIDIA H200"
	CC   string `json:"cc"`   // compute capability, e.g. "9.0"
}

// DeviceOf returns the key of the device info describes.
func DeviceOf(info cudadev.Info) Device {
	return Device{Name: info.Name, CC: fmt.Sprintf("%d.%d", info.Major, info.Minor)}
}

func (d Device) String() string { return fmt.Sprintf("%s (compute capability %s)", d.Name, d.CC) }

// Profile is a tuning profile: entries per GPU.
type Profile struct {
	Layout  int   `json:"layout"`  // LayoutVersion
	Kernels int64 `json:"kernels"` // gpuabi.LayoutVersion of the kernels it was tuned with
	GPUs    []GPU `json:"gpus"`
}

// GPU is the part of a profile of one device.
type GPU struct {
	Device
	// MaxShared is the dynamic shared memory a block could get on the
	// device (cudadev.Info.MaxSharedPerBlockOptin): an entry that needs
	// more at some degree of its band falls back to the model there.
	MaxShared int     `json:"max_shared"`
	Tuned     string  `json:"tuned,omitempty"` // when mdgen tune last wrote it (RFC 3339)
	Entries   []Entry `json:"entries"`
	// Newton holds the shapes of the Newton back end's linear algebra
	// (layout 2; newton.go).
	Newton []NewtonEntry `json:"newton,omitempty"`
}

// Entry is the tuned launch shape of one key and what was measured.
type Entry struct {
	Prec    int    `json:"prec"`    // doubles per number
	Data    string `json:"data"`    // "real" or "complex"
	Degrees string `json:"degrees"` // DegreeClass
	Jobs    string `json:"jobs"`    // JobsClass
	Shape   Shape  `json:"shape"`   // the tuned shape
	Model   Shape  `json:"model"`   // gpuabi.LaunchShape's at Degree

	System  string  `json:"system"`   // the plan it was measured on (p1, p2, p3)
	Degree  int     `json:"degree"`   // the degree it was measured at
	Ms      float64 `json:"ms"`       // kernel time of Shape (median, CUDA events)
	ModelMs float64 `json:"model_ms"` // kernel time of Model
	Tried   int     `json:"tried"`    // candidate shapes timed
	// Check says what the outputs of every candidate timed were compared
	// with, bit for bit: "cpu", the CPU executor's; "model", the model
	// shape's launch (the CPU's comparison did not finish in time).
	Check string `json:"check"`
}

// Shape is a launch shape of the convolution kernel (the addition kernel
// keeps gpuabi.LaunchShape's: threads over the coefficients).
type Shape struct {
	Block int `json:"block"` // threads per block, a multiple of 32
	Sets  int `json:"sets"`  // dynamic shared memory in sets of gpuabi.SetBytes
	// Split says whether the kernel runs the split schedule with these
	// sets (complex data, N >= 5, 4 or more sets): derived, kept for the
	// reader, checked on reading.
	Split bool `json:"split"`
}

func (s Shape) String() string {
	sp := ""
	if s.Split {
		sp = ", split"
	}
	return fmt.Sprintf("%d threads, %d sets%s", s.Block, s.Sets, sp)
}

// Key is what an entry applies to.
type Key struct {
	Prec    int
	Complex bool
	Degrees string // DegreeClass
	Jobs    string // JobsClass
}

func (k Key) String() string {
	return fmt.Sprintf("%dd %s degrees %s, %s", k.Prec, dataName(k.Complex), k.Degrees, k.Jobs)
}

// Key returns the entry's key.
func (e Entry) Key() Key {
	return Key{Prec: e.Prec, Complex: e.Data == "complex", Degrees: e.Degrees, Jobs: e.Jobs}
}

func dataName(complex bool) string { return mdops.Prec{Complex: complex}.Kind() }

// DataName returns "real" or "complex", an Entry's Data.
func DataName(complex bool) string { return dataName(complex) }

// DegreeClass returns the degree class of degree d: "0-31", "32-63", ...
func DegreeClass(d int) string {
	lo := d / 32 * 32
	return fmt.Sprintf("%d-%d", lo, lo+31)
}

// validDegreeClass reports whether s is a DegreeClass.
func validDegreeClass(s string) bool {
	lo, hi, ok := strings.Cut(s, "-")
	if !ok {
		return false
	}
	a, err1 := strconv.Atoi(lo)
	b, err2 := strconv.Atoi(hi)
	return err1 == nil && err2 == nil && a >= 0 && a%32 == 0 && b == a+31 && DegreeClass(a) == s
}

// The jobs classes, by convolution jobs per layer.
const (
	Narrow = "narrow" // fewer than 1024 jobs per layer
	Medium = "medium" // 1024 to 8191
	Wide   = "wide"   // 8192 and more
)

// JobsClass returns the jobs class of a plan of convJobs convolution jobs
// in convLayers layers.
func JobsClass(convJobs, convLayers int) string {
	per := convJobs / max(convLayers, 1)
	switch {
	case per < 1024:
		return Narrow
	case per < 8192:
		return Medium
	}
	return Wide
}

// PlanKey returns the key of plan at precision p.
func PlanKey(plan *stager.Plan, p mdops.Prec) Key {
	return Key{Prec: p.N, Complex: p.Complex, Degrees: DegreeClass(plan.Degree), Jobs: JobsClass(plan.ConvJobs(), len(plan.ConvLayers))}
}

// ConvSets lists the staging choices of the convolution kernel, in sets
// of gpuabi.SetBytes, largest first: real data stages a and b (2 sets) or
// nothing; complex data 7, 4, 1 or 0 sets (gpuabi.LaunchShape).
func ConvSets(complex bool) []int {
	if complex {
		return []int{7, 4, 1, 0}
	}
	return []int{2, 0}
}

// Split reports whether the convolution kernel of n doubles runs the split
// schedule with sets staging sets.
func Split(n int, complex bool, sets int) bool { return complex && n >= 5 && sets >= 4 }

// ModelShape returns gpuabi.LaunchShape's shape of the convolution kernel.
func ModelShape(n int, complex bool, degree int) Shape {
	b, sh := gpuabi.LaunchShape(gpuabi.Conv, n, complex, degree)
	sets := sh / gpuabi.SetBytes(n, degree)
	return Shape{Block: b, Sets: sets, Split: Split(n, complex, sets)}
}

// Check reports why s is not a shape the convolution kernel of n doubles
// takes (nil when it is).
func (s Shape) Check(n int, complex bool) error {
	maxT := gpuabi.ConvMaxThreads(n, complex)
	if s.Block < 32 || s.Block > maxT || s.Block%32 != 0 {
		return fmt.Errorf("block of %d threads: want a multiple of 32 in 32..%d", s.Block, maxT)
	}
	if !slices.Contains(ConvSets(complex), s.Sets) {
		return fmt.Errorf("%d shared-memory sets: want one of %v", s.Sets, ConvSets(complex))
	}
	if s.Split != Split(n, complex, s.Sets) {
		return fmt.Errorf("split %v with %d sets: the kernel runs split = %v", s.Split, s.Sets, !s.Split)
	}
	return nil
}

// checkPrecData checks an entry's precision and kind of data (at names
// the entry).
func checkPrecData(at string, prec int, data string) error {
	if err := alg.CheckN(prec); err != nil {
		return fmt.Errorf("%w: %s: precision %v", ErrCorrupt, at, err)
	}
	if data != "real" && data != "complex" {
		return fmt.Errorf("%w: %s: data %q, want real or complex", ErrCorrupt, at, data)
	}
	return nil
}

// validate checks the profile (the version first).
func (p *Profile) validate() error {
	if p.Layout != LayoutVersion {
		return fmt.Errorf("%w: layout version %d, this mdgen reads version %d (run mdgen tune again)", ErrVersion, p.Layout, LayoutVersion)
	}
	if p.Kernels != gpuabi.LayoutVersion {
		return fmt.Errorf("%w: tuned with kernels of GPU layout version %d, this mdgen's are version %d (run mdgen tune again)",
			ErrVersion, p.Kernels, gpuabi.LayoutVersion)
	}
	seen := map[Device]bool{}
	for gi := range p.GPUs {
		g := &p.GPUs[gi]
		if g.Name == "" || g.CC == "" {
			return fmt.Errorf("%w: GPU %d has no name or compute capability", ErrCorrupt, gi+1)
		}
		if seen[g.Device] {
			return fmt.Errorf("%w: %s listed twice", ErrCorrupt, g.Device)
		}
		seen[g.Device] = true
		if g.MaxShared <= 0 {
			return fmt.Errorf("%w: %s: max_shared %d", ErrCorrupt, g.Device, g.MaxShared)
		}
		keys := map[Key]bool{}
		for i, e := range g.Entries {
			at := fmt.Sprintf("%s, entry %d", g.Device, i+1)
			if err := checkPrecData(at, e.Prec, e.Data); err != nil {
				return err
			}
			if !validDegreeClass(e.Degrees) {
				return fmt.Errorf("%w: %s: degrees %q, want a band of 32 such as \"32-63\"", ErrCorrupt, at, e.Degrees)
			}
			if e.Jobs != Narrow && e.Jobs != Medium && e.Jobs != Wide {
				return fmt.Errorf("%w: %s: jobs %q, want narrow, medium or wide", ErrCorrupt, at, e.Jobs)
			}
			k := e.Key()
			if keys[k] {
				return fmt.Errorf("%w: %s: %s listed twice", ErrCorrupt, at, k)
			}
			keys[k] = true
			for _, s := range []struct {
				what string
				s    Shape
			}{{"shape", e.Shape}, {"model", e.Model}} {
				if err := s.s.Check(e.Prec, k.Complex); err != nil {
					return fmt.Errorf("%w: %s (%s): %s: %v", ErrCorrupt, at, k, s.what, err)
				}
			}
			if e.Shape.Sets*gpuabi.SetBytes(e.Prec, e.Degree) > g.MaxShared {
				return fmt.Errorf("%w: %s (%s): %d sets at degree %d exceed the GPU's %d bytes of shared memory", ErrCorrupt, at, k, e.Shape.Sets, e.Degree, g.MaxShared)
			}
			if DegreeClass(e.Degree) != e.Degrees {
				return fmt.Errorf("%w: %s (%s): measured at degree %d, outside its band", ErrCorrupt, at, k, e.Degree)
			}
		}
		if err := g.validateNewton(); err != nil {
			return err
		}
	}
	return nil
}

// Parse reads a profile from its JSON and validates it.
func Parse(data []byte) (*Profile, error) {
	// The version first, so that a profile of another layout says so
	// rather than failing on a field this layout lacks.
	var head struct {
		Layout *int `json:"layout"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if head.Layout == nil {
		return nil, fmt.Errorf("%w: no layout version", ErrCorrupt)
	}
	if *head.Layout < OldestLayout || *head.Layout > LayoutVersion {
		return nil, fmt.Errorf("%w: layout version %d, this mdgen reads versions %d to %d (run mdgen tune again)", ErrVersion, *head.Layout, OldestLayout, LayoutVersion)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var p Profile
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: data after the profile", ErrCorrupt)
	}
	if p.Layout < 2 && p.NewtonEntries() > 0 {
		return nil, fmt.Errorf("%w: Newton entries in a profile of layout version %d", ErrCorrupt, p.Layout)
	}
	p.Layout = LayoutVersion // an older layout is this one without what it lacks
	p.upgradeKernels()
	if err := p.validate(); err != nil {
		return nil, err
	}
	return &p, nil
}

// upgradeKernels carries a profile tuned with the kernels of GPU layout
// version 2 over to version 3, which changed only the QR step of the
// Newton back end (its block 0 became the panel, gpuabi.LAQR): the
// evaluation entries hold as they are; the Newton entries' qr counts,
// tuned for the old step, give way to the model's (0).
func (p *Profile) upgradeKernels() {
	if p.Kernels != 2 || gpuabi.LayoutVersion != 3 {
		return
	}
	p.Kernels = 3
	for gi := range p.GPUs {
		for i := range p.GPUs[gi].Newton {
			e := &p.GPUs[gi].Newton[i]
			e.Shape.QR, e.Model.QR = 0, 0
		}
	}
}

// MaxProfileBytes is the most a profile file may hold, far more than a
// profile of every case tune sweeps: Read refuses a longer one.
var MaxProfileBytes int64 = 16 << 20

// Read reads and validates the profile in file path.
func Read(path string) (*Profile, error) {
	data, err := boundedread.ReadFile(path, "a tuning profile", MaxProfileBytes)
	if err != nil {
		return nil, err
	}
	p, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// New returns an empty profile of this mdgen's versions.
func New() *Profile { return &Profile{Layout: LayoutVersion, Kernels: gpuabi.LayoutVersion} }

// Marshal returns the profile's JSON (entries sorted), after validating it.
func (p *Profile) Marshal() ([]byte, error) {
	q := p.clone()
	q.sort()
	if err := q.validate(); err != nil {
		return nil, err
	}
	// Without HTML escapes: the size classes read "n<512", not "n\u003c512".
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(q); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Write writes the profile to path (its folder made when missing), all or
// nothing.
func (p *Profile) Write(path string) error {
	b, err := p.Marshal()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, b, 0o644)
}

func (p *Profile) clone() *Profile {
	q := *p
	q.GPUs = slices.Clone(p.GPUs)
	for i := range q.GPUs {
		q.GPUs[i].Entries = slices.Clone(q.GPUs[i].Entries)
		q.GPUs[i].Newton = slices.Clone(q.GPUs[i].Newton)
	}
	return &q
}

func (p *Profile) sort() {
	slices.SortFunc(p.GPUs, func(a, b GPU) int { return strings.Compare(a.Name+"\x00"+a.CC, b.Name+"\x00"+b.CC) })
	for i := range p.GPUs {
		slices.SortFunc(p.GPUs[i].Entries, func(a, b Entry) int {
			if c := a.Prec - b.Prec; c != 0 {
				return c
			}
			if c := strings.Compare(a.Data, b.Data); c != 0 {
				return c
			}
			if c := a.Degree - b.Degree; c != 0 {
				return c
			}
			return strings.Compare(a.Jobs, b.Jobs)
		})
		sortNewton(p.GPUs[i].Newton)
	}
}

// For returns the part of the profile of device d, or nil.
func (p *Profile) For(d Device) *GPU {
	if p == nil {
		return nil
	}
	for i := range p.GPUs {
		if p.GPUs[i].Device == d {
			return &p.GPUs[i]
		}
	}
	return nil
}

// Put adds the entry e of device d (whose blocks may get maxShared bytes
// of dynamic shared memory), replacing the entry of the same key.
func (p *Profile) Put(d Device, maxShared int, tuned string, e Entry) {
	putKeyed(&p.tunedGPU(d, maxShared, tuned).Entries, e)
}

// tunedGPU returns the GPU of device d, added when missing, with its
// maxShared and tuned set: what Put and PutNewton add entries to.
func (p *Profile) tunedGPU(d Device, maxShared int, tuned string) *GPU {
	g := p.For(d)
	if g == nil {
		p.GPUs = append(p.GPUs, GPU{Device: d})
		g = &p.GPUs[len(p.GPUs)-1]
	}
	g.MaxShared, g.Tuned = maxShared, tuned
	return g
}

// keyed is an entry of a profile: Entry or NewtonEntry.
type keyed[K comparable] interface{ Key() K }

// putKeyed replaces the entry of e's key in list, or appends e.
func putKeyed[K comparable, E keyed[K]](list *[]E, e E) {
	for i := range *list {
		if (*list)[i].Key() == e.Key() {
			(*list)[i] = e
			return
		}
	}
	*list = append(*list, e)
}

// lookupKeyed returns the entry of key k in list, if any.
func lookupKeyed[K comparable, E keyed[K]](list []E, k K) (E, bool) {
	for _, e := range list {
		if e.Key() == k {
			return e, true
		}
	}
	var zero E
	return zero, false
}

// Lookup returns the entry of key k, if any.
func (g *GPU) Lookup(k Key) (Entry, bool) {
	if g == nil {
		return Entry{}, false
	}
	return lookupKeyed(g.Entries, k)
}

// Shapes returns the launch shapes of the kernels of a plan of convJobs
// convolution jobs in convLayers layers on this GPU: the profile's shape
// of the convolution kernel where it has an entry for the key (and its
// shared memory fits at the degree asked), gpuabi.LaunchShape otherwise.
// A nil GPU gives gpuabi.LaunchShape.
func (g *GPU) Shapes(convJobs, convLayers int) gpuabi.ShapeFunc {
	if g == nil {
		return gpuabi.LaunchShape
	}
	jobs := JobsClass(convJobs, convLayers)
	entries := slices.Clone(g.Entries)
	maxShared := g.MaxShared
	return func(kind gpuabi.Kind, n int, complex bool, degree int) (int, int) {
		if kind == gpuabi.Conv && degree >= 0 {
			k := Key{Prec: n, Complex: complex, Degrees: DegreeClass(degree), Jobs: jobs}
			for _, e := range entries {
				if e.Key() != k {
					continue
				}
				shared := e.Shape.Sets * gpuabi.SetBytes(n, degree)
				if shared <= maxShared && e.Shape.Check(n, complex) == nil {
					return e.Shape.Block, shared
				}
			}
		}
		return gpuabi.LaunchShape(kind, n, complex, degree)
	}
}

// Subset returns the entries of the profile at precision prec (every GPU,
// every size class, the Newton entries too): what an emitted package of
// that precision carries.
func (p *Profile) Subset(prec mdops.Prec) *Profile {
	q := New()
	if p == nil {
		return q
	}
	for _, g := range p.GPUs {
		var es []Entry
		for _, e := range g.Entries {
			if e.Prec == prec.N && e.Data == prec.Kind() {
				es = append(es, e)
			}
		}
		var ns []NewtonEntry
		for _, e := range g.Newton {
			if e.Prec == prec.N && e.Data == prec.Kind() {
				ns = append(ns, e)
			}
		}
		if len(es) > 0 || len(ns) > 0 {
			h := g
			h.Entries, h.Newton = es, ns
			q.GPUs = append(q.GPUs, h)
		}
	}
	return q
}

// Entries counts the entries of the profile, the Newton entries included.
func (p *Profile) Entries() int {
	n := 0
	if p != nil {
		for _, g := range p.GPUs {
			n += len(g.Entries) + len(g.Newton)
		}
	}
	return n
}

// Devices lists the devices of the profile.
func (p *Profile) Devices() []Device {
	var ds []Device
	if p != nil {
		for _, g := range p.GPUs {
			ds = append(ds, g.Device)
		}
	}
	return ds
}

// DefaultPath returns the default location of the profile:
// os.UserConfigDir()/mdgen/tune.json ($XDG_CONFIG_HOME/mdgen/tune.json or
// ~/.config/mdgen/tune.json on Linux).
func DefaultPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "mdgen", "tune.json"), nil
}

// Blocks lists the block sizes the convolution kernel of n doubles takes
// that mdgen tune tries: the multiples of 32 up to its __launch_bounds__
// (gpuabi.ConvMaxThreads).
func Blocks(n int, complex bool) []int {
	var bs []int
	for b := 32; b <= gpuabi.ConvMaxThreads(n, complex); b += 32 {
		bs = append(bs, b)
	}
	return bs
}

// SetsFitting lists the staging choices (ConvSets) whose shared memory at
// degree fits in maxShared bytes.
func SetsFitting(n int, complex bool, degree, maxShared int) []int {
	var ss []int
	for _, s := range ConvSets(complex) {
		if s*gpuabi.SetBytes(n, degree) <= maxShared {
			ss = append(ss, s)
		}
	}
	return ss
}

// MakeShape returns the shape of block threads and sets staging sets,
// Split derived.
func MakeShape(n int, complex bool, block, sets int) Shape {
	return Shape{Block: block, Sets: sets, Split: Split(n, complex, sets)}
}
