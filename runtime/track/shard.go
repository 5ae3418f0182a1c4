package track

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/mdgen/mdgen/stager/poly"
)

// Classify sets the statuses, multiplicities and the summary of run from
// its paths' tracked statuses (Path.Tracked), exactly as Track does:
// run.Paths must be in the order of their indices, as one run holds them.
// It is for paths tracked in parts (shards) and put together.
func Classify(run *Run) {
	for k := range run.Paths {
		p := &run.Paths[k]
		if p.Tracked != 0 {
			p.Status = p.Tracked
		}
		p.Multiplicity = 1 // as the tracker leaves every path (trackPath)
	}
	classify(run)
}

// Filled returns the options with every default filled in, as Track runs
// them (Workers aside): what decides the bits of a path.
func (o Options) Filled() (Options, error) {
	err := o.fill()
	return o, err
}

// Hash names the homotopy: a SHA-256 of its kind, coordinates, the exact
// system H(x, tau) (gamma and path 0's projective chart included), the
// seed of the paths' charts (Homotopy.Chart) and, for a given homotopy,
// the exact start solutions. Two homotopies with the same hash have the
// same paths.
func (h *Homotopy) Hash() string {
	d := sha256.New()
	fmt.Fprintf(d, "%s projective=%t paths=%d\n", h.Kind, h.Projective, h.paths)
	if h.Projective {
		// Each path's chart (Homotopy.Chart); H holds path 0's.
		fmt.Fprintf(d, "charts=aligned seed=%d\n", h.ChartSeed)
	}
	d.Write(poly.Format(h.sys))
	for _, s := range h.starts {
		io.WriteString(d, "start")
		for k := range s {
			fmt.Fprintf(d, " %s %s", s[k].Re.RatString(), s[k].Im.RatString())
		}
		io.WriteString(d, "\n")
	}
	return "sha256:" + hex.EncodeToString(d.Sum(nil))
}

// SystemHash names a system: a SHA-256 of its PHCpack text (exact
// coefficients, poly.Format).
func SystemHash(s *poly.System) string {
	sum := sha256.Sum256(poly.Format(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}
