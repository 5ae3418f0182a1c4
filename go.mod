module github.com/mdgen/mdgen

go 1.26.0

require (
	github.com/dave/jennifer v1.7.1
	gorgonia.org/cu v0.9.6
)

require (
	github.com/google/uuid v1.1.1 // indirect
	github.com/pkg/errors v0.9.1 // indirect
)
