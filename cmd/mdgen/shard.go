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
	"strconv"

	"github.com/mdgen/mdgen/internal/atomicfile"
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
	HomotopyHash string `json:"homotopy_hash"` // H(x, tau) with gamma and chart, and the start solutions (Homotopy.Hash)
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
		Beta2: opt.Beta2, PredTol: opt.PredTol, EveryPoint: opt.CorrectEveryPoint}, nil
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
			rec := shardPath{Path: p.Index + 1, Status: p.Tracked.String(), Reason: p.Reason, Prec: p.Prec, X: p.X,
				T: floatText(p.T), Cond: floatText(p.Cond), Residual: floatText(p.Residual), Err: floatText(p.Err),
				Real: p.Real, Steps: p.Steps, Rejected: p.Rejected, Newton: p.Newton, Seconds: p.Seconds}
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

// readShardHeader reads the first line of a shard: enough to name its run
// and range.
func readShardHeader(file string) (*shardHeader, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(f, 1<<16).ReadBytes('\n')
	if err != nil && len(line) == 0 {
		return nil, fmt.Errorf("%s: empty: not a shard", file)
	}
	return parseShardHeader(file, line)
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
	return &hdr, nil
}

// readShard reads and checks a whole shard: header, every record in the
// order of the range, trailer and checksum.
func readShard(file string) (*shard, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	nl := bytes.IndexByte(data, '\n')
	if nl < 0 {
		if len(data) == 0 {
			return nil, fmt.Errorf("%s: empty: not a shard", file)
		}
		return nil, fmt.Errorf("%s: %w", file, errShardIncomplete)
	}
	hdr, err := parseShardHeader(file, data[:nl])
	if err != nil {
		return nil, err
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
	count := hdr.To - hdr.From + 1
	if tr.End.Paths != count {
		return nil, fmt.Errorf("%s: its trailer counts %d paths, its range %d..%d has %d", file, tr.End.Paths, hdr.From, hdr.To, count)
	}
	sh := &shard{file: file, hdr: *hdr, paths: make([]track.Path, 0, count)}
	lines := bytes.Split(body[nl+1:cut-1], []byte{'\n'})
	if cut-1 <= nl {
		lines = nil
	}
	if int64(len(lines)) != count {
		return nil, fmt.Errorf("%s: %d records for the %d paths of its range %d..%d", file, len(lines), count, hdr.From, hdr.To)
	}
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
	return p, nil
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
		{"homotopy (hash: the start solutions or the chart)", a.HomotopyHash, b.HomotopyHash},
		{"Padé degrees (-pade)", [2]int{a.PadeL, a.PadeM}, [2]int{b.PadeL, b.PadeM}},
		{"step limit (-max-steps)", a.MaxSteps, b.MaxSteps},
		{"tracker options (max step, beta1, beta2, predictor tolerance)", [4]float64{a.MaxStep, a.Beta1, a.Beta2, a.PredTol}, [4]float64{b.MaxStep, b.Beta1, b.Beta2, b.PredTol}},
		{"corrector rule (-every-point)", a.EveryPoint, b.EveryPoint},
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
