//go:build cuda

package cudadev

import (
	"errors"
	"fmt"
	"os"
	"unsafe"

	"gorgonia.org/cu"
)

// Module is a loaded fatbin (or cubin, or PTX) image.
type Module struct {
	d        *Device
	mod      cu.Module
	name     string
	funcs    map[string]*Function
	unloaded bool
}

// Function is a kernel of a loaded Module.
type Function struct {
	m          *Module
	fn         cu.Function
	name       string
	attrs      FuncAttributes
	maxDynamic int // dynamic shared memory a launch may ask for
}

// LoadModule loads a module image (cuModuleLoadData): a fatbin as written by
// nvcc -fatbin, a cubin, or PTX text. Errors name the image by its size and
// kind; LoadModuleFile names it by its path.
func (d *Device) LoadModule(image []byte) (*Module, error) {
	return d.loadModule(fmt.Sprintf("%d-byte %s image", len(image), imageKind(image)), image)
}

// LoadModuleFile reads a module image from path and loads it.
func (d *Device) LoadModuleFile(path string) (*Module, error) {
	image, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cudadev: loading module: %w", err)
	}
	return d.loadModule(path, image)
}

// imageKind tells a fatbin, a cubin and PTX apart by their first bytes.
func imageKind(b []byte) string {
	switch {
	case len(b) >= 4 && b[0] == 0x50 && b[1] == 0xED && b[2] == 0x55 && b[3] == 0xBA:
		return "fatbin"
	case len(b) >= 4 && b[0] == 0x7F && b[1] == 'E' && b[2] == 'L' && b[3] == 'F':
		return "cubin"
	case len(b) > 0 && (b[0] == '/' || b[0] == '.' || b[0] == '\n' || b[0] == ' ' || b[0] == '\t'):
		return "PTX"
	}
	return "unrecognized"
}

func (d *Device) loadModule(name string, image []byte) (*Module, error) {
	if len(image) == 0 {
		return nil, fmt.Errorf("cudadev: loading module %s: the image is empty", name)
	}
	m := &Module{d: d, name: name, funcs: make(map[string]*Function)}
	err := d.Do(func() error {
		// cu.LoadData copies the image into C memory (with a NUL after it,
		// which PTX needs); embedded NUL bytes of a fatbin are kept.
		mod, err := cu.LoadData(string(image))
		if err != nil {
			return err
		}
		m.mod = mod
		d.modules[m] = struct{}{}
		return nil
	})
	if errors.Is(err, cu.NoBinaryForGpu) || errors.Is(err, cu.InvalidPtx) {
		return nil, d.fail(err, "loading module %s on %s: it needs SASS for %s or PTX for compute_%d%d or lower",
			name, d.info, d.info.Arch(), d.info.Major, d.info.Minor)
	}
	if err != nil {
		return nil, d.fail(err, "loading module %s on %s", name, d.info)
	}
	return m, nil
}

// Name returns the module's path, or a description of its image.
func (m *Module) Name() string { return m.name }

// Function looks up the kernel name (its extern "C" name).
func (m *Module) Function(name string) (*Function, error) {
	var f *Function
	err := m.d.Do(func() error {
		if m.unloaded {
			return errors.New("the module was unloaded")
		}
		if f = m.funcs[name]; f != nil {
			return nil
		}
		fn, err := m.mod.Function(name)
		if err != nil {
			return err
		}
		g := &Function{m: m, fn: fn, name: name}
		ids := []cu.FunctionAttribute{cu.FnMaxThreadsPerBlock, cu.NumRegs, cu.SharedSizeBytes,
			cu.LocalSizeBytes, cu.ConstSizeBytes, cu.PtxVersion, cu.BinaryVersion}
		vals := make([]int, len(ids))
		for i, id := range ids {
			if vals[i], err = fn.Attribute(id); err != nil {
				return err
			}
		}
		g.attrs = FuncAttributes{MaxThreadsPerBlock: vals[0], NumRegs: vals[1], SharedBytes: vals[2],
			LocalBytes: vals[3], ConstBytes: vals[4], PTXVersion: vals[5], BinaryVersion: vals[6]}
		g.maxDynamic = m.d.info.MaxSharedPerBlock - g.attrs.SharedBytes
		m.funcs[name] = g
		f = g
		return nil
	})
	if err != nil {
		return nil, m.d.fail(err, "looking up kernel %q in module %s", name, m.name)
	}
	return f, nil
}

// Global returns the device memory of the __device__ (or __constant__)
// variable name of the module (cuModuleGetGlobal), e.g. to read a version
// number or to fill a table with CopyHtoD. The Buffer belongs to the
// module: do not Free it; it is invalid after Unload.
func (m *Module) Global(name string) (Buffer, error) {
	var b Buffer
	err := m.d.Do(func() error {
		if m.unloaded {
			return errors.New("the module was unloaded")
		}
		p, n, err := m.mod.Global(name)
		if err != nil {
			return err
		}
		b = Buffer{ptr: uintptr(p), bytes: n}
		return nil
	})
	if err != nil {
		return Buffer{}, m.d.fail(err, "looking up global %q in module %s", name, m.name)
	}
	return b, nil
}

// Unload unloads the module; its Functions become unusable.
func (m *Module) Unload() error {
	return m.d.Do(m.unload)
}

// unload runs on the owner goroutine.
func (m *Module) unload() error {
	if m.unloaded {
		return nil
	}
	m.unloaded = true
	delete(m.d.modules, m)
	if err := m.mod.Unload(); err != nil {
		return fmt.Errorf("cudadev: unloading module %s: %w", m.name, driverErr(err))
	}
	return nil
}

// Name returns the kernel's name.
func (f *Function) Name() string { return f.name }

// Attributes returns the kernel's resource figures for the loaded code.
func (f *Function) Attributes() FuncAttributes { return f.attrs }

// SetMaxDynamicShared lets launches of f ask for up to bytes of dynamic
// shared memory, beyond the default of 48 KiB (minus static shared memory)
// up to Info.MaxSharedPerBlockOptin (cuFuncSetAttribute).
func (f *Function) SetMaxDynamicShared(bytes int) error {
	d := f.m.d
	err := d.Do(func() error {
		if f.m.unloaded {
			return errors.New("the module was unloaded")
		}
		if err := setMaxDynamicShared(&f.fn, bytes); err != nil {
			return err
		}
		f.maxDynamic = bytes
		return nil
	})
	if err != nil {
		return d.fail(err, "allowing kernel %s %d bytes of dynamic shared memory (this GPU allows up to %d per block in all)",
			f.name, bytes, d.info.MaxSharedPerBlockOptin)
	}
	return nil
}

// MaxActiveBlocks returns how many blocks of the given size and dynamic
// shared memory one SM runs at once, by the driver's occupancy calculator
// (cuOccupancyMaxActiveBlocksPerMultiprocessor): the limit that registers,
// shared memory and the block count put on latency hiding.
func (f *Function) MaxActiveBlocks(block, shared int) (int, error) {
	d := f.m.d
	var n int
	err := d.Do(func() error {
		if f.m.unloaded {
			return errors.New("the module was unloaded")
		}
		var err error
		n, err = maxActiveBlocks(&f.fn, block, shared)
		return err
	})
	if err != nil {
		return 0, d.fail(err, "computing the occupancy of kernel %s (%d threads, %d bytes of dynamic shared memory)", f.name, block, shared)
	}
	return n, nil
}

// Launch queues kernel fn on the device's stream with the given grid and
// block shapes and dynamic shared memory, and returns without waiting.
//
// Every argument is passed as one 8-byte kernel parameter: a Buffer (or
// *Buffer, or a raw uintptr) as a pointer; int, int64, uint, uint64 as a
// 64-bit integer; float64 as a double. Other types are refused, since the
// kernel would read 8 bytes where the Go value has fewer (see the package
// documentation). Faults inside the kernel are reported by the next call
// that waits for the device.
func (d *Device) Launch(fn *Function, grid, block Dim3, sharedBytes int, args ...any) error {
	return d.launch(nil, fn, grid, block, sharedBytes, args)
}

// launch queues fn on s, or on the device's (NULL) stream when s is nil.
func (d *Device) launch(s *Stream, fn *Function, grid, block Dim3, sharedBytes int, args []any) error {
	if fn == nil {
		return errors.New("cudadev: launching a nil *Function")
	}
	what := func() string {
		return fmt.Sprintf("launching %s<<<%v, %v, %d>>>", fn.name, grid, block, sharedBytes)
	}
	if fn.m.d != d {
		return fmt.Errorf("cudadev: %s: the kernel belongs to another Device", what())
	}
	if err := checkLaunchShape(grid, block, sharedBytes); err != nil {
		return fmt.Errorf("cudadev: %s: %w", what(), err)
	}
	if n := block.Count(); n > int64(fn.attrs.MaxThreadsPerBlock) {
		return fmt.Errorf("cudadev: %s: a block of %d threads exceeds the kernel's limit of %d (it uses %d registers per thread)",
			what(), n, fn.attrs.MaxThreadsPerBlock, fn.attrs.NumRegs)
	}
	words, err := kernelArgs(args)
	if err != nil {
		return fmt.Errorf("cudadev: %s: %w", what(), err)
	}
	params := make([]unsafe.Pointer, len(words))
	for i := range words {
		params[i] = unsafe.Pointer(&words[i])
	}
	g, b := grid.normalized(), block.normalized()
	err = d.Do(func() error {
		if fn.m.unloaded {
			return errors.New("the kernel's module was unloaded")
		}
		if sharedBytes > fn.maxDynamic {
			return fmt.Errorf("%d bytes of dynamic shared memory exceed the kernel's limit of %d (raise it with SetMaxDynamicShared)",
				sharedBytes, fn.maxDynamic)
		}
		stream := d.stream
		if s != nil {
			if s.closed {
				return errors.New("the stream is closed")
			}
			stream = s.s
		}
		return fn.fn.Launch(g[0], g[1], g[2], b[0], b[1], b[2], sharedBytes, stream, params)
	})
	if err != nil {
		return d.fail(err, "%s", what())
	}
	return nil
}
