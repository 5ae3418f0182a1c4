package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestTrackChild is not a test: it is the child process of
// TestTrackProcesses (this test binary started again with
// MDGEN_TEST_TRACK_CHILD set), mdgen track serving its parent with the
// arguments after "--", which exits with status 3 after writing
// MDGEN_TEST_TRACK_CHILD lines (0: never), as a crash would, creating the
// file MDGEN_TEST_TRACK_MARK first when that is set; with
// MDGEN_TEST_TRACK_WAIT, it starts once that file exists.
func TestTrackChild(t *testing.T) {
	limit := os.Getenv("MDGEN_TEST_TRACK_CHILD")
	if limit == "" {
		t.Skip("the child process of TestTrackProcesses")
	}
	n, _ := strconv.Atoi(limit)
	if wait := os.Getenv("MDGEN_TEST_TRACK_WAIT"); wait != "" {
		for i := 0; i < 6000; i++ {
			if _, err := os.Stat(wait); err == nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	args := os.Args[slices.Index(os.Args, "--")+1:]
	if err := runTrack(args, &crashAfter{w: os.Stdout, lines: n, mark: os.Getenv("MDGEN_TEST_TRACK_MARK")}, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "mdgen:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// crashAfter writes to w and exits the process with status 3 once it
// wrote lines lines (0: never).
type crashAfter struct {
	w     io.Writer
	lines int
	mark  string
}

func (c *crashAfter) Write(b []byte) (int, error) {
	if c.lines > 0 {
		if n := bytes.Count(b, []byte("\n")); n >= c.lines {
			if c.mark != "" {
				_ = os.WriteFile(c.mark, nil, 0o644)
			}
			os.Exit(3)
		} else {
			c.lines -= n
		}
	}
	return c.w.Write(b)
}

// TestTrackProcesses: the paths of x^200 + 3x - 1 (crossed paths 48 and
// 49: tracked again once the children's first passes are together) handed
// out from one queue to child processes on the CPU, serving as mdgen
// track -gpu's children do on their GPUs, give the JSON and the -o list
// of one run. A child whose output ends while it holds paths (head cuts
// its stdout) gives them back and the run completes on the others, saying
// so; when every child fails the run fails and says how many paths are
// left.
func TestTrackProcesses(t *testing.T) {
	dir := t.TempDir()
	file := writeTemp(t, dir, "x200.txt", "1\nx^200 + 3*x - 1;\n")
	oneList := filepath.Join(dir, "one.sols")
	one, errs, status := trackCmd(t, file, "-json", "-o", oneList)
	if status != 0 {
		t.Fatalf("one run: %s", errs)
	}
	defer func(p func(*trackSetup) []procSpec) { runProcs = p }(runProcs)
	// child is this test binary serving as mdgen track does (TestTrackChild)
	// on 2 workers, exiting after crash lines when crash > 0.
	child := func(name string, ts *trackSetup, crash int, env ...string) procSpec {
		return procSpec{name: name, prefix: []string{os.Args[0], "-test.run=^TestTrackChild$", "--"}, flags: []string{"-workers", "2"},
			env: append(env, fmt.Sprintf("MDGEN_TEST_TRACK_CHILD=%d", crash))}
	}
	// A crashes after its first path, while it holds many; B starts then.
	mark := filepath.Join(dir, "crashed")
	for _, c := range []struct {
		name   string
		procs  func(ts *trackSetup) []procSpec
		status int
		says   []string
	}{
		{"three children", func(ts *trackSetup) []procSpec {
			return []procSpec{child("A", ts, 0), child("B", ts, 0), child("C", ts, 0)}
		}, 0, []string{"a process for each of A, B, C", "round 1: 2 paths"}},
		{"one child fails", func(ts *trackSetup) []procSpec {
			return []procSpec{child("A", ts, 2, "MDGEN_TEST_TRACK_MARK="+mark), child("B", ts, 0, "MDGEN_TEST_TRACK_WAIT="+mark)}
		}, 0, []string{"A failed (", "paths in flight go to the others"}},
		{"every child fails", func(ts *trackSetup) []procSpec {
			return []procSpec{child("A", ts, 30), child("B", ts, 5)}
		}, 1, []string{"every process failed", "paths not tracked"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			runProcs = c.procs
			list := filepath.Join(t.TempDir(), "procs.sols")
			got, errs, status := trackCmd(t, file, "-json", "-o", list)
			if status != c.status {
				t.Fatalf("status %d, want %d\n%s", status, c.status, errs)
			}
			for _, s := range c.says {
				if !strings.Contains(errs, s) {
					t.Errorf("stderr does not say %q:\n%s", s, errs)
				}
			}
			if c.status != 0 {
				if _, err := os.Stat(list); err == nil {
					t.Error("a failed run wrote its -o list")
				}
				return
			}
			sameRunJSON(t, c.name, []byte(one), []byte(got))
			a, _ := os.ReadFile(oneList)
			b, _ := os.ReadFile(list)
			if !bytes.Equal(a, b) {
				t.Error("the -o list differs from one run's")
			}
		})
	}
	// -shards DIR: one set of children for every chunk to track, a shard
	// written as each chunk's paths are all back; the run from the
	// shards is one run's, and a second call finds every chunk there.
	t.Run("-shards", func(t *testing.T) {
		runProcs = func(ts *trackSetup) []procSpec { return []procSpec{child("A", ts, 0), child("B", ts, 0)} }
		shards := filepath.Join(t.TempDir(), "shards")
		for call := 1; call <= 2; call++ {
			list := filepath.Join(t.TempDir(), "shards.sols")
			got, errs, status := trackCmd(t, file, "-json", "-shards", shards, "-chunk", "48", "-o", list)
			if status != 0 {
				t.Fatalf("call %d: status %d\n%s", call, status, errs)
			}
			if started := strings.Contains(errs, "a process for each of A, B"); started != (call == 1) {
				t.Errorf("call %d: processes started: %v\n%s", call, started, errs)
			}
			sameRunJSON(t, "-shards", []byte(one), []byte(got))
			a, _ := os.ReadFile(oneList)
			b, _ := os.ReadFile(list)
			if !bytes.Equal(a, b) {
				t.Errorf("call %d: the -o list differs from one run's", call)
			}
		}
		if files, _ := filepath.Glob(filepath.Join(shards, "*.shard")); len(files) != 5 {
			t.Errorf("%d shards, want 5 (chunks of 48 of 200 paths)", len(files))
		}
	})
	// A fixed precision (each record's is checked against the run's).
	t.Run("-prec 1", func(t *testing.T) {
		runProcs = func(*trackSetup) []procSpec { return nil }
		// One path fails at 1 double: status 1 in both.
		one, errs, status := trackCmd(t, file, "-json", "-prec", "1")
		if status != 1 || !strings.Contains(errs, "1 of 200 paths failed") {
			t.Fatalf("one run: status %d\n%s", status, errs)
		}
		runProcs = func(ts *trackSetup) []procSpec { return []procSpec{child("A", ts, 0), child("B", ts, 0)} }
		got, errs2, status2 := trackCmd(t, file, "-json", "-prec", "1")
		if status2 != status || !strings.Contains(errs2, "1 of 200 paths failed") {
			t.Fatalf("status %d\n%s", status2, errs2)
		}
		sameRunJSON(t, "-prec 1", []byte(one), []byte(got))
	})
}
