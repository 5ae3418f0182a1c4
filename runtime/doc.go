// Package runtime holds the executors of staged plans: the CPU executor
// (goroutines over the layers of a stager.Plan, arithmetic from mdops) and,
// behind the build tag cuda, the GPU executor in the subpackages.
//
// Its name clashes with the standard library's runtime on purpose of the
// design card's layout; import it as
//
//	mdrt "github.com/mdgen/mdgen/runtime"
package runtime
