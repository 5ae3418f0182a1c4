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
	put(int64(len(p.Kinds)))
	for _, k := range p.Kinds {
		put(int64(k))
	}
	put(int64(len(p.Inputs)))
	for _, s := range p.Inputs {
		put(int64(s))
	}
	put(int64(len(p.ConvLayers)))
	for _, l := range p.ConvLayers {
		put(int64(len(l)))
		for _, j := range l {
			put(int64(j.Out))
			put(int64(j.A))
			put(int64(j.B))
		}
	}
	put(int64(len(p.AddLayers)))
	for _, l := range p.AddLayers {
		put(int64(len(l)))
		for _, j := range l {
			put(int64(j.Dst))
			put(int64(j.Src))
		}
	}
	put(int64(len(p.Value)))
	for _, s := range p.Value {
		put(int64(s))
	}
	put(int64(len(p.Deriv)))
	for _, row := range p.Deriv {
		put(int64(len(row)))
		for _, s := range row {
			put(int64(s))
		}
	}
	if p.Deriv == nil {
		// A sparse plan (Deriv too large to be dense): its Partials. Plans
		// with a dense Deriv hash as before, so emitted packages keep
		// matching.
		put(int64(len(p.Partials)))
		for _, row := range p.Partials {
			put(int64(len(row)))
			for _, e := range row {
				put(int64(e.Var))
				put(int64(e.Slot))
			}
		}
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
