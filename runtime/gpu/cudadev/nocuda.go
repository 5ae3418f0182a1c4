//go:build !cuda

package cudadev

// This file is the build without CUDA: the same API as the cuda-tagged
// files, every entry point returning ErrNoCUDA, so that callers compile and
// fall back to the CPU everywhere.

// Enabled reports whether this build talks to the CUDA driver (build tag cuda).
const Enabled = false

// Device is one GPU; in this build none can be opened.
type Device struct{}

// Module is a loaded module image; in this build there are none.
type Module struct{}

// Function is a kernel of a Module; in this build there are none.
type Function struct{}

// Timer measures device time; in this build there are none.
type Timer struct{}

// Count returns ErrNoCUDA.
func Count() (int, error) { return 0, ErrNoCUDA }

// Open returns ErrNoCUDA.
func Open(ordinal int) (*Device, error) { return nil, ErrNoCUDA }

func (d *Device) Close() error                                               { return ErrNoCUDA }
func (d *Device) Do(f func() error) error                                    { return ErrNoCUDA }
func (d *Device) Info() Info                                                 { return Info{} }
func (d *Device) String() string                                             { return "no CUDA device (built without CUDA support)" }
func (d *Device) FreeMemory() (int64, error)                                 { return 0, ErrNoCUDA }
func (d *Device) Fits(bytes int64) error                                     { return ErrNoCUDA }
func (d *Device) Allocated() int64                                           { return 0 }
func (d *Device) Synchronize() error                                         { return ErrNoCUDA }
func (d *Device) Alloc(bytes int64) (Buffer, error)                          { return Buffer{}, ErrNoCUDA }
func (d *Device) AllocFloat64s(n int64) (Buffer, error)                      { return Buffer{}, ErrNoCUDA }
func (d *Device) Free(b Buffer) error                                        { return ErrNoCUDA }
func (d *Device) CopyHtoD(dst Buffer, src []float64) error                   { return ErrNoCUDA }
func (d *Device) CopyDtoH(dst []float64, src Buffer) error                   { return ErrNoCUDA }
func (d *Device) CopyHtoDInt32(dst Buffer, src []int32) error                { return ErrNoCUDA }
func (d *Device) AllocHost(n int64) ([]float64, error)                       { return nil, ErrNoCUDA }
func (d *Device) FreeHost(s []float64) error                                 { return ErrNoCUDA }
func (d *Device) CopyHtoDPitched(dst Buffer, src []float64, p Pitched) error { return ErrNoCUDA }
func (d *Device) CopyDtoHPitched(dst []float64, src Buffer, p Pitched) error { return ErrNoCUDA }
func (d *Device) CopyDtoHInt32(dst []int32, src Buffer) error                { return ErrNoCUDA }
func (d *Device) CopyHtoDInt64(dst Buffer, src []int64) error                { return ErrNoCUDA }
func (d *Device) CopyDtoHInt64(dst []int64, src Buffer) error                { return ErrNoCUDA }
func (d *Device) CopyHtoDBytes(dst Buffer, src []byte) error                 { return ErrNoCUDA }
func (d *Device) CopyDtoHBytes(dst []byte, src Buffer) error                 { return ErrNoCUDA }
func (d *Device) CopyDtoD(dst, src Buffer) error                             { return ErrNoCUDA }
func (d *Device) Memset(b Buffer, v byte) error                              { return ErrNoCUDA }
func (d *Device) MemsetD32(b Buffer, v uint32) error                         { return ErrNoCUDA }
func (d *Device) LoadModule(image []byte) (*Module, error)                   { return nil, ErrNoCUDA }
func (d *Device) LoadModuleFile(path string) (*Module, error)                { return nil, ErrNoCUDA }
func (d *Device) NewTimer() (*Timer, error)                                  { return nil, ErrNoCUDA }
func (d *Device) Time(f func() error) (float64, error)                       { return 0, ErrNoCUDA }
func (d *Device) Launch(fn *Function, grid, block Dim3, sharedBytes int, args ...any) error {
	return ErrNoCUDA
}

func (m *Module) Name() string                                     { return "" }
func (m *Module) Function(name string) (*Function, error)          { return nil, ErrNoCUDA }
func (m *Module) Global(name string) (Buffer, error)               { return Buffer{}, ErrNoCUDA }
func (m *Module) Unload() error                                    { return ErrNoCUDA }
func (f *Function) Name() string                                   { return "" }
func (f *Function) Attributes() FuncAttributes                     { return FuncAttributes{} }
func (f *Function) SetMaxDynamicShared(bytes int) error            { return ErrNoCUDA }
func (f *Function) MaxActiveBlocks(block, shared int) (int, error) { return 0, ErrNoCUDA }
func (t *Timer) Start() error                                      { return ErrNoCUDA }
func (t *Timer) Stop() (float64, error)                            { return 0, ErrNoCUDA }
func (t *Timer) Close() error                                      { return ErrNoCUDA }

// Event is a CUDA event; in this build there are none.
type Event struct{}

func (d *Device) NewEvent() (*Event, error)            { return nil, ErrNoCUDA }
func (e *Event) Record() error                         { return ErrNoCUDA }
func (e *Event) Synchronize() error                    { return ErrNoCUDA }
func (e *Event) Elapsed(start *Event) (float64, error) { return 0, ErrNoCUDA }
func (e *Event) Close() error                          { return ErrNoCUDA }

// Stream is a CUDA stream; in this build there are none.
type Stream struct{}

func (d *Device) NewStream() (*Stream, error) { return nil, ErrNoCUDA }
func (s *Stream) Launch(fn *Function, grid, block Dim3, sharedBytes int, args ...any) error {
	return ErrNoCUDA
}
func (s *Stream) CopyHtoD(dst Buffer, src []float64) error { return ErrNoCUDA }
func (s *Stream) CopyDtoH(dst []float64, src Buffer) error { return ErrNoCUDA }
func (s *Stream) Wait(e *Event) error                      { return ErrNoCUDA }
func (s *Stream) Synchronize() error                       { return ErrNoCUDA }
func (s *Stream) Await() error                             { return ErrNoCUDA }
func (s *Stream) Close() error                             { return ErrNoCUDA }
func (e *Event) RecordOn(s *Stream) error                  { return ErrNoCUDA }
