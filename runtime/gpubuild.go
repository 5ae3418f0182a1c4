package runtime

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// FatbinSource is one CUDA translation unit to compile into a fatbin.
type FatbinSource struct {
	Name    string            // file stem, e.g. "md8": md8.cu, md8-<hash>.fatbin
	Source  []byte            // the .cu text
	Headers map[string][]byte // files it includes, written next to it (e.g. md8.cuh, mdbase.cuh)
}

// FatbinCompiler compiles CUDA sources into fatbins with nvcc and caches
// them by content: the key hashes the source, the headers, the nvcc command
// line and nvcc's version, so a cached fatbin is reused exactly when the
// same compilation would give it again.
type FatbinCompiler struct {
	NVCC  string   // path of nvcc; "" finds it on PATH or at /usr/local/cuda/bin/nvcc
	Dir   string   // cache folder (created); each build keeps its sources and nvcc's report there
	Archs []string // SASS targets, e.g. "sm_90"; PTX of the highest is included for newer GPUs
	Flags []string // more nvcc flags; nil means DefaultNVCCFlags
	Log   io.Writer
	// Parallel bounds the nvcc processes at once (<= 0: one per source).
	Parallel int
}

// DefaultNVCCFlags are the flags mdgen compiles its kernels with: no FMA
// contraction (the bits must be the CPU's), the resource report of ptxas.
var DefaultNVCCFlags = []string{"-O3", "-std=c++17", "-fmad=false", "-Xptxas", "-v"}

// FindNVCC returns the path of nvcc: on PATH, under $CUDA_PATH/bin, or at
// /usr/local/cuda/bin/nvcc; "" when there is none.
func FindNVCC() string {
	if p, err := exec.LookPath("nvcc"); err == nil {
		return p
	}
	var cands []string
	if cp := os.Getenv("CUDA_PATH"); cp != "" {
		cands = append(cands, filepath.Join(cp, "bin", "nvcc"))
	}
	for _, p := range append(cands, "/usr/local/cuda/bin/nvcc") {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	return ""
}

// FatbinResult is the outcome of one compilation.
type FatbinResult struct {
	Name    string
	Path    string // the fatbin in the cache folder
	Fatbin  []byte
	Cached  bool    // found in the cache, nvcc not run
	Seconds float64 // nvcc's run time (0 when cached)
	Report  string  // nvcc's output (ptxas resource report), also in Path's .log
	Err     error
}

func (c *FatbinCompiler) logf(format string, a ...any) {
	if c.Log != nil {
		fmt.Fprintf(c.Log, format, a...)
	}
}

func (c *FatbinCompiler) args() []string {
	flags := c.Flags
	if flags == nil {
		flags = DefaultNVCCFlags
	}
	args := []string{"-fatbin"}
	hi, hiCC := -1, ""
	for _, a := range c.Archs {
		cc := strings.TrimPrefix(strings.TrimSpace(a), "sm_")
		args = append(args, "-gencode", fmt.Sprintf("arch=compute_%s,code=sm_%s", cc, cc))
		if v, err := strconv.Atoi(strings.TrimRight(cc, "af")); err == nil && v > hi {
			hi, hiCC = v, cc
		}
	}
	if hiCC != "" {
		args = append(args, "-gencode", fmt.Sprintf("arch=compute_%s,code=compute_%s", hiCC, hiCC))
	}
	return append(args, flags...)
}

// nvccVersion returns `nvcc --version` (part of the cache key).
func (c *FatbinCompiler) nvccVersion(nvcc string) (string, error) {
	out, err := exec.Command(nvcc, "--version").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("running %s --version: %v\n%s", nvcc, err, out)
	}
	return string(out), nil
}

// key hashes everything that decides the fatbin.
func fatbinKey(src FatbinSource, args []string, version string) string {
	h := sha256.New()
	put := func(b []byte) {
		fmt.Fprintf(h, "%d:", len(b))
		h.Write(b)
	}
	put([]byte(src.Name))
	put(src.Source)
	names := make([]string, 0, len(src.Headers))
	for n := range src.Headers {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		put([]byte(n))
		put(src.Headers[n])
	}
	for _, a := range args {
		put([]byte(a))
	}
	put([]byte(version))
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Build compiles the sources in parallel (or takes them from the cache),
// reporting progress to Log, and returns one result per source, in order.
// The error joins the errors of the failed ones.
func (c *FatbinCompiler) Build(srcs []FatbinSource) ([]FatbinResult, error) {
	nvcc := c.NVCC
	if nvcc == "" {
		nvcc = FindNVCC()
	}
	if nvcc == "" {
		return nil, errors.New("runtime: nvcc not found (on PATH, in $CUDA_PATH/bin or at /usr/local/cuda/bin): it compiles the kernels")
	}
	if len(c.Archs) == 0 {
		return nil, errors.New("runtime: compiling kernels: no target architecture (e.g. sm_90)")
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("runtime: creating the kernel cache folder: %w", err)
	}
	version, err := c.nvccVersion(nvcc)
	if err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	args := c.args()
	res := make([]FatbinResult, len(srcs))
	par := c.Parallel
	if par <= 0 {
		par = len(srcs)
	}
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	var mu sync.Mutex
	running := map[string]time.Time{}
	done := make(chan struct{})
	start := time.Now()
	go func() { // progress while nvcc runs
		t := time.NewTicker(10 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				mu.Lock()
				var names []string
				for n := range running {
					names = append(names, n)
				}
				mu.Unlock()
				slices.Sort(names)
				if len(names) > 0 {
					c.logf("nvcc: still compiling %s (%s)\n", strings.Join(names, ", "), time.Since(start).Round(time.Second))
				}
			}
		}
	}()
	for i, src := range srcs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			mu.Lock()
			running[src.Name] = time.Now()
			mu.Unlock()
			res[i] = c.buildOne(nvcc, args, version, src)
			mu.Lock()
			delete(running, src.Name)
			mu.Unlock()
			r := &res[i]
			switch {
			case r.Err != nil:
				c.logf("nvcc: %s FAILED: %v\n", src.Name, r.Err)
			case r.Cached:
				c.logf("nvcc: %s cached (%s, %d bytes)\n", src.Name, r.Path, len(r.Fatbin))
			default:
				c.logf("nvcc: %s built in %.1f s (%s, %d bytes)\n", src.Name, r.Seconds, r.Path, len(r.Fatbin))
			}
		}()
	}
	wg.Wait()
	close(done)
	var errs []error
	for _, r := range res {
		if r.Err != nil {
			errs = append(errs, r.Err)
		}
	}
	return res, errors.Join(errs...)
}

func (c *FatbinCompiler) buildOne(nvcc string, args []string, version string, src FatbinSource) FatbinResult {
	r := FatbinResult{Name: src.Name}
	key := fatbinKey(src, args, version)
	base := filepath.Join(c.Dir, src.Name+"-"+key)
	r.Path = base + ".fatbin"
	if b, err := os.ReadFile(r.Path); err == nil && len(b) > 0 {
		r.Fatbin, r.Cached = b, true
		if rep, err := os.ReadFile(base + ".log"); err == nil {
			r.Report = string(rep)
		}
		return r
	}
	// Sources in a folder of their own, kept for inspection.
	dir := base + ".src"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		r.Err = fmt.Errorf("runtime: compiling %s: %w", src.Name, err)
		return r
	}
	for name, text := range src.Headers {
		if err := os.WriteFile(filepath.Join(dir, name), text, 0o644); err != nil {
			r.Err = fmt.Errorf("runtime: compiling %s: %w", src.Name, err)
			return r
		}
	}
	cu := filepath.Join(dir, src.Name+".cu")
	if err := os.WriteFile(cu, src.Source, 0o644); err != nil {
		r.Err = fmt.Errorf("runtime: compiling %s: %w", src.Name, err)
		return r
	}
	tmp := r.Path + ".tmp"
	full := append(slices.Clone(args), "-I", dir, "-o", tmp, cu)
	t0 := time.Now()
	var out bytes.Buffer
	cmd := exec.Command(nvcc, full...)
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	r.Seconds = time.Since(t0).Seconds()
	r.Report = fmt.Sprintf("%s %s\n%s", nvcc, strings.Join(full, " "), out.String())
	_ = os.WriteFile(base+".log", []byte(r.Report), 0o644)
	if err != nil {
		os.Remove(tmp)
		r.Err = fmt.Errorf("runtime: nvcc failed on %s (%v); its output is in %s.log:\n%s", cu, err, base, tail(out.String(), 4000))
		return r
	}
	if err := os.Rename(tmp, r.Path); err != nil {
		r.Err = fmt.Errorf("runtime: compiling %s: %w", src.Name, err)
		return r
	}
	if r.Fatbin, err = os.ReadFile(r.Path); err != nil {
		r.Err = fmt.Errorf("runtime: compiling %s: %w", src.Name, err)
	}
	return r
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}
