package gen

import (
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"sort"

	"github.com/mdgen/mdgen/mdops/alg"
)

// DefaultNs are the precisions generated into the repository.
var DefaultNs = []int{1, 2, 3, 4, 5, 8, 10, 16}

// ArithmeticFiles returns every generated arithmetic file for the
// precisions ns, keyed by slash-separated path relative to the repository
// root. The output depends on ns alone: no time stamps, paths or map order.
func ArithmeticFiles(ns []int) (map[string][]byte, error) {
	files := map[string][]byte{}
	for _, n := range ns {
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
		files[fmt.Sprintf("mdops/f%d_gen.go", n)] = src
		h, err := CUDAHeader(l, c)
		if err != nil {
			return nil, err
		}
		files[fmt.Sprintf("generated/cuda/md%d.cuh", n)] = h
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

// WriteFiles writes files under root. Each file is written to a temporary
// name and renamed, so an interrupted run leaves no half-written file.
func WriteFiles(root string, files map[string][]byte) error {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		dst := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		tmp, err := os.CreateTemp(filepath.Dir(dst), ".mdgen-*")
		if err != nil {
			return err
		}
		if _, err := tmp.Write(files[p]); err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			return err
		}
		if err := tmp.Close(); err != nil {
			os.Remove(tmp.Name())
			return err
		}
		if err := os.Chmod(tmp.Name(), 0o644); err != nil {
			os.Remove(tmp.Name())
			return err
		}
		if err := os.Rename(tmp.Name(), dst); err != nil {
			os.Remove(tmp.Name())
			return err
		}
	}
	return nil
}
