package boundedread

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// zeros is an endless reader, as /dev/zero.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

func TestReadAllCaps(t *testing.T) {
	b, err := ReadAll(strings.NewReader("abc"), "x", "a system file", 3)
	if err != nil || string(b) != "abc" {
		t.Fatalf("at the limit: %q, %v", b, err)
	}
	_, err = ReadAll(zeros{}, "/dev/zero", "a system file", 1<<20)
	var tl *TooLargeError
	if !errors.As(err, &tl) || !strings.Contains(err.Error(), "/dev/zero: more than 1 MiB, the limit of a system file") {
		t.Fatalf("endless input: %v", err)
	}
}

func TestReader(t *testing.T) {
	sc := bufio.NewScanner(Reader(zeros{}, "z", "a series file", 1000))
	for sc.Scan() {
	}
	if !strings.Contains(sc.Err().Error(), "more than 1000 B") {
		t.Fatalf("scanner error %v", sc.Err())
	}
	b, err := io.ReadAll(Reader(strings.NewReader("12345"), "s", "x", 5))
	if err != nil || string(b) != "12345" {
		t.Fatalf("at the limit: %q, %v", b, err)
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadFile(dir, "a system file", 10); err == nil || !strings.Contains(err.Error(), "is a folder") {
		t.Errorf("folder: %v", err)
	}
	p := filepath.Join(dir, "f")
	os.WriteFile(p, []byte("0123456789x"), 0o644)
	if _, err := ReadFile(p, "a system file", 10); err == nil {
		t.Errorf("11 bytes under a limit of 10 read")
	}
}
