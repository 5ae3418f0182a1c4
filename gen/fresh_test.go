package gen

import (
	"bytes"
	"github.com/mdgen/mdgen/internal/atomicfile"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeneratedFilesFresh regenerates the arithmetic in memory and fails
// when a committed file differs: run `make generate` after changing the IR.
//
// With MDGEN_WRITE=1 in the environment it writes the files instead, like
// `mdgen generate` but without building the command (handy while packages
// the command imports are mid-edit).
func TestGeneratedFilesFresh(t *testing.T) {
	files, err := ArithmeticFiles(DefaultNs)
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

// TestGeneratedDeterministic checks that generating twice gives the same bytes.
func TestGeneratedDeterministic(t *testing.T) {
	a, err := ArithmeticFiles([]int{3, 7})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := ArithmeticFiles([]int{3, 7})
	for p := range a {
		if !bytes.Equal(a[p], b[p]) {
			t.Errorf("%s differs between two runs", p)
		}
	}
}

// TestGeneratedHeader checks the header go/ast.IsGenerated recognizes.
func TestGeneratedHeader(t *testing.T) {
	files, err := ArithmeticFiles([]int{2})
	if err != nil {
		t.Fatal(err)
	}
	for p, src := range files {
		if strings.HasSuffix(p, ".go") {
			f, err := parser.ParseFile(token.NewFileSet(), p, src, parser.ParseComments)
			if err != nil {
				t.Fatalf("%s does not parse: %v", p, err)
			}
			if !ast.IsGenerated(f) {
				t.Errorf("%s lacks the generated-code header", p)
			}
		} else if !bytes.HasPrefix(src, []byte("// "+Header)) {
			t.Errorf("%s lacks the generated-code header", p)
		}
	}
}
