package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mdgen/mdgen/gen"
	"github.com/mdgen/mdgen/gen/nvcc"
	"github.com/mdgen/mdgen/internal/atomicfile"
	"github.com/mdgen/mdgen/runtime/solver"
	"github.com/mdgen/mdgen/stager/families"
	"github.com/mdgen/mdgen/stager/poly"
	"github.com/mdgen/mdgen/stager/solutions"
	"golang.org/x/tools/go/packages"
)

const emitUsage = `usage: mdgen emit system.txt|p1|p2|p3 -degree d [-prec n] [-complex] [-o dir] [-pkg name] [-nvcc path] [-arch list]

Writes a Go package that evaluates and differentiates the system at power
series of degree d and solves it (Newton's method on Taylor series from the
start solutions listed after the system, with the bits of mdgen solve):
<name>.go (New, Solver, Solve, Starts; GPU when it can, CPU otherwise;
and Track, every solution by the total-degree homotopy, for a square
system without a parameter),
<name>_test.go, <name>.cu (kernels and the staged job tables), and, when
nvcc is found, fatbin/<name>.fatbin, which the package embeds (with
fatbin/<name>.fatbin.sha256, the hash of the .cu it was built from). Without
nvcc it prints the command that builds the fatbin. The package is written
all or nothing, and a fatbin built from another .cu is removed with it.

A system file with complex coefficients gets complex data without -complex.

Under go generate (//go:generate go run github.com/mdgen/mdgen/cmd/mdgen emit
system.txt -degree 16) it writes into the package of the directive, under
its name, so -o and -pkg are not needed.

nvcc is -nvcc, else $NVCC, else $CUDA_PATH/bin/nvcc, else nvcc on PATH, else
/usr/local/cuda/bin/nvcc (gen/nvcc's one search order); -nvcc none skips it.
`

func runEmit(args []string, stdout, stderr io.Writer) error {
	return emitCommand(args, stdout, stderr, emitMode{prec: 8, degree: -1})
}

// emitMode is what tells `mdgen emit` from `mdgen FILE`: the default
// precision and degree (-1: required), and whether to list the files
// written.
type emitMode struct {
	prec, degree int
	list         bool
	usage        string // the usage text (emitUsage when empty)
}

func emitCommand(args []string, stdout, stderr io.Writer, mode emitMode) error {
	usage := emitUsage
	if mode.usage != "" {
		usage = mode.usage
	}
	fs := newFlagSet("emit", usage+"\nflags:\n", stderr)
	pf := addPrecFlags(fs, mode.prec, "doubles per number (a generated precision: "+joinInts(gen.DefaultNs)+")",
		"complex data (and complex coefficients for p1, p2, p3)")
	degreeDoc := "truncation degree d of the series (d+1 coefficients); required"
	if mode.degree >= 0 {
		degreeDoc = "truncation degree d of the series (d+1 coefficients)"
	}
	degree := fs.Int("degree", mode.degree, degreeDoc)
	out := fs.String("o", "", "output folder (default: the package of the go:generate directive, else ./<name>)")
	pkgName := fs.String("pkg", "", "Go package name (default: the directive's package, else the folder's name)")
	name := fs.String("name", "", "base name of the files (default: the system's name)")
	nvccFlag := fs.String("nvcc", "", "nvcc to run; none: write the sources only")
	archList := fs.String("arch", "90,80", "SASS targets (sm_XX) of the fatbin; PTX of the highest is added")
	param := fs.String("param", "", "name of the series parameter (default: PHCpack's convention)")
	seed := fs.Int64("seed", 1, "seed of the coefficients of p1, p2, p3")
	profileName := profileFlag(fs) // cmd/mdgen/profile.go
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("emit: want one system file (or p1, p2, p3)")
	}
	if *degree < 0 {
		return usagef("emit: -degree d >= 0 is required")
	}
	prec, err := pf.prec()
	if err != nil {
		return err
	}
	asked := prec // the precision of the command line, for the header
	archs, err := nvcc.ParseArchs(*archList)
	if err != nil {
		return fmt.Errorf("emit: -arch: %w", err)
	}

	// The system and the names.
	arg := fs.Arg(0)
	spec := gen.EmitSpec{Prec: prec, Degree: *degree, Archs: archs, Param: *param}
	hdr := []string{}
	if families.IsBenchmarkName(arg) {
		if st, err := os.Stat(arg); err == nil && st.Mode().IsRegular() {
			fmt.Fprintf(stderr, "mdgen: %s is the benchmark system, not the file of that name (use ./%s)\n", arg, arg)
		}
		spec.Benchmark, spec.Seed, spec.Name = arg, *seed, arg
		hdr = append(hdr, arg)
		if *seed != 1 {
			hdr = append(hdr, "-seed", strconv.FormatInt(*seed, 10))
		}
	} else {
		text, err := poly.ReadFile(arg)
		if err != nil {
			return fmt.Errorf("emit: %w", err)
		}
		// Read it once here, so that errors name the file as given.
		// The start solutions too: a bad list is an error here, with its
		// position, rather than in the package's Starts.
		sys, sols, err := solutions.ParseWithSystem(arg, text, poly.ParseOptions{Param: *param})
		if err != nil {
			return err
		}
		// Complex coefficients need complex data: chosen unless -complex=false.
		if gen.HasComplexCoefficients(sys) {
			if err := pf.needComplex(&spec.Prec, arg+" has complex coefficients", "emitting", stderr); err != nil {
				return err
			}
		}
		// Complex start solutions too (as mdgen solve chooses), unless
		// -complex=false: then Solve refuses them, and the package evaluates.
		if !spec.Prec.Complex {
			for k := range sols {
				if why := complexStart(&sols[k], sys.Vars, k); why != "" {
					if flagGiven(fs, "complex") {
						fmt.Fprintf(stderr, "mdgen: %s: %s, which the package's real data (-complex=false) cannot take\n", arg, why)
					} else if err := pf.needComplex(&spec.Prec, arg+": "+why, "emitting", stderr); err != nil {
						return err
					}
					break
				}
			}
		}
		spec.Text = text
		spec.Name, _ = gen.SanitizeName(filepath.Base(arg))
		hdr = append(hdr, filepath.Base(arg))
	}
	if *name != "" {
		if err := gen.CheckName(*name); err != nil {
			return usagef("emit: -name: %w", err)
		}
		spec.Name = *name
	}
	if *pkgName != "" {
		if err := gen.CheckPackage(*pkgName); err != nil {
			return usagef("emit: -pkg: %w", err)
		}
	}
	hdr = append(hdr, "-prec", strconv.Itoa(asked.N), "-degree", strconv.Itoa(*degree))
	if asked.Complex {
		hdr = append(hdr, "-complex")
	}
	if *param != "" {
		hdr = append(hdr, "-param", *param)
	}
	if !slices.Equal(archs, nvcc.DefaultArchs) {
		hdr = append(hdr, "-arch", *archList)
	}
	spec.Args = strings.Join(hdr, " ")

	dir, pkg, err := emitTarget(*out, *pkgName, spec.Name, stderr)
	if err != nil {
		return err
	}
	if err := atomicfile.ResolveDir(dir, nil); err != nil {
		return fmt.Errorf("emit: -o: %w", err)
	}
	if err := gen.CheckMain(pkg, folderHasMain(dir)); err != nil {
		if *pkgName != "" {
			return usagef("emit: -pkg: %w", err)
		}
		return usagef("emit: %w", err)
	}
	spec.Package = pkg

	if spec.Tuning, err = emitTuning(*profileName, spec.Prec, stderr); err != nil {
		return err
	}
	em, err := gen.Emit(spec, solver.ExampleRunner{})
	if err != nil {
		return err
	}
	// An input (the system file, the profile) is never an output.
	if err := atomicfile.ResolveDir(dir, slices.Collect(maps.Keys(em.Files)), arg, *profileName); err != nil {
		return fmt.Errorf("emit: %w (nothing was changed)", err)
	}
	// All files or none; a fatbin built from another .cu goes in the same step.
	state, why, err := em.Write(dir)
	if err != nil {
		return fmt.Errorf("emit: %w (nothing was changed)", err)
	}
	fmt.Fprintf(stderr, "mdgen: wrote package %s in %s: %s (%d convolution and %d addition jobs, %s of kernels and tables, plan hash %016x)\n",
		pkg, displayPath(dir), emitDescribe(spec), em.Plan.ConvJobs(), em.Plan.AddJobs(),
		humanBytes(len(em.Files[em.CU])), em.Hash)
	if mode.list {
		for _, p := range slices.Sorted(maps.Keys(em.Files)) {
			fmt.Fprintf(stdout, "%s\n", filepath.Join(displayPath(dir), filepath.FromSlash(p)))
		}
	}
	switch {
	case spec.Text != nil && em.ExampleSolves && !em.Solves:
		fmt.Fprintf(stderr, "mdgen: the package's Example solves without an output to check (go test compiles it only): %s\n", em.NoSolveWhy)
	case spec.Text != nil && !em.Solves:
		fmt.Fprintf(stderr, "mdgen: the package's Example evaluates only: %s\n", em.NoSolveWhy)
	}
	switch {
	case spec.Text != nil && em.Homotopy != "" && em.TrackExampleLong:
		fmt.Fprintf(stderr, "mdgen: the package tracks the %s homotopy (Track); its Example has no output to check (tracking at this size takes long)\n", em.Homotopy)
	case spec.Text != nil && em.Homotopy != "":
		fmt.Fprintf(stderr, "mdgen: the package tracks the %s homotopy (Track)\n", em.Homotopy)
	case spec.Text != nil:
		fmt.Fprintf(stderr, "mdgen: the package has no Track: %s\n", em.NoTrackWhy)
	}
	fatPath := filepath.Join(dir, filepath.FromSlash(em.Fatbin))
	if state == gen.FatbinStale {
		fmt.Fprintf(stderr, "mdgen: removed the stale %s (%s)\n", displayPath(fatPath), why)
	}

	nvccPath, how := findNVCC(*nvccFlag)
	cmdLine := "nvcc " + nvcc.Quote(em.NVCC)
	if nvccPath == "" {
		fmt.Fprintf(stderr, "mdgen: %s; to build the fatbin (then rebuild the Go program with -tags cuda):\n  %s%s\n",
			how, cdPrefix(dir), cmdLine)
		return nil
	}
	if state == gen.FatbinCurrent {
		fmt.Fprintf(stderr, "mdgen: %s is up to date\n", displayPath(fatPath))
		return nil
	}
	if err := runNVCC(nvccPath, dir, em.NVCC, em.Fatbin, stderr); err != nil {
		return err
	}
	if err := em.WriteStamp(dir); err != nil {
		os.Remove(fatPath) // no fatbin rather than one whose source is not on record
		return fmt.Errorf("emit: %w", err)
	}
	return nil
}

// complexStart names the first complex coordinate of start solution k, or "".
func complexStart(sol *solutions.Solution, vars []string, k int) string {
	for v := range sol.Values {
		if !sol.Values[v].IsReal() {
			name := fmt.Sprint(v + 1)
			if v < len(vars) {
				name = vars[v]
			}
			return fmt.Sprintf("start solution %d has a complex coordinate %s", k+1, name)
		}
	}
	return ""
}

func emitDescribe(s gen.EmitSpec) string {
	return fmt.Sprintf("%s at degree %d, %s", s.Name, s.Degree, s.Prec)
}

// folderHasMain reports whether a Go file in dir (not a test) declares
// package main with a func main: a command's folder, where a go:generate
// directive may put the emitted package.
func folderHasMain(dir string) bool {
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.SkipObjectResolution)
		if err != nil || file.Name.Name != "main" {
			continue
		}
		for _, d := range file.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "main" {
				return true
			}
		}
	}
	return false
}

// emitTarget returns the output folder and the package name: -o and -pkg
// when given; under go generate the package of the directive (found as
// stringer finds it, with golang.org/x/tools/go/packages); else ./<name>
// and that folder's name.
func emitTarget(out, pkg, name string, stderr io.Writer) (string, string, error) {
	if out == "" && os.Getenv("GOFILE") != "" && os.Getenv("GOPACKAGE") != "" {
		dir, pname, err := generatingPackage()
		if err != nil {
			fmt.Fprintf(stderr, "mdgen: loading the package of %s: %v (using $GOPACKAGE and the current folder)\n", os.Getenv("GOFILE"), err)
			dir, pname = ".", os.Getenv("GOPACKAGE")
		}
		if pkg == "" {
			pkg = pname
		}
		return dir, pkg, nil
	}
	if out == "" {
		out = "." + string(filepath.Separator) + name
		// PHCpack's demo files have no extension: ./mysys is the system
		// file itself, so the package goes beside it, in ./mysys_solver.
		if st, err := os.Stat(out); err == nil && !st.IsDir() {
			folder := out + "_solver"
			fmt.Fprintf(stderr, "mdgen: %s is a file, not a folder: writing the package into %s (-o names another folder)\n", out, folder)
			out = folder
			if pkg == "" {
				_, pkg = gen.SanitizeName(name)
			}
		}
	}
	if pkg == "" {
		abs, err := filepath.Abs(out)
		if err != nil {
			return "", "", err
		}
		_, pkg = gen.SanitizeName(filepath.Base(abs))
	}
	return out, pkg, nil
}

// generatingPackage loads the package in the current folder (go generate
// runs there) for its name and folder.
func generatingPackage() (dir, name string, err error) {
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedFiles, Tests: false}
	pkgs, err := packages.Load(cfg, ".")
	if err != nil {
		return "", "", err
	}
	if len(pkgs) != 1 {
		return "", "", fmt.Errorf("%d packages in the current folder", len(pkgs))
	}
	p := pkgs[0]
	if p.Name == "" {
		return "", "", fmt.Errorf("no package name for %s", p.PkgPath)
	}
	dir = "."
	if len(p.GoFiles) > 0 {
		dir = filepath.Dir(p.GoFiles[0])
	}
	return dir, p.Name, nil
}

// findNVCC returns nvcc's path (nvcc.Find: -nvcc, else $NVCC, else
// $CUDA_PATH/bin, else PATH, else /usr/local/cuda/bin), or "" and why there
// is none.
func findNVCC(flagValue string) (path, why string) {
	switch flagValue {
	case "none", "off", "no", "false":
		return "", "-nvcc " + flagValue + ": not running nvcc"
	}
	p, err := nvcc.Find(flagValue)
	if err != nil {
		if flagValue != "" {
			return "", "-nvcc " + flagValue + ": not found"
		}
		return "", err.Error()
	}
	return p, ""
}

// runNVCC builds the fatbin in dir (nvcc.RunFatbin: under a temporary name,
// renamed when nvcc succeeds), printing the elapsed time every few seconds
// while it runs.
func runNVCC(path, dir string, args []string, fatbin string, stderr io.Writer) error {
	cmdLine := cdPrefix(dir) + nvcc.Quote(append([]string{path}, args...))
	fmt.Fprintf(stderr, "mdgen: %s\n", cmdLine)
	start := time.Now()
	out, err := nvcc.RunFatbin(path, dir, args, 5*time.Second, func(el time.Duration) {
		fmt.Fprintf(stderr, "mdgen: nvcc running, %.0f s\n", el.Seconds())
	})
	if err != nil {
		return fmt.Errorf("emit: %v:\n%s\ncommand: %s", err, strings.TrimRight(string(out), "\n"), cmdLine)
	}
	stderr.Write(out)
	final := filepath.Join(dir, filepath.FromSlash(fatbin))
	size := int64(0)
	if st, err := os.Stat(final); err == nil {
		size = st.Size()
	}
	fmt.Fprintf(stderr, "mdgen: built %s (%s) in %.1f s; build the Go program with -tags cuda to run on the GPU\n",
		displayPath(final), humanBytes(int(size)), time.Since(start).Seconds())
	return nil
}

// cdPrefix returns "cd dir && " for a folder other than the current one.
func cdPrefix(dir string) string {
	if d := displayPath(dir); d != "." {
		return "cd " + nvcc.Quote([]string{d}) + " && "
	}
	return ""
}

// displayPath shows p relative to the current folder when it is inside it.
func displayPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	wd, err := os.Getwd()
	if err != nil {
		return p
	}
	if rel, err := filepath.Rel(wd, abs); err == nil && !strings.HasPrefix(rel, "..") {
		if rel == "." {
			return "."
		}
		return "." + string(filepath.Separator) + rel
	}
	return p
}

func humanBytes(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.0f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
