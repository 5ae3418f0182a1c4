package nvcc

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
	"strings"
	"sync"
	"time"

	"github.com/mdgen/mdgen/internal/atomicfile"
)

// Source is one CUDA translation unit to compile into a fatbin.
type Source struct {
	Name    string            // file stem, e.g. "md8": md8.cu, md8-<hash>.fatbin
	Source  []byte            // the .cu text
	Headers map[string][]byte // files it includes, written next to it (e.g. md8.cuh, mdbase.cuh)
}

// Compiler compiles CUDA sources into fatbins with nvcc (Args, with the
// resource report of ptxas) and caches them by content: the key hashes the
// source, the headers, the nvcc command line and nvcc's version, so a
// cached fatbin is reused exactly when the same compilation would give it
// again.
type Compiler struct {
	NVCC  string   // path of nvcc; "" means Find("")
	Dir   string   // cache folder (created); each build keeps its sources and nvcc's report there
	Archs []string // SASS targets, e.g. "sm_90" (see Gencode; none: DefaultArchs); PTX of the highest is included
	Extra []string // nvcc flags after Args' (Flags) and ReportFlags, e.g. tuning macros
	// Log receives progress lines; Build writes them from several
	// goroutines, one line per call and never two at once, so any writer
	// will do.
	Log io.Writer
	// Parallel bounds the nvcc processes at once (<= 0: one per source).
	Parallel int

	logMu sync.Mutex // serializes the writes to Log
}

// Result is the outcome of one compilation.
type Result struct {
	Name    string
	Path    string // the fatbin in the cache folder
	Fatbin  []byte
	Cached  bool    // found in the cache, nvcc not run
	Seconds float64 // nvcc's run time (0 when cached)
	Report  string  // nvcc's output (ptxas resource report), also in Path's .log
	Err     error
}

func (c *Compiler) logf(format string, a ...any) {
	if c.Log == nil {
		return
	}
	line := fmt.Sprintf(format, a...)
	c.logMu.Lock()
	defer c.logMu.Unlock()
	io.WriteString(c.Log, line)
}

func (c *Compiler) args() []string {
	return Args(c.Archs, append(slices.Clone(ReportFlags), c.Extra...)...)
}

// nvccVersion returns `nvcc --version` (part of the cache key).
func (c *Compiler) nvccVersion(nvcc string) (string, error) {
	out, err := exec.Command(nvcc, "--version").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("running %s --version: %v\n%s", nvcc, err, out)
	}
	return string(out), nil
}

// key hashes everything that decides the fatbin.
func cacheKey(src Source, args []string, version string) string {
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
func (c *Compiler) Build(srcs []Source) ([]Result, error) {
	nvcc := c.NVCC
	if nvcc == "" {
		p, err := Find("")
		if err != nil {
			return nil, fmt.Errorf("%w: it compiles the kernels", err)
		}
		nvcc = p
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("nvcc: creating the kernel cache folder: %w", err)
	}
	version, err := c.nvccVersion(nvcc)
	if err != nil {
		return nil, fmt.Errorf("nvcc: %w", err)
	}
	args := c.args()
	res := make([]Result, len(srcs))
	par := c.Parallel
	if par <= 0 {
		par = len(srcs)
	}
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	var mu sync.Mutex
	running := map[string]time.Time{}
	done := make(chan struct{})
	var ticker sync.WaitGroup
	start := time.Now()
	ticker.Add(1)
	go func() { // progress while nvcc runs
		defer ticker.Done()
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
	ticker.Wait() // no log line after Build returns
	var errs []error
	for _, r := range res {
		if r.Err != nil {
			errs = append(errs, r.Err)
		}
	}
	return res, errors.Join(errs...)
}

func (c *Compiler) buildOne(nvcc string, args []string, version string, src Source) Result {
	r := Result{Name: src.Name}
	key := cacheKey(src, args, version)
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
		r.Err = fmt.Errorf("nvcc: compiling %s: %w", src.Name, err)
		return r
	}
	for name, text := range src.Headers {
		if err := os.WriteFile(filepath.Join(dir, name), text, 0o644); err != nil {
			r.Err = fmt.Errorf("nvcc: compiling %s: %w", src.Name, err)
			return r
		}
	}
	cu := filepath.Join(dir, src.Name+".cu")
	if err := os.WriteFile(cu, src.Source, 0o644); err != nil {
		r.Err = fmt.Errorf("nvcc: compiling %s: %w", src.Name, err)
		return r
	}
	err := atomicfile.Produce(r.Path, 0o644, func(tmp string) error {
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
			r.Err = fmt.Errorf("nvcc failed on %s (%v); its output is in %s.log:\n%s", cu, err, base, tail(out.String(), 4000))
			return r.Err
		}
		return nil
	})
	if err != nil {
		if r.Err == nil {
			r.Err = fmt.Errorf("nvcc: compiling %s: %w", src.Name, err)
		}
		return r
	}
	if r.Fatbin, err = os.ReadFile(r.Path); err != nil {
		r.Err = fmt.Errorf("nvcc: compiling %s: %w", src.Name, err)
	}
	return r
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}
