package main

// Shards: the paths of one run tracked in ranges (other processes, other
// hosts, Slurm's tasks) and merged by `mdgen merge` into the output of the
// whole run, the same bits for every path.
//
// A shard is a JSON Lines file: a header that names the run (mdgen's
// version, the hashes of the system and of the homotopy, gamma, seed,
// coordinates, the precision rule and the tracker's options with their
// defaults filled in, the number of paths and the range), one record per
// path of the range in the order of their indices (the status the tracker
// gave, before the multiplicities of the whole run; the endpoint's limbs,
// which JSON's shortest round-trip numbers keep exactly; the diagnostics
// as Go's shortest round-trip text, NaN and Inf included), and a trailer
// with the number of records and the SHA-256 of every byte before it, so
// that a truncated or altered shard is refused. Shards are written
// atomically (internal/atomicfile): a killed run leaves a complete shard or
// none.

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/mdgen/mdgen/internal/atomicfile"
	"github.com/mdgen/mdgen/internal/boundedread"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/track"
)

// shardFormat is the first field of every shard's header.
const shardFormat = "mdgen track shard 1"

// shardHeader names the run a shard belongs to, and its range.
type shardHeader struct {
	Format       string `json:"format"`
	Version      string `json:"mdgen"`
	SystemHash   string `json:"system_hash"`   // the target system f (track.SystemHash)
	HomotopyHash string `json:"homotopy_hash"` // H(x, tau) with gamma, the seed of the paths' charts, and the start solutions (Homotopy.Hash)
	trackDesc
	MinPrec  int     `json:"min_prec"`
	MaxPrec  int     `json:"max_prec"`
	PadeL    int     `json:"pade_l"`
	PadeM    int     `json:"pade_m"`
	MaxSteps int     `json:"max_steps"`
	MaxStep  float64 `json:"max_step"`
	Beta1    float64 `json:"beta1"`
	Beta2    float64 `json:"beta2"`
	PredTol  float64 `json:"pred_tol"`
	// EveryPoint: -every-point (track.Options.CorrectEveryPoint).
	EveryPoint bool `json:"every_point,omitempty"`
	// FirstPass: the crossed paths as the first pass ended them (the
	// chunks of -shards and of -slurm's tasks, track.Options.FirstPass):
	// mdgen track -shards tracks them again once every chunk is there
	// (track.TrackCrossed), which gives the bits of one run of every path.
	FirstPass bool `json:"first_pass,omitempty"`
	// Scale: the binary exponents of the units of the unknowns of a
	// badly scaled target (track.Run.Scale), which merge compares in.
	Scale []int `json:"scale,omitempty"`
	// From and To are the range (1-based, inclusive); Workers and Seconds
	// describe how the shard was made and are no part of the run's name.
	From    int64   `json:"first"`
	To      int64   `json:"last"`
	Workers int     `json:"workers"`
	Seconds float64 `json:"seconds"`
}

// shardPath is one path's record.
type shardPath struct {
	Path     int64     `json:"path"`   // 1-based
	Status   string    `json:"status"` // as tracked: before the multiplicities of the whole run
	Reason   string    `json:"reason,omitempty"`
	Prec     int       `json:"prec"`
	X        []float64 `json:"limbs"` // Path.X: null at infinity
	T        string    `json:"t"`
	Cond     string    `json:"cond"`
	Residual string    `json:"residual"`
	Err      string    `json:"err"`
	Real     bool      `json:"real"`
	Steps    int       `json:"steps"`
	Rejected int       `json:"rejected"`
	Newton   int       `json:"newton"`
	Seconds  float64   `json:"seconds"`
}

// shardTrailer ends a complete shard.
type shardTrailer struct {
	End struct {
		Paths  int64  `json:"paths"`
		SHA256 string `json:"sha256"` // of every byte before the trailer's line
	} `json:"end"`
}

// shardVersion is the version of mdgen that a shard records: runs of
// different builds may differ in their bits.
func shardVersion() string {
	v := readVersion()
	s := "mdgen " + v.Version
	if v.Revision != "" {
		s += " vcs " + v.Revision
		if v.Modified {
			s += " (modified)"
		}
	}
	return s
}

// newShardHeader names the run ts asks for (no range yet).
func newShardHeader(ts *trackSetup) (*shardHeader, error) {
	opt, err := ts.opt.Filled()
	if err != nil {
		return nil, err
	}
	return &shardHeader{Format: shardFormat, Version: shardVersion(), SystemHash: track.SystemHash(ts.h.Target),
		HomotopyHash: ts.h.Hash(), trackDesc: *describe(ts), MinPrec: opt.MinPrec, MaxPrec: opt.MaxPrec,
		PadeL: opt.PadeL, PadeM: opt.PadeM, MaxSteps: opt.MaxSteps, MaxStep: opt.MaxStep, Beta1: opt.Beta1,
		Beta2: opt.Beta2, PredTol: opt.PredTol, EveryPoint: opt.CorrectEveryPoint, Scale: scaleOf(ts.h)}, nil
}

// scaleOf returns the units of h's scaling (track.Run.Scale), nil when
// h is not scaled.
func scaleOf(h *track.Homotopy) []int {
	if h.Scaling == nil {
		return nil
	}
	return h.Scaling.Var
}

// floatText writes x so that strconv.ParseFloat reads it back exactly
// (NaN, +Inf and -Inf included).
func floatText(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// writeShard writes the paths of run (the range first..first+len-1,
// 0-based) to path atomically.
func writeShard(path string, hdr shardHeader, run *track.Run, first int64, workers int) error {
	hdr.From, hdr.To = first+1, first+int64(len(run.Paths))
	hdr.Workers, hdr.Seconds = workers, run.Seconds
	return atomicfile.Write(path, 0o644, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<16)
		sum := sha256.New()
		out := io.MultiWriter(bw, sum)
		line := func(v any) error {
			b, err := json.Marshal(v)
			if err != nil {
				return err
			}
			_, err = out.Write(append(b, '\n'))
			return err
		}
		if err := line(&hdr); err != nil {
			return err
		}
		for k := range run.Paths {
			p := &run.Paths[k]
			rec := shardRecord(p)
			if err := line(&rec); err != nil {
				return fmt.Errorf("path %d: %w", p.Index+1, err)
			}
		}
		var tr shardTrailer
		tr.End.Paths = int64(len(run.Paths))
		tr.End.SHA256 = hex.EncodeToString(sum.Sum(nil))
		if err := line(&tr); err != nil {
			return err
		}
		return bw.Flush()
	})
}

// shard is a shard read back: its header and its paths (Index 0-based,
// Tracked and Status the tracked status, no multiplicity yet).
type shard struct {
	file  string
	hdr   shardHeader
	paths []track.Path
}

// errShardIncomplete marks a shard without its trailer: a truncated file.
var errShardIncomplete = errors.New("truncated (no trailer: the file ends before its last line)")

// The longest lines a shard may hold: a longer one (/dev/zero, a file that
// is no shard) is refused after reading at most its limit, and a shard has
// no more lines than its header's range gives it, so that what is read
// stays within what the content needs.
const (
	// maxShardHeader bounds the header: the system's name, its unknowns
	// and their degrees.
	maxShardHeader = 16 << 20
	// shardRecordFixed bounds a record without its limbs: the reason of a
	// failed path, the numbers and counts.
	shardRecordFixed = 64 << 10
	// shardLimbBytes bounds one limb as JSON writes a float64, with its
	// comma ("-2.2250738585072014e-308,").
	shardLimbBytes = 25
)

// shardRecordLimit is the longest record of a shard of n unknowns: 2 N
// limbs per unknown at the highest generated precision N.
func shardRecordLimit(n int) int {
	return shardRecordFixed + n*2*slices.Max(mdops.Precisions())*shardLimbBytes
}

// errShardLine is a line longer than its limit.
var errShardLine = errors.New("line too long")

// readShardLine reads the next line (with its newline; without one at the
// end of the file, with io.EOF), refusing one longer than limit bytes
// with errShardLine after reading at most that much.
func readShardLine(br *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(line)+len(frag) > limit {
			return nil, errShardLine
		}
		line = append(line, frag...)
		if err != bufio.ErrBufferFull {
			return line, err
		}
	}
}

// openShard opens a shard and reads its header line (with its newline,
// when it has one), refusing a folder and a first line too long for a
// header.
func openShard(file string) (*os.File, *bufio.Reader, []byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, nil, nil, err
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, nil, nil, fmt.Errorf("%s: is a folder, not a shard", file)
	}
	br := bufio.NewReaderSize(f, 1<<16)
	line, err := readShardLine(br, maxShardHeader)
	switch {
	case errors.Is(err, errShardLine):
		err = fmt.Errorf("%s: not a shard of mdgen track (its first line is longer than %s, the limit of a shard's header)", file, boundedread.Size(maxShardHeader))
	case err == io.EOF && len(line) == 0:
		err = fmt.Errorf("%s: empty: not a shard", file)
	case err == io.EOF:
		err = nil
	case err != nil:
		err = fmt.Errorf("%s: %w", file, err)
	}
	if err != nil {
		f.Close()
		return nil, nil, nil, err
	}
	return f, br, line, nil
}

// readShardHeader reads the first line of a shard: enough to name its run
// and range.
func readShardHeader(file string) (*shardHeader, error) {
	f, _, line, err := openShard(file)
	if err != nil {
		return nil, err
	}
	f.Close()
	return parseShardHeader(file, bytes.TrimSuffix(line, []byte{'\n'}))
}

func parseShardHeader(file string, line []byte) (*shardHeader, error) {
	var format struct {
		Format string `json:"format"`
	}
	if err := json.Unmarshal(line, &format); err != nil || format.Format != shardFormat {
		return nil, fmt.Errorf("%s: not a shard of mdgen track (its first line is no %q header)", file, shardFormat)
	}
	var hdr shardHeader
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&hdr); err != nil {
		return nil, fmt.Errorf("%s: bad header: %w", file, err)
	}
	if hdr.Total < 1 || hdr.From < 1 || hdr.To < hdr.From || hdr.To > hdr.Total || len(hdr.Vars) == 0 {
		return nil, fmt.Errorf("%s: bad header: range %d..%d of %d paths, %d unknowns", file, hdr.From, hdr.To, hdr.Total, len(hdr.Vars))
	}
	if why := hdr.check(); why != "" {
		return nil, fmt.Errorf("%s: bad header: %s", file, why)
	}
	return &hdr, nil
}

// check returns what in a header that passed the range check is not what
// mdgen track writes ("" when nothing): the homotopy with its gamma,
// degrees or parameter, the precision rule and the tracker's options as
// track.Options.Filled gives them. The outputs rely on each.
func (h *shardHeader) check() string {
	switch h.Kind {
	case track.TotalDegree:
		switch {
		case h.Gamma == nil:
			return "a total-degree homotopy without gamma"
		case h.Param != "":
			return fmt.Sprintf("a total-degree homotopy with a parameter %q", h.Param)
		case len(h.Degrees) != len(h.Vars):
			return fmt.Sprintf("a total-degree homotopy with %d degrees for %d unknowns", len(h.Degrees), len(h.Vars))
		}
		for _, s := range h.Gamma {
			if v, err := strconv.ParseFloat(s, 64); err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
				return fmt.Sprintf("gamma %q is no finite number", s)
			}
		}
		paths := int64(1)
		for _, d := range h.Degrees {
			if d < 1 || paths > h.Total/int64(d) {
				return fmt.Sprintf("degrees %v do not make %d paths", h.Degrees, h.Total)
			}
			paths *= int64(d)
		}
		if paths != h.Total {
			return fmt.Sprintf("degrees %v do not make %d paths", h.Degrees, h.Total)
		}
	case track.Given:
		if h.Gamma != nil || h.Param == "" || len(h.Degrees) != 0 {
			return "a given homotopy has a parameter, and no gamma or degrees"
		}
	default:
		return fmt.Sprintf("homotopy %q: want %q or %q", h.Kind, track.TotalDegree, track.Given)
	}
	for _, v := range h.Vars {
		if v == "" || strings.ContainsFunc(v, func(r rune) bool { return unicode.IsSpace(r) || r == ':' || r == ';' }) {
			return fmt.Sprintf("unknown %q is no name", v)
		}
	}
	opt := track.Options{MinPrec: h.MinPrec, MaxPrec: h.MaxPrec, PadeL: h.PadeL, PadeM: h.PadeM, MaxSteps: h.MaxSteps,
		MaxStep: h.MaxStep, Beta1: h.Beta1, Beta2: h.Beta2, PredTol: h.PredTol, CorrectEveryPoint: h.EveryPoint}
	switch p := h.Prec.(type) {
	case string:
		if p != "auto" {
			return fmt.Sprintf("precision %q: want auto or doubles per number", p)
		}
	case float64:
		if opt.Prec = int(p); float64(opt.Prec) != p || opt.Prec == 0 {
			return fmt.Sprintf("precision %v: want auto or doubles per number", p)
		}
	default:
		return fmt.Sprintf("precision %v: want auto or doubles per number", p)
	}
	filled, err := opt.Filled()
	if err != nil {
		return err.Error()
	}
	if [4]int{filled.MinPrec, filled.MaxPrec, filled.PadeL + filled.PadeM, filled.MaxSteps} != [4]int{opt.MinPrec, opt.MaxPrec, opt.PadeL + opt.PadeM, opt.MaxSteps} ||
		[4]float64{filled.MaxStep, filled.Beta1, filled.Beta2, filled.PredTol} != [4]float64{opt.MaxStep, opt.Beta1, opt.Beta2, opt.PredTol} {
		return "tracker options without their defaults filled in"
	}
	return ""
}

// prec returns the header's fixed precision (0 for auto).
func (h *shardHeader) prec() int {
	switch p := h.Prec.(type) {
	case float64: // read back from JSON
		return int(p)
	case int: // made by newShardHeader
		return p
	}
	return 0
}

// readShard reads and checks a whole shard: header, every record in the
// order of the range, trailer and checksum. No line is longer than a
// header or a record of its unknowns can be, and there are no more lines
// than the range's records and the trailer: what is read is bounded by
// what the header claims and what the file holds.
func readShard(file string) (*shard, error) {
	f, br, data, err := openShard(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	nl := bytes.IndexByte(data, '\n')
	if nl < 0 {
		return nil, fmt.Errorf("%s: %w", file, errShardIncomplete)
	}
	hdr, err := parseShardHeader(file, data[:nl])
	if err != nil {
		return nil, err
	}
	count := hdr.To - hdr.From + 1
	limit := shardRecordLimit(len(hdr.Vars))
	for n := int64(1); ; n++ {
		line, err := readShardLine(br, limit)
		if len(line) > 0 && n > count+1 {
			return nil, fmt.Errorf("%s: more lines than the %d records of its range %d..%d and a trailer", file, count, hdr.From, hdr.To)
		}
		data = append(data, line...)
		if err == io.EOF {
			break
		}
		if errors.Is(err, errShardLine) {
			return nil, fmt.Errorf("%s: line %d is longer than %s, the most a record of %d unknowns takes", file, n+1, boundedread.Size(int64(limit)), len(hdr.Vars))
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
	}
	// The trailer is the last line; the checksum covers what precedes it.
	body := data
	if len(body) == 0 || body[len(body)-1] != '\n' {
		return nil, fmt.Errorf("%s: %w", file, errShardIncomplete)
	}
	cut := bytes.LastIndexByte(body[:len(body)-1], '\n') + 1
	var tr shardTrailer
	if cut <= nl || json.Unmarshal(body[cut:], &tr) != nil || tr.End.SHA256 == "" {
		return nil, fmt.Errorf("%s: %w", file, errShardIncomplete)
	}
	if sum := sha256.Sum256(body[:cut]); hex.EncodeToString(sum[:]) != tr.End.SHA256 {
		return nil, fmt.Errorf("%s: corrupt: its checksum does not match its contents", file)
	}
	if tr.End.Paths != count {
		return nil, fmt.Errorf("%s: its trailer counts %d paths, its range %d..%d has %d", file, tr.End.Paths, hdr.From, hdr.To, count)
	}
	lines := bytes.Split(body[nl+1:cut-1], []byte{'\n'})
	if cut-1 <= nl {
		lines = nil
	}
	if int64(len(lines)) != count {
		return nil, fmt.Errorf("%s: %d records for the %d paths of its range %d..%d", file, len(lines), count, hdr.From, hdr.To)
	}
	sh := &shard{file: file, hdr: *hdr, paths: make([]track.Path, 0, count)}
	for k, line := range lines {
		p, err := parseShardPath(line, hdr, hdr.From+int64(k))
		if err != nil {
			return nil, fmt.Errorf("%s: record %d: %w", file, k+1, err)
		}
		sh.paths = append(sh.paths, p)
	}
	return sh, nil
}

// parseShardPath reads the record of path want (1-based).
func parseShardPath(line []byte, hdr *shardHeader, want int64) (track.Path, error) {
	var rec shardPath
	if err := json.Unmarshal(line, &rec); err != nil {
		return track.Path{}, err
	}
	return shardPathOf(&rec, hdr, want)
}

// shardPathOf is the path of the record rec of path want (1-based).
func shardPathOf(rec *shardPath, hdr *shardHeader, want int64) (track.Path, error) {
	if rec.Path != want {
		return track.Path{}, fmt.Errorf("path %d where path %d belongs (records follow the range in order)", rec.Path, want)
	}
	p := track.Path{Index: rec.Path - 1, Reason: rec.Reason, Prec: rec.Prec, X: rec.X, Real: rec.Real,
		Steps: rec.Steps, Rejected: rec.Rejected, Newton: rec.Newton, Seconds: rec.Seconds}
	for s := track.Regular; s <= track.Failed; s++ {
		if rec.Status == s.String() {
			p.Status = s
		}
	}
	if p.Status == 0 {
		return p, fmt.Errorf("path %d: unknown status %q", rec.Path, rec.Status)
	}
	p.Tracked = p.Status
	if err := (mdops.Prec{N: p.Prec, Complex: true}).Check(); err != nil {
		return p, fmt.Errorf("path %d: %w", rec.Path, err)
	}
	if p.X != nil && len(p.X) != 2*p.Prec*len(hdr.Vars) {
		return p, fmt.Errorf("path %d: %d limbs for %d unknowns at %d doubles", rec.Path, len(p.X), len(hdr.Vars), p.Prec)
	}
	for _, f := range []struct {
		s   string
		dst *float64
	}{{rec.T, &p.T}, {rec.Cond, &p.Cond}, {rec.Residual, &p.Residual}, {rec.Err, &p.Err}} {
		v, err := strconv.ParseFloat(f.s, 64)
		if err != nil && !math.IsInf(v, 0) {
			return p, fmt.Errorf("path %d: bad number %q", rec.Path, f.s)
		}
		*f.dst = v
	}
	if why := checkShardPath(&p, hdr); why != "" {
		return p, fmt.Errorf("path %d: %s", rec.Path, why)
	}
	return p, nil
}

// checkShardPath returns what in the record p is not what the tracker
// gives under the header's rule ("" when nothing): the outputs rely on an
// endpoint for every finite solution, none at infinity, a precision of
// the run's rule, a t in [0, 1] and counts and times that are no less
// than 0.
func checkShardPath(p *track.Path, hdr *shardHeader) string {
	switch {
	case (p.Status == track.Regular || p.Status == track.Singular) && p.X == nil:
		return fmt.Sprintf("%s without its endpoint (limbs)", p.Status)
	case p.Status == track.Infinite && p.X != nil:
		return "at infinity with an endpoint (limbs)"
	case hdr.prec() != 0 && p.Prec != hdr.prec():
		return fmt.Sprintf("precision %d in a run at -prec %d", p.Prec, hdr.prec())
	case hdr.prec() == 0 && (p.Prec < hdr.MinPrec || p.Prec > hdr.MaxPrec):
		return fmt.Sprintf("precision %d outside the automatic rule's %d..%d", p.Prec, hdr.MinPrec, hdr.MaxPrec)
	case !(p.T >= 0 && p.T <= 1):
		return fmt.Sprintf("t = %v outside [0, 1]", p.T)
	case p.Steps < 0 || p.Rejected < 0 || p.Newton < 0 || !(p.Seconds >= 0):
		return "a count or time below 0"
	}
	return ""
}

// sameRun returns why b is not a shard of a's run ("" when it is): the
// first field of the header that differs, the system and the precision
// first.
func sameRun(a, b *shardHeader) string {
	text := func(v any) string {
		s, _ := json.Marshal(v)
		return string(s)
	}
	fields := []struct {
		what string
		x, y any
	}{
		{"shard format", a.Format, b.Format},
		{"system (hash)", a.SystemHash, b.SystemHash},
		{"number of paths", a.Total, b.Total},
		{"unknowns", a.Vars, b.Vars},
		{"precision (-prec)", a.Prec, b.Prec},
		{"lowest automatic precision (-min-prec)", a.MinPrec, b.MinPrec},
		{"highest automatic precision (-max-prec)", a.MaxPrec, b.MaxPrec},
		{"homotopy", a.Kind, b.Kind},
		{"coordinates (projective)", a.Projective, b.Projective},
		{"gamma", a.Gamma, b.Gamma},
		{"seed", a.Seed, b.Seed},
		{"degrees", a.Degrees, b.Degrees},
		{"parameter", a.Param, b.Param},
		{"homotopy (hash: the start solutions or the charts)", a.HomotopyHash, b.HomotopyHash},
		{"Padé degrees (-pade)", [2]int{a.PadeL, a.PadeM}, [2]int{b.PadeL, b.PadeM}},
		{"step limit (-max-steps)", a.MaxSteps, b.MaxSteps},
		{"tracker options (max step, beta1, beta2, predictor tolerance)", [4]float64{a.MaxStep, a.Beta1, a.Beta2, a.PredTol}, [4]float64{b.MaxStep, b.Beta1, b.Beta2, b.PredTol}},
		{"corrector rule (-every-point)", a.EveryPoint, b.EveryPoint},
		{"kind of shard (first pass: -shards and -slurm; tracked again within the shard: -shard)", a.FirstPass, b.FirstPass},
		{"scaling of the unknowns", a.Scale, b.Scale},
		{"mdgen version", a.Version, b.Version},
	}
	for _, f := range fields {
		if x, y := text(f.x), text(f.y); x != y {
			return fmt.Sprintf("another %s: %s, not %s", f.what, y, x)
		}
	}
	return ""
}

// shardName is the file name of the shard of paths first..last (0-based),
// the numbers padded to the digits of total so that names sort by range.
func shardName(first, last, total int64) string {
	w := len(strconv.FormatInt(total, 10))
	return fmt.Sprintf("paths-%0*d-%0*d.shard", w, first+1, w, last+1)
}
