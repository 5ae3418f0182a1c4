package gen

import (
	"go/build"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The printers of the IR stand without the run time: no package under gen/
// imports, directly or through another package of the module, a package
// under runtime/ (the executors, Newton, the GPU driver layer), nor
// gorgonia.org/cu, with or without the cuda build tag. The emitter gets
// what its Examples print from an ExampleRunner that its caller supplies.
func TestGenImportsNoRunTime(t *testing.T) {
	const mod = "github.com/mdgen/mdgen/"
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(file))
	for _, tags := range [][]string{nil, {"cuda"}} {
		ctx := build.Default
		ctx.BuildTags = tags
		seen := map[string]string{} // package -> the package that imports it
		var walk func(path, from string)
		walk = func(path, from string) {
			if _, ok := seen[path]; ok {
				return
			}
			seen[path] = from
			if strings.HasPrefix(path, mod+"runtime/") || strings.HasPrefix(path, "gorgonia.org/cu") {
				t.Errorf("tags %v: %s imports %s (the printers must not depend on the run time)", tags, from, path)
				return
			}
			if !strings.HasPrefix(path, mod) {
				return
			}
			p, err := ctx.ImportDir(filepath.Join(root, strings.TrimPrefix(path, mod)), 0)
			if err != nil {
				t.Fatalf("tags %v: %s: %v", tags, path, err)
			}
			for _, imp := range p.Imports {
				walk(imp, path)
			}
		}
		for _, pkg := range []string{"gen", "gen/gpuabi", "gen/nvcc"} {
			walk(mod+pkg, "(root)")
		}
		if len(seen) < 5 {
			t.Fatalf("tags %v: walked only %d packages: the walk is broken", tags, len(seen))
		}
	}
}
