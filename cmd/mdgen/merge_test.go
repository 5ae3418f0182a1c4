package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// doubleRoots has two double roots (x = 1, y = +-1) reached by two paths
// each, and two simple ones: the multiplicities come from the whole run,
// not from a shard of one path.
const doubleRoots = "2\nx^3 - 4*x^2 + 5*x - 2;\ny^2 - 1;\n"

// mergeCmd runs mdgen merge in-process: stdout, stderr, exit status.
func mergeCmd(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	code, out, errs := runCLI(t, append([]string{"merge"}, args...)...)
	return out, errs, code
}

// sameRunJSON compares two -json reports without what measures time or
// depends on the workers: every path's status, endpoint, multiplicity,
// steps, and the summary must agree byte for byte.
func sameRunJSON(t *testing.T, what string, a, b []byte) {
	t.Helper()
	strip := func(b []byte) []byte {
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v\n%s", what, err, b)
		}
		delete(m, "seconds")
		delete(m, "paths_per_second")
		delete(m, "workers")
		for _, s := range m["solutions"].([]any) {
			delete(s.(map[string]any), "seconds")
		}
		out, _ := json.Marshal(m)
		return out
	}
	if x, y := strip(a), strip(b); !bytes.Equal(x, y) {
		t.Errorf("%s: the merged report differs from one run's:\n%s\n%s", what, x, y)
	}
}

// TestMergeEqualsOneRun: shards of uneven ranges, tracked with other
// worker counts, merge into one run's JSON, text summary and -o list, at 2
// doubles and with the automatic precision, a badly scaled system too;
// double roots split over shards get their multiplicity from the whole
// run.
// TestMergeCrossedShards: paths 48 and 49 of x^200 + 3x - 1 end at one
// regular root (TestTrackCrossedPaths); one run tracks them again, shards
// that split them cannot, and merge says so.
func TestMergeCrossedShards(t *testing.T) {
	dir := t.TempDir()
	file := writeTemp(t, dir, "x200.txt", "1\nx^200 + 3*x - 1;\n")
	a, b := filepath.Join(dir, "a.shard"), filepath.Join(dir, "b.shard")
	for _, c := range [][]string{{"-paths", "1:48", "-shard", a}, {"-paths", "49:200", "-shard", b}} {
		if _, errs, status := trackCmd(t, append([]string{file, "-quiet"}, c...)...); status != 0 {
			t.Fatalf("track %v: status %d\n%s", c, status, errs)
		}
	}
	_, errs, status := mergeCmd(t, a, b, "-quiet")
	if status != 0 || !strings.Contains(errs, "2 paths end at one regular root with another (a path jumped") || !strings.Contains(errs, ": 48, 49;") {
		t.Errorf("merge: status %d, stderr:\n%s", status, errs)
	}
}

// TestShardsCrossedEqualOneRun: -shards in chunks of 48 paths puts the
// crossed paths 48 and 49 of x^200 + 3x - 1 in two chunks; their shards
// hold the first pass, and the run from them tracks both again: its JSON
// and -o list equal one run's, and a second call (every chunk there)
// tracks nothing else and gives them again. mdgen merge of those shards
// alone cannot track them again, and says how.
func TestShardsCrossedEqualOneRun(t *testing.T) {
	dir := t.TempDir()
	file := writeTemp(t, dir, "x200.txt", "1\nx^200 + 3*x - 1;\n")
	oneList := filepath.Join(dir, "one.sols")
	one, errs, status := trackCmd(t, file, "-json", "-o", oneList)
	if status != 0 || !strings.Contains(errs, "round 1: 2 paths") {
		t.Fatalf("one run: status %d\n%s", status, errs)
	}
	shards := filepath.Join(dir, "shards")
	for call := 1; call <= 2; call++ {
		list := filepath.Join(dir, fmt.Sprintf("shards%d.sols", call))
		got, errs, status := trackCmd(t, file, "-json", "-shards", shards, "-chunk", "48", "-o", list)
		if status != 0 || !strings.Contains(errs, "round 1: 2 paths had ended at one regular root with another (a path jumped), tracked again with smaller steps: 48, 49") {
			t.Fatalf("call %d: status %d\n%s", call, status, errs)
		}
		if call == 2 && !strings.Contains(errs, "200 paths of 1..200 in 5 complete shards, 0 to track") {
			t.Errorf("call 2 did not find every chunk there:\n%s", errs)
		}
		sameRunJSON(t, fmt.Sprintf("-shards, call %d", call), []byte(one), []byte(got))
		a, _ := os.ReadFile(oneList)
		b, _ := os.ReadFile(list)
		if !bytes.Equal(a, b) {
			t.Errorf("call %d: the -o list differs from one run's", call)
		}
	}
	_, errs, status = mergeCmd(t, shards, "-quiet")
	if status != 0 || !strings.Contains(errs, "these shards hold their paths' first pass") || !strings.Contains(errs, ": 48, 49;") {
		t.Errorf("merge of first-pass shards: status %d\n%s", status, errs)
	}
	// Shards of both kinds are not one run.
	other := filepath.Join(dir, "other.shard")
	if _, errs, status := trackCmd(t, file, "-quiet", "-paths", "1:48", "-shard", other); status != 0 {
		t.Fatalf("-shard: %s", errs)
	}
	if _, errs, status := mergeCmd(t, other, filepath.Join(shards, shardName(48, 95, 200)), filepath.Join(shards, shardName(96, 143, 200)),
		filepath.Join(shards, shardName(144, 191, 200)), filepath.Join(shards, shardName(192, 199, 200))); status != 1 || !strings.Contains(errs, "another kind of shard") {
		t.Errorf("merge of both kinds: status %d\n%s", status, errs)
	}
}

func TestMergeEqualsOneRun(t *testing.T) {
	dir := t.TempDir()
	sing := writeTemp(t, dir, "double.txt", doubleRoots)
	// Badly scaled: tracked in scaled unknowns, compared in their units.
	scaled := writeTemp(t, dir, "scaled.txt", "2\n 1e-8*x^2 + y - 1;\n x - 1e4*y^3;\n")
	for _, c := range []struct {
		system string
		prec   string
		ranges []string
	}{
		{"katsura5", "2", []string{"1:7", "8:8", "9:32"}},
		{"noon3", "auto", []string{"1:13", "14:27"}},
		{sing, "2", []string{"1:1", "2:2", "3:3", "4:4", "5:5", "6:6"}},
		{sing, "auto", []string{"1:3", "4:6"}},
		{scaled, "2", []string{"1:2", "3:6"}},
	} {
		name := filepath.Base(c.system) + "-" + c.prec
		t.Run(name, func(t *testing.T) {
			sub := filepath.Join(dir, name)
			if err := os.MkdirAll(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			oneList := filepath.Join(sub, "one.sols")
			one, errs, status := trackCmd(t, c.system, "-prec", c.prec, "-json", "-o", oneList)
			if status != 0 {
				t.Fatalf("track: %s", errs)
			}
			var shards []string
			for k, r := range c.ranges {
				f := filepath.Join(sub, "part"+r[:strings.IndexByte(r, ':')]+".shard")
				if _, errs, status := trackCmd(t, c.system, "-prec", c.prec, "-paths", r, "-shard", f, "-quiet", "-workers", []string{"1", "2", "3"}[k%3]); status != 0 {
					t.Fatalf("track -paths %s: %s", r, errs)
				}
				shards = append(shards, f)
			}
			// In another order: merge sorts by range.
			shards[0], shards[len(shards)-1] = shards[len(shards)-1], shards[0]
			mergedList := filepath.Join(sub, "merged.sols")
			merged, errs, status := mergeCmd(t, append([]string{"-json", "-o", mergedList}, shards...)...)
			if status != 0 {
				t.Fatalf("merge: %s", errs)
			}
			sameRunJSON(t, name, []byte(merged), []byte(one))
			a, _ := os.ReadFile(oneList)
			b, _ := os.ReadFile(mergedList)
			if !bytes.Equal(a, b) {
				t.Errorf("the -o lists differ:\n%s\n%s", a, b)
			}
			text, _, _ := mergeCmd(t, append([]string{"-quiet"}, shards...)...)
			oneText, _, _ := trackCmd(t, c.system, "-prec", c.prec, "-quiet")
			if summary(text) != summary(oneText) {
				t.Errorf("text: %q, one run %q", summary(text), summary(oneText))
			}
		})
	}
	// The double roots: multiplicity 2 though every shard held one path.
	var rep trackReport
	out, _, _ := mergeCmd(t, "-json", filepath.Join(dir, "double.txt-2"))
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Summary.Singular != 4 || rep.Summary.Distinct != 4 || rep.Solutions[0].Multiplicity != 2 {
		t.Errorf("double roots: summary %+v, path 1 multiplicity %d", rep.Summary, rep.Solutions[0].Multiplicity)
	}
}

// summary is the first lines of the text output, without the time.
func summary(text string) string {
	var keep []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "time:") {
			break
		}
		if w := strings.LastIndex(l, ", "); strings.HasSuffix(l, " workers") && w > 0 {
			l = l[:w] // the workers of one run, the most of any shard's
		}
		keep = append(keep, l)
	}
	return strings.Join(keep, "\n")
}

// TestMergeBadInput: gaps, overlaps, shards of other runs, systems or
// precisions, truncated and altered shards: each refused with the file and
// the reason, exit status 1, nothing written.
func TestMergeBadInput(t *testing.T) {
	dir := t.TempDir()
	shard := func(name string, args ...string) string { return trackShard(t, dir, name, args...) }
	a := shard("a.shard", "katsura4", "-prec", "2", "-paths", "1:6")
	b := shard("b.shard", "katsura4", "-prec", "2", "-paths", "7:16")
	b2 := shard("b2.shard", "katsura4", "-prec", "2", "-paths", "5:16")
	c := shard("c.shard", "katsura4", "-prec", "2", "-paths", "9:16")
	seed := shard("seed.shard", "katsura4", "-prec", "2", "-paths", "7:16", "-seed", "2")
	prec := shard("prec.shard", "katsura4", "-prec", "4", "-paths", "7:16")
	pade := shard("pade.shard", "katsura4", "-prec", "2", "-paths", "7:16", "-pade", "3,1")
	every := shard("every.shard", "katsura4", "-prec", "2", "-paths", "7:16", "-every-point")
	other := shard("other.shard", "noon4", "-prec", "2", "-paths", "7:16")
	// A given homotopy with other start solutions.
	given := writeTemp(t, dir, "given.txt", "1 2\nx^2 - 1 - 3*t;\n")
	startList := func(name, x2 string) string {
		return writeTemp(t, dir, name, "THE SOLUTIONS :\n2 1\n===\nsolution 1 :\nt : 0 0\nm : 1\nthe solution for t :\n x : 1 0\n"+
			"== err : 0 = rco : 1 = res : 0 ==\nsolution 2 :\nt : 0 0\nm : 1\nthe solution for t :\n x : "+x2+" 0\n== err : 0 = rco : 1 = res : 0 ==\n")
	}
	g1 := shard("g1.shard", given, "-start", startList("s1.txt", "-1"), "-paths", "1:1")
	g2 := shard("g2.shard", given, "-start", startList("s2.txt", "-1.0000001"), "-paths", "2:2")
	data, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	truncated := writeTemp(t, dir, "truncated.shard", string(data[:len(data)*2/3]))
	altered := writeTemp(t, dir, "altered.shard", strings.Replace(string(data), `"steps":`, `"steps":1`, 1))
	lastLine := bytes.LastIndexByte(data[:len(data)-1], '\n') + 1
	noTrailer := writeTemp(t, dir, "notrailer.shard", string(data[:lastLine]))
	notShard := writeTemp(t, dir, "x.shard", doubleRoots)
	out := filepath.Join(dir, "out.sols")
	for _, c := range []struct {
		files []string
		want  []string
	}{
		{[]string{a, c}, []string{"gap: paths 7..8 are in no shard"}},
		{[]string{c}, []string{"gap: paths 1..8", "do not cover paths 1..16"}},
		{[]string{a}, []string{"gap: paths 7..16"}},
		{[]string{a, b2}, []string{"overlap: paths 5..6", a, b2}},
		{[]string{a, b, c}, []string{"overlap: paths 9..16", c}},
		{[]string{a, seed}, []string{seed, "not a shard of the run of", "another gamma"}},
		{[]string{a, prec}, []string{prec, "another precision (-prec): 4, not 2"}},
		{[]string{a, pade}, []string{pade, "another Padé degrees (-pade): [3,1], not [2,1]"}},
		{[]string{a, every}, []string{every, "another corrector rule (-every-point): true, not false"}},
		{[]string{a, other}, []string{other, "another system (hash)"}},
		{[]string{g1, g2}, []string{g2, "another homotopy (hash: the start solutions"}},
		{[]string{a, truncated}, []string{truncated, "truncated"}},
		{[]string{a, noTrailer}, []string{noTrailer, "truncated"}},
		{[]string{a, altered}, []string{altered, "checksum"}},
		{[]string{a, notShard}, []string{notShard, "not a shard"}},
		{[]string{a, filepath.Join(dir, "missing.shard")}, []string{"missing.shard", "no such file"}},
	} {
		stdout, errs, status := mergeCmd(t, append([]string{"-o", out, "-json"}, c.files...)...)
		if status != 1 || stdout != "" {
			t.Errorf("merge %v: status %d, stdout %q; want 1 and nothing", c.files, status, stdout)
		}
		for _, w := range c.want {
			if !strings.Contains(errs, w) {
				t.Errorf("merge %v: %q does not say %q", c.files, errs, w)
			}
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("merge %v wrote %s", c.files, out)
		}
	}
	if _, errs, status := mergeCmd(t); status != 2 || !strings.Contains(errs, "no shards") {
		t.Errorf("merge without shards: status %d: %s", status, errs)
	}
	if _, errs, status := mergeCmd(t, a, b); status != 0 {
		t.Errorf("merge a b: status %d: %s", status, errs)
	}
}

// TestTrackShardsResume: -shards DIR -chunk K tracks in chunks, skips the
// complete shards when run again, tracks again the missing and the
// damaged ones, and prints one run's report; a shard of another run in DIR
// is refused.
func TestTrackShardsResume(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "shards")
	one := trackJSONOf(t, 0, "katsura5", "-prec", "auto")
	oneJSON, _ := json.Marshal(one)
	first, errs, status := trackCmd(t, "katsura5", "-shards", dir, "-chunk", "10", "-json")
	if status != 0 {
		t.Fatal(errs)
	}
	sameRunJSON(t, "-shards", []byte(first), oneJSON)
	names, _ := filepath.Glob(filepath.Join(dir, "*.shard"))
	want := []string{"paths-01-10.shard", "paths-11-20.shard", "paths-21-30.shard", "paths-31-32.shard"}
	if len(names) != len(want) {
		t.Fatalf("shards %v, want %v", names, want)
	}
	for k := range want {
		if filepath.Base(names[k]) != want[k] {
			t.Fatalf("shards %v, want %v", names, want)
		}
	}
	// A killed run: one shard never written, one cut short.
	if err := os.Remove(names[1]); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(names[2])
	if err := os.WriteFile(names[2], data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	kept, _ := os.Stat(names[0])
	again, errs, status := trackCmd(t, "katsura5", "-shards", dir, "-chunk", "10", "-json")
	if status != 0 {
		t.Fatal(errs)
	}
	if !strings.Contains(errs, "paths-21-30.shard: truncated") || !strings.Contains(errs, "12 paths of 1..32 in 2 complete shards, 20 to track") {
		t.Errorf("resume says %q", errs)
	}
	if st, _ := os.Stat(names[0]); !st.ModTime().Equal(kept.ModTime()) {
		t.Errorf("%s was written again", names[0])
	}
	sameRunJSON(t, "-shards resumed", []byte(again), oneJSON)
	if out, errs, status := mergeCmd(t, "-json", dir); status != 0 {
		t.Errorf("merge %s: %s", dir, errs)
	} else {
		sameRunJSON(t, "merge of -shards", []byte(out), oneJSON)
	}
	// A range of the run resumes within its range.
	part, errs, status := trackCmd(t, "katsura5", "-shards", dir, "-chunk", "10", "-paths", "5:25", "-json")
	if status != 0 || !strings.Contains(errs, "21 paths of 5..25 in 3 complete shards, 0 to track") {
		t.Errorf("-paths 5:25: status %d: %s", status, errs)
	}
	onePart := trackJSONOf(t, 0, "katsura5", "-paths", "5:25")
	onePartJSON, _ := json.Marshal(onePart)
	sameRunJSON(t, "-shards -paths 5:25", []byte(part), onePartJSON)
	// Another run in the same directory.
	if _, errs, status := trackCmd(t, "katsura5", "-shards", dir, "-prec", "2"); status != 1 || !strings.Contains(errs, "shard of another run") {
		t.Errorf("-prec 2 in a directory of -prec auto: status %d: %s", status, errs)
	}
}

// TestTrackShardFlags: the combinations that make no sense are usage
// errors.
func TestTrackShardFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"katsura3", "-chunk", "4"}, "-chunk is for -shards and -slurm"},
		{[]string{"katsura3", "-shards", "d", "-chunk", "0"}, "want at least 1 path"},
		{[]string{"katsura3", "-shards", "d", "-shard", "f"}, "one or the other"},
		{[]string{"katsura3", "-slurm", "2", "-paths", "1:3"}, "-paths with -slurm"},
		{[]string{"katsura3", "-slurm", "2", "-json"}, "-json with -slurm"},
		{[]string{"katsura3", "-slurm-dir", "d"}, "-slurm-dir is for -slurm"},
		{[]string{"katsura3", "-slurm", "9"}, "at most one task per path"},
		{[]string{"-slurm-resume", "d", "-prec", "2"}, "takes nothing else"},
	} {
		_, errs, status := trackCmd(t, c.args...)
		if status != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("track %v: status %d, %q; want 2 and %q", c.args, status, errs, c.want)
		}
	}
}

// trackShard runs mdgen track with args and -shard dir/name and returns
// the shard's path.
func trackShard(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	f := filepath.Join(dir, name)
	if _, errs, status := trackCmd(t, append(args, "-shard", f, "-quiet")...); status != 0 {
		t.Fatalf("track %v: %s", args, errs)
	}
	return f
}
