package main

// Probes of hostile input to mdgen track, merge and bench -track (issue
// 20's classes on the tracker's surfaces): shards forged with a valid
// checksum, endless or oversized shards, outputs that would replace an
// input or one another, and flag values the tracker would only refuse
// after the work (or never).

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// forgeShard writes to dst the shard src with its header and records
// changed by edit (decoded as JSON objects; edit returns the records to
// write) and a trailer signed again for the new contents, as someone who
// read shard.go would: the checksum guards against accidents, not against
// a forger, so that every other field must be checked. paths is the
// trailer's count (-1: the records written).
func forgeShard(t *testing.T, src, dst string, paths int64, edit func(h map[string]any, recs []map[string]any) []map[string]any) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	var h map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &h); err != nil {
		t.Fatal(err)
	}
	var recs []map[string]any
	for _, l := range lines[1 : len(lines)-1] {
		var r map[string]any
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	recs = edit(h, recs)
	var body bytes.Buffer
	for _, v := range append([]any{h}, func() []any {
		out := make([]any, len(recs))
		for k := range recs {
			out[k] = recs[k]
		}
		return out
	}()...) {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		body.Write(append(b, '\n'))
	}
	if paths < 0 {
		paths = int64(len(recs))
	}
	sum := sha256.Sum256(body.Bytes())
	var tr shardTrailer
	tr.End.Paths, tr.End.SHA256 = paths, hex.EncodeToString(sum[:])
	b, _ := json.Marshal(tr)
	body.Write(append(b, '\n'))
	if err := os.WriteFile(dst, body.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestMergeForgedShards: shards whose checksum is right but whose content
// is no tracker's (a header that contradicts itself, a range of 10^15
// paths, a finite path without its endpoint, a t of NaN), endless input
// (/dev/zero), a line longer than any record and text after the trailer:
// each refused with the file and the reason, exit status 1, nothing
// written, no panic and no allocation for what the header only claims.
func TestMergeForgedShards(t *testing.T) {
	dir := t.TempDir()
	shard := func(name string, args ...string) string { return trackShard(t, dir, name, args...) }
	a := shard("a.shard", "katsura3", "-prec", "2", "-paths", "1:4")
	b := shard("b.shard", "katsura3", "-prec", "2", "-paths", "5:8")
	forge := func(name string, paths int64, edit func(h map[string]any, recs []map[string]any)) string {
		return forgeShard(t, a, filepath.Join(dir, name), paths, func(h map[string]any, recs []map[string]any) []map[string]any {
			edit(h, recs)
			return recs
		})
	}
	data, _ := os.ReadFile(a)
	longLine := writeTemp(t, dir, "long.shard", strings.Replace(string(data), `"reason":`, `"reason":"`+strings.Repeat("x", 1<<20)+`",`, 1))
	if !strings.Contains(string(data), `"reason":`) {
		nl := bytes.IndexByte(data, '\n')
		longLine = writeTemp(t, dir, "long.shard", string(data[:nl+1])+`{"path":1,"reason":"`+strings.Repeat("x", 1<<20)+"\"}\n"+string(data[nl+1:]))
	}
	for _, c := range []struct {
		name  string
		files []string
		want  []string
	}{
		{"endless", []string{a, "/dev/zero"}, []string{"/dev/zero", "longer than 16 MiB"}},
		{"no gamma", []string{forge("nogamma.shard", -1, func(h map[string]any, _ []map[string]any) { h["gamma"] = nil }), b},
			[]string{"nogamma.shard", "bad header", "without gamma"}},
		{"unknown homotopy", []string{forge("kind.shard", -1, func(h map[string]any, _ []map[string]any) { h["homotopy"] = "other" }), b},
			[]string{"kind.shard", `homotopy "other"`}},
		{"degrees", []string{forge("degrees.shard", -1, func(h map[string]any, _ []map[string]any) { h["total_paths"] = 1e15 }), b},
			[]string{"degrees.shard", "do not make 1000000000000000 paths"}},
		{"huge range", []string{forge("huge.shard", 1e15, func(h map[string]any, _ []map[string]any) {
			h["homotopy"], h["gamma"], h["degrees"], h["param"] = "given", nil, nil, "tau"
			h["total_paths"], h["last"] = 1e15, 1e15
		})}, []string{"huge.shard", "4 records for the 1000000000000000 paths"}},
		{"precision list", []string{forge("prec.shard", -1, func(h map[string]any, _ []map[string]any) { h["prec"] = []int{1, 2} }), b},
			[]string{"prec.shard", "precision [1 2]"}},
		{"bad Padé", []string{forge("pade.shard", -1, func(h map[string]any, _ []map[string]any) { h["pade_l"] = 40 }), b},
			[]string{"pade.shard", "Padé"}},
		{"unknown with a space", []string{forge("var.shard", -1, func(h map[string]any, _ []map[string]any) { h["variables"].([]any)[0] = "a b" }), b},
			[]string{"var.shard", `unknown "a b" is no name`}},
		{"regular without endpoint", []string{forge("nox.shard", -1, func(_ map[string]any, recs []map[string]any) { recs[1]["limbs"] = nil }), b},
			[]string{"nox.shard", "record 2: path 2: regular without its endpoint"}},
		{"another precision", []string{forge("recprec.shard", -1, func(_ map[string]any, recs []map[string]any) {
			recs[0]["prec"], recs[0]["limbs"] = 1, recs[0]["limbs"].([]any)[:8]
		}), b}, []string{"recprec.shard", "precision 1 in a run at -prec 2"}},
		{"t NaN", []string{forge("nan.shard", -1, func(_ map[string]any, recs []map[string]any) { recs[0]["t"] = "NaN" }), b},
			[]string{"nan.shard", "t = NaN outside [0, 1]"}},
		{"negative steps", []string{forge("steps.shard", -1, func(_ map[string]any, recs []map[string]any) { recs[0]["steps"] = -3 }), b},
			[]string{"steps.shard", "below 0"}},
		{"long line", []string{longLine, b}, []string{"long.shard", "line 2 is longer than"}},
		{"after the trailer", []string{writeTemp(t, dir, "after.shard", string(data)+strings.Repeat("x", 1000)), b},
			[]string{"after.shard", "more lines than the 4 records"}},
	} {
		out := filepath.Join(dir, "out.sols")
		stdout, errs, status := mergeCmd(t, append([]string{"-o", out, "-json"}, c.files...)...)
		if status != 1 || stdout != "" {
			t.Errorf("%s: status %d, stdout %q; want 1 and nothing", c.name, status, stdout)
		}
		for _, w := range c.want {
			if !strings.Contains(errs, w) {
				t.Errorf("%s: %q does not say %q", c.name, errs, w)
			}
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%s: merge wrote %s", c.name, out)
		}
	}
	if _, errs, status := mergeCmd(t, "-quiet", a, b); status != 0 {
		t.Errorf("merge a b: status %d: %s", status, errs)
	}
}

// TestTrackHostileOutputs: -shard is an output like -o (never the system
// or the start file); -o and -shard never name one file; -o never puts a
// *.shard file into -shards DIR; -shards is a folder; a missing folder
// of -o or -shard (and of solve's and merge's -o) fails at once, not after
// the work; -min-prec above -max-prec is a usage error that names both.
// Each exits with status 2 and leaves every file as it was.
func TestTrackHostileOutputs(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	sys := writeTemp(t, dir, "k3.txt", "4\nu0^2 + 2*u1^2 + 2*u2^2 + 2*u3^2 - u0;\n2*u0*u1 + 2*u1*u2 + 2*u2*u3 - u1;\n2*u0*u2 + u1^2 + 2*u1*u3 - u2;\nu0 + 2*u1 + 2*u2 + 2*u3 - 1;\n")
	if _, errs, status := trackCmd(t, sys, "-shards", "sd", "-chunk", "4", "-quiet"); status != 0 {
		t.Fatal(errs)
	}
	shard := filepath.Join("sd", "paths-1-4.shard")
	before := map[string][]byte{}
	for _, f := range []string{sys, shard} {
		before[f], _ = os.ReadFile(f)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"track", sys, "-shard", sys}, "-shard: " + sys + " is the input file"},
		{[]string{"track", sys, "-shard", "x.out", "-o", "x.out"}, "name one file"},
		{[]string{"track", sys, "-shard", "nodir/a.shard"}, "-shard: nodir/a.shard cannot be written: the folder nodir does not exist"},
		{[]string{"track", sys, "-o", "nodir/a.txt"}, "-o: nodir/a.txt cannot be written: the folder nodir does not exist"},
		{[]string{"track", sys, "-shards", "sd", "-o", shard}, "is a *.shard file in -shards sd"},
		{[]string{"track", sys, "-shards", "sd", "-o", "sd/../sd/new.shard"}, "is a *.shard file in -shards sd"},
		{[]string{"track", sys, "-shards", sys}, "-shards: " + sys + " is not a folder"},
		{[]string{"track", sys, "-min-prec", "8", "-max-prec", "2"}, "-min-prec 8 is above -max-prec 2"},
		{[]string{"track", sys, "-min-prec", "16"}, "-min-prec 16 is above -max-prec 8"},
		{[]string{"solve", "cyclic3:newton", "-o", "nodir/x.txt"}, "the folder nodir does not exist"},
		{[]string{"merge", "sd", "-o", "nodir/x.txt"}, "the folder nodir does not exist"},
		{[]string{"merge", "sd", "-o", "sd/merged.shard"}, "-o sd/merged.shard is a *.shard file in sd"},
	} {
		args := c.args
		if args[0] != "solve" {
			args = append(args, "-quiet")
		}
		code, _, errs := runCLI(t, args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, %q; want 2 and %q", c.args, code, errs, c.want)
		}
	}
	for f, b := range before {
		if now, _ := os.ReadFile(f); !bytes.Equal(now, b) {
			t.Errorf("%s was changed", f)
		}
	}
	for _, f := range []string{"x.out", "nodir", "sd/new.shard", "sd/merged.shard"} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s was written", f)
		}
	}
	noTemporaries(t, dir)
	noTemporaries(t, "sd")
	// Special files may be named by both.
	if _, errs, status := trackCmd(t, sys, "-shard", os.DevNull, "-o", os.DevNull, "-quiet"); status != 0 {
		t.Errorf("-shard and -o %s: %s", os.DevNull, errs)
	}
}

// TestBenchTrackHostileFlags: bench -track's -workers 0 (which marks the
// GPU's rows inside) is a usage error, not a nil GPU; no system is one
// too; a family of more paths than one run holds is refused with its
// count before any output (it tracked every path in one run, allocated
// up front). A bad number in any comma-separated flag list is a usage
// error (status 2) that names the command and the flag, not "bench:".
func TestBenchTrackHostileFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"bench", "-track", "-systems", "katsura3", "-precs", "1", "-workers", "0"}, 2, "bench -track: -workers 0: want worker counts 1..1024"},
		{[]string{"bench", "-track", "-systems", " , ", "-precs", "1"}, 2, `-systems " , ": no system`},
		{[]string{"bench", "-track", "-systems", "katsura3,katsura25", "-precs", "1", "-workers", "1"}, 1, "katsura25: 33554432 paths: bench -track tracks every path in one run, at most 16777216"},
		{[]string{"bench", "-track", "-workers", "x"}, 2, `bench -track: -workers: bad worker count "x"`},
		{[]string{"bench", "-track", "-phc-timeout", "-1s"}, 2, "-phc-timeout -1s: want a positive duration"},
		{[]string{"track", "katsura3", "-gpu", "-devices", "-1"}, 2, `track: -devices: bad GPU ordinal "-1"`},
		{[]string{"tune", "-prec", "1,x"}, 2, `tune: -prec: bad precision "x"`},
		{[]string{"bench", "-degrees", "1,-2"}, 2, `bench: -degrees: bad degree "-2"`},
	} {
		code, stdout, errs := runCLI(t, c.args...)
		if code != c.code || !strings.Contains(errs, c.want) || strings.Contains(errs, "panic") {
			t.Errorf("%q: exit %d, %q; want %d and %q", c.args, code, errs, c.code, c.want)
		}
		if c.code == 1 && stdout != "" {
			t.Errorf("%q: printed %q before failing", c.args, stdout)
		}
	}
}

// TestSlurmResumeHostile: -slurm-resume reads slurm.json with a cap
// (/dev/zero behind it ran out of memory), refuses a job file whose tasks
// do not cover the paths as -slurm writes them (a range of 10^15 paths
// allocated a flag per path), and refuses rather than removes a file in
// shards/ that is no shard (it removed it as "damaged"); without sbatch,
// -slurm fails before it writes anything; -slurm K beyond the most tasks
// of a job array is a usage error.
func TestSlurmResumeHostile(t *testing.T) {
	bin := t.TempDir()
	calls := filepath.Join(bin, "calls")
	fake := "#!/bin/sh\necho \"$@\" >> " + calls + "\necho 100\n"
	if err := os.WriteFile(filepath.Join(bin, "sbatch"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	endless := filepath.Join(dir, "endless")
	os.MkdirAll(filepath.Join(endless, "shards"), 0o755)
	if err := os.Symlink("/dev/zero", filepath.Join(endless, "slurm.json")); err != nil {
		t.Fatal(err)
	}
	forged := filepath.Join(dir, "forged")
	os.MkdirAll(filepath.Join(forged, "shards"), 0o755)
	writeTemp(t, forged, "slurm.json", `{"system":"katsura3","total_paths":1000000000000000,"tasks":[[1,1000000000000000]],"sbatch":[]}`)
	gaps := filepath.Join(dir, "gaps")
	os.MkdirAll(filepath.Join(gaps, "shards"), 0o755)
	writeTemp(t, gaps, "slurm.json", `{"system":"katsura3","total_paths":8,"tasks":[[1,3],[5,8]],"sbatch":[]}`)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	job := filepath.Join(dir, "job")
	if _, errs, status := trackCmd(t, "katsura3", "-slurm", "2", "-slurm-dir", job); status != 0 {
		t.Fatal(errs)
	}
	foreign := writeTemp(t, filepath.Join(job, "shards"), "notes.shard", "my notes\n")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-slurm-resume", endless}, 1, "more than 128 MiB, the limit of the job file"},
		{[]string{"-slurm-resume", forged}, 1, "1000000000000000 paths: want 1..16777216"},
		{[]string{"-slurm-resume", gaps}, 1, "task 2 has the paths 5..8: want the tasks to cover 1..8 in order"},
		{[]string{"-slurm-resume", job}, 1, "notes.shard: not a shard of mdgen track"},
		{[]string{"katsura3", "-slurm", "2000000"}, 2, "-slurm 2000000: want 1..1048576 tasks"},
	} {
		_, errs, status := trackCmd(t, c.args...)
		if status != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("track %q: status %d, %q; want %d and %q", c.args, status, errs, c.code, c.want)
		}
	}
	if _, err := os.Stat(foreign); err != nil {
		t.Errorf("-slurm-resume removed a file that is no shard: %v", err)
	}
	t.Setenv("PATH", t.TempDir())
	nothing := filepath.Join(dir, "nosbatch")
	if _, errs, status := trackCmd(t, "katsura3", "-slurm", "2", "-slurm-dir", nothing); status != 1 || !strings.Contains(errs, "sbatch") {
		t.Errorf("-slurm without sbatch: status %d: %s", status, errs)
	}
	if _, err := os.Stat(nothing); err == nil {
		t.Errorf("-slurm without sbatch wrote %s", nothing)
	}
}

// TestTrackGivenNamesItsParameter: the text output, the -o list's comment
// and a shard's header name a given homotopy's parameter as the system
// does (they named the tracker's inner tau = 1 - t).
func TestTrackGivenNamesItsParameter(t *testing.T) {
	dir := t.TempDir()
	sys := writeTemp(t, dir, "h.txt", "1 2\n(1-s)*(x^2 - 1) + s*(x^2 - 3);\n")
	start := writeTemp(t, dir, "start.txt", "x 1\n")
	out, shard := filepath.Join(dir, "out.sols"), filepath.Join(dir, "p.shard")
	stdout, errs, status := trackCmd(t, sys, "-param", "s", "-start", start, "-o", out, "-shard", shard, "-quiet")
	if status != 0 {
		t.Fatal(errs)
	}
	o, _ := os.ReadFile(out)
	hdr, err := readShardHeader(shard)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "given homotopy in s,") || !strings.Contains(string(o), "given homotopy in s,") || hdr.Param != "s" {
		t.Errorf("the parameter is not named s:\n%s\n%s\nshard: %q", stdout, o, hdr.Param)
	}
}

// TestTrackStartPositions: a start solution that is not at t = 0, or does
// not solve the start system, is named with its file, line and column (as
// the reader's errors are), in a -start file and in the system's own list.
func TestTrackStartPositions(t *testing.T) {
	dir := t.TempDir()
	sys := writeTemp(t, dir, "h.txt", "1 2\n(1-t)*(x^2 - 1) + t*(x^2 - 3);\n")
	list := "THE SOLUTIONS :\n1 1\n===\nsolution 1 :\nt : 0.5 0\nm : 1\nthe solution for t :\n x : 1 0\n== err : 0 = rco : 1 = res : 0 ==\n"
	half := writeTemp(t, dir, "half.sols", list)
	far := writeTemp(t, dir, "far.txt", "\nx 5\n")
	own := writeTemp(t, dir, "own.txt", "1 2\n(1-t)*(x^2 - 1) + t*(x^2 - 3);\n\n"+list)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{sys, "-start", half}, half + ":5:1: start solution 1 is at t = 1/2, not at t = 0"},
		{[]string{own}, own + ":8:1: start solution 1 is at t = 1/2"},
		{[]string{sys, "-start", far}, far + ":2:1: start solution 1 does not solve the start system"},
	} {
		_, errs, _ := trackCmd(t, append(c.args, "-quiet")...)
		if !strings.Contains(errs, c.want) {
			t.Errorf("track %q: %q does not say %q", c.args, errs, c.want)
		}
	}
}

// TestTrackEquationPositions: an equation that leaves no total-degree
// homotopy (zero, or a nonzero constant, after expansion) is named with
// the file, line and column where it begins, and the exit status is 1.
func TestTrackEquationPositions(t *testing.T) {
	dir := t.TempDir()
	zero := writeTemp(t, dir, "zero.txt", "2\n x^2 + y - 1;\n\n   x - x;\n")
	constant := writeTemp(t, dir, "const.txt", "2\r\n x^2 + y - 1;\r\n  (x+1)^2 - x^2 - 2*x;\r\n")
	for _, c := range []struct{ file, want string }{
		{zero, zero + ":4:4: equation 2 of the target is zero"},
		{constant, constant + ":3:3: equation 2 of the target is a nonzero constant"},
	} {
		_, errs, status := trackCmd(t, c.file, "-quiet")
		if status != 1 || !strings.Contains(errs, "mdgen: track: "+c.want) {
			t.Errorf("track %s: status %d, %q does not say %q", c.file, status, errs, c.want)
		}
	}
}

// TestTrackUnreadableList: the total-degree homotopy of a system without a
// parameter reads no solution list, so a list the reader refuses (PHCpack's
// diagnostics lists, a solution without its t) is skipped with a warning;
// a variable named e is read, with a warning that phc reads it otherwise.
func TestTrackUnreadableList(t *testing.T) {
	dir := t.TempDir()
	sys := writeTemp(t, dir, "sys.txt", "2\n x^2 - 4;\n e - x;\n\nTHE SOLUTIONS :\n1 2\n===\nsolution 1 :\nm : 1\n")
	out, errs, status := trackCmd(t, sys, "-quiet")
	if status != 0 || !strings.Contains(out, "summary: 2 regular") {
		t.Fatalf("status %d: %s\n%s", status, out, errs)
	}
	for _, want := range []string{"the solution list is not read", sys + ":3:2: e is read as a variable"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr %q does not say %q", errs, want)
		}
	}
	// With -start the list is not needed either, but a homotopy's is.
	hom := writeTemp(t, dir, "hom.txt", "1 2\n(1-t)*(x^2 - 1) + t*(x^2 - 3);\n\nTHE SOLUTIONS :\n1 1\n===\nsolution 1 :\nm : 1\n")
	if _, errs, status := trackCmd(t, hom, "-quiet"); status == 0 || strings.Contains(errs, "is not read") {
		t.Errorf("a homotopy with a broken list: status %d, %s", status, errs)
	}
}
