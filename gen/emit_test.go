package gen

import (
	"bytes"
	"fmt"
	"github.com/mdgen/mdgen/internal/atomicfile"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/solver"
	"github.com/mdgen/mdgen/stager/families"
	"github.com/mdgen/mdgen/stager/poly"
	"github.com/mdgen/mdgen/stager/solutions"
)

// emittedPackages are the packages `make generate` emits into generated/.
var emittedPackages = []EmitSpec{
	{Benchmark: "p1", Seed: 1, Name: "p1", Package: "p1", Prec: mdops.Prec{N: 8}, Degree: 31, Args: "p1 -prec 8 -degree 31"},
	{Benchmark: "p2", Seed: 1, Name: "p2", Package: "p2", Prec: mdops.Prec{N: 8}, Degree: 31, Args: "p2 -prec 8 -degree 31"},
	{Benchmark: "p3", Seed: 1, Name: "p3", Package: "p3", Prec: mdops.Prec{N: 8}, Degree: 31, Args: "p3 -prec 8 -degree 31"},
}

// TestEmittedPackagesFresh emits generated/p1, p2, p3 in memory and fails
// when a committed file differs or is missing, or the folder has files the
// emitter does not write (fatbins aside): run `make generate`.
func TestEmittedPackagesFresh(t *testing.T) {
	for _, s := range emittedPackages {
		em, err := Emit(s, solver.ExampleRunner{})
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join("..", "generated", s.Name)
		for p, want := range em.Files {
			got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
			if err != nil {
				t.Errorf("%s/%s: %v (run make generate)", s.Name, p, err)
				continue
			}
			if !bytes.Equal(got, want) {
				t.Errorf("generated/%s/%s is stale: run make generate", s.Name, p)
			}
		}
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(dir, path)
			rel = filepath.ToSlash(rel)
			if _, ok := em.Files[rel]; !ok && rel != em.Fatbin && rel != em.Stamp {
				t.Errorf("generated/%s/%s is not written by mdgen emit: remove it", s.Name, rel)
			}
			return nil
		})
	}
}

const emitTestSystem = `2 3
 x*y - (1 + 2/3*t)*x + y^2 - 1/7;
 x^2*y*3 - t*y + 5;
`

func textSpec() EmitSpec {
	return EmitSpec{Text: []byte(emitTestSystem), Name: "tiny", Package: "tiny", Prec: mdops.Prec{N: 2}, Degree: 5, Args: "tiny.txt -prec 2 -degree 5"}
}

// newtonSpec is a package for a Newton homotopy whose system file lists its
// start solution, as `mdgen system katsura3:newton` writes it.
func newtonSpec(t *testing.T) EmitSpec {
	t.Helper()
	inst, err := families.System("katsura3:newton", families.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	text := append(poly.Format(inst.System), '\n')
	text = append(text, solutions.Format(inst.Start, solutions.FormatOptions{})...)
	return EmitSpec{Text: text, Name: "kat3", Package: "kat3", Prec: mdops.Prec{N: 2}, Degree: 6, Args: "kat3.txt -prec 2 -degree 6"}
}

// circleHyperbola is x^2 + y^2 = 5, x y = 2, without a parameter: four
// real solutions, (1, 2), (2, 1), (-1, -2), (-2, -1), and no path to
// infinity.
const circleHyperbola = `2
 x^2 + y^2 - 5;
 x*y - 2;
`

// trackSpec is a package for a square system without a parameter: it
// tracks the total-degree homotopy.
func trackSpec() EmitSpec {
	return EmitSpec{Text: []byte(circleHyperbola), Name: "ch", Package: "ch", Prec: mdops.Prec{N: 2}, Degree: 4, Args: "ch.txt -prec 2 -degree 4"}
}

// A square system without a parameter gets Track, ExampleTrack with the
// output of the tracker (every solution) and the test of Track against
// runtime/track; a large one gets ExampleTrack without an output and the
// test skipped with -short; a system with a parameter, or not square, gets
// no Track.
func TestEmitTrack(t *testing.T) {
	em, err := Emit(trackSpec(), solver.ExampleRunner{})
	if err != nil {
		t.Fatal(err)
	}
	if em.Homotopy != "total-degree" || em.TrackExampleLong {
		t.Fatalf("homotopy %q (%s), long %v", em.Homotopy, em.NoTrackWhy, em.TrackExampleLong)
	}
	src, test := string(em.Files["ch.go"]), string(em.Files["ch_test.go"])
	if !regexp.MustCompile(`\n\s+Homotopy:\s+"total-degree",\n`).MatchString(src) {
		t.Errorf("ch.go's spec has no Homotopy")
	}
	for _, want := range []string{"func Track(opts ...TrackOption) (*TrackResult, error) {",
		"func WithTrackPrecision(n int) TrackOption {", "func WithPade(l int, m int) TrackOption {", "func WithAffine() TrackOption {",
		"func WithTrackProgress(f func(done, failed int64)) TrackOption {", "\n// Track solves the system:"} {
		if !strings.Contains(src, want) {
			t.Errorf("ch.go has no %q", want)
		}
	}
	for _, want := range []string{"func TestTrackMatchesTracker(", "// 4 paths: 4 regular, 0 singular, 0 at infinity, 0 failed; 4 real, 4 distinct\n",
		"(1.0000000000", "(2.0000000000", "(-1.0000000000", "(-2.0000000000"} {
		if !strings.Contains(test, want) {
			t.Errorf("ch_test.go has no %q", want)
		}
	}
	if n := strings.Count(test, "// path "); n != 4 {
		t.Errorf("ExampleTrack prints %d paths, want 4:\n%s", n, test)
	}
	long := EmitSpec{Name: "kat4", Package: "kat4", Prec: mdops.Prec{N: 4}, Degree: 4, Args: "kat4.txt"}
	inst, err := families.System("katsura4", families.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	long.Text = poly.Format(inst.System)
	em, err = Emit(long, solver.ExampleRunner{})
	if err != nil {
		t.Fatal(err)
	}
	test = string(em.Files["kat4_test.go"])
	if em.Homotopy != "total-degree" || !em.TrackExampleLong || !strings.Contains(test, "func ExampleTrack()") ||
		strings.Contains(test, "// 16 paths") || !strings.Contains(test, `t.Skip("tracking at this size takes long")`) {
		t.Errorf("katsura4 at 4 doubles: homotopy %q, long %v:\n%s", em.Homotopy, em.TrackExampleLong, test)
	}
	for _, c := range []struct {
		name string
		spec EmitSpec
		why  string
	}{
		{"a parameter", newtonSpec(t), "parameter"},
		{"not square", EmitSpec{Text: []byte("3 2\n x + y;\n x - y;\n x*y - 1;\n"), Name: "over", Package: "over", Prec: mdops.Prec{N: 2}, Degree: 2}, "3 equations in 2 unknowns"},
		{"a benchmark", emittedPackages[0], "benchmark"},
	} {
		em, err := Emit(c.spec, solver.ExampleRunner{})
		if err != nil {
			t.Fatal(err)
		}
		if em.Homotopy != "" || !strings.Contains(em.NoTrackWhy, c.why) {
			t.Errorf("%s: homotopy %q, why %q", c.name, em.Homotopy, em.NoTrackWhy)
		}
		for p, src := range em.Files {
			if strings.Contains(string(src), "Track") {
				t.Errorf("%s: %s mentions Track", c.name, p)
			}
		}
	}
}

// The package of a system with a start solution gets the Newton Example,
// with the output of Solve on the CPU, and the test against runtime/newton;
// one without gets the evaluation Example, with its checksum when small.
func TestEmitExamples(t *testing.T) {
	em, err := Emit(newtonSpec(t), solver.ExampleRunner{})
	if err != nil {
		t.Fatal(err)
	}
	src := string(em.Files["kat3_test.go"])
	for _, want := range []string{"func TestSolveMatchesNewton(", "s.Solve(starts[0])", "\t// Output:\n\t// converged in ", "\t// u0 t^2: "} {
		if !strings.Contains(src, want) {
			t.Errorf("kat3_test.go has no %q", want)
		}
	}
	long := newtonSpec(t)
	long.Prec, long.Degree = mdops.Prec{N: 16}, 300
	em, err = Emit(long, solver.ExampleRunner{})
	if err != nil {
		t.Fatal(err)
	}
	src = string(em.Files["kat3_test.go"])
	if em.Solves || !em.ExampleSolves || strings.Contains(src, "// Output:") || !strings.Contains(src, "s.Solve(starts[0])") ||
		!strings.Contains(src, `t.Skip("Newton at this size takes long")`) {
		t.Errorf("a long Newton: Solves %v, ExampleSolves %v:\n%s", em.Solves, em.ExampleSolves, src)
	}
	em, err = Emit(textSpec(), solver.ExampleRunner{})
	if err != nil {
		t.Fatal(err)
	}
	src = string(em.Files["tiny_test.go"])
	if strings.Contains(src, "TestSolveMatchesNewton") || !strings.Contains(src, "// Output:\n\t// checksum ") ||
		!strings.Contains(src, "no Newton example: the system file lists no start solutions") {
		t.Errorf("tiny_test.go:\n%s", src)
	}
}

// TestEmitDeterministic emits twice and compares, and checks the headers
// and the files of a text system.
func TestEmitDeterministic(t *testing.T) {
	a, err := Emit(textSpec(), solver.ExampleRunner{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Emit(textSpec(), solver.ExampleRunner{})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Files) != len(b.Files) || a.Hash != b.Hash {
		t.Fatal("two emits differ")
	}
	for p := range a.Files {
		if !bytes.Equal(a.Files[p], b.Files[p]) {
			t.Errorf("%s differs between two emits", p)
		}
	}
	for _, p := range []string{"tiny.go", "tiny_test.go", "tiny.cu", "tiny_system.txt", "fatbin/README.txt"} {
		if _, ok := a.Files[p]; !ok {
			t.Errorf("no %s", p)
		}
	}
	header := "Code generated by mdgen emit tiny.txt -prec 2 -degree 5. DO NOT EDIT."
	for p, src := range a.Files {
		switch {
		case strings.HasSuffix(p, ".go"):
			f, err := parser.ParseFile(token.NewFileSet(), p, src, parser.ParseComments)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			if !ast.IsGenerated(f) || !bytes.HasPrefix(src, []byte("// "+header+"\n")) {
				t.Errorf("%s: no generated-code header", p)
			}
		case p == "tiny_system.txt":
			if string(src) != emitTestSystem {
				t.Errorf("the system file is not copied verbatim")
			}
		default:
			if !bytes.Contains(src, []byte(header)) {
				t.Errorf("%s: no generated-code header", p)
			}
		}
		if bytes.Contains(src, []byte(os.TempDir())) {
			t.Errorf("%s holds a path", p)
		}
		if wd, _ := os.Getwd(); bytes.Contains(src, []byte(wd)) {
			t.Errorf("%s holds a path", p)
		}
	}
}

func TestEmitErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*EmitSpec)
		want string
	}{
		{"no system", func(s *EmitSpec) { s.Text = nil }, "exactly one"},
		{"two systems", func(s *EmitSpec) { s.Benchmark = "p1" }, "exactly one"},
		{"bad package", func(s *EmitSpec) { s.Package = "func" }, "package name"},
		{"bad name", func(s *EmitSpec) { s.Name = "a/b" }, "file name"},
		{"precision", func(s *EmitSpec) { s.Prec = mdops.Prec{N: 17} }, "precision"},
		{"degree", func(s *EmitSpec) { s.Degree = -1 }, "degree"},
		{"complex coefficients", func(s *EmitSpec) { s.Text = []byte("2 2\n x*y - 2*i;\n x + y;\n") }, "complex"},
		{"parse error", func(s *EmitSpec) { s.Text = []byte("1 2\n x*y +;\n") }, "tiny:2"},
	} {
		s := textSpec()
		c.edit(&s)
		if _, err := Emit(s, solver.ExampleRunner{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	// Without a runner the Examples' outputs cannot be computed: an error,
	// not a package whose Example prints nothing.
	if _, err := Emit(textSpec(), nil); err == nil || !strings.Contains(err.Error(), "ExampleRunner") {
		t.Errorf("no runner: error %v, want one naming the ExampleRunner", err)
	}
}

func TestSanitizeName(t *testing.T) {
	for _, c := range []struct{ in, name, pkg string }{
		{"cyclic5.txt", "cyclic5", "cyclic5"},
		{"dir/Katsura-6.sys", "katsura_6", "katsura_6"},
		{"5roots.txt", "5roots", "sys5roots"},
		{"func.txt", "func", "func_"},
		{"...", "system", "system"},
	} {
		name, pkg := SanitizeName(c.in)
		if name != c.name || pkg != c.pkg {
			t.Errorf("SanitizeName(%q) = %q, %q; want %q, %q", c.in, name, pkg, c.name, c.pkg)
		}
	}
}

// TestEmittedCUCompiles compiles an emitted .cu (headers inlined, tables)
// as host C++: it must be self-contained.
func TestEmittedCUCompiles(t *testing.T) {
	cxx := needCXX(t)
	for _, complex := range []bool{false, true} {
		s := textSpec()
		s.Prec.Complex = complex
		em, err := Emit(s, solver.ExampleRunner{})
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		f := filepath.Join(dir, "tiny.cu")
		os.WriteFile(f, em.Files[em.CU], 0o644)
		shim, _ := filepath.Abs("testdata/cuda_host_shim.h")
		out, err := exec.Command(cxx, "-std=c++20", "-fsyntax-only", "-Wall", "-Wno-unknown-pragmas",
			"-include", shim, "-x", "c++", f).CombinedOutput()
		if err != nil || len(out) > 0 {
			t.Fatalf("complex=%v: g++: %v\n%s", complex, err, out)
		}
	}
}

// TestEmittedPackageBuilds writes an emitted package into the module (under
// testdata, so ./... skips it), builds and tests it, then checks the
// compile-time guard: a package emitted for another GPU layout version
// must not build.
func TestEmittedPackageBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go build and go test")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	// The Newton package: its Example and its test of Solve run.
	nem, err := Emit(newtonSpec(t), solver.ExampleRunner{})
	if err != nil {
		t.Fatal(err)
	}
	ndir, err := os.MkdirTemp("testdata", "emitted-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(ndir)
	if err := atomicfile.WriteAll(ndir, nem.Files, nil); err != nil {
		t.Fatal(err)
	}
	npkg := "./" + filepath.ToSlash(ndir)
	if out, err := exec.Command(goTool, "test", "-count=1", "-v", "-run", "Example|TestSolveMatchesNewton", npkg).CombinedOutput(); err != nil ||
		!strings.Contains(string(out), "--- PASS: Example") || !strings.Contains(string(out), "--- PASS: TestSolveMatchesNewton") {
		t.Fatalf("go test %s: %v\n%s", npkg, err, out)
	}
	// The long variant (an Example without output) compiles and vets.
	long := newtonSpec(t)
	long.Prec, long.Degree = mdops.Prec{N: 16}, 300
	lem, err := Emit(long, solver.ExampleRunner{})
	if err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.WriteAll(ndir, lem.Files, nil); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(goTool, "vet", npkg).CombinedOutput(); err != nil {
		t.Fatalf("go vet %s (degree 300): %v\n%s", npkg, err, out)
	}

	// The tracking package: ExampleTrack (every solution) and Track ==
	// runtime/track run.
	tem, err := Emit(trackSpec(), solver.ExampleRunner{})
	if err != nil {
		t.Fatal(err)
	}
	tdir, err := os.MkdirTemp("testdata", "emitted-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tdir)
	if err := atomicfile.WriteAll(tdir, tem.Files, nil); err != nil {
		t.Fatal(err)
	}
	tpkg := "./" + filepath.ToSlash(tdir)
	if out, err := exec.Command(goTool, "test", "-count=1", "-v", "-run", "ExampleTrack|TestTrackMatchesTracker", tpkg).CombinedOutput(); err != nil ||
		!strings.Contains(string(out), "--- PASS: ExampleTrack") || !strings.Contains(string(out), "--- PASS: TestTrackMatchesTracker") {
		t.Fatalf("go test %s: %v\n%s", tpkg, err, out)
	}

	em, err := Emit(textSpec(), solver.ExampleRunner{})
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("testdata", "emitted-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := atomicfile.WriteAll(dir, em.Files, nil); err != nil {
		t.Fatal(err)
	}
	pkg := "./" + filepath.ToSlash(dir)
	if out, err := exec.Command(goTool, "test", "-count=1", pkg).CombinedOutput(); err != nil {
		t.Fatalf("go test %s: %v\n%s", pkg, err, out)
	}
	src := string(em.Files["tiny.go"])
	v, next := gpuabi.LayoutVersion, gpuabi.LayoutVersion+1
	bumped := strings.Replace(src, fmt.Sprintf("GPULayoutVersion        = %d", v), fmt.Sprintf("GPULayoutVersion        = %d", next), 1)
	if bumped == src {
		bumped = strings.Replace(src, fmt.Sprintf("GPULayoutVersion = %d", v), fmt.Sprintf("GPULayoutVersion = %d", next), 1)
	}
	if bumped == src {
		t.Fatal("cannot find the GPULayoutVersion constant in tiny.go")
	}
	os.WriteFile(filepath.Join(dir, "tiny.go"), []byte(bumped), 0o644)
	out, err := exec.Command(goTool, "build", pkg).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "GPULayoutVersion") {
		t.Fatalf("a package for another layout version built (err %v):\n%s", err, out)
	}
}

// TestEmittedDocComments parses the emitted files with go/parser and
// go/doc: every exported identifier has a doc comment that begins with its
// name, and every comment is a line comment (no stray /* */ block).
func TestEmittedDocComments(t *testing.T) {
	specs := []EmitSpec{textSpec(), emittedPackages[0], newtonSpec(t), trackSpec()}
	cs := textSpec()
	cs.Prec.Complex, cs.Name, cs.Package = true, "ctiny", "ctiny"
	specs = append(specs, cs)
	for _, s := range specs {
		em, err := Emit(s, solver.ExampleRunner{})
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		var files, tests []*ast.File
		for p, src := range em.Files {
			if !strings.HasSuffix(p, ".go") {
				continue
			}
			f, err := parser.ParseFile(fset, p, src, parser.ParseComments)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			for _, cg := range f.Comments {
				for _, c := range cg.List {
					if !strings.HasPrefix(c.Text, "//") || strings.Contains(c.Text, "/*") {
						t.Errorf("%s/%s: %s: a block comment: %q", s.Name, p, fset.Position(c.Pos()), c.Text)
					}
				}
			}
			if strings.HasSuffix(p, "_test.go") {
				tests = append(tests, f)
			} else {
				files = append(files, f)
			}
		}
		pkg, err := doc.NewFromFiles(fset, files, "example.com/"+s.Package)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(pkg.Doc, "Package "+s.Package+" ") {
			t.Errorf("%s: package doc %q", s.Name, pkg.Doc)
		}
		check := func(name, text string) {
			t.Helper()
			if !strings.HasPrefix(text, name+" ") {
				t.Errorf("%s: the doc comment of %s is %q", s.Name, name, text)
			}
		}
		names := 0
		values := func(vs []*doc.Value) {
			for _, v := range vs {
				for _, spec := range v.Decl.Specs {
					vs := spec.(*ast.ValueSpec)
					text := v.Doc
					if len(v.Decl.Specs) > 1 || vs.Doc != nil {
						text = vs.Doc.Text()
					}
					for _, id := range vs.Names {
						if id.IsExported() {
							check(id.Name, text)
							names++
						}
					}
				}
			}
		}
		values(pkg.Consts)
		values(pkg.Vars)
		for _, ty := range pkg.Types {
			check(ty.Name, ty.Doc)
			names++
			values(ty.Consts)
			values(ty.Vars)
			for _, f := range append(ty.Funcs, ty.Methods...) {
				check(f.Name, f.Doc)
				names++
			}
		}
		for _, f := range pkg.Funcs {
			check(f.Name, f.Doc)
			names++
		}
		for _, f := range tests {
			for _, d := range f.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok {
					check(fd.Name.Name, fd.Doc.Text())
					names++
				}
			}
		}
		if names < 25 {
			t.Errorf("%s: only %d identifiers checked", s.Name, names)
		}
	}
}

// TestEmittedOddNamesBuild: names at the edges of CheckName and
// CheckPackage, and those SanitizeName makes of hostile file names, give
// packages that build and vet (a name ending in _test or _windows gave a
// package without its main file, and main one without func main).
func TestEmittedOddNamesBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go vet")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	for _, file := range []string{"cyc_test.txt", "main.txt", "type.txt", "9-sys_linux_amd64.txt"} {
		s := textSpec()
		s.Name, s.Package = SanitizeName(file)
		if err := CheckName(s.Name); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, name := range []string{s.Name, "Sys-1.v2"} {
			s.Name = name
			em, err := Emit(s, solver.ExampleRunner{})
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			dir, err := os.MkdirTemp("testdata", "emitted-")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(dir)
			if err := atomicfile.WriteAll(dir, em.Files, nil); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command(goTool, "vet", "./"+filepath.ToSlash(dir)).CombinedOutput(); err != nil {
				t.Errorf("%s (name %s, package %s): go vet: %v\n%s", file, name, s.Package, err, out)
			}
		}
	}
}
