package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mdgen/mdgen/stager/poly"
	"github.com/mdgen/mdgen/stager/solutions"
)

// TestSystemFamilies: mdgen system writes every family; the file reads back
// (system and start solutions) and is the system loadSystem builds from the
// same name.
func TestSystemFamilies(t *testing.T) {
	for _, c := range []struct {
		args []string
		spec string // what loadSystem gets for the same system
		sols int
	}{
		{[]string{"cyclic", "-n", "5"}, "cyclic5", 0},
		{[]string{"cyclic7:newton", "-seed", "3"}, "cyclic7:newton,seed=3", 1},
		{[]string{"katsura", "-n", "4", "-newton", "-complex"}, "katsura4:newton,complex", 1},
		{[]string{"chandra", "-n", "6", "-c", "t"}, "chandra6:c=t", 1},
		{[]string{"chandra6", "-c", "0.51234"}, "chandra6:c=0.51234", 0},
		{[]string{"noon", "-n", "4"}, "noon4", 0},
		{[]string{"eco", "-n", "7", "-newton"}, "eco7:newton", 1},
		{[]string{"monomial", "-n", "6", "-degree", "5", "-columns", "2", "-series"}, "monomial6:degree=5,columns=2", 1},
		{[]string{"monomial9", "-complex"}, "monomial9:complex", 1},
		{[]string{"p1", "-seed", "4"}, "p1:seed=4", 0},
	} {
		var out bytes.Buffer
		if err := runSystem(c.args, &out); err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		sys, sols, err := solutions.ParseWithSystem("out", out.Bytes(), poly.ParseOptions{})
		if err != nil {
			t.Fatalf("%v: %v\n%s", c.args, err, out.String())
		}
		if len(sols) != c.sols {
			t.Errorf("%v: %d start solutions, want %d", c.args, len(sols), c.sols)
		}
		if !strings.Contains(out.String(), "\nTITLE : ") || !strings.Contains(out.String(), "NOTE : written by mdgen system ") {
			t.Errorf("%v: no TITLE or NOTE:\n%s", c.args, out.String())
		}
		want, err := loadSystem(c.spec, "", 1, false)
		if err != nil {
			t.Fatalf("loadSystem(%s): %v", c.spec, err)
		}
		if got, w := string(poly.Format(sys)), string(poly.Format(want)); got != w {
			t.Errorf("%v and loadSystem(%s) differ:\n%s\n---\n%s", c.args, c.spec, got, w)
		}
		for _, sol := range sols {
			for i, v := range sys.EvalAt(sol.Values, &sol.T) {
				if !v.IsZero() {
					t.Errorf("%v: start solution: f_%d = %s", c.args, i+1, v.Re.RatString())
				}
			}
		}
		if c.args[0] == "monomial" && (len(sols) != 1 || sols[0].Series == nil || len(sols[0].Series[0]) != 6) {
			t.Errorf("-series: no exact series of degree 5")
		}
	}
}

func TestSystemFlags(t *testing.T) {
	var out bytes.Buffer
	if err := runSystem([]string{"-list"}, &out); err != nil || !strings.Contains(out.String(), "chandra") || !strings.Contains(out.String(), "monomial") {
		t.Errorf("-list: %v\n%s", err, out.String())
	}
	// -sols=false drops the list.
	out.Reset()
	if err := runSystem([]string{"chandra3:c=t", "-sols=false"}, &out); err != nil || strings.Contains(out.String(), "THE SOLUTIONS") {
		t.Errorf("-sols=false: %v\n%s", err, out.String())
	}
	for _, bad := range [][]string{
		{"cyclic", "-c", "t"},              // cyclic takes no c
		{"cyclic", "-degree", "4"},         // nor a degree
		{"monomial", "-newton"},            // no Newton homotopy
		{"cyclic7", "-n", "6"},             // disagreement
		{"cyclic:newton", "-newton=false"}, // disagreement
		{"cyclic", "-n", "1"},              // too small
		{"chandra", "-c", "t", "-newton"},  // a homotopy already
		{"cyclic", "-series"},              // no exact series
		{"p4"},                             // unknown
		{},                                 // no name
		{"cyclic5:bogus"},                  // unknown option
		{"monomial", "-degree", "0"},
	} {
		out.Reset()
		if err := runSystem(bad, &out); err == nil {
			t.Errorf("mdgen system %v: no error", bad)
		}
	}
	// Flags and spec that agree are fine.
	out.Reset()
	if err := runSystem([]string{"cyclic7:newton", "-newton", "-n", "7"}, &out); err != nil {
		t.Error(err)
	}
}

// TestLoadSystemFamilies: commands take family names; a file of another
// name is still a file.
func TestLoadSystemFamilies(t *testing.T) {
	s, err := loadSystem("chandra8:c=t", "", 1, false)
	if err != nil || len(s.Polys) != 8 || s.Param != "t" {
		t.Fatalf("chandra8:c=t: %v", err)
	}
	if _, err := loadSystem("chandra8:c=t", "s", 1, false); err == nil {
		t.Error("-param s for a family with parameter t: no error")
	}
	a, _ := loadSystem("cyclic5:newton", "", 2, true)
	b, _ := loadSystem("cyclic5:newton,seed=2,complex", "", 1, false)
	if string(poly.Format(a)) != string(poly.Format(b)) {
		t.Error("seed and complex of the command do not reach the family")
	}
	if _, err := loadSystem("cyclic5:bogus", "", 1, false); err == nil || !strings.Contains(err.Error(), "bogus") {
		t.Errorf("bad option: %v", err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "cyclic5.txt")
	if err := os.WriteFile(path, []byte("1\n x - 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err := loadSystem(path, "", 1, false); err != nil || len(s.Polys) != 1 {
		t.Errorf("file: %v", err)
	}
}
