package main

// mdgen track -slurm K: the run as a Slurm job array of K tasks, each
// tracking its range of paths into shards (mdgen track -shards, so that a
// task run again skips what it finished), and a merge job after them
// (--dependency=afterany: it runs when every task has ended, and fails,
// naming the missing paths, when one did not finish). mdgen track
// -slurm-resume DIR resubmits only the tasks whose paths are missing, and
// the merge. The GPUs a task may use are Slurm's (--gres=gpu:N through
// -sbatch sets CUDA_VISIBLE_DEVICES); on the CPU a task uses the CPUs of
// its allocation (Go's GOMAXPROCS follows the affinity Slurm sets).

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mdgen/mdgen/internal/atomicfile"
	"github.com/mdgen/mdgen/internal/boundedread"
)

// maxSlurmTasks is the most tasks of one job array (Slurm's MaxArraySize
// is at most 4000001): DIR/slurm.json stays small enough to be read whole.
const maxSlurmTasks = 1 << 20

// maxSlurmJobBytes bounds DIR/slurm.json as -slurm-resume reads it: its
// maxSlurmTasks ranges, indented, with room for the job ids.
const maxSlurmJobBytes = 128 << 20

// slurmJob is DIR/slurm.json: what -slurm-resume needs to resubmit.
type slurmJob struct {
	System string     `json:"system"`
	Total  int64      `json:"total_paths"`
	Tasks  [][2]int64 `json:"tasks"` // the range of each task (1-based, inclusive)
	Sbatch []string   `json:"sbatch"`
	// Jobs are the job ids submitted, in order: arrays and merges.
	Jobs []string `json:"jobs"`
}

// shellQuote quotes s for bash.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// slurmTasks splits paths 1..total into k ranges of sizes that differ by
// at most one.
func slurmTasks(total int64, k int) [][2]int64 {
	out := make([][2]int64, k)
	for i := range k {
		out[i] = [2]int64{total*int64(i)/int64(k) + 1, total * int64(i+1) / int64(k)}
	}
	return out
}

// submitSlurm writes the job's directory and submits the array and the
// merge.
func submitSlurm(fs *flag.FlagSet, sf *shardFlags, ts *trackSetup, stdout io.Writer, outFile string) error {
	total := ts.h.Paths()
	if int64(*sf.slurm) > total {
		return usagef("track: -slurm %d: the homotopy has %d paths; want at most one task per path", *sf.slurm, total)
	}
	if _, err := exec.LookPath("sbatch"); err != nil {
		return fmt.Errorf("track: -slurm: %w: -slurm submits with Slurm's sbatch (on a login node of the cluster)", err)
	}
	dir := *sf.slurmDir
	if dir == "" {
		dir = "mdgen-slurm-" + strings.TrimSuffix(filepath.Base(ts.arg), filepath.Ext(ts.arg))
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if strings.ContainsAny(dir, " \t\n%") {
		return usagef("track: -slurm-dir %q: want a path without spaces or %%, which sbatch's #SBATCH lines cannot hold", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "slurm.json")); err == nil {
		return fmt.Errorf("track: -slurm: %s holds a job already (resubmit its missing tasks with -slurm-resume %s, or choose another -slurm-dir)", dir, dir)
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("track: -slurm: the path of mdgen: %w", err)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	if strings.ContainsAny(cwd, " \t\n%") {
		return fmt.Errorf("track: -slurm: the working directory %q has spaces or %%, which sbatch's #SBATCH lines cannot hold", cwd)
	}
	// The tasks' command line: the flags given, less those of Slurm, the
	// outputs and the range, which the tasks set themselves.
	system := ts.arg
	if st, err := os.Stat(system); err == nil && !st.IsDir() {
		system, _ = filepath.Abs(system)
	}
	cmd := []string{shellQuote(exe), "track", shellQuote(system)}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "slurm", "slurm-dir", "sbatch", "chunk", "o", "shard", "shards", "paths", "json", "quiet":
			return
		}
		cmd = append(cmd, shellQuote("-"+f.Name+"="+f.Value.String()))
	})
	shards := filepath.Join(dir, "shards")
	job := &slurmJob{System: system, Total: total, Tasks: slurmTasks(total, *sf.slurm), Sbatch: strings.Fields(*sf.sbatch)}
	var ranges strings.Builder
	for _, r := range job.Tasks {
		fmt.Fprintf(&ranges, " %d:%d", r[0], r[1])
	}
	task := fmt.Sprintf(`#!/bin/bash
#SBATCH --job-name=mdgen-track
#SBATCH --output=%[8]s/logs/task-%%A_%%a.out
#SBATCH --chdir=%[9]s
# Written by mdgen track -slurm: array task i tracks the paths ranges[i]
# into shards of at most %[3]d paths in %[4]s (their first pass; the merge
# job tracks the crossed paths of the whole run again, and a task's own
# summary tracks those of its range); a task run again skips its
# complete shards. Submitted with sbatch --array=1-%[5]d (mdgen track
# -slurm-resume %[1]s resubmits the tasks whose paths are missing).
set -u
ranges=(none%[6]s)
exec %[7]s -paths "${ranges[$SLURM_ARRAY_TASK_ID]}" -shards %[4]s -chunk %[3]d -quiet
`, shellQuote(dir), shellQuote(cwd), *sf.chunk, shellQuote(shards), len(job.Tasks), ranges.String(), strings.Join(cmd, " "), dir, cwd)
	// The merge job checks that the shards cover every path (mdgen merge,
	// which names the missing ones), then puts them together with mdgen
	// track -shards, which finds every chunk there and tracks the crossed
	// paths of the whole run again (the tasks' shards hold their first
	// pass): the bits of one run.
	coverage := []string{shellQuote(exe), "merge", "-quiet", shellQuote(shards)}
	finish := append(slices.Clone(cmd), "-shards", shellQuote(shards), "-chunk", strconv.FormatInt(*sf.chunk, 10), "-json")
	if outFile != "" {
		abs, err := filepath.Abs(outFile)
		if err != nil {
			return err
		}
		finish = append(finish, "-o", shellQuote(abs))
	}
	mergeScript := fmt.Sprintf(`#!/bin/bash
#SBATCH --job-name=mdgen-merge
#SBATCH --output=%[4]s/logs/merge-%%j.out
#SBATCH --chdir=%[5]s
# Written by mdgen track -slurm: runs after the tasks (afterany) and merges
# their shards into %[1]s/merged.json; it fails, naming the missing paths,
# when a task did not finish: mdgen track -slurm-resume %[1]s resubmits it.
# mdgen merge checks the shards; mdgen track -shards then tracks the
# crossed paths of the whole run again, as one run does, and nothing else.
# mdgen track needs the run's system (and -start) file where the tasks
# read it.
set -u
rm -f %[1]s/coverage.part %[1]s/merged.json.part
%[2]s > %[1]s/coverage.part
rc=$?
if [ $rc -le 1 ] && [ -s %[1]s/coverage.part ]; then
	%[3]s > %[1]s/merged.json.part
	rc=$?
	if [ $rc -le 1 ] && [ -s %[1]s/merged.json.part ]; then
		mv %[1]s/merged.json.part %[1]s/merged.json
	else
		echo "mdgen: the merge's mdgen track failed (status $rc): it reads the run's system (and -start) file where the tasks did" >&2
	fi
else
	echo "mdgen track -slurm-resume %[1]s resubmits the tasks whose paths are missing" >&2
fi
rm -f %[1]s/coverage.part %[1]s/merged.json.part
exit $rc
`, shellQuote(dir), strings.Join(coverage, " "), strings.Join(finish, " "), dir, cwd)
	for _, d := range []string{shards, filepath.Join(dir, "logs")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	for name, text := range map[string]string{"task.sh": task, "merge.sh": mergeScript} {
		if err := atomicfile.WriteFile(filepath.Join(dir, name), []byte(text), 0o755); err != nil {
			return err
		}
	}
	if err := slurmSubmit(dir, job, fmt.Sprintf("1-%d", len(job.Tasks)), stdout); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "when it ends: %s/merged.json (mdgen track -json of the whole run); if a task failed: mdgen track -slurm-resume %s\n", dir, dir)
	return nil
}

// slurmSubmit submits the array tasks (sbatch's --array list) and a merge
// job after them, and records the ids in dir/slurm.json.
func slurmSubmit(dir string, job *slurmJob, tasks string, stdout io.Writer) error {
	var ids []string
	if tasks != "" {
		id, err := sbatch(append(append([]string{"--array=" + tasks}, job.Sbatch...), filepath.Join(dir, "task.sh")))
		if err != nil {
			return err
		}
		job.Jobs = append(job.Jobs, id)
		ids = append(ids, id)
		fmt.Fprintf(stdout, "submitted job array %s: tasks %s of %d (%s/logs/task-*.out)\n", id, tasks, len(job.Tasks), dir)
	}
	args := job.Sbatch
	if len(ids) > 0 {
		args = append([]string{"--dependency=afterany:" + strings.Join(ids, ":")}, args...)
	}
	id, err := sbatch(append(args, filepath.Join(dir, "merge.sh")))
	if err != nil {
		return err
	}
	job.Jobs = append(job.Jobs, id)
	fmt.Fprintf(stdout, "submitted merge job %s (%s/logs/merge-%s.out)\n", id, dir, id)
	b, err := json.MarshalIndent(job, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, "slurm.json"), append(b, '\n'), 0o644)
}

// sbatch submits a job and returns its id.
func sbatch(args []string) (string, error) {
	var out, errOut bytes.Buffer
	c := exec.Command("sbatch", append([]string{"--parsable"}, args...)...)
	c.Stdout, c.Stderr = &out, &errOut
	if err := c.Run(); err != nil {
		return "", fmt.Errorf("sbatch %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errOut.String()))
	}
	id, _, _ := strings.Cut(strings.TrimSpace(out.String()), ";") // "id;cluster" on a federation
	if _, err := strconv.ParseUint(id, 10, 64); err != nil {
		return "", fmt.Errorf("sbatch %s: no job id in its output %q", strings.Join(args, " "), out.String())
	}
	return id, nil
}

// check returns what in a job file is not what -slurm writes ("" when
// nothing): tasks that cover the paths 1..Total in order, at most
// maxSlurmTasks of them, and no more paths than one run holds.
func (job *slurmJob) check() string {
	if job.Total < 1 || job.Total > maxTrackPaths {
		return fmt.Sprintf("%d paths: want 1..%d", job.Total, maxTrackPaths)
	}
	if len(job.Tasks) == 0 || len(job.Tasks) > maxSlurmTasks {
		return fmt.Sprintf("%d tasks: want 1..%d", len(job.Tasks), maxSlurmTasks)
	}
	next := int64(1)
	for i, r := range job.Tasks {
		if r[0] != next || r[1] < r[0] || r[1] > job.Total {
			return fmt.Sprintf("task %d has the paths %d..%d: want the tasks to cover 1..%d in order", i+1, r[0], r[1], job.Total)
		}
		next = r[1] + 1
	}
	if next != job.Total+1 {
		return fmt.Sprintf("the tasks end at path %d of %d", next-1, job.Total)
	}
	return ""
}

// slurmResume resubmits the tasks of the job in dir whose paths no complete
// shard holds, and a merge after them (only the merge when every shard is
// there and the merge is not).
func slurmResume(dir string, stdout, stderr io.Writer) error {
	b, err := boundedread.ReadFile(filepath.Join(dir, "slurm.json"), "the job file of mdgen track -slurm", maxSlurmJobBytes)
	if err != nil {
		return fmt.Errorf("track: -slurm-resume: %w (not a directory of mdgen track -slurm)", err)
	}
	var job slurmJob
	if err := json.Unmarshal(b, &job); err != nil {
		return fmt.Errorf("track: -slurm-resume: %s/slurm.json: %w", dir, err)
	}
	if why := job.check(); why != "" {
		return fmt.Errorf("track: -slurm-resume: %s/slurm.json: %s: not the job file of mdgen track -slurm", dir, why)
	}
	files, err := filepath.Glob(filepath.Join(dir, "shards", "*.shard"))
	if err != nil {
		return err
	}
	var have []*shard
	for _, f := range files {
		// A file that is no shard is refused, not removed: only a shard
		// that a killed task cut short or damaged is.
		hdr, err := readShardHeader(f)
		if err != nil {
			return fmt.Errorf("track: -slurm-resume: %w (%s/shards holds the job's shards only)", err, dir)
		}
		if hdr.Total != job.Total {
			return fmt.Errorf("track: -slurm-resume: %s is a shard of a run of %d paths, the job's has %d", f, hdr.Total, job.Total)
		}
		sh, err := readShard(f)
		if err != nil {
			fmt.Fprintf(stderr, "mdgen: track: %v: removed, its task is resubmitted\n", err)
			if err := os.Remove(f); err != nil {
				return err
			}
			continue
		}
		if len(have) > 0 {
			if why := sameRun(&have[0].hdr, &sh.hdr); why != "" {
				return fmt.Errorf("track: -slurm-resume: %s is not a shard of the run of %s: %s", f, have[0].file, why)
			}
		}
		have = append(have, sh)
	}
	var missing []string
	for i, r := range job.Tasks {
		gaps := missingChunks(have, r[0]-1, r[1]-1, r[1]-r[0]+1)
		if len(gaps) == 0 {
			continue
		}
		n := int64(0)
		for _, g := range gaps {
			n += g[1] - g[0] + 1
		}
		fmt.Fprintf(stdout, "task %d (paths %d..%d): %d paths missing\n", i+1, r[0], r[1], n)
		missing = append(missing, strconv.Itoa(i+1))
	}
	if len(missing) == 0 {
		if _, err := os.Stat(filepath.Join(dir, "merged.json")); err == nil {
			fmt.Fprintf(stdout, "every task is complete and merged: %s/merged.json\n", dir)
			return nil
		}
		fmt.Fprintf(stdout, "every task is complete; the merge is resubmitted\n")
	}
	return slurmSubmit(dir, &job, strings.Join(missing, ","), stdout)
}
