package stager

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"github.com/mdgen/mdgen/internal/phcdemo"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mdgen/mdgen/stager/poly"
)

// planDigest hashes every field of a Plan that existed before Partials
// (System aside): the golden values below were computed with the stager of
// commit 153ed34, before the sparse staging, so that the Plans of existing
// systems stay bit-for-bit the same.
func planDigest(p *Plan) string {
	h := sha256.New()
	put := func(v int64) {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], uint64(v))
		h.Write(b[:])
	}
	put(int64(p.Degree))
	put(int64(p.NumVars))
	put(int64(p.NumPolys))
	put(int64(len(p.Kinds)))
	for _, k := range p.Kinds {
		put(int64(k))
	}
	var ss []Slot
	for s := range p.Values {
		ss = append(ss, s)
	}
	slices.Sort(ss)
	for _, s := range ss {
		put(int64(s))
		for _, c := range p.Values[s] {
			h.Write([]byte(c.Re.RatString() + "," + c.Im.RatString() + ";"))
		}
	}
	for _, s := range p.Inputs {
		put(int64(s))
	}
	put(int64(len(p.ConvLayers)))
	for _, l := range p.ConvLayers {
		put(int64(len(l)))
		for _, j := range l {
			put(int64(j.Out))
			put(int64(j.A))
			put(int64(j.B))
		}
	}
	put(int64(len(p.AddLayers)))
	for _, l := range p.AddLayers {
		put(int64(len(l)))
		for _, j := range l {
			put(int64(j.Dst))
			put(int64(j.Src))
		}
	}
	for _, s := range p.Value {
		put(int64(s))
	}
	for _, r := range p.Deriv {
		put(int64(len(r)))
		for _, s := range r {
			put(int64(s))
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil)[:8])
}

// systemDigest hashes a System (Source and Warnings aside).
func systemDigest(s *poly.System) string {
	h := sha256.New()
	fmt.Fprint(h, systemKey(s))
	return fmt.Sprintf("%x", h.Sum(nil)[:8])
}

var goldenBenchPlans = []struct {
	name    string
	complex bool
	degree  int
	digest  string
}{
	{"p1", false, 0, "70af7e3ba27f6fab"},
	{"p1", false, 2, "c22097d5119bbf47"},
	{"p1", true, 0, "83b34b1bec8f6a77"},
	{"p1", true, 2, "e91c7fa9ed3d196f"},
	{"p2", false, 0, "46b32d284f299fd9"},
	{"p2", false, 2, "7fda943f0f126b69"},
	{"p2", true, 0, "45c6a6aeadaf27da"},
	{"p2", true, 2, "cb5adc0152ce3ff0"},
	{"p3", false, 0, "1f5bebd84036c1d8"},
	{"p3", false, 2, "2b19d12068c08a8a"},
	{"p3", true, 0, "89ef93ce4ab37ba4"},
	{"p3", true, 2, "546838dccd24311e"},
}

// The demo files and the files of poly/testdata/parse, read with PHCpack's
// convention and staged at degree 3: the System and the Plan.
var goldenFiles = []struct{ name, system, plan string }{
	{"chandra4", "3256be20886253fd", "99780c888c5580bc"},
	{"chandra6", "ce224f7ac6dbd333", "6b4e952aebe8f00d"},
	{"cyclic5", "c1dc9a6714aa6cca", "8315801ccbec4cda"},
	{"cyclic7", "40cabb8df768be1a", "cc5baca101fad2f2"},
	{"d1", "4f71753fad11ea13", "c7d0596f6262d0b6"},
	{"eco6", "8d07a2f082f90d0b", "3073708a0a78d571"},
	{"fourbar", "7e16c3dc3c1332fb", "15288ac65b301540"},
	{"game4two", "f2937ea54e287206", "a6cb9853008ac738"},
	{"ipp2", "e6113102fb3a4d7d", "b2912a9c7f874308"},
	{"katsura5", "ff0b3aa85a5d47d3", "8f4b257f57518a08"},
	{"noon3", "892ad107859aaff4", "2a7e607a8b3d41d8"},
	{"virasoro", "d48e17b60c85996f", "b3fb015405bcf09a"},
	{"chandra_t.txt", "336dc76db338d5ac", "8c5111619d228d4d"},
	{"homotopy.txt", "5b80c35e74a7d665", "47799c78085a7552"},
}

// Hand systems with powers, products of sums and parameters, staged at
// degree 4.
var goldenHand = []struct{ src, system, plan string }{
	{"3\n x^5*y^3 + 2*x^3*z^7 - y^4 + (x+y)^3*z;\n x^9*y + t*z^3 - t^2*x*y*z;\n z^2*x - 1 + (1-t)*y^6;\n",
		"bcdbc788bdafa43d", "fa04a026d3a90604"},
	{"2\n (x+1)*y*z*(y-2)*x^2*(1/3) + a*b*c*d*e1;\n x*y*z*a*b*c*d*e1*(x - 2*i*y)^2 - 3.5E-2;\n",
		"b2d2bf9a9d186f6b", "f6e27779938cb8ee"},
	{"1\n x1*x2*x3*x4*x5*x6*x7*x8*x9 + x1^2*x3^4*x5^6*x7^8*x9^10 + 2*x2*x4 - x9 + 7;\n",
		"8142a5886508d0f3", "fad1e02696684a5c"},
	{"4\n x*y - 1; y*z - 1; z*w - 1; (w*x)^3 - x^3*w^3 + 2*x^5*w^5 - 1;\n",
		"a5b5e60a2ceb903a", "6ffedc12fccfc075"},
}

// TestScaleGoldenPlans: the sparse staging and the linear-time reader give
// the same Systems and Plans, bit for bit, as before.
func TestScaleGoldenPlans(t *testing.T) {
	for _, g := range goldenBenchPlans {
		s, err := benchmarkSystem(g.name, 7, g.complex)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Stage(s, g.degree)
		if err != nil {
			t.Fatal(err)
		}
		if d := planDigest(p); d != g.digest {
			t.Errorf("%s complex %v degree %d: plan digest %s, want %s", g.name, g.complex, g.degree, d, g.digest)
		}
	}
	for _, g := range goldenFiles {
		path := filepath.Join(phcdemo.Dir(demoDir), g.name)
		if filepath.Ext(g.name) == ".txt" {
			path = filepath.Join("poly", "testdata", "parse", g.name)
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Logf("%s: %v", g.name, err)
			continue
		}
		s, err := poly.Parse(g.name, src, poly.ParseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := Stage(s, 3)
		if err != nil {
			t.Fatal(err)
		}
		if d := systemDigest(s); d != g.system {
			t.Errorf("%s: system digest %s, want %s", g.name, d, g.system)
		}
		if d := planDigest(p); d != g.plan {
			t.Errorf("%s: plan digest %s, want %s", g.name, d, g.plan)
		}
	}
	for i, g := range goldenHand {
		s, err := poly.Parse("hand", []byte(g.src), poly.ParseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := Stage(s, 4)
		if err != nil {
			t.Fatal(err)
		}
		if err := Check(p); err != nil {
			t.Errorf("hand %d: %v", i, err)
		}
		if d := systemDigest(s); d != g.system {
			t.Errorf("hand %d: system digest %s, want %s", i, d, g.system)
		}
		if d := planDigest(p); d != g.plan {
			t.Errorf("hand %d: plan digest %s, want %s", i, d, g.plan)
		}
	}
}
