package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// The rules of an output path, in one home for every command that writes
// a file (solve -o, bench -out/-csv/-plot, tune -profile, emit, generate):
//
//   - a special file (a device such as /dev/null, a FIFO, a socket, or a
//     descriptor of the process: /dev/stdout, /dev/fd/N, /proc/self/fd/N)
//     is written into, never replaced: replacing /dev/null by a regular
//     file (as root) or the file a shell redirected stdout to would break
//     what the name stands for;
//   - a symbolic link is followed: the file it names is replaced, the link
//     stays, and the temporary file goes beside that file;
//   - a folder where a file is meant is refused, before anything is made;
//   - a path that is the same file (os.SameFile) as an input of the
//     command is refused: an input is never an output.

// Resolve checks path as the target of a file a command will write and
// returns an error that names path when it breaks a rule above; inputs
// are the files the command reads (names that are no files, a family
// spec, are skipped). Commands call it before their work, so that a bad
// -o fails at once; Write and WriteFile apply the same rules again.
func Resolve(path string, inputs ...string) error {
	if path == "" {
		return errors.New("an empty output file name")
	}
	st, err := os.Stat(path)
	switch {
	case err == nil && st.IsDir():
		return fmt.Errorf("%s is a folder: name a file to write", path)
	case err == nil && !direct(path, st):
		for _, in := range inputs {
			if ist, err := os.Stat(in); err == nil && ist.Mode().IsRegular() && os.SameFile(st, ist) {
				return fmt.Errorf("%s is the input file %s: choose another output file", path, in)
			}
		}
	case err == nil:
		return nil // written into
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		real, err := follow(path)
		if err != nil {
			return err
		}
		// A missing folder is made by the writers that make one; a file
		// where a folder is meant fails here.
		for dir := filepath.Dir(real); ; dir = filepath.Dir(dir) {
			if st, err := os.Stat(dir); err == nil {
				if !st.IsDir() {
					return fmt.Errorf("%s cannot be written: %s is not a folder", path, dir)
				}
				break
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	default:
		return err
	}
	return nil
}

// ResolveFile is Resolve for the target of Write or WriteFile, which make
// no folder: the folder of path must exist too, so that a command fails
// at once rather than after its work.
func ResolveFile(path string, inputs ...string) error {
	if err := Resolve(path, inputs...); err != nil {
		return err
	}
	real, err := follow(path)
	if err != nil {
		return err
	}
	if st, err := os.Stat(filepath.Dir(real)); err != nil || !st.IsDir() {
		return fmt.Errorf("%s cannot be written: the folder %s does not exist", path, filepath.Dir(real))
	}
	return nil
}

// ResolveDir checks dir as a folder a command writes files into (made
// when missing): an existing file that is not a folder is refused; and
// none of the files rels (slash-separated, relative to dir) may be an
// input file.
func ResolveDir(dir string, rels []string, inputs ...string) error {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return fmt.Errorf("%s is not a folder: name a folder to write the files into", dir)
	}
	for _, rel := range rels {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if st, err := os.Stat(p); err == nil {
			for _, in := range inputs {
				if ist, err := os.Stat(in); err == nil && ist.Mode().IsRegular() && os.SameFile(st, ist) {
					return fmt.Errorf("%s would replace the input file %s: choose another folder or name", p, in)
				}
			}
		}
	}
	return nil
}

// direct reports whether the existing file path (st: its os.Stat) is
// written into rather than replaced: anything but a regular file, or a
// descriptor of the process that a shell may have redirected to a
// regular file (/dev/stdout, /dev/fd/1, /proc/self/fd/1).
func direct(path string, st fs.FileInfo) bool {
	if !st.Mode().IsRegular() {
		return true
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	for _, p := range []string{"/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/"} {
		if abs == p || strings.HasSuffix(p, "/") && strings.HasPrefix(abs, p) {
			return true
		}
	}
	return strings.HasPrefix(abs, "/proc/") && strings.Contains(abs, "/fd/")
}

// follow returns the path a chain of symbolic links at path ends at (path
// itself when it is no link), even when the last one dangles.
func follow(path string) (string, error) {
	for range 40 {
		st, err := os.Lstat(path)
		if err != nil || st.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		to, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(filepath.Dir(path), to)
		}
		path = to
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", path)
}

// writeInto writes what write prints into the special file path (opened
// for appending: a regular file behind /dev/stdout keeps what the process
// wrote before).
func writeInto(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// The temporary files of this process, removed on an interrupt
// (RemoveOnSignal) so that none outlives the run.
var temps = struct {
	sync.Mutex
	m map[string]bool
}{m: map[string]bool{}}

func track(path string) {
	temps.Lock()
	temps.m[path] = true
	temps.Unlock()
}

func untrack(path string) {
	temps.Lock()
	delete(temps.m, path)
	temps.Unlock()
}

// removeTemp removes the temporary file path and forgets it.
func removeTemp(path string) {
	os.Remove(path)
	untrack(path)
}

// RemoveOnSignal removes the temporary files being written when the
// process gets SIGINT or SIGTERM, then exits with status 130 or 143: a
// command interrupted while writing leaves its targets as they were and
// no temporary file. main calls it once.
func RemoveOnSignal() {
	c := make(chan os.Signal, 1)
	signal.Notify(c, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-c
		temps.Lock()
		for p := range temps.m {
			os.Remove(p)
		}
		temps.Unlock()
		code := 130
		if s == syscall.SIGTERM {
			code = 143
		}
		os.Exit(code)
	}()
}
