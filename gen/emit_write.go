package gen

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mdgen/mdgen/internal/atomicfile"
)

// Writing an emitted package is all or nothing (atomicfile.WriteAll): the
// new files and the removal of a stale fatbin land together or not at
// all, in a folder of its own (mdgen emit -o) as well as in the package
// folder of a go:generate directive, where user files live next to the
// emitted ones.

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
	if err := atomicfile.WriteAll(dir, e.Files, remove); err != nil {
		return state, why, err
	}
	return state, why, nil
}

// WriteStamp records that the fatbin in dir was built from e's source.
func (e *Emitted) WriteStamp(dir string) error {
	return atomicfile.WriteAll(dir, map[string][]byte{e.Stamp: FatbinStamp(e.SourceHash, e.CU)}, nil)
}
