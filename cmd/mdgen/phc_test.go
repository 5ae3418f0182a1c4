package main

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mdgen/mdgen/stager/families"
	"github.com/mdgen/mdgen/stager/poly"
	"github.com/mdgen/mdgen/stager/solutions"
)

// The round trip through PHCpack's phc (Debian's phcpack, 2.4.86): its
// output files read as start lists, the lists that solve -o writes read
// back by phc with every digit, and the systems that mdgen system -decimal
// writes read by phc as the same system. CI installs phcpack and sets
// MDGEN_REQUIRE_PHC=1, so that these tests cannot skip there.

// needPHC returns the path of phc, or skips (fails with MDGEN_REQUIRE_PHC=1).
func needPHC(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("phc")
	if err != nil {
		if os.Getenv("MDGEN_REQUIRE_PHC") == "1" {
			t.Fatalf("phc not found (%v) and MDGEN_REQUIRE_PHC=1 (apt-get install phcpack)", err)
		}
		t.Skipf("SKIPPED: phc not found (apt-get install phcpack): %v", err)
	}
	return path
}

// runPHC runs phc in dir with the answers to its menus on stdin.
func runPHC(t *testing.T, phc, dir, stdin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, phc, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("phc %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// systemText returns `mdgen system args -sols=false` up to the ';' that
// ends its last polynomial (phc reads no further, but the TITLE line is
// not for it).
func systemText(t *testing.T, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	if err := runSystem(append(args, "-sols=false"), &out); err != nil {
		t.Fatal(err)
	}
	end := solutions.SystemEnd(out.Bytes())
	if end < 0 {
		t.Fatalf("mdgen system %v: no system in %q", args, out.String())
	}
	return out.String()[:end] + "\n"
}

// TestPHCStartListAndDigits: phc -b solves noon3; mdgen solve reads its
// output file as the system and its start list (the list of phc's root
// refiner, not its path diagnostics), refines in quad double and writes
// -o; phc -v refines that list in quad double and finds a start residual
// below 1e-60 at every solution: it read every digit (a list of 15 digits
// starts at 1e-15). (Not katsura3: phc -v stops on an overflow in its
// quad double output, quad_double_numbers_io.adb:98, when it writes the rco
// of the exact solution u = (1, 0, 0, 0).)
func TestPHCStartListAndDigits(t *testing.T) {
	phc := needPHC(t)
	dir := t.TempDir()
	sysText := systemText(t, "noon3")
	// phc -b appends its solutions to its input file: it gets a copy
	writeTemp(t, dir, "n3.in", sysText)
	runPHC(t, phc, dir, "", "-0", "-b", "n3.in", "n3.b.out")
	bOut := filepath.Join(dir, "n3.b.out")
	qd := filepath.Join(dir, "n3.qd")
	_, errs, status := solveCmd(t, bOut, "-prec", "4", "-degree", "0", "-o", qd)
	if status != 0 {
		t.Fatalf("mdgen solve %s: status %d\n%s", bOut, status, errs)
	}
	if !strings.Contains(errs, "solutions of the list refined by PHCpack") && !strings.Contains(errs, "lists refined by PHCpack") {
		t.Errorf("solve did not say which list of phc's output it read:\n%s", errs)
	}
	list, err := os.ReadFile(qd)
	if err != nil {
		t.Fatal(err)
	}
	sols, err := solutions.Parse(qd, list, nil)
	if err != nil || len(sols) != 21 {
		t.Fatalf("%s: %d solutions, %v; want noon3's 21", qd, len(sols), err)
	}
	// every digit of a quad double in the list itself
	if m := regexp.MustCompile(`(?m)^ x1 : +-?\d\.(\d+)E`).FindStringSubmatch(string(list)); m == nil || len(m[1]) != 64 {
		t.Errorf("the list's coordinates do not have 65 significant digits:\n%.600s", list)
	}

	writeTemp(t, dir, "n3.qd.in", sysText+"\n"+string(list))
	// menu 8: Newton in double double or quad double; 2: quad double;
	// input and output file; 0: keep the settings; n: no multitasking
	runPHC(t, phc, dir, "8\n2\nn3.qd.in\nn3.qd.v\n0\nn\n", "-v")
	vOut, err := os.ReadFile(filepath.Join(dir, "n3.qd.v"))
	if err != nil {
		t.Fatal(err)
	}
	starts := regexp.MustCompile(`start residual : (\S+)`).FindAllStringSubmatch(string(vOut), -1)
	if len(starts) != 21 {
		t.Fatalf("phc -v refined %d solutions, want 21:\n%s", len(starts), vOut)
	}
	for k, m := range starts {
		if r, err := strconv.ParseFloat(m[1], 64); err != nil || r > 1e-60 {
			t.Errorf("phc -v: solution %d: start residual %s: it did not read every digit of the list", k+1, m[1])
		}
	}
	refined, choice, err := solutions.ParseChoice("n3.qd.v", vOut, nil)
	if err != nil || len(refined) != 21 || !strings.Contains(choice.String(), "refined by PHCpack") {
		t.Errorf("phc -v's output: %d solutions (%v), %v", len(refined), choice, err)
	}
}

// TestPHCDecimalSystem: the homotopy cyclic4:newton has integers of more
// than 19 digits in its exact form, which phc misreads; written with
// -decimal, phc -g reads it (in double precision) as the same system to 14
// digits, and phc -b4 echoes its square part (t = 0) in quad double as the
// same system to 60 digits.
func TestPHCDecimalSystem(t *testing.T) {
	phc := needPHC(t)
	dir := t.TempDir()
	if exact := systemText(t, "cyclic4:newton"); !regexp.MustCompile(`\d{20}`).MatchString(exact) {
		t.Fatalf("cyclic4:newton has no integer of 20 digits: the test no longer shows what -decimal is for:\n%s", exact)
	}
	inst, err := families.System("cyclic4:newton", families.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	text := systemText(t, "cyclic4:newton", "-decimal")
	writeTemp(t, dir, "c4.dec", text)
	runPHC(t, phc, dir, "", "-g", "c4.dec", "c4.g")
	g, err := os.ReadFile(filepath.Join(dir, "c4.g"))
	if err != nil {
		t.Fatal(err)
	}
	_, echo, ok := strings.Cut(string(g), "The polynomials parsed with standard doubles :")
	if !ok {
		t.Fatalf("phc -g wrote no parsed system:\n%s", g)
	}
	back, err := poly.Parse("phc -g", []byte(fmt.Sprintf("%d\n%s", len(inst.System.Polys), echo)), poly.ParseOptions{Param: "t"})
	if err != nil {
		t.Fatal(err)
	}
	sameSystem(t, "phc -g", inst.System, back, 14)

	// the square part at t = 0 through phc -b4's echo in quad double
	sq := *inst.System
	sq.Param = ""
	sq.Polys = make([]poly.Polynomial, len(inst.System.Polys))
	for i, p := range inst.System.Polys {
		sq.Polys[i].Const = p.Const[:min(len(p.Const), 1)]
		for _, m := range p.Terms {
			m.Coef = m.Coef[:1]
			sq.Polys[i].Terms = append(sq.Polys[i].Terms, m)
		}
	}
	writeTemp(t, dir, "c4sq.dec", string(poly.FormatDecimal(&sq, phcDecimalDigits)))
	runPHC(t, phc, dir, "", "-0", "-b4", "c4sq.dec", "c4sq.b4")
	b4, err := os.ReadFile(filepath.Join(dir, "c4sq.b4"))
	if err != nil {
		t.Fatal(err)
	}
	back, err = poly.Parse("phc -b4", b4, poly.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sameSystem(t, "phc -b4", &sq, back, 60)
}

// sameSystem checks that b has the monomials of a with every coefficient
// equal to digits significant digits (relative to the largest coefficient
// of its polynomial: phc drops no term, and writes 7.99...9E+00 for 8).
func sameSystem(t *testing.T, what string, a, b *poly.System, digits int64) {
	t.Helper()
	tol := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Exp(big.NewInt(10), big.NewInt(digits), nil))
	key := func(s *poly.System, m poly.Monomial) string {
		var k strings.Builder
		for q, v := range m.Vars {
			fmt.Fprintf(&k, "%s^%d ", s.Vars[v], m.Pows[q])
		}
		return k.String()
	}
	for i := range a.Polys {
		coefs := map[string]poly.Series{"1": b.Polys[i].Const}
		for _, m := range b.Polys[i].Terms {
			coefs[key(b, m)] = m.Coef
		}
		var scale big.Rat
		all := map[string]poly.Series{"1": a.Polys[i].Const}
		for _, m := range a.Polys[i].Terms {
			all[key(a, m)] = m.Coef
		}
		for _, c := range all {
			for k := range c {
				var x big.Rat
				for _, part := range []*big.Rat{&c[k].Re, &c[k].Im} {
					if x.Abs(part).Cmp(&scale) > 0 {
						scale.Set(&x)
					}
				}
			}
		}
		scale.Mul(&scale, tol)
		for name, c := range all {
			d := coefs[name]
			for k := range max(len(c), len(d)) {
				var u, v poly.Rational
				if k < len(c) {
					u.Set(&c[k])
				}
				if k < len(d) {
					v.Set(&d[k])
				}
				var dr, di big.Rat
				dr.Sub(&u.Re, &v.Re)
				di.Sub(&u.Im, &v.Im)
				if dr.Abs(&dr).Cmp(&scale) > 0 || di.Abs(&di).Cmp(&scale) > 0 {
					t.Errorf("%s: polynomial %d, %s t^%d: %s + %s i read as %s + %s i", what, i+1, name, k,
						u.Re.FloatString(20), u.Im.FloatString(20), v.Re.FloatString(20), v.Im.FloatString(20))
				}
			}
		}
	}
}
