package main

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/mdgen/mdgen/stager"
	"github.com/mdgen/mdgen/stager/poly"
)

func TestPlanCommandBenchmarkCounts(t *testing.T) {
	for _, c := range []struct {
		name                             string
		conv, add, convLayers, addLayers int
	}{
		{"p1", 16380, 9084, 4, 11},
		{"p2", 24192, 8192, 64, 8},
		{"p3", 24384, 24256, 2, 13},
	} {
		var out bytes.Buffer
		if err := runPlan([]string{c.name, "-degree", "8", "-prec", "4", "-complex", "-json"}, &out, io.Discard); err != nil {
			t.Fatal(err)
		}
		var rep map[string]any
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			t.Fatal(err)
		}
		for key, want := range map[string]int{"convolution_jobs": c.conv, "addition_jobs": c.add,
			"convolution_layers": c.convLayers, "addition_layers": c.addLayers} {
			if got, ok := rep[key].(float64); !ok || int(got) != want {
				t.Errorf("%s: %s = %v, want %d", c.name, key, rep[key], want)
			}
		}
		slots := int64(rep["slots"].(float64))
		if got := int64(rep["bytes"].(float64)); got != 9*slots*8*4*2 {
			t.Errorf("%s: bytes = %d, want %d", c.name, got, 9*slots*8*4*2)
		}
		out.Reset()
		if err := runPlan([]string{c.name, "-degree", "3"}, &out, io.Discard); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "convolution jobs") {
			t.Errorf("%s: text output:\n%s", c.name, out.String())
		}
	}
}

func TestPlanCommandErrors(t *testing.T) {
	for _, args := range [][]string{
		{"p1"},                               // no degree
		{"p1", "-degree", "2", "-prec", "0"}, // bad precision
		{"p1", "-degree", "1000000000000", "-prec", "16"}, // too big
		{"p1", "p2", "-degree", "2"},
		{"/nonexistent/system.txt", "-degree", "2"},
	} {
		var out bytes.Buffer
		if err := runPlan(args, &out, io.Discard); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}

func TestSystemCommand(t *testing.T) {
	var a, b bytes.Buffer
	if err := runSystem([]string{"p1", "-seed", "5"}, &a); err != nil {
		t.Fatal(err)
	}
	if err := runSystem([]string{"-seed", "5", "p1"}, &b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) || !strings.HasPrefix(a.String(), "1 17\n") {
		t.Errorf("system p1: %.100q", a.String())
	}
	sys, err := poly.Parse("p1", a.Bytes(), poly.ParseOptions{Param: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if p, err := stager.Stage(sys, 2); err != nil || p.ConvJobs() != 16380 || p.AddJobs() != 9084 {
		t.Errorf("system p1 read back: %v", err)
	}
	b.Reset()
	if err := runSystem([]string{"p3", "-complex"}, &b); err != nil || !strings.Contains(b.String(), "*i)") {
		t.Errorf("system p3 -complex: %v", err)
	}
	if err := runSystem([]string{"p4"}, &b); err == nil {
		t.Error("system p4: no error")
	}
}
