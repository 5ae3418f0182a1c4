module github.com/mdgen/mdgen

go 1.26.0

require github.com/dave/jennifer v1.7.1
