package main

// Probes of hostile input (issue 20): outputs that must not be replaced,
// unbounded reads, extreme sizes, what the generator writes and the
// readers refuse, names that give packages that do not build, vague
// errors, and the -json report of a solution that did not converge. Each
// runs the command in-process in a temporary folder, in well under a
// second (small caps through the readers' limits where a probe reads an
// endless input).

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/tune"
	"github.com/mdgen/mdgen/stager/families"
	"github.com/mdgen/mdgen/stager/poly"
	"github.com/mdgen/mdgen/stager/solutions"
)

// hostileDir makes a temporary folder the working one and writes a small
// solvable system with its start solution there, c3.txt (cyclic3:newton),
// and returns the system's text.
func hostileDir(t *testing.T) string {
	t.Helper()
	t.Chdir(t.TempDir())
	code, sys, stderr := runCLI(t, "system", "cyclic3:newton")
	if code != 0 {
		t.Fatalf("system: %d %s", code, stderr)
	}
	if err := os.WriteFile("c3.txt", []byte(sys), 0o644); err != nil {
		t.Fatal(err)
	}
	return sys
}

// noTemporaries fails when a hidden temporary file is left in dir.
func noTemporaries(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("a temporary file is left: %s", filepath.Join(dir, e.Name()))
		}
	}
}

// expect checks an exit status and that stderr holds every want.
func expect(t *testing.T, args []string, code int, stderr string, wantCode int, want ...string) {
	t.Helper()
	if code != wantCode {
		t.Errorf("%q: exit %d, want %d; stderr:\n%s", args, code, wantCode, stderr)
	}
	for _, w := range want {
		if !strings.Contains(stderr, w) {
			t.Errorf("%q: stderr lacks %q:\n%s", args, w, stderr)
		}
	}
}

func runExpect(t *testing.T, wantCode int, want []string, args ...string) (string, string) {
	t.Helper()
	code, stdout, stderr := runCLI(t, args...)
	expect(t, args, code, stderr, wantCode, want...)
	return stdout, stderr
}

// TestHostileOutputs: a special file is written into, never replaced; an
// input is never an output; a folder where a file is meant is refused
// before anything is made; no temporary file outlives the run.
func TestHostileOutputs(t *testing.T) {
	sys := hostileDir(t)
	wd, _ := os.Getwd()
	solve := []string{"solve", "c3.txt", "-prec", "1", "-degree", "1"}

	t.Run("input is output", func(t *testing.T) {
		runExpect(t, 2, []string{"c3.txt is the input file c3.txt"}, append(solve, "-o", "c3.txt")...)
		os.Symlink("c3.txt", "link.txt")
		runExpect(t, 2, []string{"is the input file"}, append(solve, "-o", "link.txt")...)
		os.WriteFile("st.txt", []byte(sys[strings.Index(sys, "THE SOLUTIONS"):]), 0o644)
		runExpect(t, 2, []string{"is the input file st.txt"}, append(solve, "-start", "st.txt", "-o", "./st.txt")...)
		if b, _ := os.ReadFile("c3.txt"); string(b) != sys {
			t.Errorf("the input was changed")
		}
	})
	t.Run("folder", func(t *testing.T) {
		os.Mkdir("sub", 0o755)
		runExpect(t, 2, []string{"sub is a folder"}, append(solve, "-o", "sub")...)
		runExpect(t, 2, []string{"c3.txt is not a folder"}, append(solve, "-o", "c3.txt/x")...)
		noTemporaries(t, wd)
		noTemporaries(t, filepath.Join(wd, "sub"))
	})
	t.Run("symlink followed", func(t *testing.T) {
		os.WriteFile("old.txt", []byte("old"), 0o644)
		os.Symlink("old.txt", "out-link.txt")
		runExpect(t, 0, nil, append(solve, "-o", "out-link.txt")...)
		if st, err := os.Lstat("out-link.txt"); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Errorf("the link was replaced: %v", err)
		}
		if b, _ := os.ReadFile("old.txt"); !strings.Contains(string(b), "THE SOLUTIONS") {
			t.Errorf("the file the link names was not written: %q", b)
		}
		noTemporaries(t, wd)
	})
	t.Run("fifo and descriptors", func(t *testing.T) {
		if err := syscall.Mkfifo("fifo", 0o644); err != nil {
			t.Skip("no FIFO:", err)
		}
		got := make(chan []byte)
		go func() { b, _ := os.ReadFile("fifo"); got <- b }()
		runExpect(t, 0, nil, append(solve, "-o", "fifo")...)
		if b := <-got; !strings.Contains(string(b), "THE SOLUTIONS") {
			t.Errorf("the FIFO got %q", b)
		}
		if st, _ := os.Lstat("fifo"); st.Mode()&os.ModeNamedPipe == 0 {
			t.Errorf("the FIFO was replaced: %v", st.Mode())
		}
		// /dev/fd/N of a regular file (as /dev/stdout redirected): appended to.
		f, _ := os.Create("redirected.txt")
		defer f.Close()
		f.WriteString("before\n")
		runExpect(t, 0, nil, append(solve, "-o", fmt.Sprintf("/dev/fd/%d", f.Fd()))...)
		if b, _ := os.ReadFile("redirected.txt"); !strings.HasPrefix(string(b), "before\n") || !strings.Contains(string(b), "THE SOLUTIONS") {
			t.Errorf("redirected.txt: %q", b)
		}
		noTemporaries(t, wd)
	})
	t.Run("dev null", func(t *testing.T) {
		runExpect(t, 0, nil, append(solve, "-o", "/dev/null")...)
		if st, err := os.Stat("/dev/null"); err != nil || st.Mode()&os.ModeCharDevice == 0 {
			t.Fatalf("/dev/null is no longer a device: %v %v", st.Mode(), err)
		}
	})
	t.Run("emit", func(t *testing.T) {
		emit := []string{"emit", "c3.txt", "-prec", "1", "-degree", "1", "-nvcc", "none"}
		runExpect(t, 1, []string{"c3.txt is not a folder"}, append(emit, "-o", "c3.txt")...)
		// -name c3_system with -o . would write c3_system_system.txt, but
		// -name c3 and -o . write c3_system.txt: c3.txt stays an input.
		os.Rename("c3.txt", "c3_system.txt")
		runExpect(t, 1, []string{"would replace the input file c3_system.txt"}, "emit", "c3_system.txt", "-prec", "1", "-degree", "1", "-nvcc", "none", "-o", ".", "-name", "c3")
		os.Rename("c3_system.txt", "c3.txt")
		noTemporaries(t, wd)
	})
	t.Run("bench and tune", func(t *testing.T) {
		os.Mkdir("sub", 0o755)
		runExpect(t, 2, []string{"-csv: sub is a folder"}, "bench", "-cpu", "-csv", "sub")
		runExpect(t, 2, []string{"-plot: c3.txt/p.svg cannot be written: c3.txt is not a folder"}, "bench", "-cpu", "-plot", "c3.txt/p.svg")
		runExpect(t, 2, []string{"-out: c3.txt is not a folder"}, "bench", "-newton", "-cpu", "-out", "c3.txt")
		runExpect(t, 2, []string{"-profile: sub is a folder"}, "tune", "-profile", "sub")
		runExpect(t, 2, []string{"-o: c3.txt is not a folder"}, "generate", "-o", "c3.txt")
	})
}

// TestHostileReads: endless or huge inputs are refused with the limit
// named (small caps here: the real ones are 1 GiB for systems, start
// lists and -input files, 16 MiB for profiles); pipes still work.
func TestHostileReads(t *testing.T) {
	sys := hostileDir(t)
	for _, v := range []*int64{&poly.MaxFileBytes, &solutions.MaxFileBytes, &tune.MaxProfileBytes, &backend.MaxInputBytes} {
		old := *v
		*v = 1 << 20
		defer func() { *v = old }()
	}
	limit := "more than 1 MiB, the limit of "
	runExpect(t, 1, []string{"/dev/zero: " + limit + "a system file"}, "solve", "/dev/zero")
	runExpect(t, 1, []string{"/dev/zero: " + limit + "a solution file"}, "solve", "c3.txt", "-prec", "1", "-start", "/dev/zero")
	runExpect(t, 1, []string{"/dev/zero: " + limit + "a system file"}, "emit", "/dev/zero", "-degree", "1", "-nvcc", "none")
	runExpect(t, 1, []string{"/dev/zero: " + limit + "a system file"}, "eval", "/dev/zero", "-degree", "1")
	runExpect(t, 1, []string{"/dev/zero: " + limit + "a system file"}, "plan", "/dev/zero", "-degree", "1")
	runExpect(t, 1, []string{"/dev/zero: " + limit + "an input series file"}, "eval", "c3.txt", "-degree", "1", "-input", "/dev/zero")
	runExpect(t, 0, []string{"/dev/zero: " + limit + "a tuning profile"}, "emit", "c3.txt", "-prec", "1", "-degree", "1", "-nvcc", "none", "-profile", "/dev/zero")
	big := make([]byte, 2<<20)
	for i := range big {
		big[i] = ' '
	}
	os.WriteFile("big.txt", append([]byte(sys), big...), 0o644)
	runExpect(t, 1, []string{"big.txt: " + limit + "a system file"}, "solve", "big.txt", "-prec", "1")

	// A pipe (as <(...) or /dev/stdin) is read as a file.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() { w.WriteString(sys); w.Close() }()
	defer r.Close()
	runExpect(t, 0, nil, "solve", fmt.Sprintf("/dev/fd/%d", r.Fd()), "-prec", "1", "-degree", "1")
}

// TestHostileNames: emit refuses a -name or -pkg that gives a package go
// build would not build as one (a test file, a file of one platform, glob
// characters, a leading dash, main, keywords, non-identifiers, unicode),
// and names derived from a file name are made to build.
func TestHostileNames(t *testing.T) {
	hostileDir(t)
	emit := []string{"emit", "c3.txt", "-prec", "1", "-degree", "1", "-nvcc", "none", "-o", "pkg"}
	for _, name := range []string{"sys_test", "sys_windows", "sys_linux_arm64", "sys_wasm", "a*b", "a[1]", "-x", "_x", ".x", "a b", "ñ", "a\u200bb", ""} {
		if name == "" {
			continue // -name "" is the default
		}
		runExpect(t, 2, []string{"-name: "}, append(emit, "-name", name)...)
	}
	for _, pkg := range []string{"main", "func", "type", "1abc", "a-b", "a.b", "ñ", "x_test", "documentation", "_"} {
		runExpect(t, 2, []string{"-pkg: "}, append(emit, "-pkg", pkg)...)
	}
	if _, err := os.Stat("pkg"); err == nil {
		t.Errorf("a refused name wrote the package")
	}
	// package main is a command's: taken where the folder has a func main
	// (a go:generate directive in package main), refused elsewhere.
	os.Mkdir("cmdpkg", 0o755)
	os.WriteFile(filepath.Join("cmdpkg", "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	runExpect(t, 0, nil, "emit", "c3.txt", "-prec", "1", "-degree", "1", "-nvcc", "none", "-o", "cmdpkg", "-pkg", "main")
	runExpect(t, 2, []string{"-pkg: the package cannot be main here"}, "emit", "c3.txt", "-prec", "1", "-degree", "1", "-nvcc", "none", "-o", "libpkg", "-pkg", "main")
	// File names: derived names that build.
	for file, want := range map[string]string{"cyc_test.txt": "cyc_test_sys", "cyc_windows.txt": "cyc_windows_sys", "main.txt": "main"} {
		os.Link("c3.txt", file)
		out := strings.TrimSuffix(file, ".txt") + "-out"
		runExpect(t, 0, nil, "emit", file, "-prec", "1", "-degree", "1", "-nvcc", "none", "-o", out)
		if _, err := os.Stat(filepath.Join(out, want+".go")); err != nil {
			t.Errorf("%s: %v", file, err)
		}
	}
	b, _ := os.ReadFile(filepath.Join("main-out", "main.go"))
	if !strings.Contains(string(b), "\npackage main_out\n") {
		t.Errorf("main-out/main.go: %.300s", b)
	}
}

// decodeJSON decodes a solve -json report.
func decodeJSON(t *testing.T, s string) solveReport {
	t.Helper()
	var r solveReport
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		t.Fatalf("%v:\n%s", err, s)
	}
	return r
}

// TestHostileSizes: degrees past what the memory or the int range allows
// are refused with the sizes, before anything is allocated; integer flags
// near math.MaxInt are refused, not overflowed.
func TestHostileSizes(t *testing.T) {
	hostileDir(t)
	maxInt := "9223372036854775807"
	for _, cmd := range []string{"plan", "eval", "solve", "emit"} {
		args := []string{cmd, "c3.txt", "-prec", "1", "-degree", maxInt}
		if cmd == "emit" {
			args = append(args, "-nvcc", "none", "-o", "out")
		}
		runExpect(t, 1, []string{"2^63 coefficients", "overflows 64-bit sizes"}, args...)
	}
	// 2^40: the working degrees need petabytes together.
	runExpect(t, 1, []string{"working degrees", "together", "of memory available"}, "solve", "c3.txt", "-prec", "1", "-degree", "1099511627776")
	runExpect(t, 1, []string{"out of range 2..256"}, "system", "cyclic", "-n", maxInt)
	runExpect(t, 1, []string{"out of range 1..1024"}, "system", "monomial4:degree="+maxInt)
	runExpect(t, 1, []string{"out of range"}, "solve", "cyclic"+maxInt)
	runExpect(t, 2, []string{"-workers " + maxInt}, "solve", "c3.txt", "-workers", maxInt)
	runExpect(t, 2, []string{"-repeat " + maxInt}, "bench", "-cpu", "-repeat", maxInt)
	runExpect(t, 2, []string{"-steps " + maxInt}, "solve", "c3.txt", "-steps", maxInt)
	runExpect(t, 2, []string{"-max-gib 1e+300"}, "bench", "-cpu", "-max-gib", "1e300")
	runExpect(t, 2, []string{"-max-gib NaN"}, "bench", "-cpu", "-max-gib", "NaN")
	runExpect(t, 2, []string{"-samples " + maxInt}, "ops", "-samples", maxInt)
}

// TestHostileGenerated: what mdgen system writes, every reader reads (p/q
// past 1e308 with a small value); an option that would write a file the
// readers refuse is refused.
func TestHostileGenerated(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, spec := range []string{"cyclic56:newton", "monomial2:degree=1024,columns=2", "chandra2:c=1e300", "noon2:c=-3e-290"} {
		code, text, stderr := runCLI(t, "system", spec)
		if code != 0 {
			// Refused before writing is allowed (monomial at degree 1024
			// can make a coefficient below 2.2e-308); written and then
			// refused is not.
			if text != "" || !strings.Contains(spec, "monomial") {
				t.Errorf("system %s: exit %d, %d bytes: %s", spec, code, len(text), stderr)
			}
			continue
		}
		os.WriteFile("sys.txt", []byte(text), 0o644)
		runExpect(t, 0, nil, "plan", "sys.txt", "-degree", "0")
	}
	for _, args := range [][]string{{"chandra", "-n", "2", "-c", "1e99999"}, {"chandra", "-n", "2", "-c", "1e400"}, {"noon2:c=1e-400"}, {"chandra", "-c", "1/0"}} {
		code, stdout, stderr := runCLI(t, append([]string{"system"}, args...)...)
		if code == 0 || stdout != "" || !strings.Contains(stderr, "c=") {
			t.Errorf("system %q: exit %d, %d bytes written: %s", args, code, len(stdout), stderr)
		}
	}
}

// TestHostileErrors: errors say where and what: a start value outside the
// double range at file:line:col with the value; a system file without an
// extension (PHCpack's demo files) gets a package folder beside it; a
// PHCpack-style list of variables named t and m is no phcpy string.
func TestHostileErrors(t *testing.T) {
	sys := hostileDir(t)
	big := strings.Replace(sys, " x1 :  6.331768035888671875E-01", " x1 :  1e400", 1)
	os.WriteFile("big.txt", []byte(big), 0o644)
	runExpect(t, 1, []string{"big.txt:19:2: solution 1: the coordinate x1 = 1e+400 is too large for a double"}, "solve", "big.txt", "-prec", "1")
	os.WriteFile("st.txt", []byte("x1 1e400\nx2 0\nx3 0\n"), 0o644)
	runExpect(t, 1, []string{"st.txt:1:1: solution 1: the coordinate x1 = 1e+400 is too large"}, "solve", "c3.txt", "-prec", "1", "-start", "st.txt")
	os.WriteFile("st.txt", []byte("x1 1/3\nx2 -1e309 0\nx3 0\n"), 0o644)
	runExpect(t, 1, []string{"st.txt:2:1: solution 1: the coordinate x2 = -1e+309"}, "solve", "c3.txt", "-prec", "1", "-start", "st.txt")
	runExpect(t, 1, []string{"the coordinate x1 = 1e+400"}, "emit", "big.txt", "-prec", "1", "-degree", "1", "-nvcc", "none")

	// mdgen mysys: the package goes to ./mysys_solver.
	os.WriteFile("mysys", []byte(sys), 0o644)
	_, stderr := runExpect(t, 0, []string{"mysys is a file, not a folder: writing the package into"}, "mysys", "-prec", "1", "-degree", "1", "-nvcc", "none")
	if _, err := os.Stat(filepath.Join("mysys_solver", "mysys.go")); err != nil {
		t.Errorf("mysys_solver/mysys.go: %v\n%s", err, stderr)
	}

	// Variables t and m: "t : re im" then "m : re im" are coordinates.
	os.WriteFile("tm.txt", []byte("2\n t^2 - 4;\n m - 3;\n"), 0o644)
	for _, list := range []string{
		"t : 2.0 0.0\nm : 3.0 0.0\n",
		" t :  2.0E+00   0.0E+00\n m :  3.0E+00   0.0E+00\n",
		"t : 2\nm : 3\n",
		"solution 1 :\nt :  0.0E+00   0.0E+00\nm : 1\nthe solution for t :\n t :  2.0E+00   0.0E+00\n m :  3.0E+00   0.0E+00\n== err :  0.000E+00 = rco :  1.000E+00 = res :  0.000E+00 ==\n",
	} {
		os.WriteFile("tms.txt", []byte(list), 0o644)
		stdout, _ := runExpect(t, 0, nil, "solve", "tm.txt", "-prec", "1", "-start", "tms.txt")
		if !strings.Contains(stdout, "1 start solution") {
			t.Errorf("%q: %s", list, stdout)
		}
	}
}

// TestHostileJSONResidual: a solution that did not converge has no
// residual ("0.0e+00" read as exact) but what is known: the start's
// residual and the reason.
func TestHostileJSONResidual(t *testing.T) {
	t.Chdir(t.TempDir())
	os.WriteFile("q.txt", []byte("1\n x^2 - 1;\n"), 0o644)
	os.WriteFile("qs.txt", []byte("x 1e200\n"), 0o644)
	code, stdout, _ := runCLI(t, "solve", "q.txt", "-prec", "1", "-start", "qs.txt", "-json")
	rep := decodeJSON(t, stdout)
	if code != 1 || len(rep.Solutions) != 1 {
		t.Fatalf("exit %d: %s", code, stdout)
	}
	s := rep.Solutions[0]
	if s.Converged || s.Residual != nil || s.StartResidual != "+Inf" || !strings.Contains(s.Reason, "diverging") ||
		!strings.Contains(stdout, `"residual": null`) {
		t.Errorf("not converged: %s", stdout)
	}
	os.WriteFile("qs.txt", []byte("x 0.9\n"), 0o644)
	code, stdout, _ = runCLI(t, "solve", "q.txt", "-prec", "1", "-start", "qs.txt", "-json")
	if s := decodeJSON(t, stdout).Solutions[0]; code != 0 || s.Residual == nil || s.StartResidual != "" {
		t.Errorf("converged: %s", stdout)
	}
}

// limitWriter fails a Write larger than max: the text is written as it
// goes, never as one buffer.
type limitWriter struct {
	n, max int
}

func (w *limitWriter) Write(p []byte) (int, error) {
	if len(p) > w.max {
		return 0, fmt.Errorf("a write of %d bytes", len(p))
	}
	w.n += len(p)
	return len(p), nil
}

// TestHostileLargeSizes: mdgen system streams the text (no write larger
// than the buffer, where chandra4096 took 6.5 GB as one []byte), with the
// same bytes as poly.Format; long work says so on stderr after the quiet
// second (here shortened).
func TestHostileLargeSizes(t *testing.T) {
	w := &limitWriter{max: 1 << 16}
	if err := runSystem([]string{"chandra", "-n", "200"}, w); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := runSystem([]string{"chandra", "-n", "200"}, &b); err != nil || b.Len() != w.n || b.Len() < 1<<18 {
		t.Fatalf("%v: %d bytes, streamed %d", err, b.Len(), w.n)
	}
	inst, err := families.Build("chandra", families.Options{N: 200})
	if err != nil {
		t.Fatal(err)
	}
	var pb strings.Builder
	calls := 0
	if err := poly.WriteTo(&pb, inst.System, func(done, total int) { calls++ }); err != nil || pb.String() != string(poly.Format(inst.System)) ||
		!strings.HasPrefix(b.String(), pb.String()) || calls != 200 {
		t.Errorf("WriteTo: %v, %d progress calls, same as Format %v", err, calls, pb.String() == string(poly.Format(inst.System)))
	}
	if err := poly.WriteTo(&limitWriter{max: 10}, inst.System, nil); err == nil {
		t.Errorf("a failing writer gave no error")
	}

	saved := progressQuiet
	progressQuiet = 5 * time.Millisecond
	defer func() { progressQuiet = saved }()
	var log strings.Builder
	stop := busy("building cyclic256:newton (exact coefficients)", &log)
	time.Sleep(50 * time.Millisecond)
	stop()
	if !strings.HasPrefix(log.String(), "mdgen: building cyclic256:newton (exact coefficients) (") {
		t.Errorf("busy wrote %q", log.String())
	}
}
