// Package phcdemo finds PHCpack's demo systems for the tests that read
// them: the workspace's copy beside the repository (not part of the
// product: a clone has nothing beside it), else Debian's phcpack package,
// which installs the whole database and which CI installs for its phc
// tests, so that a clone's CI reads the same files.
package phcdemo

import (
	"os"
	"path/filepath"
)

// Debian is where Debian's phcpack package installs PHCpack's demo systems.
const Debian = "/usr/share/doc/phcpack/examples"

// Names are the demo systems the tests read: the workspace's copy holds
// exactly these, and Debian's database holds the same files among its 126.
var Names = []string{"chandra4", "chandra6", "cyclic5", "cyclic7", "d1", "eco6", "fourbar", "game4two", "ipp2", "katsura5", "noon3", "virasoro"}

// Dir returns the directory of the demo systems: workspace (the workspace
// copy's path from the test's directory) when it holds every one of
// Names, else Debian when it does, else "".
func Dir(workspace string) string {
	for _, dir := range []string{workspace, Debian} {
		if holdsAll(dir) {
			return dir
		}
	}
	return ""
}

// Files returns the paths of Names in Dir(workspace), or nil.
func Files(workspace string) []string {
	dir := Dir(workspace)
	if dir == "" {
		return nil
	}
	out := make([]string, len(Names))
	for i, n := range Names {
		out[i] = filepath.Join(dir, n)
	}
	return out
}

func holdsAll(dir string) bool {
	for _, n := range Names {
		if fi, err := os.Stat(filepath.Join(dir, n)); err != nil || !fi.Mode().IsRegular() {
			return false
		}
	}
	return true
}
