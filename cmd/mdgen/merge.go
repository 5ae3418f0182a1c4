package main

// mdgen merge: the shards of one run put together into the output of the
// whole run (shard.go has the format).

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mdgen/mdgen/internal/atomicfile"
	"github.com/mdgen/mdgen/runtime/track"
)

const mergeUsage = `usage: mdgen merge SHARDS... [-o FILE] [-json] [-quiet]

Puts together the shards of one run of mdgen track (written by -shard FILE,
-shards DIR or -slurm; a directory stands for its *.shard files) and prints
what mdgen track prints for the whole run: the summary, with the
multiplicities from every path's endpoint as one run computes them, and
every endpoint (-quiet: not the endpoints); -json the JSON of mdgen track
-json; -o the PHCpack solution list of mdgen track -o. Every path has the
bits of one run, but for crossed paths (two paths at one regular root,
one of which jumped): one run tracks them again with smaller steps, and
merge, which has not the system, cannot. Shards of -shard FILE hold their
own crossed paths tracked again, not those split between shards; shards
of -shards and -slurm hold the first pass, and mdgen track with the run's
system and flags and -shards naming their folder tracks every crossed
path again (and nothing else when every chunk is there): the bits of one
run. merge names such paths on stderr. The times are the shards'
(seconds: their sum), workers the most of any shard.

The shards must belong to one run (the same mdgen version, system, homotopy,
precision rule and tracker options), be complete (a truncated or altered
shard is refused), and cover the paths 1..N of the homotopy exactly once:
gaps and overlaps are reported with their ranges. Bad input writes nothing
and exits with status 1, as does a run with failed paths (after the output).

`

func runMerge(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("merge", mergeUsage, stderr)
	asJSON := fs.Bool("json", false, "print one JSON object (mdgen track -json's)")
	quiet := fs.Bool("quiet", false, "text output: the summary only, no endpoints")
	outFile := fs.String("o", "", "write the finite endpoints as a PHCpack solution list to this `file` (mdgen track -o's)")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usagef("merge: no shards: give the shard files (or their directory)")
	}
	files, err := shardFiles(fs.Args())
	if err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	if *outFile != "" {
		if err := atomicfile.ResolveFile(*outFile, files...); err != nil {
			return usagef("merge: -o: %w", err)
		}
		for _, a := range fs.Args() {
			if st, err := os.Stat(a); err == nil && st.IsDir() && filepath.Ext(*outFile) == ".shard" && sameRegularFile(filepath.Dir(*outFile), a) {
				return usagef("merge: -o %s is a *.shard file in %s, a folder of shards: it would be read as one", *outFile, a)
			}
		}
	}
	shards := make([]*shard, len(files))
	for k, f := range files {
		if shards[k], err = readShard(f); err != nil {
			return fmt.Errorf("merge: %w", err)
		}
	}
	d, run, err := mergeShards(shards, 0, -1)
	if err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	if paths := stillCrossed(run); len(paths) > 0 && shards[0].hdr.FirstPass {
		fmt.Fprintf(stderr, "mdgen: merge: these shards hold their paths' first pass (-shards, -slurm): mdgen track with the run's system and flags "+
			"and -shards naming their folder tracks the %d crossed paths again, as one run does (it finds every chunk there and tracks nothing else)\n", len(paths))
	}
	return writeTrackOutputs(stdout, stderr, d, run, *asJSON, *quiet, *outFile)
}

// shardFiles expands the arguments: a directory stands for its *.shard
// files (sorted), a file for itself; each file once.
func shardFiles(args []string) ([]string, error) {
	var files []string
	seen := map[string]bool{}
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		names := []string{a}
		if st.IsDir() {
			if names, err = filepath.Glob(filepath.Join(a, "*.shard")); err != nil {
				return nil, err
			}
			if len(names) == 0 {
				return nil, fmt.Errorf("%s: no *.shard files in the directory", a)
			}
		}
		for _, n := range names {
			abs, err := filepath.Abs(n)
			if err != nil {
				return nil, err
			}
			if !seen[abs] {
				seen[abs] = true
				files = append(files, n)
			}
		}
	}
	return files, nil
}

// mergeShards checks that the shards belong to one run and cover the
// paths first..last (0-based; last < 0: to the end of the run) exactly once,
// and returns the run of those paths, classified as one run of that range,
// with its description. The shards may extend past the range.
func mergeShards(shards []*shard, first, last int64) (*trackDesc, *track.Run, error) {
	if len(shards) == 0 {
		return nil, nil, fmt.Errorf("no shards")
	}
	ref := shards[0]
	for _, s := range shards[1:] {
		if why := sameRun(&ref.hdr, &s.hdr); why != "" {
			return nil, nil, fmt.Errorf("%s is not a shard of the run of %s: %s", s.file, ref.file, why)
		}
	}
	total := ref.hdr.Total
	if last < 0 {
		last = total - 1
	}
	sorted := slices.Clone(shards)
	slices.SortStableFunc(sorted, func(a, b *shard) int {
		return cmp.Or(cmp.Compare(a.hdr.From, b.hdr.From), cmp.Compare(a.hdr.To, b.hdr.To))
	})
	if err := checkCoverage(sorted, first, last); err != nil {
		return nil, nil, err
	}
	run := &track.Run{Paths: make([]track.Path, 0, last-first+1), Scale: ref.hdr.Scale}
	workers := 0
	for _, s := range sorted {
		lo, hi := max(first+1, s.hdr.From), min(last+1, s.hdr.To)
		if lo > hi {
			continue
		}
		run.Paths = append(run.Paths, s.paths[lo-s.hdr.From:hi-s.hdr.From+1]...)
		run.Seconds += s.hdr.Seconds
		workers = max(workers, s.hdr.Workers)
	}
	track.Classify(run)
	d := ref.hdr.trackDesc
	d.First, d.Last, d.Workers = first, last, workers
	return &d, run, nil
}

// checkCoverage reports the gaps and overlaps of the sorted shards within
// the paths first..last (0-based).
func checkCoverage(sorted []*shard, first, last int64) error {
	var problems []string
	next := first + 1 // the first 1-based path not yet covered
	var prev *shard
	for _, s := range sorted {
		if s.hdr.To < first+1 || s.hdr.From > last+1 {
			continue
		}
		if s.hdr.From > next {
			problems = append(problems, fmt.Sprintf("gap: paths %d..%d are in no shard", next, s.hdr.From-1))
		}
		if prev != nil && s.hdr.From < next {
			problems = append(problems, fmt.Sprintf("overlap: paths %d..%d are in %s (%d..%d) and in %s (%d..%d)",
				s.hdr.From, min(next-1, s.hdr.To), prev.file, prev.hdr.From, prev.hdr.To, s.file, s.hdr.From, s.hdr.To))
		}
		if s.hdr.To+1 > next {
			next, prev = s.hdr.To+1, s
		}
	}
	if next <= last+1 {
		problems = append(problems, fmt.Sprintf("gap: paths %d..%d are in no shard", next, last+1))
	}
	if len(problems) > 0 {
		return fmt.Errorf("the shards do not cover paths %d..%d exactly once:\n  %s", first+1, last+1, strings.Join(problems, "\n  "))
	}
	return nil
}
