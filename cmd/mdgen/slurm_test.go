package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSlurm runs mdgen track -slurm on a real Slurm cluster (CI makes a
// one-node one with scripts/slurm-localhost.sh): katsura8's 256 paths in 4
// array tasks on the CPU, task 2 killed with scancel, the merge job's
// failure naming its paths, -slurm-resume resubmitting task 2 only, and the
// merged JSON equal to one mdgen track -json run, path by path and bit for
// bit. It submits jobs, so it runs only when MDGEN_SLURM_TEST=1 asks for it
// (and fails then when there is no cluster).
func TestSlurm(t *testing.T) {
	if os.Getenv("MDGEN_SLURM_TEST") != "1" {
		t.Skip("MDGEN_SLURM_TEST=1 runs the Slurm test (it submits jobs to the cluster; scripts/slurm-localhost.sh makes one)")
	}
	for _, tool := range []string{"sbatch", "squeue", "scancel", "scontrol", "sinfo"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("MDGEN_SLURM_TEST=1 but no %s: %v", tool, err)
		}
	}
	if out, err := exec.Command("sinfo", "-h", "-o", "%T").CombinedOutput(); err != nil || !strings.Contains(string(out), "idle") && !strings.Contains(string(out), "mix") {
		t.Fatalf("MDGEN_SLURM_TEST=1 but no idle Slurm node: sinfo: %v: %s", err, out)
	}
	dir := t.TempDir()
	mdgen := filepath.Join(dir, "mdgen")
	if out, err := exec.Command("go", "build", "-o", mdgen, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	sh := func(name string, args ...string) string {
		t.Helper()
		var stderr strings.Builder
		c := exec.Command(name, args...)
		c.Stderr = &stderr
		out, err := c.Output()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, out, stderr.String())
		}
		return string(out)
	}
	one := sh(mdgen, "track", "katsura8", "-json")

	job := filepath.Join(dir, "job")
	// --hold: nothing starts before task 2 is killed; -workers 1: task 2
	// takes long enough to be killed while it runs (the bits do not
	// depend on the workers).
	t.Log(sh(mdgen, "track", "katsura8", "-workers", "1", "-slurm", "4", "-slurm-dir", job, "-sbatch=--hold --time=10"))
	jobs := slurmJobs(t, job)
	if len(jobs) != 2 {
		t.Fatalf("jobs %v: want the array and the merge", jobs)
	}
	array, merge := jobs[0], jobs[1]
	defer exec.Command("scancel", array, merge).Run()

	// Kill task 2 once it runs.
	task2 := array + "_2"
	sh("scontrol", "release", task2)
	waitSlurm(t, job, "task 2 to start", func() bool {
		state := queued(t, task2)
		return state == "" || !strings.Contains(state, "PENDING")
	})
	exec.Command("scancel", task2).Run() // it may have finished: see below
	waitSlurm(t, job, "task 2 to end", func() bool { return queued(t, task2) == "" })
	if names, _ := filepath.Glob(filepath.Join(job, "shards", "paths-065-128.shard")); len(names) > 0 {
		// A fast machine: the task finished first. Its shard goes, as if
		// it had been killed; the rest of the test is the same.
		t.Logf("task 2 finished before scancel: %s removed by hand", names[0])
		if err := os.Remove(names[0]); err != nil {
			t.Fatal(err)
		}
	}
	if logs, _ := filepath.Glob(filepath.Join(job, "logs", "task-"+array+"_2.out")); len(logs) > 0 {
		b, _ := os.ReadFile(logs[0])
		t.Logf("task 2's log: %s", b)
	}
	sh("scontrol", "release", array+"_1", array+"_3", array+"_4", merge)
	waitSlurm(t, job, "the tasks and the merge", func() bool { return queued(t, array, merge) == "" })
	if _, err := os.Stat(filepath.Join(job, "merged.json")); err == nil {
		t.Fatalf("the merge wrote merged.json without task 2's paths")
	}
	mergeLog, _ := os.ReadFile(filepath.Join(job, "logs", "merge-"+merge+".out"))
	if !strings.Contains(string(mergeLog), "gap: paths 65..128 are in no shard") {
		t.Fatalf("the merge's log does not name task 2's paths:\n%s", mergeLog)
	}

	resume := sh(mdgen, "track", "-slurm-resume", job)
	t.Log(resume)
	if !strings.Contains(resume, "task 2 (paths 65..128): 64 paths missing") || strings.Contains(resume, "task 1") || strings.Contains(resume, "task 3") || strings.Contains(resume, "task 4") {
		t.Fatalf("-slurm-resume: %s", resume)
	}
	jobs = slurmJobs(t, job)
	if len(jobs) != 4 {
		t.Fatalf("jobs %v after -slurm-resume: want a new array and a new merge", jobs)
	}
	defer exec.Command("scancel", jobs[2], jobs[3]).Run()
	sh("scontrol", "release", jobs[2], jobs[3])
	waitSlurm(t, job, "the resubmitted task and the merge", func() bool { return queued(t, jobs[2], jobs[3]) == "" })
	merged, err := os.ReadFile(filepath.Join(job, "merged.json"))
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(job, "logs", "merge-"+jobs[3]+".out"))
		t.Fatalf("no merged.json after the resubmission: %v\nmerge log:\n%s", err, log)
	}
	sameRunJSON(t, "Slurm", merged, []byte(one))
	var rep trackReport
	if err := json.Unmarshal(merged, &rep); err != nil || rep.Summary.Regular != 256 || len(rep.Solutions) != 256 {
		t.Errorf("merged: %v, summary %+v", err, rep.Summary)
	}
	if out := sh(mdgen, "track", "-slurm-resume", job); !strings.Contains(out, "every task is complete and merged") {
		t.Errorf("-slurm-resume of a finished job: %s", out)
	}
}

// slurmJobs reads the job ids that dir/slurm.json records.
func slurmJobs(t *testing.T, dir string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "slurm.json"))
	if err != nil {
		t.Fatal(err)
	}
	var job slurmJob
	if err := json.Unmarshal(b, &job); err != nil {
		t.Fatal(err)
	}
	return job.Jobs
}

// queued returns squeue's lines for the jobs ("" when none is queued).
func queued(t *testing.T, jobs ...string) string {
	t.Helper()
	out, err := exec.Command("squeue", "-h", "-j", strings.Join(jobs, ","), "-o", "%i %T %r").CombinedOutput()
	if err != nil && !strings.Contains(string(out), "Invalid job id") {
		t.Fatalf("squeue: %v: %s", err, out)
	}
	if strings.Contains(string(out), "Invalid job id") {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// waitSlurm polls done for up to two minutes, and fails with the queue and
// the job's logs when it does not come.
func waitSlurm(t *testing.T, dir, what string, done func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !done() {
		if time.Now().After(deadline) {
			q, _ := exec.Command("squeue").CombinedOutput()
			var logs strings.Builder
			names, _ := filepath.Glob(filepath.Join(dir, "logs", "*"))
			for _, n := range names {
				b, _ := os.ReadFile(n)
				fmt.Fprintf(&logs, "--- %s\n%s", n, b)
			}
			t.Fatalf("Slurm: waited 2 minutes for %s\nsqueue:\n%s\n%s", what, q, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestSlurmScripts: without a cluster (a fake sbatch that records its
// arguments), -slurm writes the task and merge scripts with the ranges and
// the flags of the run, submits the array and the merge after it, and
// -slurm-resume resubmits only the task whose shard is missing.
func TestSlurmScripts(t *testing.T) {
	bin := t.TempDir()
	calls := filepath.Join(bin, "calls")
	fake := "#!/bin/sh\necho \"$@\" >> " + calls + "\nn=$(wc -l < " + calls + ")\necho $((100 + n))\n"
	if err := os.WriteFile(filepath.Join(bin, "sbatch"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	job := filepath.Join(t.TempDir(), "job")
	out, errs, status := trackCmd(t, "katsura4", "-prec", "2", "-slurm", "3", "-slurm-dir", job, "-chunk", "4", "-sbatch", "--partition=cpu --time=5")
	if status != 0 {
		t.Fatalf("status %d: %s", status, errs)
	}
	if !strings.Contains(out, "submitted job array 101: tasks 1-3 of 3") || !strings.Contains(out, "submitted merge job 102") {
		t.Errorf("output: %s", out)
	}
	task, _ := os.ReadFile(filepath.Join(job, "task.sh"))
	for _, w := range []string{"ranges=(none 1:5 6:10 11:16)", " track katsura4 -prec=2 -paths \"${ranges[$SLURM_ARRAY_TASK_ID]}\" -shards " + filepath.Join(job, "shards") + " -chunk 4 -quiet", "#SBATCH --output=" + job + "/logs/task-%A_%a.out"} {
		if !strings.Contains(string(task), w) {
			t.Errorf("task.sh lacks %q:\n%s", w, task)
		}
	}
	merge, _ := os.ReadFile(filepath.Join(job, "merge.sh"))
	for _, w := range []string{" merge -quiet " + filepath.Join(job, "shards") + " > " + job + "/coverage.part",
		" track katsura4 -prec=2 -shards " + filepath.Join(job, "shards") + " -chunk 4 -json > " + job + "/merged.json.part"} {
		if !strings.Contains(string(merge), w) {
			t.Errorf("merge.sh lacks %q:\n%s", w, merge)
		}
	}
	want := "--parsable --array=1-3 --partition=cpu --time=5 " + job + "/task.sh\n" +
		"--parsable --dependency=afterany:101 --partition=cpu --time=5 " + job + "/merge.sh\n"
	if got, _ := os.ReadFile(calls); string(got) != want {
		t.Errorf("sbatch calls:\n%s\nwant\n%s", got, want)
	}
	// Tasks 1 and 3 ran (as task.sh runs them); task 2 did not.
	for _, r := range []string{"1:5", "11:16"} {
		if _, errs, status := trackCmd(t, "katsura4", "-prec=2", "-paths", r, "-shards", filepath.Join(job, "shards"), "-chunk", "4", "-quiet"); status != 0 {
			t.Fatal(errs)
		}
	}
	code, out, errs := runCLI(t, "track", "-slurm-resume", job)
	if code != 0 || !strings.Contains(out, "task 2 (paths 6..10): 5 paths missing") || strings.Contains(out, "task 1 ") || strings.Contains(out, "task 3 ") {
		t.Fatalf("-slurm-resume: status %d\n%s%s", code, out, errs)
	}
	want += "--parsable --array=2 --partition=cpu --time=5 " + job + "/task.sh\n" +
		"--parsable --dependency=afterany:103 --partition=cpu --time=5 " + job + "/merge.sh\n"
	if got, _ := os.ReadFile(calls); string(got) != want {
		t.Errorf("sbatch calls after -slurm-resume:\n%s\nwant\n%s", got, want)
	}
	if jobs := slurmJobs(t, job); strings.Join(jobs, ",") != "101,102,103,104" {
		t.Errorf("slurm.json jobs %v", jobs)
	}
	if _, errs, status := trackCmd(t, "katsura4", "-slurm", "2", "-slurm-dir", job); status != 1 || !strings.Contains(errs, "holds a job already") {
		t.Errorf("-slurm into a job's directory: status %d: %s", status, errs)
	}
}
