package volumemap

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc64"
	"math"

	"github.com/sluicephysics/sluice/physics"
)

// A map is stored as the magic and format version, the Key it was built for, its options and
// grid, the node values, and a CRC-64 (ECMA) of everything before it; all numbers
// little-endian, floats as their IEEE bits, so a decoded map is the built one bit for bit.
const cacheMagic = "sluice-volumemap-1\n"

// Key identifies the map Build makes of (verts, tris) with o: a SHA-256 of the format, the
// options and the mesh's vertex and triangle bits. Two calls with equal inputs give equal keys.
func Key(verts []physics.Vec3, tris [][3]int32, o Options) [32]byte {
	h := sha256.New()
	var b [8]byte
	put := func(u uint64) {
		binary.LittleEndian.PutUint64(b[:], u)
		h.Write(b[:])
	}
	h.Write([]byte(cacheMagic))
	putOptions(put, o)
	put(uint64(len(verts)))
	for _, v := range verts {
		for d := 0; d < 3; d++ {
			put(math.Float64bits(v[d]))
		}
	}
	put(uint64(len(tris)))
	for _, t := range tris {
		put(uint64(uint32(t[0])) | uint64(uint32(t[1]))<<32)
		put(uint64(uint32(t[2])))
	}
	var k [32]byte
	copy(k[:], h.Sum(nil))
	return k
}

func putOptions(put func(uint64), o Options) {
	put(math.Float64bits(o.H))
	put(math.Float64bits(o.R))
	put(math.Float64bits(o.Cell))
	put(math.Float64bits(o.VolumeFactor))
	inv := uint64(0)
	if o.Invert {
		inv = 1
	}
	put(inv)
	put(uint64(o.Kernel))
}

// Encode returns the map in the stored form, labelled with key (the Key of the mesh and
// options it was built from), for Decode.
func (m *Map) Encode(key [32]byte) []byte {
	buf := make([]byte, 0, len(cacheMagic)+32+8*(22+len(m.nodes))+8)
	put := func(u uint64) { buf = binary.LittleEndian.AppendUint64(buf, u) }
	putF := func(f float64) { put(math.Float64bits(f)) }
	buf = append(buf, cacheMagic...)
	buf = append(buf, key[:]...)
	putOptions(put, m.opt)
	putF(m.dx)
	for d := 0; d < 3; d++ {
		putF(m.lo[d])
		put(uint64(m.n[d]))
		putF(m.boxLo[d])
		putF(m.boxHi[d])
	}
	putF(m.full)
	put(uint64(len(m.nodes)))
	for _, f := range m.nodes {
		putF(f)
	}
	return binary.LittleEndian.AppendUint64(buf, crc64.Checksum(buf, crc64.MakeTable(crc64.ECMA)))
}

// Decode reads a map that Encode stored with the given key. It fails, saying why, for data of
// another format, for another key (another mesh or other options), and for data that is cut
// short or altered (its CRC).
func Decode(data []byte, key [32]byte) (*Map, error) {
	head := len(cacheMagic) + 32
	if len(data) < head+8 || string(data[:len(cacheMagic)]) != cacheMagic {
		return nil, errors.New("volumemap: not a stored volume map of this format")
	}
	body, sum := data[:len(data)-8], binary.LittleEndian.Uint64(data[len(data)-8:])
	if crc64.Checksum(body, crc64.MakeTable(crc64.ECMA)) != sum {
		return nil, errors.New("volumemap: stored map damaged (checksum)")
	}
	if [32]byte(data[len(cacheMagic):head]) != key {
		return nil, errors.New("volumemap: stored map is of another mesh or other options")
	}
	r := body[head:]
	get := func() uint64 {
		if len(r) < 8 {
			r = nil
			return 0
		}
		u := binary.LittleEndian.Uint64(r)
		r = r[8:]
		return u
	}
	getF := func() float64 { return math.Float64frombits(get()) }
	m := &Map{}
	m.opt.H, m.opt.R, m.opt.Cell, m.opt.VolumeFactor = getF(), getF(), getF(), getF()
	m.opt.Invert = get() == 1
	m.opt.Kernel = physics.KernelKind(get())
	m.dx = getF()
	total := 1
	for d := 0; d < 3; d++ {
		m.lo[d] = getF()
		m.n[d] = int(get())
		m.boxLo[d], m.boxHi[d] = getF(), getF()
		if m.n[d] < 4 || m.n[d] > MaxNodes {
			return nil, fmt.Errorf("volumemap: stored map has %d nodes on axis %d", m.n[d], d)
		}
		total *= m.n[d]
	}
	m.full = getF()
	if n := get(); n != uint64(2*total) || uint64(len(r)) != 8*n {
		return nil, errors.New("volumemap: stored map's node count does not match its grid")
	}
	m.nodes = make([]float64, 2*total)
	for i := range m.nodes {
		m.nodes[i] = getF()
	}
	if err := m.opt.check(); err != nil {
		return nil, fmt.Errorf("volumemap: stored map's options: %v", err)
	}
	if !(m.dx > 0) {
		return nil, fmt.Errorf("volumemap: stored map's node spacing %v m is not positive", m.dx)
	}
	m.inv = 1 / m.dx
	return m, nil
}
