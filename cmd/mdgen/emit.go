package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/tools/go/packages"

	"github.com/mdgen/mdgen/gen"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/stager"
)

const emitUsage = `usage: mdgen emit system.txt|p1|p2|p3 -degree d [-prec n] [-complex] [-o dir] [-pkg name] [-nvcc path] [-arch list]

Writes a Go package that evaluates and differentiates the system at power
series of degree d: <name>.go (New, Solver; GPU when it can, CPU otherwise),
<name>_test.go, <name>.cu (kernels and the staged job tables), and, when
nvcc is found, fatbin/<name>.fatbin, which the package embeds. Without nvcc
it prints the command that builds the fatbin.

Under go generate (//go:generate go run github.com/mdgen/mdgen/cmd/mdgen emit
system.txt -degree 16) it writes into the package of the directive, under
its name, so -o and -pkg are not needed.

nvcc is -nvcc, else $NVCC, else $CUDA_PATH/bin/nvcc, else nvcc on PATH, else
/usr/local/cuda/bin/nvcc; -nvcc none skips it.
`

func runEmit(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("emit", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), emitUsage+"\nflags:\n")
		fs.PrintDefaults()
	}
	prec := fs.Int("prec", 8, "doubles per number (a generated precision: "+joinInts(gen.DefaultNs)+")")
	degree := fs.Int("degree", -1, "truncation degree d of the series (d+1 coefficients); required")
	complex := fs.Bool("complex", false, "complex data (and complex coefficients for p1, p2, p3)")
	out := fs.String("o", "", "output folder (default: the package of the go:generate directive, else ./<name>)")
	pkgName := fs.String("pkg", "", "Go package name (default: the directive's package, else the folder's name)")
	name := fs.String("name", "", "base name of the files (default: the system's name)")
	nvccFlag := fs.String("nvcc", "", "nvcc to run; none: write the sources only")
	archList := fs.String("arch", "90,80", "SASS targets (sm_XX) of the fatbin; PTX of the highest is added")
	param := fs.String("param", "", "name of the series parameter (default: PHCpack's convention)")
	seed := fs.Int64("seed", 1, "seed of the coefficients of p1, p2, p3")
	if err := fs.Parse(reorderFlags(fs, args)); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errors.New("emit: want one system file (or p1, p2, p3)")
	}
	if *degree < 0 {
		return errors.New("emit: -degree d >= 0 is required")
	}
	if _, ok := mdops.SeriesKernelsFor(*prec); !ok {
		return fmt.Errorf("emit: no generated arithmetic for %d doubles (have %s; mdgen generate -n adds more)", *prec, joinInts(gen.DefaultNs))
	}
	archs, err := parseArchs(*archList)
	if err != nil {
		return err
	}

	// The system and the names.
	arg := fs.Arg(0)
	spec := gen.EmitSpec{Prec: *prec, Degree: *degree, Complex: *complex, Archs: archs, Param: *param}
	hdr := []string{}
	if stager.IsBenchmarkName(arg) {
		if st, err := os.Stat(arg); err == nil && st.Mode().IsRegular() {
			fmt.Fprintf(stderr, "mdgen: %s is the benchmark system, not the file of that name (use ./%s)\n", arg, arg)
		}
		spec.Benchmark, spec.Seed, spec.Name = arg, *seed, arg
		hdr = append(hdr, arg)
		if *seed != 1 {
			hdr = append(hdr, "-seed", strconv.FormatInt(*seed, 10))
		}
	} else {
		text, err := os.ReadFile(arg)
		if err != nil {
			return fmt.Errorf("emit: %w", err)
		}
		// Read it once here, so that errors name the file as given.
		if _, err := stager.Parse(arg, text, stager.ParseOptions{Param: *param}); err != nil {
			return err
		}
		spec.Text = text
		spec.Name, _ = gen.SanitizeName(filepath.Base(arg))
		hdr = append(hdr, filepath.Base(arg))
	}
	if *name != "" {
		spec.Name = *name
	}
	hdr = append(hdr, "-prec", strconv.Itoa(*prec), "-degree", strconv.Itoa(*degree))
	if *complex {
		hdr = append(hdr, "-complex")
	}
	if *param != "" {
		hdr = append(hdr, "-param", *param)
	}
	if !slices.Equal(archs, gen.DefaultArchs) {
		hdr = append(hdr, "-arch", *archList)
	}
	spec.Args = strings.Join(hdr, " ")

	dir, pkg, err := emitTarget(*out, *pkgName, spec.Name, stderr)
	if err != nil {
		return err
	}
	spec.Package = pkg

	em, err := gen.Emit(spec)
	if err != nil {
		return err
	}
	// A fatbin built from another .cu is stale: rebuild it or remove it.
	cuPath := filepath.Join(dir, filepath.FromSlash(em.CU))
	fatPath := filepath.Join(dir, filepath.FromSlash(em.Fatbin))
	old, _ := os.ReadFile(cuPath)
	changed := !bytes.Equal(old, em.Files[em.CU])
	if err := gen.WriteFiles(dir, em.Files); err != nil {
		return fmt.Errorf("emit: %w", err)
	}
	fmt.Fprintf(stderr, "mdgen: wrote package %s in %s: %s (%d convolution and %d addition jobs, %s of kernels and tables, plan hash %016x)\n",
		pkg, displayPath(dir), emitDescribe(spec), em.Plan.ConvJobs(), em.Plan.AddJobs(),
		humanBytes(len(em.Files[em.CU])), em.Hash)

	nvcc, how := findNVCC(*nvccFlag)
	cmdLine := "nvcc " + gen.ShellQuote(em.NVCC)
	if nvcc == "" {
		if _, err := os.Stat(fatPath); err == nil && changed {
			if err := os.Remove(fatPath); err == nil {
				fmt.Fprintf(stderr, "mdgen: removed the stale %s (built from another %s)\n", displayPath(fatPath), em.CU)
			}
		}
		fmt.Fprintf(stderr, "mdgen: %s; to build the fatbin (then rebuild the Go program with -tags cuda):\n  %s%s\n",
			how, cdPrefix(dir), cmdLine)
		return nil
	}
	if _, err := os.Stat(fatPath); err == nil && !changed {
		fmt.Fprintf(stderr, "mdgen: %s is up to date\n", displayPath(fatPath))
		return nil
	}
	return runNVCC(nvcc, dir, em.NVCC, em.Fatbin, stderr)
}

func emitDescribe(s gen.EmitSpec) string {
	kind := "real"
	if s.Complex {
		kind = "complex"
	}
	return fmt.Sprintf("%s at degree %d, %d-double %s", s.Name, s.Degree, s.Prec, kind)
}

func parseArchs(s string) ([]int, error) {
	var archs []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimPrefix(strings.TrimSpace(f), "sm_")
		a, err := strconv.Atoi(f)
		if err != nil || a < 50 || a > 200 {
			return nil, fmt.Errorf("emit: -arch: %q is not an SM version such as 80 or 90", f)
		}
		if !slices.Contains(archs, a) {
			archs = append(archs, a)
		}
	}
	return archs, nil
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

// findNVCC returns nvcc's path, or "" and why there is none.
func findNVCC(flagValue string) (path, why string) {
	switch flagValue {
	case "none", "off", "no", "false":
		return "", "-nvcc " + flagValue + ": not running nvcc"
	case "":
	default:
		if p, err := exec.LookPath(flagValue); err == nil {
			return p, ""
		}
		return "", fmt.Sprintf("-nvcc %s: not found", flagValue)
	}
	if v := os.Getenv("NVCC"); v != "" {
		if p, err := exec.LookPath(v); err == nil {
			return p, ""
		}
	}
	if c := os.Getenv("CUDA_PATH"); c != "" {
		if p, err := exec.LookPath(filepath.Join(c, "bin", "nvcc")); err == nil {
			return p, ""
		}
	}
	if p, err := exec.LookPath("nvcc"); err == nil {
		return p, ""
	}
	if p, err := exec.LookPath("/usr/local/cuda/bin/nvcc"); err == nil {
		return p, ""
	}
	return "", "nvcc not found (-nvcc, $NVCC, $CUDA_PATH/bin, PATH, /usr/local/cuda/bin)"
}

// runNVCC runs nvcc in dir, writing the fatbin under a temporary name and
// renaming it when nvcc succeeds, and prints the elapsed time every few
// seconds while it runs.
func runNVCC(nvcc, dir string, args []string, fatbin string, stderr io.Writer) error {
	tmp := filepath.Join(filepath.Dir(fatbin), "."+filepath.Base(fatbin)+".tmp"+strconv.Itoa(os.Getpid()))
	targs := slices.Clone(args)
	for i := range targs {
		if i > 0 && targs[i-1] == "-o" {
			targs[i] = filepath.ToSlash(tmp)
		}
	}
	cmdLine := cdPrefix(dir) + gen.ShellQuote(append([]string{nvcc}, args...))
	fmt.Fprintf(stderr, "mdgen: %s\n", cmdLine)
	cmd := exec.Command(nvcc, targs...)
	cmd.Dir = dir
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("emit: starting nvcc: %w\n  %s", err, cmdLine)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(5 * time.Second)
	defer tick.Stop()
	var err error
wait:
	for {
		select {
		case err = <-done:
			break wait
		case <-tick.C:
			fmt.Fprintf(stderr, "mdgen: nvcc running, %.0f s\n", time.Since(start).Seconds())
		}
	}
	tmpPath := filepath.Join(dir, tmp)
	if err != nil {
		os.Remove(tmpPath)
		return fmt.Errorf("emit: nvcc failed (%v) after %.1f s:\n%s\ncommand: %s", err, time.Since(start).Seconds(),
			strings.TrimRight(output.String(), "\n"), cmdLine)
	}
	if output.Len() > 0 {
		stderr.Write(output.Bytes())
	}
	final := filepath.Join(dir, filepath.FromSlash(fatbin))
	if err := os.Rename(tmpPath, final); err != nil {
		os.Remove(tmpPath)
		return fmt.Errorf("emit: %w", err)
	}
	st, _ := os.Stat(final)
	size := int64(0)
	if st != nil {
		size = st.Size()
	}
	fmt.Fprintf(stderr, "mdgen: built %s (%s) in %.1f s; build the Go program with -tags cuda to run on the GPU\n",
		displayPath(final), humanBytes(int(size)), time.Since(start).Seconds())
	return nil
}

// cdPrefix returns "cd dir && " for a folder other than the current one.
func cdPrefix(dir string) string {
	if d := displayPath(dir); d != "." {
		return "cd " + gen.ShellQuote([]string{d}) + " && "
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
