package poly

// The comparisons of parse_test.go, for the external tests of bench_test.go.
var (
	RoundTrip    = roundTrip
	SystemsEqual = systemsEqual
)
