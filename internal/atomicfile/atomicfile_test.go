package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A failed write leaves the target as it was and no temporary file; a
// good one replaces it.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.csv")
	if err := WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Write(path, 0o644, func(w io.Writer) error {
		io.WriteString(w, "half")
		return errors.New("injected failure")
	})
	if err == nil {
		t.Fatal("a failing writer succeeded")
	}
	if got := snapshot(t, dir); !maps.Equal(got, map[string]string{".": "/", "a.csv": "old"}) {
		t.Fatalf("after a failed write: %v", got)
	}
	if err := Produce(path, 0o644, func(tmp string) error {
		os.WriteFile(tmp, []byte("half"), 0o644)
		return errors.New("injected failure")
	}); err == nil {
		t.Fatal("a failing producer succeeded")
	}
	if got := snapshot(t, dir); !maps.Equal(got, map[string]string{".": "/", "a.csv": "old"}) {
		t.Fatalf("after a failed produce: %v", got)
	}
	if err := Produce(path, 0o644, func(tmp string) error { return os.WriteFile(tmp, []byte("made"), 0o644) }); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(filepath.Join(dir, "b.csv"), []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := snapshot(t, dir); !maps.Equal(got, map[string]string{".": "/", "a.csv": "made", "b.csv": "new"}) {
		t.Fatalf("after the writes: %v", got)
	}
	if st, err := os.Stat(filepath.Join(dir, "b.csv")); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("b.csv: %v %v", st, err)
	}
}

// snapshot returns every file under dir (path -> content), folders as "/".
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			m[rel] = "/"
			return nil
		}
		b, _ := os.ReadFile(p)
		m[rel] = string(b)
		return nil
	})
	return m
}

// WriteAll is all or nothing: a failure at any step, in a folder that
// holds user files and an earlier package, leaves the folder as it was.
func TestWriteAllAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	old := map[string][]byte{"a.go": []byte("old a"), "b.cu": []byte("old b"), "fatbin/x.fatbin": []byte("old fatbin")}
	if err := WriteAll(dir, old, nil); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("user file"), 0o644)
	before := snapshot(t, dir)
	files := map[string][]byte{"a.go": []byte("new a"), "b.cu": []byte("new b"), "c_test.go": []byte("new c"),
		"sub/deep/d.txt": []byte("new d")}
	remove := []string{"fatbin/x.fatbin", "gone.txt"}
	var steps []string
	fault = func(op, rel string) error { steps = append(steps, op+" "+rel); return nil }
	if err := WriteAll(t.TempDir(), files, remove); err != nil {
		t.Fatal(err)
	}
	all := steps
	if len(all) != 2*len(files)+len(remove) {
		t.Fatalf("steps %v", all)
	}
	for _, failAt := range all {
		fault = func(op, rel string) error {
			if op+" "+rel == failAt {
				return errors.New("injected failure")
			}
			return nil
		}
		err := WriteAll(dir, files, remove)
		if err == nil || !strings.Contains(err.Error(), "injected failure") {
			t.Fatalf("failing at %q: err = %v", failAt, err)
		}
		if after := snapshot(t, dir); !maps.Equal(after, before) {
			t.Fatalf("failing at %q changed the folder:\nbefore %v\nafter  %v", failAt, before, after)
		}
	}
	fault = nil
	// A folder where a file should go fails the write, after other files
	// were replaced: they are put back.
	os.MkdirAll(filepath.Join(dir, "c_test.go", "x"), 0o755)
	before = snapshot(t, dir)
	if err := WriteAll(dir, files, remove); err == nil || !strings.Contains(err.Error(), "folder") {
		t.Fatalf("a folder in the way: err = %v", err)
	}
	if after := snapshot(t, dir); !maps.Equal(after, before) {
		t.Fatalf("a failed write changed the folder:\nbefore %v\nafter  %v", before, after)
	}
	os.RemoveAll(filepath.Join(dir, "c_test.go"))
	if err := WriteAll(dir, files, remove); err != nil {
		t.Fatal(err)
	}
	got := snapshot(t, dir)
	want := map[string]string{".": "/", "main.go": "user file", "fatbin": "/", "sub": "/", "sub/deep": "/"}
	for p, b := range files {
		want[filepath.FromSlash(p)] = string(b)
	}
	if !maps.Equal(got, want) {
		t.Fatalf("after the write:\n got %v\nwant %v", got, want)
	}
}

// ResolveFile refuses a target whose folder is missing (Write makes none),
// before any work, and so does Write itself, naming the target and the
// folder rather than its temporary file; Resolve still lets writers that
// make folders go on.
func TestResolveFileMissingFolder(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "nodir", "x.txt")
	err := ResolveFile(path)
	if err == nil || !strings.Contains(err.Error(), "nodir does not exist") {
		t.Errorf("ResolveFile(%s): %v", path, err)
	}
	if err := Resolve(path); err != nil {
		t.Errorf("Resolve(%s): %v", path, err)
	}
	err = WriteFile(path, []byte("x"), 0o644)
	if err == nil || !strings.Contains(err.Error(), path+" cannot be written: the folder") || strings.Contains(err.Error(), ".tmp") {
		t.Errorf("WriteFile(%s): %v", path, err)
	}
	if err := ResolveFile(filepath.Join(dir, "x.txt")); err != nil {
		t.Errorf("ResolveFile in an existing folder: %v", err)
	}
	if err := ResolveFile(os.DevNull); err != nil {
		t.Errorf("ResolveFile(%s): %v", os.DevNull, err)
	}
}
