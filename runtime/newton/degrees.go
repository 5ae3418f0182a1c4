package newton

// WorkingDegrees returns the working degrees of a solve at degree d, in
// the order the driver takes them (run.go): 0, the refinement of x(0),
// then 1, 2, 4, 7, 11, ... (w -> w + 1 + w/2) up to d. A back end that
// runs whole solves (WholeSolver) needs the plan of each.
func WorkingDegrees(d int) []int {
	ws := []int{0}
	for w := 0; w < d; {
		w = min(w+1+w/2, d)
		ws = append(ws, w)
	}
	return ws
}
