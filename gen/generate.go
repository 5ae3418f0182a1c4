package gen

import (
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/mdgen/mdgen/mdops/alg"
)

// DefaultNs are the precisions generated into the repository.
var DefaultNs = []int{1, 2, 3, 4, 5, 8, 10, 16}

// ArithmeticFiles returns every generated arithmetic file for the
// precisions ns, keyed by slash-separated path relative to the repository
// root: PrecisionFiles of each, the shared CUDA base and index
// (mdgen.cuh includes the headers of ns) and the operation benchmarks of
// ns. The output depends on ns alone: no time stamps, paths or map order.
func ArithmeticFiles(ns []int) (map[string][]byte, error) {
	files := map[string][]byte{}
	for _, n := range ns {
		pf, err := PrecisionFiles(n)
		if err != nil {
			return nil, err
		}
		for p, b := range pf {
			files[p] = b
		}
	}
	base, err := CUDABase()
	if err != nil {
		return nil, err
	}
	files["generated/cuda/mdbase.cuh"] = base
	idx, err := CUDAIndex(ns)
	if err != nil {
		return nil, err
	}
	files["generated/cuda/mdgen.cuh"] = idx
	fpTwins, err := CUDAFP()
	if err != nil {
		return nil, err
	}
	files["generated/cuda/mdfp.cuh"] = fpTwins
	trackTwin, err := CUDATrack()
	if err != nil {
		return nil, err
	}
	files["generated/cuda/mdtrack.cuh"] = trackTwin
	bench, err := GoBenchFile(ns)
	if err != nil {
		return nil, err
	}
	if f, err := format.Source(bench); err == nil {
		bench = f
	}
	files["mdops/ops_bench_gen_test.go"] = bench
	return files, nil
}

// PrecisionFiles returns the files of precision n alone:
// mdops/f<n>_gen.go (types F<n>, C<n>, registered with mdops at init) and
// generated/cuda/md<n>.cuh (which includes mdbase.cuh).
func PrecisionFiles(n int) (map[string][]byte, error) {
	if n < 1 || n > alg.MaxN {
		return nil, fmt.Errorf("gen: precision %d out of range 1..%d", n, alg.MaxN)
	}
	l := alg.Build(n)
	c := alg.BuildComplex(l)
	src, err := GoFile(l, c)
	if err != nil {
		return nil, err
	}
	if f, err := format.Source(src); err == nil {
		src = f
	} else {
		// Keep the unformatted source so the compiler points at the bug.
		fmt.Fprintf(os.Stderr, "mdgen: formatting f%d_gen.go: %v\n", n, err)
	}
	h, err := CUDAHeader(l, c)
	if err != nil {
		return nil, err
	}
	return map[string][]byte{
		fmt.Sprintf("mdops/f%d_gen.go", n):        src,
		fmt.Sprintf("generated/cuda/md%d.cuh", n): h,
	}, nil
}

// RepositoryFiles returns what `mdgen generate` writes into the
// repository: ArithmeticFiles(DefaultNs), always, so that the shared files
// (mdgen.cuh, the benchmarks, mdops/la) stay what the tests and `make
// check-generated` expect, plus PrecisionFiles of every extra precision
// (not in DefaultNs), which stand alone: include md<n>.cuh directly; mdops
// registers F<n> (mdops.SeriesKernelsFor(n)) from f<n>_gen.go. Extras are
// local to a checkout; to make one permanent, add it to DefaultNs.
func RepositoryFiles(extra []int) (map[string][]byte, error) {
	files, err := ArithmeticFiles(DefaultNs)
	if err != nil {
		return nil, err
	}
	// The linear algebra of mdops/la, for the default set (an extra
	// precision has the arithmetic, not yet la.KernelsFor).
	la, err := LAFiles(DefaultNs)
	if err != nil {
		return nil, err
	}
	for p, b := range la {
		files[p] = b
	}
	for _, n := range extra {
		if slices.Contains(DefaultNs, n) {
			continue
		}
		pf, err := PrecisionFiles(n)
		if err != nil {
			return nil, err
		}
		for p, b := range pf {
			files[p] = b
		}
	}
	return files, nil
}

// ExtraPrecisions returns the precisions outside DefaultNs whose
// mdops/f<n>_gen.go exists under root (written by an earlier `mdgen
// generate -n`), ascending.
func ExtraPrecisions(root string) ([]int, error) {
	ents, err := os.ReadDir(filepath.Join(root, "mdops"))
	if err != nil {
		return nil, err
	}
	var ns []int
	for _, e := range ents {
		var n int
		if _, err := fmt.Sscanf(e.Name(), "f%d_gen.go", &n); err != nil || e.Name() != fmt.Sprintf("f%d_gen.go", n) {
			continue
		}
		if n >= 1 && n <= alg.MaxN && !slices.Contains(DefaultNs, n) {
			ns = append(ns, n)
		}
	}
	sort.Ints(ns)
	return ns, nil
}
