package tune

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/gpu"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
)

// sampleNewton returns sample() with Newton entries whose shapes differ
// from the model.
func sampleNewton() *Profile {
	p := sample()
	add := func(n int, complex bool, vars int, shape gpuabi.LAShape) {
		p.PutNewton(h200, h200Shared, "2026-11-24T20:00:00Z", NewtonEntry{Prec: n, Data: DataName(complex), Size: NewtonSizeClass(vars),
			Shape: shape, Model: gpuabi.LAModelShape(), N: vars, Degree: 64, Ms: 10, ModelMs: 12, Tried: 20, Check: "cpu"})
	}
	s := gpuabi.LAModelShape()
	s.MulSub, s.QR = 4, 2
	add(8, false, 1024, s)
	s = gpuabi.LAModelShape()
	s.BackSub = 16
	add(4, true, 256, s)
	add(8, true, 256, gpuabi.LAModelShape())
	return p
}

func TestNewtonRoundTrip(t *testing.T) {
	p := sampleNewton()
	path := filepath.Join(t.TempDir(), "tune.json")
	if err := p.Write(path); err != nil {
		t.Fatal(err)
	}
	q, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	want := p.clone()
	want.sort()
	if !reflect.DeepEqual(q, want) {
		t.Fatalf("read back\n%+v\nwant\n%+v", q, want)
	}
	if q.NewtonEntries() != 3 || q.Entries() != sample().Entries()+3 {
		t.Fatalf("%d Newton entries, %d in all", q.NewtonEntries(), q.Entries())
	}
	text, _ := os.ReadFile(path)
	if !strings.Contains(string(text), `"layout": 2`) || !strings.Contains(string(text), `"mulsub": 4`) {
		t.Fatalf("profile text lacks the layout or the shape:\n%s", text)
	}
	// The Newton entries of one precision go with the evaluation's.
	s := q.Subset(mdops.Prec{N: 4, Complex: true})
	if len(s.GPUs) != 1 || len(s.GPUs[0].Newton) != 1 || s.GPUs[0].Newton[0].Shape.BackSub != 16 {
		t.Fatalf("subset 4d complex: %+v", s.GPUs)
	}
	if s := q.Subset(mdops.Prec{N: 8}); len(s.GPUs) != 1 || len(s.GPUs[0].Entries) != 0 || len(s.GPUs[0].Newton) != 1 {
		t.Fatalf("subset 8d real (Newton only): %+v", s.GPUs)
	}
}

// TestOldLayout: a profile of layout 1 (no Newton entries; the committed
// H200 profile of the evaluation is one) still reads, as layout 2; layout
// 1 with Newton entries is corrupt.
func TestOldLayout(t *testing.T) {
	good, _ := sample().Marshal()
	old := strings.Replace(string(good), `"layout": 2`, `"layout": 1`, 1)
	p, err := Parse([]byte(old))
	if err != nil {
		t.Fatal(err)
	}
	if p.Layout != LayoutVersion || p.Entries() != sample().Entries() {
		t.Fatalf("layout %d, %d entries", p.Layout, p.Entries())
	}
	again, _ := p.Marshal()
	if string(again) != string(good) {
		t.Fatal("an old profile written again differs from the same profile of this layout")
	}
	withNewton, _ := sampleNewton().Marshal()
	bad := strings.Replace(string(withNewton), `"layout": 2`, `"layout": 1`, 1)
	if _, err := Parse([]byte(bad)); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "Newton entries in a profile of layout version 1") {
		t.Fatalf("layout 1 with Newton entries: %v", err)
	}
	text, err := os.ReadFile(filepath.Join("..", "..", "bench", "results", "h200-tune.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(text), `"layout": 1`) {
		if _, err := Parse(text); err != nil {
			t.Fatalf("the committed layout-1 profile: %v", err)
		}
	}
}

func TestBadNewton(t *testing.T) {
	good, err := sampleNewton().Marshal()
	if err != nil {
		t.Fatal(err)
	}
	edit := func(old, new string) []byte {
		if !strings.Contains(string(good), old) {
			t.Fatalf("sample lacks %q", old)
		}
		return []byte(strings.Replace(string(good), old, new, 1))
	}
	for _, c := range []struct {
		name string
		data []byte
		say  string
	}{
		{"qr teams above the bound", edit(`"qr": 2`, `"qr": 9`), "qr: 9 teams per block, want 1..8"},
		{"mulsub teams above the bound", edit(`"mulsub": 4`, `"mulsub": 17`), "mulsub: 17 teams"},
		{"negative teams", edit(`"backsub": 16`, `"backsub": -1`), "backsub: -1 teams"},
		{"unknown op", edit(`"mulsub": 4`, `"mulsub": 4, "gemm": 2`), "gemm"},
		{"size class", edit(`"size": "n<2048"`, `"size": "n<4096"`), "n<4096"},
		{"n outside its class", edit(`"n": 1024`, `"n": 100`), "outside its size class"},
		{"data", edit(`"data": "real",
          "size"`, `"data": "octonion",
          "size"`), "octonion"},
	} {
		_, err := Parse(c.data)
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.say) {
			t.Errorf("%s: error %v, want %v saying %q", c.name, err, ErrCorrupt, c.say)
		}
	}
	p := sampleNewton()
	g := &p.GPUs[0]
	g.Newton = append(g.Newton, g.Newton[0])
	if _, err := p.Marshal(); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "twice") {
		t.Errorf("duplicate Newton key: %v", err)
	}
}

func TestNewtonSizeClass(t *testing.T) {
	for n, want := range map[int]string{1: NewtonTiny, 64: NewtonTiny, 127: NewtonTiny, 128: NewtonSmall, 256: NewtonSmall,
		511: NewtonSmall, 512: NewtonMedium, 1024: NewtonMedium, 2047: NewtonMedium, 2048: NewtonLarge, 4096: NewtonLarge} {
		if got := NewtonSizeClass(n); got != want {
			t.Errorf("NewtonSizeClass(%d) = %q, want %q", n, got, want)
		}
	}
}

// blocks returns the block of each op of LAShapeOps that v launches at
// n = 300 (every op has more than one block's items there).
func blocks(v gpuabi.LAVariant) map[gpuabi.LAOp]int {
	const n = 300
	p := gpuabi.LAPtr{}
	got := map[gpuabi.LAOp]int{}
	for _, ls := range [][]gpuabi.LALaunch{v.LAQR(n, n, n, p, p)[1:2], v.LAPackRH(n, n, n, p, p, p, p, p, p),
		v.LAApplyQH(n, n, n, p, p, n, p, n), v.LABackSub(n, p, p, n, p, n), v.LAMulSub(n, n, p, n, 0, p, 0, p, 0, p, 0, 1),
		v.LANorm1(p, n, n, n, p)} {
		got[ls[0].Op] = ls[0].Block
	}
	return got
}

// TestNewtonShapeChoice: the installed profile gives the Newton back end
// its shape per device, precision, kind and size class (gpu.NewtonShape),
// each op's block follows its count, a zero count or no entry gives the
// model's, and another GPU gets nothing.
func TestNewtonShapeChoice(t *testing.T) {
	defer Uninstall()
	if gpu.NewtonShape != nil {
		t.Fatal("a profile installed before the test")
	}
	lanes := func(op gpuabi.LAOp) int {
		if op == gpuabi.LAQRStep || op == gpuabi.LAQH {
			return 32
		}
		return gpuabi.LALanes
	}
	model := blocks(gpuabi.LAVariant{Prec: mdops.Prec{N: 8}})
	for _, op := range gpuabi.LAShapeOps {
		want := gpuabi.LAModelTeams(op)
		if model[op] != want*lanes(op) {
			t.Fatalf("model %s: block %d, want %d teams", op, model[op], want)
		}
	}
	Install(sampleNewton())
	info := cudadev.Info{Name: "NVIDIA H200", Major: 9, Minor: 0}
	s := gpu.NewtonShape(info, mdops.Prec{N: 8}, 1024)
	if s == nil || s.MulSub != 4 || s.QR != 2 {
		t.Fatalf("8d real n=1024: %v", s)
	}
	got := blocks(gpuabi.LAVariant{Prec: mdops.Prec{N: 8}, Shape: s})
	for _, op := range gpuabi.LAShapeOps {
		if want := s.Get(op) * lanes(op); got[op] != want {
			t.Errorf("%s: block %d, want %d", op, got[op], want)
		}
	}
	// A zero count: the model's for that op.
	z := *s
	z.MulSub = 0
	if b := blocks(gpuabi.LAVariant{Prec: mdops.Prec{N: 8}, Shape: &z})[gpuabi.LAMulSub]; b != model[gpuabi.LAMulSub] {
		t.Errorf("mulsub with a zero count: block %d, want the model's %d", b, model[gpuabi.LAMulSub])
	}
	// Groups still overrides every op.
	if b := blocks(gpuabi.LAVariant{Prec: mdops.Prec{N: 8}, Shape: s, Groups: 3})[gpuabi.LAMulSub]; b != 3*gpuabi.LALanes {
		t.Errorf("Groups 3: mulsub block %d", b)
	}
	if s := gpu.NewtonShape(info, mdops.Prec{N: 4, Complex: true}, 300); s == nil || s.BackSub != 16 {
		t.Fatalf("4d complex n=300 (class n<512): %v", s)
	}
	for _, c := range []struct {
		info    cudadev.Info
		n       int
		complex bool
		vars    int
	}{
		{info, 8, false, 4096}, // another size class
		{info, 8, false, 100},
		{info, 4, false, 256}, // another kind
		{info, 2, true, 256},  // another precision
		{cudadev.Info{Name: "NVIDIA A100-SXM4-80GB", Major: 8, Minor: 0}, 8, false, 1024},
	} {
		if s := gpu.NewtonShape(c.info, mdops.Prec{N: c.n, Complex: c.complex}, c.vars); s != nil {
			t.Errorf("%s %dd complex %v n=%d: shape %v, want none (the model)", c.info.Name, c.n, c.complex, c.vars, s)
		}
	}
	// The caller's copy: changing it leaves the installed profile alone.
	s.MulSub = 1
	if s := gpu.NewtonShape(info, mdops.Prec{N: 8}, 1024); s.MulSub != 4 {
		t.Fatal("the installed shape changed through a returned pointer")
	}
	Uninstall()
	if gpu.NewtonShape != nil {
		t.Fatal("Uninstall left the Newton hook")
	}
	// A profile with Newton entries only installs too.
	p := New()
	p.GPUs = sampleNewton().GPUs
	p.GPUs[0].Entries = nil
	text, err := p.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := InstallJSON("pkg", string(text)); err != nil || gpu.NewtonShape == nil || gpu.NewtonShape(info, mdops.Prec{N: 8}, 1024) == nil {
		t.Fatalf("InstallJSON of Newton entries: %v", err)
	}
}

// fakeNewton is a GPU whose linear algebra costs cost[op][teams] ms per
// op over a base, where differ gives other bits and fail fails.
type fakeNewton struct {
	cost     map[gpuabi.LAOp]map[int]float64
	differ   map[gpuabi.LAShape]bool
	fail     func(gpuabi.LAShape) bool
	measured []gpuabi.LAShape
}

func (f *fakeNewton) measure(s gpuabi.LAShape, screen float64) (float64, bool, error) {
	f.measured = append(f.measured, s)
	if f.fail != nil && f.fail(s) {
		return 0, false, fmt.Errorf("launch failed")
	}
	ms := 100.0
	for _, op := range gpuabi.LAShapeOps {
		ms += f.cost[op][s.Get(op)]
	}
	return ms, !f.differ[s], nil
}

// TestNewtonSearch: the coordinate search on a fake GPU finds each op's
// cheapest count, never takes a shape with other bits, skips failed
// solves, and keeps the model below the minimum gain.
func TestNewtonSearch(t *testing.T) {
	m := gpuabi.LAModelShape()
	f := &fakeNewton{cost: map[gpuabi.LAOp]map[int]float64{
		gpuabi.LAQRStep:  {8: 5, 1: 9, 2: 3, 4: 4}, // 8: the model's
		gpuabi.LAMulSub:  {1: 9, 2: 6, 4: 1, 8: 2, 16: 7},
		gpuabi.LABackSub: {1: 1, 2: 2, 4: 3, 8: 4, 16: 5},
	}}
	// The best qr and mulsub with backsub 1 would be fastest: other bits.
	d := m
	d.QR, d.MulSub, d.BackSub = 2, 4, 1
	f.differ = map[gpuabi.LAShape]bool{d: true}
	f.fail = func(s gpuabi.LAShape) bool { return s.BackSub == 16 }
	got, err := NewtonSearch(1, f.measure)
	if err != nil {
		t.Fatal(err)
	}
	want := m
	want.QR, want.MulSub = 2, 4
	if got.Best != want || got.Model != m {
		t.Fatalf("best %v, want %v", got.Best, want)
	}
	if got.BestMs != 100+3+1+2 || got.ModelMs != 100+5+2+2 {
		t.Fatalf("best %.1f ms, model %.1f ms", got.BestMs, got.ModelMs)
	}
	if len(got.Differs) != 1 || got.Differs[0] != d {
		t.Fatalf("differs %v", got.Differs)
	}
	if len(got.Failed) != 1 || got.Failed[0].BackSub != 16 {
		t.Fatalf("failed %v", got.Failed)
	}
	// Every candidate measured once, the model first; each op's counts
	// but the model's; then the model and the best again, alternately.
	n := 1
	for _, op := range NewtonSearchOps {
		n += len(NewtonTeams(op)) - 1
	}
	if len(f.measured) != n+2*NewtonConfirmRounds || got.Tried != n-1 {
		t.Fatalf("%d measured, %d tried, want %d and %d", len(f.measured), got.Tried, n+2*NewtonConfirmRounds, n-1)
	}
	seen := map[gpuabi.LAShape]bool{}
	for _, s := range f.measured[:n] {
		if seen[s] {
			t.Fatalf("%v measured twice", s)
		}
		seen[s] = true
	}
	if f.measured[0] != m {
		t.Fatalf("first measured %v, want the model", f.measured[0])
	}
	for i, s := range f.measured[n:] {
		if want := []gpuabi.LAShape{m, want}[i%2]; s != want {
			t.Fatalf("confirmation %d measured %v, want %v", i, s, want)
		}
	}
	// A candidate that was lucky once: the confirmation keeps the model.
	lucky := m
	lucky.QH = 4
	calls := map[gpuabi.LAShape]int{}
	got, err = NewtonSearch(1, func(s gpuabi.LAShape, screen float64) (float64, bool, error) {
		calls[s]++
		if s == lucky && calls[s] == 1 {
			return 90, true, nil
		}
		return 100 + float64(calls[s]%2), true, nil // noise of 1%
	})
	if err != nil || got.Best != m || got.BestMs != got.ModelMs || calls[lucky] != 1+NewtonConfirmRounds || calls[m] != 1+NewtonConfirmRounds {
		t.Fatalf("lucky once: best %v %.1f ms, model %.1f ms, calls %d and %d (%v)", got.Best, got.BestMs, got.ModelMs, calls[lucky], calls[m], err)
	}
	// A gain below -min-gain keeps the model.
	f2 := &fakeNewton{cost: map[gpuabi.LAOp]map[int]float64{gpuabi.LAQH: {1: 1, 2: 0.5}}}
	got, err = NewtonSearch(1, f2.measure)
	if err != nil || got.Best != m || got.BestMs != got.ModelMs {
		t.Fatalf("gain 0.5%% below 1%%: best %v (%v)", got.Best, err)
	}
	// An error of the model's own solve is returned.
	f3 := &fakeNewton{fail: func(gpuabi.LAShape) bool { return true }}
	if _, err := NewtonSearch(1, f3.measure); err == nil {
		t.Fatal("no error when the model's solve fails")
	}
}

func TestNewtonTeams(t *testing.T) {
	if got := NewtonTeams(gpuabi.LAQRStep); !reflect.DeepEqual(got, []int{1, 2, 4, 8}) {
		t.Errorf("qr: %v", got)
	}
	if got := NewtonTeams(gpuabi.LAMulSub); !reflect.DeepEqual(got, []int{1, 2, 4, 8, 16}) {
		t.Errorf("mulsub: %v", got)
	}
}

// TestCommittedNewtonProfile: the H200 Newton profile in bench/results
// reads with this mdgen, every entry passed the CPU check, and none is
// slower than the model as measured.
func TestCommittedNewtonProfile(t *testing.T) {
	p, err := Read(filepath.Join("..", "..", "bench", "results", "h200-tune-newton.json"))
	if err != nil {
		t.Fatal(err)
	}
	g := p.For(h200)
	if g == nil || len(g.Newton) == 0 {
		t.Fatalf("no H200 Newton entries: %v", p.Devices())
	}
	for _, e := range g.Newton {
		if e.Ms > e.ModelMs || (e.Shape == e.Model) != (e.Ms == e.ModelMs) || e.Check != "cpu" {
			t.Errorf("%s: %v %.3f ms against the model's %v %.3f ms, check %q", e.Key(), e.Shape, e.Ms, e.Model, e.ModelMs, e.Check)
		}
	}
}

// TestKernelsUpgrade: a profile tuned with the kernels of GPU layout
// version 2 reads as version 3 with its evaluation entries as they were
// and its Newton entries' qr counts dropped (the QR step changed); one of
// version 1 is refused.
func TestKernelsUpgrade(t *testing.T) {
	path := filepath.Join("..", "..", "bench", "results", "h200-tune-newton.json")
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), `"kernels": 2`) || !strings.Contains(string(text), `"qr": 2`) {
		t.Fatalf("%s is no longer a version-2 profile with qr counts: pick another one for this test", path)
	}
	p, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	if p.Kernels != gpuabi.LayoutVersion {
		t.Fatalf("kernels %d after the upgrade", p.Kernels)
	}
	var raw Profile
	if err := json.Unmarshal(text, &raw); err != nil {
		t.Fatal(err)
	}
	for gi, g := range p.GPUs {
		if !reflect.DeepEqual(g.Entries, raw.GPUs[gi].Entries) {
			t.Errorf("%s: the evaluation entries changed", g.Device)
		}
		for i, e := range g.Newton {
			want := raw.GPUs[gi].Newton[i]
			want.Shape.QR, want.Model.QR = 0, 0
			if e != want {
				t.Errorf("%s: Newton entry %d: %+v, want %+v", g.Device, i, e, want)
			}
		}
	}
	old := strings.Replace(string(text), `"kernels": 2`, `"kernels": 1`, 1)
	if _, err := Parse([]byte(old)); !errors.Is(err, ErrVersion) {
		t.Fatalf("kernels of version 1: %v", err)
	}
}
