package gen

import (
	"bytes"
	"github.com/mdgen/mdgen/internal/atomicfile"
	"os"
	"path/filepath"
	"testing"
)

// TestLAFilesFresh regenerates package mdops/la in memory and fails when a
// committed file differs. With MDGEN_WRITE=1 it writes the files instead.
func TestLAFilesFresh(t *testing.T) {
	files, err := LAFiles(DefaultNs)
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("MDGEN_WRITE") == "1" {
		if err := atomicfile.WriteAll("..", files, nil); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %d files", len(files))
		return
	}
	for path, want := range files {
		got, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(path)))
		if err != nil {
			t.Errorf("%s: %v (run make generate)", path, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run make generate", path)
		}
	}
}

// TestLAFilesDeterministic checks that generating twice gives the same bytes.
func TestLAFilesDeterministic(t *testing.T) {
	a, err := LAFiles([]int{2, 3})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := LAFiles([]int{2, 3})
	for p := range a {
		if !bytes.Equal(a[p], b[p]) {
			t.Errorf("%s differs between two runs", p)
		}
	}
}
