package stager

import (
	"encoding/binary"
	"hash/fnv"
	"slices"
)

// Hash fingerprints a staged plan: its degree, sizes, slot kinds, inputs,
// both job tables layer by layer, the output slots and the exact
// coefficient series (not System, which Stage keeps for Check). mdgen emit
// bakes it into the package and the .cu; the package recomputes it from
// the plan it rebuilds, so a stager or reader that stages the system
// differently (a different table, a different coefficient) is caught
// before anything runs.
//
// It is FNV-1a (64 bits) over a fixed little-endian encoding; it is stable
// across runs, machines and Go versions. Emitted packages carry its value:
// change the encoding only with a new version string (and regenerate them).
func (p *Plan) Hash() uint64 {
	h := fnv.New64a()
	var buf [8]byte
	put := func(v int64) {
		binary.LittleEndian.PutUint64(buf[:], uint64(v))
		h.Write(buf[:])
	}
	str := func(s string) {
		put(int64(len(s)))
		h.Write([]byte(s))
	}
	str("mdgen plan v1")
	put(int64(p.Degree))
	put(int64(p.NumVars))
	put(int64(p.NumPolys))
	putInts(put, p.Kinds)
	putInts(put, p.Inputs)
	putRows(put, p.ConvLayers, func(j ConvJob) {
		put(int64(j.Out))
		put(int64(j.A))
		put(int64(j.B))
	})
	putRows(put, p.AddLayers, func(j AddJob) {
		put(int64(j.Dst))
		put(int64(j.Src))
	})
	putInts(put, p.Value)
	putRows(put, p.Deriv, func(s Slot) { put(int64(s)) })
	if p.Deriv == nil {
		// A sparse plan (Deriv too large to be dense): its Partials. Plans
		// with a dense Deriv hash as before, so emitted packages keep
		// matching.
		putRows(put, p.Partials, func(e Partial) {
			put(int64(e.Var))
			put(int64(e.Slot))
		})
	}
	slots := make([]Slot, 0, len(p.Values))
	for s := range p.Values {
		slots = append(slots, s)
	}
	slices.Sort(slots)
	put(int64(len(slots)))
	for _, s := range slots {
		v := p.Values[s]
		put(int64(s))
		put(int64(len(v)))
		for i := range v {
			str(v[i].Re.RatString())
			str(v[i].Im.RatString())
		}
	}
	return h.Sum64()
}

// putInts encodes a list of slots or kinds for Hash: its length, then each.
func putInts[T Slot | SlotKind](put func(int64), xs []T) {
	put(int64(len(xs)))
	for _, x := range xs {
		put(int64(x))
	}
}

// putRows encodes a table for Hash: its number of rows, then each row's
// length and its entries, each through putEntry.
func putRows[T any](put func(int64), rows [][]T, putEntry func(T)) {
	put(int64(len(rows)))
	for _, row := range rows {
		put(int64(len(row)))
		for _, x := range row {
			putEntry(x)
		}
	}
}
