package xcheck

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// testNs are the precisions the generator is used with.
var testNs = []int{1, 2, 3, 4, 5, 8, 10, 16}

// testCount returns how many indices the property tests walk per precision.
func testCount() int {
	if testing.Short() {
		return 5000
	}
	return 50000
}

// TestPairNormalized checks that every generated value is normalized,
// fl(v[k]+v[k+1]) == v[k], and that the structural rules the generator
// promises hold: a zero limb is followed only by zero limbs, and a
// non-finite leading limb has a zero tail.
func TestPairNormalized(t *testing.T) {
	for _, n := range testNs {
		bad := 0
		for i := 0; i < testCount(); i++ {
			x, y := Pair(n, 1, i)
			for side, v := range [][]float64{x, y} {
				if err := checkNormalized(v); err != nil {
					bad++
					if bad <= 10 {
						t.Errorf("n=%d i=%d %s (%v): %v: %s", n, i, "xy"[side:side+1], CategoryOf(n, 1, i), err, hexLimbs(v))
					}
				}
			}
		}
		if bad > 10 {
			t.Errorf("n=%d: %d values not normalized in total", n, bad)
		}
	}
}

// checkNormalized returns an error describing the first violation of the
// normalization rules in v. The test uses one rounded add per limb pair,
// which is the definition being checked.
func checkNormalized(v []float64) error {
	if math.IsNaN(v[0]) || math.IsInf(v[0], 0) {
		for k := 1; k < len(v); k++ {
			if v[k] != 0 {
				return fmt.Errorf("non-finite leading limb with nonzero limb %d", k)
			}
		}
		return nil
	}
	for k := 0; k+1 < len(v); k++ {
		if math.IsNaN(v[k+1]) || math.IsInf(v[k+1], 0) {
			return fmt.Errorf("non-finite lower limb %d", k+1)
		}
		if s := v[k] + v[k+1]; s != v[k] {
			return fmt.Errorf("fl(v[%d]+v[%d]) = %x != v[%d]", k, k+1, math.Float64bits(s), k)
		}
		if v[k] == 0 && v[k+1] != 0 {
			return fmt.Errorf("nonzero limb %d below zero limb %d", k+1, k)
		}
	}
	return nil
}

// hexLimbs formats limbs as their bits in hex.
func hexLimbs(v []float64) string {
	s := ""
	for k, f := range v {
		if k > 0 {
			s += " "
		}
		s += fmt.Sprintf("%016x", math.Float64bits(f))
	}
	return s
}

// TestPairDeterministic checks that Pair is a pure function of (n, seed, i),
// independent of call order, that PairInto agrees with it, and that the seed
// and n actually change the values.
func TestPairDeterministic(t *testing.T) {
	for _, n := range testNs {
		const count = 2000
		first := make([]uint64, count)
		for i := 0; i < count; i++ {
			x, y := Pair(n, 7, i)
			first[i] = Hash(Hash(HashInit, x...), y...)
		}
		xb := make([]float64, n)
		yb := make([]float64, n)
		for i := count - 1; i >= 0; i-- { // reverse order: no hidden state
			PairInto(n, 7, i, xb, yb)
			if h := Hash(Hash(HashInit, xb...), yb...); h != first[i] {
				t.Fatalf("n=%d i=%d: PairInto (reverse order) hash %x, Pair hash %x", n, i, h, first[i])
			}
		}
		same := 0
		for i := 0; i < count; i++ {
			x, y := Pair(n, 8, i)
			if Hash(Hash(HashInit, x...), y...) == first[i] {
				same++
			}
		}
		// Equal pairs across seeds are only plausible for ±0/Inf/NaN pairs.
		if same > count/50 {
			t.Errorf("n=%d: %d of %d pairs identical for seeds 7 and 8", n, same, count)
		}
	}
	// Adjacent indices must not share random streams (seed 0 is the
	// dangerous one for a splitmix64 seeded by seed ^ i*golden).
	r0 := newRNG(4, 0, 0)
	r1 := newRNG(4, 0, 1)
	r0.next()
	if a, b := r0.next(), r1.next(); a == b {
		t.Errorf("index 0's second draw equals index 1's first draw: %x", a)
	}
}

// TestPairGolden pins a few hashes of the generator's output. If the
// generator changes on purpose, update these AND driver.cu; the cross-check's
// "N inputs" lines then tell whether both sides still agree.
func TestPairGolden(t *testing.T) {
	got := make(map[int]string)
	for _, n := range testNs {
		h := HashInit
		for i := 0; i < 1000; i++ {
			x, y := Pair(n, 1, i)
			h = Hash(h, x...)
			h = Hash(h, y...)
		}
		got[n] = fmt.Sprintf("%016x", h)
	}
	for n, want := range goldenInputHashes {
		if got[n] != want {
			t.Errorf("n=%d: inputs hash of 1000 pairs, seed 1 = %s, want %s", n, got[n], want)
		}
	}
	if t.Failed() || len(goldenInputHashes) == 0 {
		t.Logf("current hashes: %v", got)
	}
}

// goldenInputHashes are the "N inputs HASH" values `xcheck 1000 1` prints.
var goldenInputHashes = map[int]string{
	1: "7a17dfb8acce252c", 2: "8b9a5e25cafad27e", 3: "f8e351299083ce9b", 4: "134c156c18b66813",
	5: "cd2c3dfb1fce5326", 8: "8a0f3ba2623867ba", 10: "28fc9a7a6000629d", 16: "5daaffd1594cbd3d",
}

// TestPairCoverage checks that every category occurs in roughly its share
// and that the features the cross-check is meant to exercise actually show
// up in the values, for every precision.
func TestPairCoverage(t *testing.T) {
	for _, n := range testNs {
		count := testCount()
		var cats [NumCategories]int
		features := map[string]int{}
		for i := 0; i < count; i++ {
			x := make([]float64, n)
			y := make([]float64, n)
			c := generate(n, 1, i, x, y)
			cats[c]++
			for _, v := range [][]float64{x, y} {
				switch {
				case math.IsNaN(v[0]):
					features["NaN leading"]++
				case math.IsInf(v[0], 0):
					features["Inf leading"]++
				case v[0] == 0 && math.Signbit(v[0]):
					features["-0 leading"]++
				case v[0] == 0:
					features["+0 leading"]++
				}
				if e := math.Abs(v[0]); e >= 0x1p1020 && !math.IsInf(e, 0) {
					features["near overflow"]++
				}
				if v[0] == math.MaxFloat64 || v[0] == -math.MaxFloat64 {
					features["±MaxFloat64"]++
				}
				if isFiniteNonzero(v[0]) {
					if frac, _ := math.Frexp(v[0]); math.Abs(frac) == 0.5 {
						features["power of two leading"]++
					}
					if v[0] > 0 {
						features["positive"]++
					} else {
						features["negative"]++
					}
					if math.Abs(v[0]) < 0x1p-1022 {
						features["subnormal leading"]++
					}
				}
				for k := 1; k < n; k++ {
					a := math.Abs(v[k])
					if a != 0 && a < 0x1p-1022 {
						features["subnormal lower limb"]++
					}
					if v[k] == 0 && isFiniteNonzero(v[0]) {
						features["zero lower limb below nonzero"]++
					}
					if isFiniteNonzero(v[k]) && isFiniteNonzero(v[k-1]) {
						_, e0 := math.Frexp(v[k-1])
						_, e1 := math.Frexp(v[k])
						if e0-e1 > 100 {
							features["gap over 100 bits"]++
						}
						if (v[k] > 0) != (v[k-1] > 0) {
							features["sign change between limbs"]++
						}
						if ulp := math.Abs(v[k-1]) - math.Nextafter(math.Abs(v[k-1]), 0); a == ulp/2 || a == ulp {
							// a == ulp covers the tie below a power of two: there the
							// spacing below halves, so ulp(v[k-1])/2 is the distance
							// to the next float up, twice the one measured here.
							features["tie limb (ulp/2)"]++
						}
					}
				}
			}
			if isFiniteNonzero(x[0]) && n > 0 {
				exact := true
				for k := range x {
					if y[k] != -x[k] {
						exact = false
					}
				}
				if exact {
					features["y == -x exactly"]++
				}
				if y[0] == -x[0] && !exact {
					features["y[0] == -x[0], tails differ"]++
				}
				if y[0] != -x[0] && y[0] != x[0] && math.Abs(y[0]) != 0 {
					if _, ex := math.Frexp(x[0]); true {
						if _, ey := math.Frexp(y[0]); ex == ey {
							features["same leading exponent"]++
						}
					}
				}
			}
		}
		for c := Category(0); c < NumCategories; c++ {
			if cats[c] == 0 {
				t.Errorf("n=%d: category %v never drawn in %d pairs", n, c, count)
			}
		}
		if share := float64(cats[CatSpecial]) / float64(count); share < 0.005 || share > 0.02 {
			t.Errorf("n=%d: special share %.4f, want about 0.01", n, share)
		}
		want := []string{"NaN leading", "Inf leading", "-0 leading", "+0 leading",
			"near overflow", "±MaxFloat64", "power of two leading", "positive", "negative",
			"subnormal leading", "y == -x exactly", "same leading exponent"}
		if n > 1 {
			want = append(want, "subnormal lower limb", "zero lower limb below nonzero",
				"gap over 100 bits", "sign change between limbs", "tie limb (ulp/2)",
				"y[0] == -x[0], tails differ")
		}
		for _, f := range want {
			if features[f] == 0 {
				t.Errorf("n=%d: feature %q never seen in %d pairs", n, f, count)
			}
		}
		if testing.Verbose() {
			t.Logf("n=%d categories %v features %v", n, cats, features)
		}
	}
}

// TestHash checks Hash against a hand-computed FNV-1a, its streaming
// property, and that every NaN hashes like 0x7ff8000000000000.
func TestHash(t *testing.T) {
	// FNV-1a of the 8 little-endian bytes of 1.0 (0x3ff0000000000000).
	h := HashInit
	for _, b := range []byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f} {
		h ^= uint64(b)
		h *= 1099511628211
	}
	if got := Hash(HashInit, 1.0); got != h {
		t.Errorf("Hash(1.0) = %x, want %x", got, h)
	}
	if Hash(HashInit) != HashInit {
		t.Errorf("Hash of no limbs changed the hash")
	}
	if a, b := Hash(Hash(HashInit, 1, 2), 3), Hash(HashInit, 1, 2, 3); a != b {
		t.Errorf("Hash is not streaming: %x != %x", a, b)
	}
	if Hash(HashInit, 1, 2) == Hash(HashInit, 2, 1) {
		t.Errorf("Hash ignores order")
	}
	if Hash(HashInit, 0) == Hash(HashInit, math.Copysign(0, -1)) {
		t.Errorf("Hash does not distinguish +0 and -0")
	}
	canon := Hash(HashInit, math.Float64frombits(0x7ff8000000000000))
	for _, bits := range []uint64{
		0x7ff8000000000001, // Go's math.NaN()
		0xfff8000000000000, // x86 default NaN (sign set)
		0x7fffffffffffffff, // CUDA's canonical NaN
		0x7ff0000000000001, // signalling NaN
		0xffffffffffffffff,
	} {
		if got := Hash(HashInit, math.Float64frombits(bits)); got != canon {
			t.Errorf("Hash(NaN %016x) = %x, want %x (canonical NaN)", bits, got, canon)
		}
	}
	if got := Hash(HashInit, math.NaN()); got != canon {
		t.Errorf("Hash(math.NaN()) not canonical")
	}
	if Hash(HashInit, math.Inf(1)) == canon {
		t.Errorf("Hash(+Inf) equals Hash(NaN)")
	}
}

// TestScaledExact checks scaled against Ldexp on exact cases, including the
// subnormal truncation that keeps Ldexp from ever rounding.
func TestScaledExact(t *testing.T) {
	cases := []struct {
		m    int64
		e    int
		neg  bool
		want float64
	}{
		{1 << 52, 0, false, 1},
		{1 << 52, 0, true, -1},
		{1<<53 - 1, 1023, false, math.MaxFloat64},
		{1 << 52, -1074, false, 0x1p-1074},
		{1<<52 | 1, -1073, false, 0x1p-1073}, // low bit dropped, not rounded
		{1<<53 - 1, -1074, false, 0x1p-1074}, // truncation, where rounding would give 2^-1073
		{1 << 52, -1075, false, 0},
		{1 << 52, -1075, true, math.Copysign(0, -1)},
		{1 << 52, -1022, false, 0x1p-1022},
		{3 << 51, -1023, false, 0x1.8p-1023},
	}
	for _, c := range cases {
		got := scaled(c.m, c.e, c.neg)
		if math.Float64bits(got) != math.Float64bits(c.want) {
			t.Errorf("scaled(%x, %d, %v) = %x, want %x", c.m, c.e, c.neg, math.Float64bits(got), math.Float64bits(c.want))
		}
	}
}

// TestDriverMirrorsPair builds driver.cu with -DXCHECK_INPUTS_ONLY (which
// needs none of the generated headers) and checks that its C++ generator
// produces exactly Pair's values, so that a drift between the two mirrors is
// caught here rather than as a wall of hash mismatches in mdops. Skipped
// without g++ unless MDGEN_REQUIRE_CXX=1.
func TestDriverMirrorsPair(t *testing.T) {
	cxx, err := exec.LookPath("g++")
	if err != nil {
		if os.Getenv("MDGEN_REQUIRE_CXX") == "1" {
			t.Fatalf("g++ not found (%v) and MDGEN_REQUIRE_CXX=1", err)
		}
		t.Skipf("g++ not found (%v): skipping the check of driver.cu's input generator", err)
	}
	bin := filepath.Join(t.TempDir(), "xcheck_inputs")
	cmd := exec.Command(cxx, "-std=c++17", "-O2", "-ffp-contract=off", "-DXCHECK_INPUTS_ONLY",
		"-x", "c++", "driver.cu", "-o", bin)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, out)
	}
	count := testCount()
	for _, seed := range []uint64{0, 1, 0xdeadbeefcafef00d} {
		out, err := exec.Command(bin, strconv.Itoa(count), strconv.FormatUint(seed, 10)).Output()
		if err != nil {
			t.Fatalf("running %s: %v", bin, err)
		}
		var want bytes.Buffer
		for _, n := range testNs {
			h := HashInit
			for i := 0; i < count; i++ {
				x, y := Pair(n, seed, i)
				h = Hash(h, x...)
				h = Hash(h, y...)
			}
			fmt.Fprintf(&want, "%d inputs %016x\n", n, h)
		}
		if string(out) == want.String() {
			continue
		}
		t.Errorf("seed %d: driver printed\n%swant\n%s", seed, out, want.String())
		for _, n := range testNs {
			if i, got, ok := firstDriverDiff(t, bin, count, seed, n); ok {
				x, y := Pair(n, seed, i)
				t.Errorf("seed %d n=%d: first differing pair %d (%v):\n  Go  = %s %s\n  C++ = %s",
					seed, n, i, CategoryOf(n, seed, i), hexLimbs(x), hexLimbs(y), got)
			}
		}
		return
	}
}

// firstDriverDiff dumps the driver's inputs for n and returns the first pair
// that differs from Pair, with the driver's limbs.
func firstDriverDiff(t *testing.T, bin string, count int, seed uint64, n int) (int, string, bool) {
	out, err := exec.Command(bin, strconv.Itoa(count), strconv.FormatUint(seed, 10),
		"dump", strconv.Itoa(n), "inputs", strconv.Itoa(count)).Output()
	if err != nil {
		t.Fatalf("dump: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for i := 0; sc.Scan(); i++ {
		x, y := Pair(n, seed, i)
		want := fmt.Sprintf("%d %s %s", i, hexLimbs(x), hexLimbs(y))
		if got := sc.Text(); got != want {
			return i, strings.TrimPrefix(got, strconv.Itoa(i)+" "), true
		}
	}
	return 0, "", false
}
