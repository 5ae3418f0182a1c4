#!/usr/bin/env bash
# Prints the import graph of mdgen's own packages (tests, generated solver
# packages and the examples module left out) as a Mermaid flowchart, for
# docs/design.md: `bash scripts/importgraph.sh [-tags cuda]`. An arrow
# A --> B says that package A imports package B.
set -euo pipefail
cd "$(dirname "$0")/.."
mod=$(go list -m)
echo '```mermaid'
echo 'flowchart TD'
go list "$@" -f '{{.ImportPath}}{{range .Imports}} {{.}}{{end}}' ./... |
	awk -v mod="$mod/" '
	function short(p) { sub(mod, "", p); return p }
	function id(p) { gsub(/[\/.]/, "_", p); return p }
	$1 ~ /\/generated\// || $1 ~ /\/internal\/testreport$/ || $1 ~ /\/bench\/qd\// { next }
	{
		from = short($1)
		for (i = 2; i <= NF; i++) {
			if (index($i, mod) != 1 || $i ~ /\/generated\//) continue
			to = short($i)
			print "    " id(from) "[" from "] --> " id(to) "[" to "]"
		}
	}' | sort -u
echo '```'
