// Package templates holds the text/template skeletons of the files mdgen
// emits (CUDA headers and, later, solver packages), embedded so that the
// mdgen binary is self-contained. Templates carry layout only: arithmetic is
// never written here, it comes from the IR in package mdops/alg.
package templates

import (
	"embed"
	"text/template"
)

//go:embed *.tmpl
var files embed.FS

// Parse returns the named template (a file name in this folder).
func Parse(name string) (*template.Template, error) {
	return template.New(name).ParseFS(files, name)
}
