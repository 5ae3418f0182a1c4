package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mdgen/mdgen/runtime/gpu"
)

func TestParseNewtonCases(t *testing.T) {
	cs, err := parseNewtonCases("2r256, 8c64,8r1024,2r256")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cs {
		got = append(got, c.name())
	}
	if want := "Newton 2d real n=256|Newton 8d complex n=64|Newton 8d real n=1024"; strings.Join(got, "|") != want {
		t.Fatalf("cases %q, want %q", got, want)
	}
	for _, bad := range []string{"", "r256", "8x256", "8r", "8r0", "7r256", "8rc256"} {
		if _, err := parseNewtonCases(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestTuneNewtonFlags: mdgen tune -newton's bad flags are usage errors;
// without a GPU it says so and exits 1.
func TestTuneNewtonFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		say  string
	}{
		{[]string{"tune", "-newton", "-newton-cases", "8q256"}, "-newton-cases"},
		{[]string{"tune", "-newton", "-newton-cases", "7r256"}, "-newton-cases"},
		{[]string{"tune", "-newton", "-newton-degree", "0"}, "-newton-degree"},
		{[]string{"tune", "-newton", "-newton-check-n", "0"}, "-newton-check-n"},
		{[]string{"tune", "-newton", "-newton-steps", "-1"}, "-newton-steps"},
	} {
		code, _, stderr := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.say) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.say)
		}
	}
	if gpu.Enabled {
		t.Skip("this build has the GPU")
	}
	code, _, stderr := runCLI(t, "tune", "-newton", "-profile", filepath.Join(t.TempDir(), "p.json"))
	if code != 1 || !strings.Contains(stderr, "no GPU") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}
