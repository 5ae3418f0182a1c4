package cudadev

import (
	"bytes"
	"go/ast"
	"go/build/constraint"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestSameAPI checks that the cuda-tagged files and nocuda.go declare the
// same exported functions, methods, types and constants, with the same
// signatures, so that code written against one build compiles with the other.
func TestSameAPI(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	api := map[bool]map[string]string{true: {}, false: {}}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		var expr constraint.Expr
		for _, line := range strings.Split(string(src), "\n") {
			if constraint.IsGoBuild(line) {
				if expr, err = constraint.Parse(line); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				break
			}
		}
		for _, cuda := range []bool{true, false} {
			if expr != nil && !expr.Eval(func(tag string) bool {
				return tag == "cuda" && cuda || tag == "linux" || tag == "amd64" || tag == "cgo"
			}) {
				continue
			}
			collectAPI(t, fset, f, api[cuda])
		}
	}
	var keys []string
	for k := range api[true] {
		keys = append(keys, k)
	}
	for k := range api[false] {
		if _, ok := api[true][k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		a, inCUDA := api[true][k]
		b, inStub := api[false][k]
		switch {
		case !inCUDA:
			t.Errorf("%s is declared only in the build without cuda: %s", k, b)
		case !inStub:
			t.Errorf("%s is declared only in the cuda build (add it to nocuda.go): %s", k, a)
		case a != b:
			t.Errorf("%s differs:\n\tcuda:   %s\n\t!cuda:  %s", k, a, b)
		}
	}
	if len(api[true]) < 40 {
		t.Errorf("only %d exported names found; the test is not looking at the package", len(api[true]))
	}
}

func collectAPI(t *testing.T, fset *token.FileSet, f *ast.File, out map[string]string) {
	typeString := func(n ast.Node) string {
		var buf bytes.Buffer
		if err := printer.Fprint(&buf, fset, n); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	// signature prints parameter and result types without names.
	signature := func(ft *ast.FuncType) string {
		list := func(fl *ast.FieldList) string {
			if fl == nil {
				return ""
			}
			var parts []string
			for _, fld := range fl.List {
				n := max(len(fld.Names), 1)
				for range n {
					parts = append(parts, typeString(fld.Type))
				}
			}
			return strings.Join(parts, ", ")
		}
		return "(" + list(ft.Params) + ") (" + list(ft.Results) + ")"
	}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				continue
			}
			key := d.Name.Name
			if d.Recv != nil {
				recv := typeString(d.Recv.List[0].Type)
				if !ast.IsExported(strings.TrimPrefix(recv, "*")) {
					continue
				}
				key = recv + "." + key
			}
			out[key] = signature(d.Type)
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						out["type "+s.Name.Name] = "type"
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() {
							out[d.Tok.String()+" "+n.Name] = d.Tok.String()
						}
					}
				}
			}
		}
	}
}
