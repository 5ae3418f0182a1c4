package poly

import (
	"errors"
	"testing"
)

// TestPolyPos: each polynomial's first token is recorded (after blank
// lines, on a line shared with the one before, with CR LF line ends), and
// PolyError points there; a generated system's errors are the reason
// alone.
func TestPolyPos(t *testing.T) {
	src := "3\r\n x^2 + y - 1;\r\n\r\n\t  y*z - 2;   (x - z)*y\r\n + 1;\r\n"
	s, err := Parse("p.txt", []byte(src), ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Pos{{2, 2}, {4, 4}, {4, 15}}
	if len(s.PolyPos) != len(want) {
		t.Fatalf("PolyPos %v, want %v", s.PolyPos, want)
	}
	for i := range want {
		if s.PolyPos[i] != want[i] {
			t.Errorf("polynomial %d at %v, want %v", i+1, s.PolyPos[i], want[i])
		}
	}
	var pe *ParseError
	if err := s.PolyError(2, "equation 3 is odd"); !errors.As(err, &pe) || err.Error() != "p.txt:4:15: equation 3 is odd" {
		t.Errorf("PolyError: %v", err)
	}
	g := &System{Vars: s.Vars, Polys: s.Polys}
	if err := g.PolyError(0, "equation 1 is odd"); errors.As(err, &pe) || err.Error() != "equation 1 is odd" {
		t.Errorf("PolyError of a generated system: %v", err)
	}
}
