#!/usr/bin/env bash
# examples/ci.sh: the go:generate flow of a downstream module, from scratch.
# Copies this module to a temporary folder (the replace directive pointing at
# this checkout), deletes the committed generated files, runs go generate
# (mdgen emit, and mdgen FILE for pathdemo; nvcc too when it is found), checks
# that the output equals the committed files (and pathdemo's system file
# what `mdgen system cyclic7:newton` writes), vets, builds and tests (the
# emitted Examples and Solve == runtime/newton run), runs the demos, and
# checks evaldemo's checksum against `mdgen eval` of the same system at the
# same inputs and pathdemo's series, digit for digit, against `mdgen solve`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -R "$root/examples/." "$tmp/"
cd "$tmp"
go mod edit -replace "github.com/mdgen/mdgen=$root"

# regen DIR FILES...: delete the generated FILES of DIR, go generate there,
# and check that the output equals the committed files.
regen() {
	local dir=$1
	shift
	for f in "$@"; do rm -f "$dir/$f"; done
	rm -rf "$dir/fatbin"
	echo "examples: go generate in $dir"
	(cd "$dir" && go generate)
	for f in "$@"; do
		if ! cmp -s "$dir/$f" "$root/examples/$dir/$f"; then
			echo "examples: $dir/$f differs from the committed one: run go generate in examples/$dir and commit" >&2
			diff -u "$root/examples/$dir/$f" "$dir/$f" | head -20 >&2 || true
			exit 1
		fi
	done
}
regen evaldemo cyclic4t.go cyclic4t_test.go cyclic4t.cu cyclic4t_system.txt fatbin/README.txt
mdgen="go run github.com/mdgen/mdgen/cmd/mdgen"
if ! $mdgen system cyclic7:newton | cmp -s - pathdemo/cyclic7.txt; then
	echo "examples: pathdemo/cyclic7.txt is not what mdgen system cyclic7:newton writes: write it again and commit" >&2
	exit 1
fi
regen pathdemo cyclic7.go cyclic7_test.go cyclic7.cu cyclic7_system.txt fatbin/README.txt
echo "examples: go vet, go build, go test"
go vet ./...
go build -o evaldemo.bin ./evaldemo
go build -o pathdemo.bin ./pathdemo
go test -count=1 ./...
go test -count=1 -v -run 'Example|TestSolveMatchesNewton' ./pathdemo >test.txt || { cat test.txt; exit 1; }
for t in "--- PASS: Example " "--- PASS: TestSolveMatchesNewton "; do
	if ! grep -q -- "$t" test.txt; then
		echo "examples: go test ./pathdemo did not run ${t#--- PASS: }" >&2
		cat test.txt >&2
		exit 1
	fi
done
./evaldemo.bin | tee run.txt
got=$(awk '/^checksum /{print $2}' run.txt)
want=$(go run github.com/mdgen/mdgen/cmd/mdgen eval systems/cyclic4t.txt -prec 4 -degree 16 -seed 1 -json |
	awk -F'"' '/"checksum"/{print $4}')
if [ -z "$got" ] || [ "$got" != "$want" ]; then
	echo "examples: evaldemo checksum '$got', mdgen eval '$want'" >&2
	exit 1
fi
echo "examples: evaldemo ok (checksum $got, as mdgen eval)"

# pathdemo: the series of the path, every digit, as mdgen solve prints them.
(cd pathdemo && ../pathdemo.bin) | tee path.txt
$mdgen solve pathdemo/cyclic7.txt -prec 4 -degree 16 >solve.txt
grep ' t^' path.txt >path.series
grep ' t^' solve.txt >solve.series
lines=$(wc -l <path.series)
if [ "$lines" -ne $((7 * 17)) ] || ! cmp -s path.series solve.series; then
	echo "examples: pathdemo's series ($lines lines) differ from mdgen solve's:" >&2
	diff path.series solve.series | head -20 >&2 || true
	exit 1
fi
echo "examples: pathdemo ok ($lines coefficients, bit for bit as mdgen solve)"
