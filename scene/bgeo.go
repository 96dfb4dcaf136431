package scene

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/go-gl/mathgl/mgl64"
)

// ReadBGEO reads particle positions (and the "v"/"velocity" attribute when present) from a
// Houdini classic binary geometry file, version 5, gzip-compressed or not, as SPlisHSPlasH
// writes its particle models. The layout, all big-endian: "Bgeo", 'V', int32 version, int32
// counts of points, primitives, point groups, primitive groups, point, vertex, primitive and
// detail attributes; then each point attribute's definition (uint16 name length, name, uint16
// size in 4-byte words, int32 type, size default words); then per point x, y, z, w as float32
// followed by its attribute words. Primitives after the points are not needed and not read.
func ReadBGEO(r io.Reader) (x, v []mgl64.Vec3, err error) {
	br := bufio.NewReader(r)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, err
		}
		defer gz.Close()
		br = bufio.NewReader(gz)
	}
	var head [5]byte
	if _, err := io.ReadFull(br, head[:]); err != nil || string(head[:4]) != "Bgeo" || head[4] != 'V' {
		return nil, nil, fmt.Errorf("not a classic BGEO file")
	}
	var counts [9]int32
	if err := binary.Read(br, binary.BigEndian, &counts); err != nil {
		return nil, nil, fmt.Errorf("header: %w", err)
	}
	version, nPoints, nPointAttr := counts[0], counts[1], counts[5]
	if version != 5 {
		return nil, nil, fmt.Errorf("BGEO version %d (only 5 is read)", version)
	}
	if nPoints < 0 || nPoints > 1e8 || nPointAttr < 0 || nPointAttr > 1000 {
		return nil, nil, fmt.Errorf("implausible header: %d points, %d point attributes", nPoints, nPointAttr)
	}
	words := 4 // x, y, z, w
	velAt := -1
	for a := int32(0); a < nPointAttr; a++ {
		var nl uint16
		if err := binary.Read(br, binary.BigEndian, &nl); err != nil {
			return nil, nil, fmt.Errorf("attribute %d: %w", a, err)
		}
		name := make([]byte, nl)
		if _, err := io.ReadFull(br, name); err != nil {
			return nil, nil, fmt.Errorf("attribute %d name: %w", a, err)
		}
		var def struct {
			Size uint16
			Type int32
		}
		if err := binary.Read(br, binary.BigEndian, &def); err != nil {
			return nil, nil, fmt.Errorf("attribute %q: %w", name, err)
		}
		if _, err := io.CopyN(io.Discard, br, 4*int64(def.Size)); err != nil {
			return nil, nil, fmt.Errorf("attribute %q defaults: %w", name, err)
		}
		if (string(name) == "v" || string(name) == "velocity") && def.Size == 3 {
			velAt = words
		}
		words += int(def.Size)
	}
	rec := make([]byte, 4*words)
	f := func(k int) float64 { return float64(math.Float32frombits(binary.BigEndian.Uint32(rec[4*k:]))) }
	x = make([]mgl64.Vec3, 0, nPoints)
	if velAt >= 0 {
		v = make([]mgl64.Vec3, 0, nPoints)
	}
	for i := int32(0); i < nPoints; i++ {
		if _, err := io.ReadFull(br, rec); err != nil {
			return nil, nil, fmt.Errorf("point %d of %d: %w", i, nPoints, err)
		}
		p := mgl64.Vec3{f(0), f(1), f(2)}
		if !finite3(p) {
			return nil, nil, fmt.Errorf("point %d has a non-finite position", i)
		}
		x = append(x, p)
		if velAt >= 0 {
			v = append(v, mgl64.Vec3{f(velAt), f(velAt + 1), f(velAt + 2)})
		}
	}
	return x, v, nil
}

func finite3(p mgl64.Vec3) bool {
	s := p[0] + p[1] + p[2]
	return !math.IsNaN(s) && !math.IsInf(s, 0)
}

// LoadBGEO reads a BGEO particle file (see ReadBGEO).
func LoadBGEO(path string) (x, v []mgl64.Vec3, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	x, v, err = ReadBGEO(bytes.NewReader(data))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return x, v, nil
}

// Houdini's attribute types in a classic BGEO header.
const (
	bgeoFloat  = 0
	bgeoInt    = 1
	bgeoVector = 5
)

// WriteBGEO writes the frame as a Houdini classic binary geometry file, version 5, the layout
// ReadBGEO reads and partio writes: the header (magic "Bgeo", 'V', version 5, the point count,
// no primitives or groups, the point-attribute count, no vertex, primitive or detail
// attributes), each point attribute's definition (name, size in 4-byte words, type, zero
// defaults), then per point x, y, z, w = 1 and its attribute words, all big-endian, and the
// closing bytes 0x00 0xff. The selected fields are point attributes named as in the other
// formats ("velocity" a 3-vector, scalars floats), and "body" an int.
func WriteBGEO(w io.Writer, fr *Frame) error {
	n, err := fr.check()
	if err != nil {
		return err
	}
	sel, err := fr.selected()
	if err != nil {
		return err
	}
	bw := newBinWriter(w, binary.BigEndian)
	bw.WriteString("BgeoV")
	for _, c := range [9]int{5, n, 0, 0, 0, len(sel) + 1, 0, 0, 0} {
		bw.i32(c)
	}
	attr := func(name string, size, typ int) {
		bw.WriteByte(byte(len(name) >> 8))
		bw.WriteByte(byte(len(name)))
		bw.WriteString(name)
		bw.WriteByte(byte(size >> 8))
		bw.WriteByte(byte(size))
		bw.i32(typ)
		for k := 0; k < size; k++ {
			bw.i32(0)
		}
	}
	for _, f := range sel {
		if f.vec != nil {
			attr(f.name, 3, bgeoVector)
		} else {
			attr(f.name, 1, bgeoFloat)
		}
	}
	attr("body", 1, bgeoInt)
	bw.points(fr, sel, true)
	bw.Write([]byte{0x00, 0xff})
	return bw.Flush()
}
