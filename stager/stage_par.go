package stager

import goruntime "runtime"

// Stage's passes over the polynomials (validate, survey, the jobs) run on
// every core (par.Run): the polynomials are cut into contiguous chunks of
// about equal numbers of terms, and whatever a pass produces is merged in
// the order of the chunks, so that the result (and the first error, in polynomial order)
// does not depend on the number of workers or chunks.

// chunkTerms is the number of terms below which a pass runs as one chunk:
// goroutines cost more than they save on a small system.
var chunkTerms = 1 << 14 // (a variable: tests cut small systems into many chunks)

// polyChunks cuts polynomials [0, np) into contiguous ranges [c[k], c[k+1])
// of about total/(8·workers) terms each (terms(i) is the weight of
// polynomial i); a system of fewer than chunkTerms terms is one chunk.
func polyChunks(np int, terms func(i int) int) []int {
	total := 0
	for i := range np {
		total += terms(i)
	}
	workers := goruntime.GOMAXPROCS(0)
	if total < chunkTerms || workers == 1 || np <= 1 {
		return []int{0, np}
	}
	target := max(total/(8*workers), chunkTerms/4)
	c := []int{0}
	acc := 0
	for i := range np {
		acc += terms(i)
		if acc >= target && i+1 < np {
			c = append(c, i+1)
			acc = 0
		}
	}
	return append(c, np)
}

// firstErr returns the first non-nil error of errs (one per chunk, in
// polynomial order): the error a sequential pass would have stopped at.
func firstErr(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
