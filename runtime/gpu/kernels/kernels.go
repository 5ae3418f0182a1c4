// Package kernels is the one home of building mdgen's CUDA kernels at run
// time and loading them on a device: the sequence that mdgen solve -gpu,
// mdgen tune and mdgen bench share. Package gen gives the sources
// (gen.EvalCUSource, gen.ReferenceCUSource, gen.BatchCUSource, gen.NewtonCUSources,
// gen.BatchLACUSource: printing
// them needs no GPU); a Builder finds nvcc (gen/nvcc.Find, at New),
// compiles the sources through the content-hash cache of
// gen/nvcc.Compiler (Compile), checks every result, and loads the fatbins
// on its device with runtime/gpu, which checks them against the GPU
// contract (Eval, Batch, Newton). The emitted packages load their embedded
// fatbin with the same load step (runtime/gpu.NewWithOptions and
// LoadNewtonKernelsFrom, through runtime/solver); they have nothing to
// compile.
//
// A build without the cuda tag has no GPU executor: Enabled and New say so
// (their error wraps cudadev.ErrNoCUDA) before any nvcc runs.
package kernels

import (
	"errors"
	"fmt"
	"io"

	"github.com/mdgen/mdgen/gen"
	"github.com/mdgen/mdgen/gen/nvcc"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/gpu"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
)

// DefaultDir is the folder of the fatbin cache unless told otherwise (the
// -kernels flag of mdgen solve, tune and bench).
const DefaultDir = "build/kernels"

// Builder builds kernels and loads them on one device.
type Builder struct {
	dev  *cudadev.Device
	nvcc string // nvcc's path (found by New)

	// Dir is the content-hash cache of the fatbins (and of the sources
	// nvcc compiled, kept for inspection).
	Dir string
	// Archs are the SASS targets (nvcc.ParseArchs); New sets the
	// device's architecture.
	Archs []string
	// Extra are more nvcc flags (nvcc.Compiler.Extra).
	Extra []string
	// Log receives nvcc's progress lines (a build of several precisions
	// takes minutes); nil: none.
	Log io.Writer
}

// Enabled returns nil when this binary has the GPU executor (build tag
// cuda), else the error that says it lacks it (wrapping cudadev.ErrNoCUDA):
// what a caller checks before it opens a device.
func Enabled() error {
	if !gpu.Enabled {
		return fmt.Errorf("this mdgen was built without the GPU (build tag cuda: make gpu builds .gpu/mdgen): %w", cudadev.ErrNoCUDA)
	}
	return nil
}

// New returns a Builder of the kernels for dev that caches them under dir
// and runs the nvcc that nvcc.Find(nvccPath) finds ("": its search
// order). The error says why there are no kernels to build: this binary
// lacks the GPU (Enabled), or there is no nvcc.
func New(dev *cudadev.Device, nvccPath, dir string) (*Builder, error) {
	if err := Enabled(); err != nil {
		return nil, err
	}
	if dev == nil {
		return nil, errors.New("kernels: no device")
	}
	path, err := nvcc.Find(nvccPath)
	if err != nil {
		return nil, fmt.Errorf("the GPU kernels need nvcc: %w", err)
	}
	return &Builder{dev: dev, nvcc: path, Dir: dir, Archs: []string{nvcc.Arch(dev.Info().Arch())}}, nil
}

// Compile compiles srcs into fatbins, or takes them from the cache, in
// parallel, and returns one result per source, in order (with nvcc's
// resource report). The error names every source that failed.
func (b *Builder) Compile(srcs []nvcc.Source) ([]nvcc.Result, error) {
	c := &nvcc.Compiler{NVCC: b.nvcc, Dir: b.Dir, Archs: b.Archs, Extra: b.Extra, Log: b.Log}
	res, err := c.Build(srcs)
	if err != nil {
		return nil, fmt.Errorf("building the GPU kernels: %w", err)
	}
	if len(res) != len(srcs) {
		return nil, fmt.Errorf("building the GPU kernels: %d fatbins of %d sources", len(res), len(srcs))
	}
	return res, nil
}

// Eval builds the evaluation kernels that source gives (gen.EvalCUSource,
// or gen.ReferenceCUSource) for every precision in ns and loads each for
// the kinds of data in complexes (gpu.LoadKernels: false real, true
// complex). It returns the kernels in the order of ns, with nvcc's results;
// on an error it has unloaded what it loaded.
func (b *Builder) Eval(source func(n int) (nvcc.Source, error), ns []int, complexes ...bool) ([]*gpu.Kernels, []nvcc.Result, error) {
	return b.build(source, gpu.LoadKernels, ns, complexes)
}

// Batch builds the batched evaluation kernels (gen.BatchCUSource: those of
// Eval and the batched ones of runtime/gpu.Batch) for every precision in
// ns and loads each for the kinds of data in complexes
// (gpu.LoadBatchKernels), as Eval does.
func (b *Builder) Batch(ns []int, complexes ...bool) ([]*gpu.Kernels, []nvcc.Result, error) {
	return b.build(gen.BatchCUSource, gpu.LoadBatchKernels, ns, complexes)
}

// build compiles source(n) for every n of ns and loads each fatbin with load.
func (b *Builder) build(source func(n int) (nvcc.Source, error), load func(*cudadev.Device, []byte, int, ...bool) (*gpu.Kernels, error),
	ns []int, complexes []bool) ([]*gpu.Kernels, []nvcc.Result, error) {
	srcs := make([]nvcc.Source, len(ns))
	for i, n := range ns {
		s, err := source(n)
		if err != nil {
			return nil, nil, err
		}
		srcs[i] = s
	}
	res, err := b.Compile(srcs)
	if err != nil {
		return nil, nil, err
	}
	ks := make([]*gpu.Kernels, 0, len(ns))
	for i, n := range ns {
		k, err := load(b.dev, res[i].Fatbin, n, complexes...)
		if err != nil {
			for _, k := range ks {
				err = errors.Join(err, k.Close())
			}
			return nil, nil, err
		}
		ks = append(ks, k)
	}
	return ks, res, nil
}

// Newton builds the kernels of the device-resident Newton driver
// (gen.NewtonCUSources: the evaluation kernels of the precision and the
// linear algebra of the kind) for every kind, in one parallel nvcc run
// (a source that two kinds share, the evaluation kernels of real and
// complex data of one precision, once), and loads them
// (gpu.LoadNewtonKernels). It returns them in the order of kinds; on an
// error it has unloaded what it loaded.
func (b *Builder) Newton(kinds ...mdops.Prec) ([]*gpu.NewtonKernels, error) {
	var srcs []nvcc.Source
	index := map[string]int{} // source name -> its place in srcs
	pairs := make([][2]int, len(kinds))
	for i, k := range kinds {
		s, err := gen.NewtonCUSources(k)
		if err != nil {
			return nil, err
		}
		if len(s) != 2 {
			return nil, fmt.Errorf("kernels: %d Newton sources for %s, want 2", len(s), k)
		}
		for j, src := range s {
			at, ok := index[src.Name]
			if !ok {
				at = len(srcs)
				index[src.Name] = at
				srcs = append(srcs, src)
			}
			pairs[i][j] = at
		}
	}
	res, err := b.Compile(srcs)
	if err != nil {
		return nil, err
	}
	ks := make([]*gpu.NewtonKernels, 0, len(kinds))
	for i, k := range kinds {
		nk, err := gpu.LoadNewtonKernels(b.dev, res[pairs[i][0]].Fatbin, res[pairs[i][1]].Fatbin, k)
		if err != nil {
			for _, k := range ks {
				err = errors.Join(err, k.Close())
			}
			return nil, err
		}
		ks = append(ks, nk)
	}
	return ks, nil
}

// BatchLA builds the batched linear algebra (gen.BatchLACUSource) of every
// kind, in one parallel nvcc run, and loads it (gpu.LoadBatchLAKernels).
// It returns the kernels in the order of kinds; on an error it has
// unloaded what it loaded.
func (b *Builder) BatchLA(kinds ...mdops.Prec) ([]*gpu.BatchLAKernels, error) {
	srcs := make([]nvcc.Source, len(kinds))
	for i, k := range kinds {
		s, err := gen.BatchLACUSource(k)
		if err != nil {
			return nil, err
		}
		srcs[i] = s
	}
	res, err := b.Compile(srcs)
	if err != nil {
		return nil, err
	}
	ks := make([]*gpu.BatchLAKernels, 0, len(kinds))
	for i, k := range kinds {
		bk, err := gpu.LoadBatchLAKernels(b.dev, res[i].Fatbin, k)
		if err != nil {
			for _, k := range ks {
				err = errors.Join(err, k.Close())
			}
			return nil, err
		}
		ks = append(ks, bk)
	}
	return ks, nil
}

// closeKernels closes and forgets every loaded kernel set of ks (the
// caller holds the lock that guards it).
func closeKernels[K comparable, V interface{ Close() error }](ks map[K]V) error {
	var errs []error
	for p, k := range ks {
		errs = append(errs, k.Close())
		delete(ks, p)
	}
	return errors.Join(errs...)
}
