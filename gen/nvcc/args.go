package nvcc

import (
	"fmt"
	"strconv"
	"strings"
)

// Flags are the code generation flags of every mdgen kernel: no FMA
// contraction (the generated headers already call __dadd_rn, __dmul_rn and
// __fma_rn; this is the second guard that keeps the bits the CPU's), -O3,
// C++17.
var Flags = []string{"-fmad=false", "-O3", "-std=c++17"}

// ReportFlags ask ptxas for its resource report (registers, spills, shared
// memory); they do not change the code.
var ReportFlags = []string{"-Xptxas", "-v"}

// DefaultArchs are the SASS targets of a fatbin when none are given:
// Hopper and Ampere (sm_70 and older are gone from CUDA 13), plus PTX of
// the newest for later GPUs.
var DefaultArchs = []string{"90", "80"}

// Arch returns an SM version in the form Args takes: "sm_90" and "90"
// give "90", "sm_90a" gives "90a".
func Arch(s string) string { return strings.TrimPrefix(strings.TrimSpace(s), "sm_") }

// archNumber returns the numeric part of an SM version ("90a": 90).
func archNumber(a string) (int, error) {
	return strconv.Atoi(strings.TrimRight(Arch(a), "abcdefghijklmnopqrstuvwxyz"))
}

// ParseArchs reads a comma-separated list of SM versions (80, sm_90,
// 90a), dropping repeats.
func ParseArchs(s string) ([]string, error) {
	var archs []string
	for _, f := range strings.Split(s, ",") {
		a := Arch(f)
		if v, err := archNumber(a); err != nil || v < 50 || v > 200 {
			return nil, fmt.Errorf("%q is not an SM version such as 80, 90 or sm_90a", strings.TrimSpace(f))
		}
		if !contains(archs, a) {
			archs = append(archs, a)
		}
	}
	return archs, nil
}

func contains(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// Gencode returns the -gencode arguments of a fatbin with machine code for
// every arch and PTX of the highest (by number; the first of equals), for
// GPUs newer than all of them. No archs means DefaultArchs.
func Gencode(archs []string) []string {
	if len(archs) == 0 {
		archs = DefaultArchs
	}
	var args []string
	hi, hiArch := -1, ""
	for _, a := range archs {
		a = Arch(a)
		args = append(args, "-gencode", fmt.Sprintf("arch=compute_%s,code=sm_%s", a, a))
		if v, err := archNumber(a); err == nil && v > hi {
			hi, hiArch = v, a
		}
	}
	if hiArch != "" {
		args = append(args, "-gencode", fmt.Sprintf("arch=compute_%s,code=compute_%s", hiArch, hiArch))
	}
	return args
}

// Args returns nvcc's arguments for a fatbin of mdgen kernels: -fatbin,
// Gencode(archs), Flags, then extra (include folders, ReportFlags, tuning
// macros), without the output and the input.
func Args(archs []string, extra ...string) []string {
	args := append([]string{"-fatbin"}, Gencode(archs)...)
	args = append(args, Flags...)
	return append(args, extra...)
}

// FatbinArgs is Args followed by "-o", out, in: the whole command line
// after nvcc that compiles in into the fatbin out.
func FatbinArgs(archs []string, out, in string, extra ...string) []string {
	return append(Args(archs, extra...), "-o", out, in)
}

// Quote joins a command line for display, quoting what a shell would split.
func Quote(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n\"'\\$`;&|<>()*?[]#~") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		q[i] = a
	}
	return strings.Join(q, " ")
}
