package gen

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Writing an emitted package is all or nothing: every file goes to a
// temporary name in its folder first; only when all are written are they
// renamed into place, the files they replace (and a stale fatbin) moved
// aside until the last rename succeeded; any failure puts back what was
// there. This works in a folder of its own (mdgen emit -o) as well as in
// the package folder of a go:generate directive, where user files live
// next to the emitted ones and a temporary folder could not be renamed
// over the target. Temporary names start with a dot, so that neither the
// go command nor go:embed sees them should a crash leave one behind.

// SourceHash returns the hex SHA-256 of a kernel source: what an emitted
// package's SourceHash constant and the fatbin's stamp hold.
func SourceHash(cu []byte) string {
	h := sha256.Sum256(cu)
	return hex.EncodeToString(h[:])
}

// FatbinStamp returns the text of the stamp file written next to a fatbin
// that nvcc built from the source file cu (a name in the package folder)
// with hash hash: the format of sha256sum, so that `sha256sum -c
// fatbin/<name>.fatbin.sha256` run in the package folder checks it.
func FatbinStamp(hash, cu string) []byte { return []byte(hash + "  " + cu + "\n") }

// stampHash returns the hash recorded in a stamp, or "".
func stampHash(stamp []byte) string {
	f := strings.Fields(string(stamp))
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// FatbinState says how a package folder's fatbin relates to the source
// about to be written.
type FatbinState int

const (
	FatbinMissing FatbinState = iota // no fatbin
	FatbinCurrent                    // built from this source
	FatbinStale                      // built from another source: Write removes it
)

// FatbinStatus tells whether the fatbin in dir was built from e's kernel
// source, and why not. The stamp next to the fatbin (written by mdgen emit
// when it runs nvcc) decides; a fatbin without a stamp (built by hand with
// the command of the package's doc comment) counts as built from the .cu
// in dir.
func (e *Emitted) FatbinStatus(dir string) (FatbinState, string) {
	fat := filepath.Join(dir, filepath.FromSlash(e.Fatbin))
	if _, err := os.Stat(fat); err != nil {
		return FatbinMissing, ""
	}
	if stamp, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(e.Stamp))); err == nil {
		if got := stampHash(stamp); got != e.SourceHash {
			return FatbinStale, fmt.Sprintf("built from a %s with SHA-256 %.12s, this one has %.12s", e.CU, got, e.SourceHash)
		}
		return FatbinCurrent, ""
	}
	old, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(e.CU)))
	if err != nil || !bytes.Equal(old, e.Files[e.CU]) {
		return FatbinStale, fmt.Sprintf("no stamp, and %s changes", e.CU)
	}
	return FatbinCurrent, ""
}

// Write writes the package into dir, all or nothing (see above), and
// removes a fatbin that was not built from the new kernel source, in the
// same step. It returns what it found of the fatbin (FatbinStale: it was
// removed, with the reason).
func (e *Emitted) Write(dir string) (FatbinState, string, error) {
	state, why := e.FatbinStatus(dir)
	var remove []string
	if state != FatbinCurrent { // a stale fatbin, or a stamp without its fatbin
		remove = []string{e.Fatbin, e.Stamp}
	}
	if err := WritePackage(dir, e.Files, remove); err != nil {
		return state, why, err
	}
	return state, why, nil
}

// WriteStamp records that the fatbin in dir was built from e's source.
func (e *Emitted) WriteStamp(dir string) error {
	return WritePackage(dir, map[string][]byte{e.Stamp: FatbinStamp(e.SourceHash, e.CU)}, nil)
}

// writeFault, when set (tests), is called before each step of
// WritePackage: op is "write" (a temporary file), "replace" (moving a file
// into place) or "remove", rel the file; an error fails that step.
var writeFault func(op, rel string) error

func fault(op, rel string) error {
	if writeFault == nil {
		return nil
	}
	return writeFault(op, rel)
}

// WritePackage writes files (slash-separated paths relative to dir) and
// removes the files remove names, all or nothing: on an error every file
// in dir is as it was, no temporary file is left, and folders it created
// are gone again. Files of dir that are not named are never touched.
func WritePackage(dir string, files map[string][]byte, remove []string) (err error) {
	rels := make([]string, 0, len(files))
	for p := range files {
		rels = append(rels, p)
	}
	slices.Sort(rels)
	var (
		created []string              // folders made here, outermost first
		temps   = map[string]string{} // rel -> temporary file
		moved   []string              // rels whose old file is aside, in order
		aside   = map[string]string{} // rel -> the old file, moved aside
		placed  = map[string]bool{}   // rels whose new file is in place
	)
	path := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }
	defer func() {
		if err == nil {
			for _, rel := range moved {
				os.Remove(aside[rel])
			}
			return
		}
		// Roll back, newest first.
		for i := len(moved) - 1; i >= 0; i-- {
			rel := moved[i]
			if placed[rel] {
				os.Remove(path(rel))
			}
			os.Rename(aside[rel], path(rel))
		}
		for rel := range placed {
			if _, ok := aside[rel]; !ok {
				os.Remove(path(rel))
			}
		}
		for _, t := range temps {
			os.Remove(t)
		}
		for i := len(created) - 1; i >= 0; i-- {
			os.Remove(created[i])
		}
	}()

	// 1. Every file under a temporary name.
	for _, rel := range rels {
		if !fs.ValidPath(rel) || rel == "." {
			return fmt.Errorf("writing the package: %q is not a relative file path", rel)
		}
		dst := path(rel)
		mk, err := mkdirs(filepath.Dir(dst))
		created = append(created, mk...)
		if err != nil {
			return fmt.Errorf("writing the package: %w", err)
		}
		if err := fault("write", rel); err != nil {
			return fmt.Errorf("writing %s: %w", dst, err)
		}
		t, err := writeTemp(filepath.Dir(dst), filepath.Base(dst), files[rel])
		if err != nil {
			return fmt.Errorf("writing %s: %w", dst, err)
		}
		temps[rel] = t
	}
	// 2. Old files aside, new ones into place.
	moveAside := func(rel string) error {
		st, err := os.Lstat(path(rel))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if st.IsDir() {
			return fmt.Errorf("%s is a folder", path(rel))
		}
		a, err := reserveName(filepath.Dir(path(rel)), filepath.Base(rel)+".old")
		if err != nil {
			return err
		}
		if err := os.Rename(path(rel), a); err != nil {
			os.Remove(a)
			return err
		}
		aside[rel] = a
		moved = append(moved, rel)
		return nil
	}
	for _, rel := range rels {
		if err := fault("replace", rel); err != nil {
			return fmt.Errorf("replacing %s: %w", path(rel), err)
		}
		if err := moveAside(rel); err != nil {
			return fmt.Errorf("replacing %s: %w", path(rel), err)
		}
		if err := os.Rename(temps[rel], path(rel)); err != nil {
			return fmt.Errorf("replacing %s: %w", path(rel), err)
		}
		delete(temps, rel)
		placed[rel] = true
	}
	for _, rel := range remove {
		if _, ok := files[rel]; ok {
			continue
		}
		if err := fault("remove", rel); err != nil {
			return fmt.Errorf("removing %s: %w", path(rel), err)
		}
		if err := moveAside(rel); err != nil {
			return fmt.Errorf("removing %s: %w", path(rel), err)
		}
	}
	return nil
}

// mkdirs creates dir and its missing parents and returns the ones it
// created, outermost first.
func mkdirs(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	slices.Reverse(missing)
	var created []string
	for _, d := range missing {
		if err := os.Mkdir(d, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return created, err
		}
		created = append(created, d)
	}
	return created, nil
}

// writeTemp writes data to a new hidden file in dir and returns its path.
func writeTemp(dir, base string, data []byte) (string, error) {
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return "", err
	}
	name := f.Name()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(name, 0o644)
	}
	if err != nil {
		os.Remove(name)
		return "", err
	}
	return name, nil
}

// reserveName creates an empty hidden file in dir to rename a file onto.
func reserveName(dir, base string) (string, error) {
	f, err := os.CreateTemp(dir, "."+base+"*")
	if err != nil {
		return "", err
	}
	f.Close()
	return f.Name(), nil
}
