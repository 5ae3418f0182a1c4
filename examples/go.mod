module github.com/mdgen/mdgen/examples

go 1.26.0

tool github.com/mdgen/mdgen/cmd/mdgen

require github.com/mdgen/mdgen v0.0.0

require (
	github.com/dave/jennifer v1.7.1 // indirect
	github.com/google/uuid v1.1.1 // indirect
	github.com/pkg/errors v0.9.1 // indirect
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/tools v0.52.0 // indirect
	gorgonia.org/cu v0.9.6 // indirect
)

replace github.com/mdgen/mdgen => ../
