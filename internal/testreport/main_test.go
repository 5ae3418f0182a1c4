package main

import (
	"strings"
	"testing"
)

func TestReport(t *testing.T) {
	in := `{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"output","Package":"p","Test":"TestA","Output":"    a_test.go:3: SKIPPED: no demo files\n"}
{"Action":"output","Package":"p","Test":"TestA","Output":"--- SKIP: TestA (0.00s)\n"}
{"Action":"skip","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestB","Output":"    b_test.go:9: got 1, want 2\n"}
{"Action":"fail","Package":"p","Test":"TestB"}
{"Action":"fail","Package":"p","Elapsed":0.5}
{"Action":"pass","Package":"q","Elapsed":1.25}
`
	var out strings.Builder
	if code := report(strings.NewReader(in), &out); code != 1 {
		t.Errorf("exit %d with a failed test, want 1", code)
	}
	for _, want := range []string{"--- FAIL p TestB", "got 1, want 2", "FAIL\tp\t0.5s", "ok\tq\t1.2s",
		"1 tests SKIPPED", "SKIP p TestA: a_test.go:3: SKIPPED: no demo files", "1 tests FAILED"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if code := report(strings.NewReader(`{"Action":"pass","Package":"q"}`+"\n"), &out); code != 0 {
		t.Errorf("exit %d when everything passed", code)
	}
}
