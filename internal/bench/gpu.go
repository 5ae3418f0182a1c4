package bench

import (
	"fmt"
	"strings"
	"time"

	"github.com/mdgen/mdgen/gen"
	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/gen/nvcc"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/gpu"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
	"github.com/mdgen/mdgen/runtime/gpu/kernels"
	"github.com/mdgen/mdgen/runtime/tune"
	"github.com/mdgen/mdgen/stager"
)

// errNoGPU explains how to get a GPU run.
func errNoGPU(cause error) error {
	how := "build the GPU binary with `make gpu` (or: CGO_CFLAGS=\"-I$PWD/build/cudacompat -I$CUDA_PATH/include\" " +
		"CGO_LDFLAGS=\"-L$CUDA_PATH/lib64/stubs\" go build -tags cuda -o .gpu/mdgen ./cmd/mdgen) and run it on a machine " +
		"with an NVIDIA GPU (scripts/gpu-bench.sh does both), or run `mdgen bench -cpu` for the same table with the CPU executor"
	return fmt.Errorf("bench: the GPU is unavailable: %v\n%s", cause, how)
}

func (s *session) openGPU() error {
	dev, err := cudadev.Open(0)
	if err != nil {
		return errNoGPU(err)
	}
	s.dev = dev
	free, _ := dev.FreeMemory()
	s.notef("device: %s, %s free", dev.Info(), stager.FormatBytes(free))
	if p := tune.Installed(); p != nil && s.cfg.KernelSrc == "gen" {
		if g := p.For(tune.DeviceOf(dev.Info())); g != nil {
			s.notef("tuning profile: %d launch shapes for this GPU (other cases: the fitted model, gpuabi.LaunchShape)", len(g.Entries))
		} else {
			s.notef("tuning profile: no entries for %s: the fitted launch shapes (gpuabi.LaunchShape)", tune.DeviceOf(dev.Info()))
		}
	}
	return nil
}

func (s *session) buildKernels() error {
	cfg := s.cfg
	b, err := kernels.New(s.dev, cfg.NVCC, cfg.KernelDir)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if cfg.Arch != "auto" {
		if b.Archs, err = nvcc.ParseArchs(cfg.Arch); err != nil {
			return fmt.Errorf("bench: -arch: %w", err)
		}
	}
	b.Extra, b.Log = cfg.NVCCFlags, s.log
	source := gen.EvalCUSource
	if cfg.KernelSrc == "ref" {
		source = gen.ReferenceCUSource
	}
	s.logf("nvcc: compiling %d kernel files for %s in parallel (cache %s)", len(cfg.Precs), strings.Join(b.Archs, ","), cfg.KernelDir)
	t0 := time.Now()
	ks, res, err := b.Eval(source, cfg.Precs, cfg.Complexes...)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	s.notef("kernels: %s, built in %.1f s (%s)", cfg.KernelSrc, time.Since(t0).Seconds(), cfg.KernelDir)
	for i, n := range cfg.Precs {
		r, k := res[i], ks[i]
		s.logf("--- nvcc report for %s (%s) ---\n%s", r.Name, r.Path, strings.TrimSpace(r.Report))
		s.kernels[n] = k
		var attrs []string
		for _, c := range cfg.Complexes {
			for _, kind := range gpuabi.Kinds {
				if a, ok := k.Attributes(kind, c); ok {
					attrs = append(attrs, fmt.Sprintf("%s %d regs, %d B spill/stack, %d B static shared",
						gpuabi.KernelName(kind, mdops.Prec{N: n, Complex: c}), a.NumRegs, a.LocalBytes, a.SharedBytes))
				}
			}
		}
		s.notef("%dd: layout version %d; %s", n, k.LayoutVersion(), strings.Join(attrs, "; "))
	}
	return nil
}

// gpuOptions returns the executor options of the run: the reference
// kernels' shape, or the contract's with the tuning overrides.
func (s *session) gpuOptions() gpu.Options {
	if s.cfg.KernelSrc == "ref" {
		return gpu.Options{Shape: gpuabi.ReferenceShape}
	}
	return gpu.Options{Shape: ShapeOverride(s.cfg.ConvBlock, s.cfg.ConvSets)}
}

// ShapeOverride returns gpuabi.LaunchShape with the convolution kernel's
// block replaced by block threads (when block > 0) and its dynamic shared
// memory by sets staging sets of gpuabi.SetBytes (when sets >= 0): the
// tuning runs' shape (mdgen bench -conv-block, -conv-sets). Without an
// override it returns nil, which means gpuabi.LaunchShape.
func ShapeOverride(block, sets int) gpuabi.ShapeFunc {
	if block <= 0 && sets < 0 {
		return nil
	}
	return func(kind gpuabi.Kind, n int, complex bool, degree int) (int, int) {
		t, sh := gpuabi.LaunchShape(kind, n, complex, degree)
		if kind != gpuabi.Conv {
			return t, sh
		}
		if block > 0 {
			t = block
		}
		if sets >= 0 {
			sh = sets * gpuabi.SetBytes(n, degree)
		}
		return t, sh
	}
}
