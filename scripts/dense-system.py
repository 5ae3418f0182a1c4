#!/usr/bin/env python3
"""A dense random polynomial system in PHCpack format, for the tracker's
measurements at high degree (docs/results.md):

    scripts/dense-system.py 30,30 3 > d30.txt    # degrees, seed

Equation i has every monomial of degree at most d_i in the n = len(degrees)
unknowns x1..xn, each with the coefficient re + im*i, re and im uniform in
[-1, 1] (Python's random.Random(seed), six digits): its solutions are
isolated and regular, as many as the product of the degrees, for all but
a measure-zero set of coefficients (runtime/track's test helper dense is
the same system with Go's generator)."""
import itertools
import random
import sys

degrees = [int(a) for a in sys.argv[1].split(",")]
rng = random.Random(int(sys.argv[2]))
n = len(degrees)
lines = [str(n)]
for d in degrees:
    terms = []
    for ex in itertools.product(range(d + 1), repeat=n):
        if sum(ex) > d:
            continue
        re, im = rng.uniform(-1, 1), rng.uniform(-1, 1)
        mon = "".join("*x%d^%d" % (v + 1, e) for v, e in enumerate(ex) if e > 0)
        terms.append("(%.6f%+.6f*i)%s" % (re, im, mon))
    lines.append(" + ".join(terms) + ";")
print("\n".join(lines))
