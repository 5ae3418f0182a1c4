// Package boundedread reads inputs with a cap on their size, in one home
// for every reader of the command line's files (systems, start lists,
// tuning profiles, -input series, bench reports): /dev/zero, a runaway
// pipe or a file of gigabytes is refused with an error that names the
// limit, after reading at most the limit and one byte more, where an
// unbounded read died with "fatal error: out of memory". Pipes, /dev/stdin
// and process substitution (<(...)) work as files do: the cap is on what
// is read, not on what a stat says.
package boundedread

import (
	"fmt"
	"io"
	"os"
)

// TooLargeError is an input longer than its limit.
type TooLargeError struct {
	Name  string // the file, or what was read
	What  string // what the input holds: "a system file", "a tuning profile"
	Limit int64  // bytes
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: more than %s, the limit of %s (is it the right file?)", e.Name, Size(e.Limit), e.What)
}

// ReadFile reads the file path, which holds what (for the error), and
// refuses it with a TooLargeError when it is longer than limit bytes.
func ReadFile(path, what string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, fmt.Errorf("%s: is a folder, not %s", path, what)
	}
	return ReadAll(f, path, what, limit)
}

// ReadAll reads r to its end, refusing with a TooLargeError (name and what
// name the input) once it has read more than limit bytes.
func ReadAll(r io.Reader, name, what string, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if int64(len(b)) > limit {
		return nil, &TooLargeError{Name: name, What: what, Limit: limit}
	}
	return b, nil
}

// Reader returns a reader of r that fails with a TooLargeError once more
// than limit bytes were read: for readers that scan line by line.
func Reader(r io.Reader, name, what string, limit int64) io.Reader {
	return &capped{r: r, left: limit, err: &TooLargeError{Name: name, What: what, Limit: limit}}
}

type capped struct {
	r    io.Reader
	left int64
	err  error
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left < 0 {
		return 0, c.err
	}
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if c.left < 0 {
		return n - int(-c.left), c.err
	}
	return n, err
}

// Size writes a byte count with a binary unit: "256 MiB", "100 B".
func Size(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%d B", n)
}
