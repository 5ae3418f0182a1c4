#!/usr/bin/env bash
# examples/ci.sh: the go:generate flow of a downstream module, from scratch.
# Copies this module to a temporary folder (the replace directive pointing at
# this checkout), deletes the committed generated files, runs go generate
# (mdgen emit; nvcc too when it is found), checks that the output equals the
# committed files, vets, builds and runs the demo, and checks its checksum
# against `mdgen eval` of the same system at the same inputs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -R "$root/examples/." "$tmp/"
cd "$tmp"
go mod edit -replace "github.com/mdgen/mdgen=$root"

gen_files="cyclic4t.go cyclic4t_test.go cyclic4t.cu cyclic4t_system.txt fatbin/README.txt"
for f in $gen_files; do rm -f "evaldemo/$f"; done
rm -rf evaldemo/fatbin
echo "examples: go generate"
(cd evaldemo && go generate)
for f in $gen_files; do
	if ! cmp -s "evaldemo/$f" "$root/examples/evaldemo/$f"; then
		echo "examples: evaldemo/$f differs from the committed one: run go generate in examples/evaldemo and commit" >&2
		diff -u "$root/examples/evaldemo/$f" "evaldemo/$f" | head -20 >&2 || true
		exit 1
	fi
done
echo "examples: go vet, go build, go test"
go vet ./...
go build -o evaldemo.bin ./evaldemo
go test -count=1 ./...
./evaldemo.bin | tee run.txt
got=$(awk '/^checksum /{print $2}' run.txt)
want=$(go run github.com/mdgen/mdgen/cmd/mdgen eval systems/cyclic4t.txt -prec 4 -degree 16 -seed 1 -json |
	awk -F'"' '/"checksum"/{print $4}')
if [ -z "$got" ] || [ "$got" != "$want" ]; then
	echo "examples: evaldemo checksum '$got', mdgen eval '$want'" >&2
	exit 1
fi
echo "examples: ok (checksum $got, as mdgen eval)"
