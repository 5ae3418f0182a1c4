package poly

import (
	"errors"
	"github.com/mdgen/mdgen/internal/phcdemo"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// parseSeeds cover the grammar, the series parameter and the error paths;
// FuzzParse adds every demo file and testdata/parse file to them.
var parseSeeds = []struct{ src, param string }{
	{"2\n x^2 + y^2 - 1;\n x - y;\n", ""},
	{"2 2\n x**2 + 0.1*y - 1/3;\n (x + y)^3 - 1.0e-2;\n", ""},
	{"2\n (1 - t)*(x^2 - 1) + t*(x^2 + y^2 - 4);\n (1 - t)*(y - 1) + t*(x*y - 1/3);\n", ""},
	{"2 3\n x**2 + s*y**2 - (1 + 2*i)*s**2;\n s*x - y + 0.25;\n", "s"},
	{"1\n (1.2 + 3*i)*x + 2*I*x^2 + i*x^3 - i + .5 + 3. + 1E+3;\n", ""},
	{"1\n ((x + 1)^2)**2 - x^(4) + x^0 - (2*x)/4;\n", ""},
	{"3\n x + y;\n x - y;\n\nTITLE : fewer polynomials\n", ""},
	{"1\n x + y;\n x - y;\n", ""},
	{"1\n x + $y;\n", ""},
	{"2\n x + y\n x - y;\n", ""},
	{"1\n 2.5D-3*x + 1.2.3 + 2x + e;\n", ""},
	{"1\n x^70000 + x^-1 + x^2.5 + x/0;\n", ""},
	{"1\n (x + y + z)^20;\n", ""},
	{"2 3\n x + y;\n x - y;\n", ""},
	{"0\n", ""},
	{"", ""},
	{"1\n x - 1;\nx : 1.0 0.0\n", ""},
	{"2\n x*t - 1;\n x + t;\n", "t"},
	{"1\n x^2 - t^3 + (1/7 - 2/9*i)*t^2*x;\n", "t"},
	// Byte order mark, CR LF and lone CR line ends.
	{"\xEF\xBB\xBF2\n x + y;\n x - y;\n", ""},
	{"2 2\r x + y;\r x - $;\r", ""},
	{"2\r\n x*y\r\n - 1;\r x - y;\n", ""},
	{"\xFF\xFE2\x00\n\x00", ""},
	// Coefficients outside the range of doubles.
	{"1\n 1e400*x + 1e-400*y + 1.7976931348623157e308*z;\n", ""},
	{"1\n 1e200*1e200*x + (1e-200*i)*1e-200*y + z;\n", ""},
	{"1\n x*1e308 + y + x*1e308 - 2.2250738585072014e-308*z;\n", ""},
	// Work limits: huge exponents, powers of sums, nesting, long literals.
	{"1\n x^1000000000 + (x + y)^65536 + ((((x+1)^9)^9)^9)^9;\n", ""},
	{"1\n ((((((((((((x + y)^2)^2)^2)^2)^2)^2)^2)^2)^2)^2)^2)^2;\n", ""},
	{"1\n x1*x2*x3*x4*x5*x6*x7*x8*x9*x10*x11*x12 - x1^2*x3^5*(x2 + x4)*x6/3;\n", ""},
	{"1\n (x - x)*(y + 1)*3 + (x + y)*(x - y)*2 + x*y + (x + y - y) + z + y;\n", ""},
	{"1\n 0.00000000000000000000000000000000000000001e-300*x + 1.000000000000000000000*y + z;\n", ""},
	// The series parameter named after the polynomials.
	{"1 3\n x*y - s;\n\nSERIES PARAMETER : s\n", ""},
	{"1 2\n x - t;\n\nNO SERIES PARAMETER\n", ""},
	{"1\n x - t;\nSERIES PARAMETER : t\nseries parameter : x\n", ""},
	{"1\n x*s + y*t;\n\nSERIES PARAMETER : s\n", "t"},
	{"1 129\n x*t + y*z;\n", ""},
}

func addParseSeeds(f *testing.F) {
	for _, s := range parseSeeds {
		f.Add([]byte(s.src), s.param)
	}
	files := phcdemo.Files(demoWorkspace)
	more, _ := filepath.Glob("testdata/parse/*")
	for _, path := range append(files, more...) {
		if filepath.Ext(path) == ".md" {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src, "")
		f.Add(src, "t")
	}
}

// FuzzParse checks that Parse never panics, that its errors are positioned
// ParseErrors, that what it returns satisfies the System invariants, and
// that Format prints it so that Parse reads the same System back. Plain
// go test runs the seeds; fuzz with
//
//	go test ./stager -run '^$' -fuzz FuzzParse
//
// and PARSE_FUZZ_SLOW=1 to also fail inputs that take over a second (the
// work limits in parse_expand.go should keep every input well under that).
func FuzzParse(f *testing.F) {
	addParseSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte, param string) {
		if os.Getenv("PARSE_FUZZ_SLOW") != "" {
			start := time.Now()
			defer func() {
				if d := time.Since(start); d > time.Second {
					t.Fatalf("slow: %v", d)
				}
			}()
		}
		s, err := Parse("fuzz", src, ParseOptions{Param: param})
		if err != nil {
			var list ErrorList
			if !errors.As(err, &list) || len(list) == 0 || len(list) > parseMaxErrors {
				t.Fatalf("error %v (%T) is not an ErrorList of 1..%d", err, err, parseMaxErrors)
			}
			for _, e := range list {
				if e.File != "fuzz" || e.Line < 1 || e.Col < 1 || e.Reason == "" {
					t.Fatalf("bad error %+v", e)
				}
			}
			if s != nil {
				t.Fatalf("error and a System")
			}
			return
		}
		if err := checkInvariants(s); err != nil {
			t.Fatal(err)
		}
		if err := roundTrip(s); err != nil {
			t.Fatal(err)
		}
	})
}
