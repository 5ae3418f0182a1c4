package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// fault, when set (tests), is called before each step of WriteAll: op is
// "write" (a temporary file), "replace" (moving a file into place) or
// "remove", rel the file; an error fails that step.
var fault func(op, rel string) error

func injected(op, rel string) error {
	if fault == nil {
		return nil
	}
	return fault(op, rel)
}

// WriteAll writes files (slash-separated paths relative to dir, with
// permission 0644) and removes the files remove names, all or nothing:
// every file goes to a temporary name in its folder first; only when all
// are written are they renamed into place, the files they replace moved
// aside until the last rename succeeded. On an error every file in dir is
// as it was, no temporary file is left, and folders it created are gone
// again. Files of dir that are not named are never touched. This works in
// a folder that holds other files too (a package folder of a go:generate
// directive), where a temporary folder could not be renamed over the
// target.
func WriteAll(dir string, files map[string][]byte, remove []string) (err error) {
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
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return fmt.Errorf("writing the package: %s is not a folder", dir)
	}
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
			removeTemp(t)
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
		if err := injected("write", rel); err != nil {
			return fmt.Errorf("writing %s: %w", dst, err)
		}
		data := files[rel]
		t, err := writeTemp(dst, 0o644, func(w io.Writer) error {
			_, err := w.Write(data)
			return err
		})
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
		if err := injected("replace", rel); err != nil {
			return fmt.Errorf("replacing %s: %w", path(rel), err)
		}
		if err := moveAside(rel); err != nil {
			return fmt.Errorf("replacing %s: %w", path(rel), err)
		}
		if err := os.Rename(temps[rel], path(rel)); err != nil {
			return fmt.Errorf("replacing %s: %w", path(rel), err)
		}
		untrack(temps[rel])
		delete(temps, rel)
		placed[rel] = true
	}
	for _, rel := range remove {
		if _, ok := files[rel]; ok {
			continue
		}
		if err := injected("remove", rel); err != nil {
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

// reserveName creates an empty hidden file in dir to rename a file onto.
func reserveName(dir, base string) (string, error) {
	f, err := os.CreateTemp(dir, "."+base+"*")
	if err != nil {
		return "", err
	}
	f.Close()
	return f.Name(), nil
}
