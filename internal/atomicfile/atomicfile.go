// Package atomicfile writes files all or nothing: what it writes goes to a
// temporary file beside its target first and is renamed into place only
// when complete, so that a failed or interrupted run never leaves a
// half-written file where a reader looks. Every error path removes the
// temporary files it made. Temporary names start with a dot, so that
// neither the go command nor go:embed sees them should a crash leave one
// behind.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFile writes data to path with permission perm, all or nothing.
// The folder of path must exist.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	return Write(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Write writes what write prints to path with permission perm, all or
// nothing: an error from write leaves path as it was. The folder of path
// must exist. The rules of an output path apply (Resolve): a special file
// (/dev/null, /dev/stdout, a FIFO) is written into, not replaced; a
// symbolic link is followed; a folder is refused.
func Write(path string, perm fs.FileMode, write func(io.Writer) error) error {
	st, err := os.Stat(path)
	switch {
	case err == nil && st.IsDir():
		return fmt.Errorf("%s is a folder: name a file to write", path)
	case err == nil && direct(path, st):
		return writeInto(path, write)
	}
	real, err := follow(path)
	if err != nil {
		return err
	}
	tmp, err := writeTemp(real, perm, write)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, real); err != nil {
		removeTemp(tmp)
		return err
	}
	untrack(tmp)
	return nil
}

// Produce has make write the file path through another program (a
// compiler's output flag), all or nothing: make gets a fresh temporary name
// beside path to write to (an empty file there), which gets permission
// perm and is renamed to path when make succeeds, and is removed when it
// fails.
func Produce(path string, perm fs.FileMode, make func(tmp string) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	track(tmp)
	f.Close()
	err = make(tmp)
	if err == nil {
		err = os.Chmod(tmp, perm)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		removeTemp(tmp)
		return err
	}
	untrack(tmp)
	return nil
}

// writeTemp writes what write prints to a new hidden file beside path,
// flushed to the disk and with permission perm, and returns its name.
func writeTemp(path string, perm fs.FileMode, write func(io.Writer) error) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s cannot be written: the folder %s does not exist", path, filepath.Dir(path))
	}
	if err != nil {
		return "", err
	}
	tmp := f.Name()
	track(tmp)
	err = write(f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, perm)
	}
	if err != nil {
		removeTemp(tmp)
		return "", err
	}
	return tmp, nil
}
