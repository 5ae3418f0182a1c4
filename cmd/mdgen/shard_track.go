package main

// mdgen track's shards: -shard FILE (this run's range as a shard), -shards
// DIR -chunk K (a resumable run: one shard per chunk, the complete ones
// skipped) and -slurm K (slurm.go).

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/mdgen/mdgen/internal/atomicfile"
	"github.com/mdgen/mdgen/runtime/track"
)

// defaultChunk is the paths per shard of -shards and -slurm.
const defaultChunk = 4096

// shardFlags are mdgen track's flags for shards and Slurm.
type shardFlags struct {
	file, dir   *string
	chunk       *int64
	slurm       *int
	slurmDir    *string
	sbatch      *string
	slurmResume *string
}

const shardUsage = `Shards (a run in parts, merged by mdgen merge with the bits of one run):
-shard FILE also writes this run's paths (-paths a:b) to FILE; -shards DIR
tracks in chunks of -chunk K paths (1..K, K+1..2K, ...; within -paths a:b)
the paths that no complete shard in DIR holds, one shard per chunk (each
chunk's first pass), and then prints the run from DIR's shards with the
crossed paths of the whole range tracked again (two paths at one regular
root: one jumped), the bits of one run: a killed run, started again,
resumes where it stopped. -slurm K writes a Slurm job array of K tasks (each
tracking its range into -slurm-dir DIR/shards with -shards, so that a task
run again resumes too) and a merge job that runs after them, and submits
both with sbatch (-sbatch adds options: partition, time, --gres=gpu:N);
the merge writes DIR/merged.json (and -o FILE) with mdgen track -shards
(the crossed paths tracked again), and fails, naming the missing paths,
when a task did not finish. mdgen track -slurm-resume DIR
then resubmits the tasks whose paths are missing, and the merge, with the
same sbatch options. A task whose paths failed exits with status 1 and
complete shards: the merge reports the failed paths.

`

func addShardFlags(fs *flag.FlagSet) *shardFlags {
	return &shardFlags{
		file:        fs.String("shard", "", "also write the paths tracked to this shard `file` (mdgen merge reads it)"),
		dir:         fs.String("shards", "", "track the paths that no complete shard in this `directory` holds, a shard per chunk, and print the run from its shards (resumable)"),
		chunk:       fs.Int64("chunk", defaultChunk, "paths per shard with -shards and -slurm"),
		slurm:       fs.Int("slurm", 0, "write and submit a Slurm job array of this many `tasks`, and a merge job after them"),
		slurmDir:    fs.String("slurm-dir", "", "with -slurm: the `directory` of the job's scripts, shards, logs and results (default: mdgen-slurm-SYSTEM)"),
		sbatch:      fs.String("sbatch", "", "with -slurm: more `options` for sbatch, separated by spaces (e.g. --partition=gpu --gres=gpu:1)"),
		slurmResume: fs.String("slurm-resume", "", "resubmit the tasks of the Slurm job in this `directory` whose shards are missing, and its merge (no system argument)"),
	}
}

// check refuses combinations that make no sense, before any work.
func (sf *shardFlags) check(fs *flag.FlagSet) error {
	given := func(names ...string) string {
		for _, n := range names {
			if flagGiven(fs, n) {
				return n
			}
		}
		return ""
	}
	if *sf.chunk < 1 {
		return usagef("track: -chunk %d: want at least 1 path per shard", *sf.chunk)
	}
	if *sf.dir != "" && *sf.file != "" {
		return usagef("track: -shard and -shards: one or the other")
	}
	if given("chunk") != "" && *sf.dir == "" && *sf.slurm == 0 {
		return usagef("track: -chunk is for -shards and -slurm")
	}
	if *sf.slurm == 0 {
		if n := given("slurm-dir", "sbatch"); n != "" {
			return usagef("track: -%s is for -slurm", n)
		}
		return nil
	}
	if *sf.slurm < 1 || *sf.slurm > maxSlurmTasks {
		return usagef("track: -slurm %d: want 1..%d tasks", *sf.slurm, maxSlurmTasks)
	}
	if n := given("shard", "shards", "paths", "json", "quiet"); n != "" {
		return usagef("track: -%s with -slurm: the tasks track ranges of the whole run into shards, and the merge job writes DIR/merged.json", n)
	}
	return nil
}

// checkOutputs applies the rules of an output path to -o and -shard before
// any work (atomicfile.ResolveFile: no input replaced, no folder where a
// file is meant, no missing folder), and refuses what would replace
// another output of the run: -shard and -o naming one file, and -o naming
// a *.shard file in -shards DIR (it would replace a shard of the run, or
// be read as one when the run resumes); -shards and -slurm-dir must be
// folders (made when missing).
func (sf *shardFlags) checkOutputs(outFile string, inputs ...string) error {
	for _, o := range []struct{ flag, path string }{{"-o", outFile}, {"-shard", *sf.file}} {
		if o.path == "" {
			continue
		}
		if err := atomicfile.ResolveFile(o.path, inputs...); err != nil {
			return usagef("track: %s: %w", o.flag, err)
		}
	}
	for _, d := range []struct{ flag, path string }{{"-shards", *sf.dir}, {"-slurm-dir", *sf.slurmDir}} {
		if d.path == "" {
			continue
		}
		if err := atomicfile.ResolveDir(d.path, nil); err != nil {
			return usagef("track: %s: %w", d.flag, err)
		}
	}
	if outFile != "" && *sf.file != "" && sameRegularFile(outFile, *sf.file) {
		return usagef("track: -o %s and -shard %s name one file: give each its own", outFile, *sf.file)
	}
	if outFile != "" && *sf.dir != "" && filepath.Ext(outFile) == ".shard" && sameRegularFile(filepath.Dir(outFile), *sf.dir) {
		return usagef("track: -o %s is a *.shard file in -shards %s, where only the run's shards go: choose another name or folder", outFile, *sf.dir)
	}
	return nil
}

// sameRegularFile reports whether a and b name one file or folder (that
// exists, os.SameFile; or that does not yet, the same absolute path),
// special files (/dev/null) aside: those are written into, and may be
// named twice.
func sameRegularFile(a, b string) bool {
	sa, ea := os.Stat(a)
	sb, eb := os.Stat(b)
	if ea == nil && eb == nil {
		return (sa.Mode().IsRegular() || sa.IsDir()) && os.SameFile(sa, sb)
	}
	aa, err1 := filepath.Abs(a)
	ab, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == ab
}

// run does what the flags ask after the setup: false when they ask for
// nothing of shards or Slurm.
func (sf *shardFlags) run(fs *flag.FlagSet, ts *trackSetup, stdout, stderr io.Writer, asJSON, quiet bool, outFile string) (bool, error) {
	switch {
	case *sf.slurm > 0:
		return true, submitSlurm(fs, sf, ts, stdout, outFile)
	case *sf.dir != "":
		d, run, err := trackShards(ts, *sf.dir, *sf.chunk, stderr)
		if err != nil {
			return true, fmt.Errorf("track: %s: %w", ts.arg, err)
		}
		return true, writeTrackOutputs(stdout, stderr, d, run, asJSON, quiet, outFile)
	case *sf.file != "":
		hdr, err := newShardHeader(ts)
		if err != nil {
			return true, err
		}
		run, err := trackRun(ts, stderr)
		if err != nil {
			return true, fmt.Errorf("track: %s: %w", ts.arg, err)
		}
		d := describe(ts)
		d.Workers = trackWorkers(ts.opt.Workers, len(run.Paths))
		if err := writeShard(*sf.file, *hdr, run, ts.first, d.Workers); err != nil {
			return true, fmt.Errorf("track: -shard: %w", err)
		}
		return true, writeTrackOutputs(stdout, stderr, d, run, asJSON, quiet, outFile)
	}
	return false, nil
}

// trackShards tracks the paths ts.first..ts.last that no complete shard of
// this run in dir holds, in chunks of chunk paths (on the grid 1..chunk,
// chunk+1..2 chunk, ...), each into a shard of its own (their first pass:
// shardHeader.FirstPass), and returns the run of the whole range from the
// shards, its crossed paths tracked again (track.TrackCrossed): the bits
// of one run of the range, whichever chunks the crossed paths were in. A shard of another run in dir is
// refused; a damaged one (no trailer, a wrong checksum) within the range is
// removed and its paths tracked again.
func trackShards(ts *trackSetup, dir string, chunk int64, stderr io.Writer) (*trackDesc, *track.Run, error) {
	hdr, err := newShardHeader(ts)
	if err != nil {
		return nil, nil, err
	}
	// The chunks keep their first pass; the whole range tracks its crossed
	// paths again below, as one run of it does.
	hdr.FirstPass = true
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	have, err := completeShards(dir, hdr, ts.first, ts.last, stderr)
	if err != nil {
		return nil, nil, err
	}
	todo := missingChunks(have, ts.first, ts.last, chunk)
	var count int64
	for _, c := range todo {
		count += c[1] - c[0] + 1
	}
	if len(have) > 0 {
		fmt.Fprintf(stderr, "mdgen: track: %s: %d paths of %d..%d in %d complete shards, %d to track\n", dir, ts.last-ts.first+1-count, ts.first+1, ts.last+1, len(have), count)
	}
	if procs := runProcs(ts); procs != nil && len(todo) > 0 {
		// A process a GPU (track_procs.go), started once for every chunk
		// to track: each chunk's shard is written as soon as its paths
		// are all back.
		ps := *ts
		ps.opt.FirstPass = true
		var progress *progress
		ps.opt.Progress, progress = trackProgress(stderr, count)
		chunkStart := time.Now()
		_, err := trackProcesses(&ps, ps.opt, procs, &procChunks{ranges: todo, done: func(c [2]int64, paths []track.Path) error {
			file := filepath.Join(dir, shardName(c[0], c[1], ts.h.Paths()))
			// Its seconds: since the chunk before it was done (chunks
			// overlap on the GPUs; merge adds them up to the run's time).
			part := &track.Run{Paths: paths, Seconds: time.Since(chunkStart).Seconds()}
			chunkStart = time.Now()
			if err := writeShard(file, *hdr, part, c[0], trackWorkers(ts.opt.Workers, len(paths))); err != nil {
				return err
			}
			sh, err := readShard(file)
			if err != nil {
				return fmt.Errorf("reading back: %w", err)
			}
			have = append(have, sh)
			return nil
		}}, stderr)
		progress.done()
		if err != nil {
			return nil, nil, err
		}
		todo = nil
	}
	for _, c := range todo {
		// trackRun, as a run without shards: on the device that ts names.
		cs := *ts
		cs.first, cs.last = c[0], c[1]
		cs.opt.FirstPass = true
		run, err := trackRun(&cs, stderr)
		if err != nil {
			return nil, nil, err
		}
		file := filepath.Join(dir, shardName(c[0], c[1], ts.h.Paths()))
		if err := writeShard(file, *hdr, run, c[0], trackWorkers(ts.opt.Workers, len(run.Paths))); err != nil {
			return nil, nil, err
		}
		sh, err := readShard(file)
		if err != nil {
			return nil, nil, fmt.Errorf("reading back: %w", err)
		}
		have = append(have, sh)
	}
	d, run, err := mergeShards(have, ts.first, ts.last)
	if err != nil {
		return nil, nil, err
	}
	if err := track.TrackCrossed(ts.h, ts.opt, run); err != nil {
		return nil, nil, err
	}
	reportCrossed(stderr, run, ts.first)
	return d, run, nil
}

// completeShards reads the shards in dir that hold paths of first..last
// (0-based): every one must belong to the run of hdr; a damaged one is
// removed when its range lies within first..last (its paths are tracked
// again), else refused.
func completeShards(dir string, hdr *shardHeader, first, last int64, stderr io.Writer) ([]*shard, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.shard"))
	if err != nil {
		return nil, err
	}
	var have []*shard
	for _, f := range files {
		h, err := readShardHeader(f)
		if err != nil {
			return nil, fmt.Errorf("%w (-shards %s holds the shards of one run only)", err, dir)
		}
		if h.To < first+1 || h.From > last+1 {
			continue
		}
		if why := sameRun(hdr, h); why != "" {
			return nil, fmt.Errorf("%s is a shard of another run than this one: %s (-shards %s holds the shards of one run only)", f, why, dir)
		}
		sh, err := readShard(f)
		if err != nil {
			if h.From < first+1 || h.To > last+1 {
				return nil, err
			}
			fmt.Fprintf(stderr, "mdgen: track: %v: removed, its paths are tracked again\n", err)
			if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
				return nil, err
			}
			continue
		}
		have = append(have, sh)
	}
	return have, nil
}

// missingChunks returns the ranges (0-based, inclusive) of first..last that
// no shard holds, cut on the grid of chunk paths.
func missingChunks(have []*shard, first, last, chunk int64) [][2]int64 {
	covered := make([]bool, last-first+1)
	for _, s := range have {
		for i := max(s.hdr.From-1, first); i <= min(s.hdr.To-1, last); i++ {
			covered[i-first] = true
		}
	}
	var out [][2]int64
	for i := first; i <= last; {
		if covered[i-first] {
			i++
			continue
		}
		j := i
		end := min(last, (i/chunk+1)*chunk-1)
		for j < end && !covered[j+1-first] {
			j++
		}
		out = append(out, [2]int64{i, j})
		i = j + 1
	}
	return out
}
