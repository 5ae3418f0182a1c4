package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mdgen/mdgen/stager/families"
	"github.com/mdgen/mdgen/stager/poly"
	"github.com/mdgen/mdgen/stager/solutions"
)

// mdgen FILE writes the solver package into ./<name> with -prec 4
// -degree 16 unless told otherwise, lists the files, and prints how to
// build the fatbin; the package's Example output is that of Solve.
func TestEmitFile(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	code, sys, stderr := runCLI(t, "system", "katsura3:newton")
	if code != 0 {
		t.Fatalf("system: %d %s", code, stderr)
	}
	os.WriteFile("kat-3.txt", []byte(sys), 0o644)
	code, stdout, stderr := runCLI(t, "kat-3.txt", "-nvcc", "none")
	if code != 0 {
		t.Fatalf("mdgen kat-3.txt: exit %d\n%s", code, stderr)
	}
	for _, f := range []string{"kat_3.go", "kat_3_test.go", "kat_3.cu", "kat_3_system.txt", "fatbin/README.txt"} {
		p := filepath.Join("kat_3", filepath.FromSlash(f))
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s not written: %v", p, err)
		}
		if !strings.Contains(stdout, p+"\n") {
			t.Errorf("stdout does not list %s:\n%s", p, stdout)
		}
	}
	src, _ := os.ReadFile(filepath.Join("kat_3", "kat_3.go"))
	if !strings.Contains(string(src), "mdgen emit kat-3.txt -prec 4 -degree 16. DO NOT EDIT.") || !strings.Contains(string(src), "\npackage kat_3\n") {
		t.Errorf("kat_3.go: %.300s", src)
	}
	if !strings.Contains(stderr, "wrote package kat_3 in ") || !strings.Contains(stderr, "nvcc -fatbin") {
		t.Errorf("stderr:\n%s", stderr)
	}
	test, _ := os.ReadFile(filepath.Join("kat_3", "kat_3_test.go"))
	if !strings.Contains(string(test), "// Output:\n\t// converged in ") {
		t.Errorf("no Newton example in kat_3_test.go")
	}

	// Flags override the defaults, before or after the file.
	code, _, stderr = runCLI(t, "kat-3.txt", "-prec", "2", "-degree", "3", "-nvcc", "none", "-o", "k2")
	src, _ = os.ReadFile(filepath.Join("k2", "kat_3.go"))
	if code != 0 || !strings.Contains(string(src), "-prec 2 -degree 3. DO NOT EDIT.") {
		t.Fatalf("exit %d, %s\n%.200s", code, stderr, src)
	}
}

// A folder, a binary file, a missing file: the reader's error (with its
// position for a file it read), exit 1, nothing written; a word that is
// neither a command nor a file stays an unknown command.
func TestEmitFileBadInput(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.Mkdir("sys.txt", 0o755)
	os.WriteFile("blob.bin", []byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00>\x00"), 0o644)
	os.WriteFile("half.txt", []byte("2\n x^2 - 1;\n y\x00\x01 + 1;\n"), 0o644)
	for _, c := range []struct{ arg, want string }{
		{"sys.txt", "sys.txt: is a directory, not a system file"},
		{"blob.bin", "blob.bin:1:1: "},
		{"half.txt", "half.txt:3:"},
		{"missing.txt", "missing.txt: no such file"},
	} {
		code, stdout, stderr := runCLI(t, c.arg, "-nvcc", "none")
		if code != 1 || !strings.Contains(stderr, c.want) || stdout != "" {
			t.Errorf("mdgen %s: exit %d, stdout %q, stderr %q; want %q", c.arg, code, stdout, stderr, c.want)
		}
	}
	entries, _ := os.ReadDir(".")
	if len(entries) != 3 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("something was written: %v", names)
	}
	if code, _, stderr := runCLI(t, "sovle"); code != 2 || !strings.Contains(stderr, `unknown command "sovle"`) {
		t.Errorf("sovle: exit %d, %s", code, stderr)
	}
}

// A system with real coefficients and a complex start solution gets
// complex data (as mdgen solve chooses it), and at -degree 0 its Example
// refines the root.
func TestEmitFileComplexStart(t *testing.T) {
	t.Chdir(t.TempDir())
	sys, err := poly.Parse("sq", []byte("2\n x^2 + 1;\n y - 2;\n"), poly.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var i, two poly.Rational
	i.Im.SetFrac64(99, 100)
	two.Re.SetInt64(2)
	text := string(poly.Format(sys)) + "\n" + string(solutions.Format([]solutions.Solution{families.StartSolution(sys.Vars, []poly.Rational{i, two})}, solutions.FormatOptions{}))
	os.WriteFile("sq.txt", []byte(text), 0o644)
	code, _, stderr := runCLI(t, "sq.txt", "-degree", "0", "-nvcc", "none")
	if code != 0 || !strings.Contains(stderr, "start solution 1 has a complex coordinate x: emitting complex data") {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	src, _ := os.ReadFile(filepath.Join("sq", "sq.go"))
	test, _ := os.ReadFile(filepath.Join("sq", "sq_test.go"))
	if !strings.Contains(string(src), "Complex = true") || !strings.Contains(string(test), "// x t^0: 0 1.0000000") {
		t.Fatalf("sq.go / sq_test.go:\n%s", test)
	}
	code, _, stderr = runCLI(t, "sq.txt", "-degree", "0", "-nvcc", "none", "-complex=false", "-o", "real")
	if code != 0 || !strings.Contains(stderr, "cannot take") || !strings.Contains(stderr, "Example evaluates only") {
		t.Fatalf("-complex=false: exit %d:\n%s", code, stderr)
	}
}

// Under go generate, mdgen FILE writes into the package of the directive
// (name and folder from golang.org/x/tools/go/packages), as emit does.
func TestEmitFileUnderGoGenerate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	t.Chdir(t.TempDir())
	os.WriteFile("go.mod", []byte("module example.com/demo\n\ngo 1.26\n"), 0o644)
	os.WriteFile("main.go", []byte("package demo\n\n//go:generate mdgen kat.txt\n"), 0o644)
	_, sys, _ := runCLI(t, "system", "katsura3:newton")
	os.WriteFile("kat.txt", []byte(sys), 0o644)
	t.Setenv("GOFILE", "main.go")
	t.Setenv("GOPACKAGE", "demo")
	code, stdout, stderr := runCLI(t, "kat.txt", "-nvcc", "none")
	if code != 0 || !strings.Contains(stderr, "wrote package demo in .") || !strings.Contains(stdout, "kat.go\n") || strings.Contains(stderr, "loading the package") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	src, err := os.ReadFile("kat.go")
	if err != nil || !strings.Contains(string(src), "\npackage demo\n") {
		t.Fatalf("kat.go: %v\n%.400s", err, src)
	}
	if _, err := os.Stat("kat"); !os.IsNotExist(err) {
		t.Errorf("a folder kat was made under go generate")
	}
}
