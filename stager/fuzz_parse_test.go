package stager

import (
	"errors"
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
}

func addParseSeeds(f *testing.F) {
	for _, s := range parseSeeds {
		f.Add([]byte(s.src), s.param)
	}
	files, _ := filepath.Glob(filepath.Join(demoDir, "*"))
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
