package hnsw

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"unsafe"
)

// The encoding is a sequence of little-endian uint32 words, so that it is read with one read
// into a []uint32 and used where it lies, without decoding:
//
//	magic, version, nodes, dim, M, efConstruction, entry, maxLevel
//	levels: one byte per node, padded to a word
//	layer 0: per node, a count and 2·M slots
//	upper layers: for each node above layer 0 in order, per layer a count and M slots
//	CRC-32C of every word before it
const (
	magic   = 0x57484e53 // "WHNS"
	version = 1
	header  = 8
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrCorrupt says an encoded graph is truncated, damaged or of another version.
var ErrCorrupt = errors.New("hnsw: corrupt or foreign index file")

func littleEndian() bool { return binary.NativeEndian.Uint16([]byte{1, 0}) == 1 }

// asBytes views words as their bytes, in the machine's order.
func asBytes(w []uint32) []byte {
	if len(w) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), 4*len(w))
}

// WriteTo writes the graph in the encoding above.
func (g *Graph) WriteTo(w io.Writer) (int64, error) {
	if !littleEndian() {
		return 0, errors.New("hnsw: index files are written on little-endian machines only")
	}
	n := len(g.levels)
	head := []uint32{magic, version, uint32(n), uint32(g.dim), uint32(g.m), uint32(g.efc), g.entry, uint32(g.maxLevel)}
	lv := make([]uint32, (n+3)/4)
	copy(asBytes(lv), g.levels)
	crc := crc32.New(castagnoli)
	var total int64
	write := func(words []uint32) error {
		b := asBytes(words)
		crc.Write(b)
		k, err := w.Write(b)
		total += int64(k)
		return err
	}
	if err := write(head); err != nil {
		return total, err
	}
	if err := write(lv); err != nil {
		return total, err
	}
	if err := write(g.links0[:n*(g.m0+1)]); err != nil {
		return total, err
	}
	for _, up := range g.upper {
		if len(up) > 0 {
			if err := write(up); err != nil {
				return total, err
			}
		}
	}
	k, err := w.Write(binary.LittleEndian.AppendUint32(nil, crc.Sum32()))
	return total + int64(k), err
}

// Decode returns the graph encoded in words, which it keeps and uses in place: the caller
// must not change them. The checksum is verified first.
func Decode(words []uint32) (*Graph, error) {
	if !littleEndian() || len(words) < header+1 {
		return nil, ErrCorrupt
	}
	body := words[:len(words)-1]
	if crc32.Checksum(asBytes(body), castagnoli) != words[len(words)-1] {
		return nil, ErrCorrupt
	}
	if body[0] != magic || body[1] != version {
		return nil, ErrCorrupt
	}
	n, dim, m, efc := int(body[2]), int(body[3]), int(body[4]), int(body[5])
	if m <= 0 || dim <= 0 {
		return nil, ErrCorrupt
	}
	g := New(dim, Parameters{M: m, EfConstruction: efc})
	g.entry, g.maxLevel = body[6], int(body[7])
	off := header
	lvWords := (n + 3) / 4
	if len(body) < off+lvWords+n*(g.m0+1) {
		return nil, ErrCorrupt
	}
	g.levels = asBytes(body[off : off+lvWords])[:n:n]
	off += lvWords
	g.links0 = body[off : off+n*(g.m0+1) : off+n*(g.m0+1)]
	off += n * (g.m0 + 1)
	g.upper = make([][]uint32, n)
	for id, l := range g.levels {
		if l == 0 {
			continue
		}
		size := int(l) * (g.m + 1)
		if len(body) < off+size {
			return nil, ErrCorrupt
		}
		g.upper[id] = body[off : off+size : off+size]
		off += size
	}
	if off != len(body) || n > 0 && (int(g.entry) >= n || g.maxLevel != int(g.levels[g.entry])) {
		return nil, ErrCorrupt
	}
	if err := g.check(); err != nil {
		return nil, err
	}
	return g, nil
}

// check refuses links that point outside the graph or overfill a node, so that a damaged
// file that passed its checksum can never make a search index out of range.
func (g *Graph) check() error {
	n := uint32(len(g.levels))
	bad := func(b []uint32, limit int) bool {
		if int(b[0]) > limit {
			return true
		}
		for _, e := range b[1 : 1+b[0]] {
			if e >= n {
				return true
			}
		}
		return false
	}
	for id := range g.levels {
		if bad(g.links(uint32(id), 0), g.m0) {
			return fmt.Errorf("%w: node %d", ErrCorrupt, id)
		}
		for layer := 1; layer <= int(g.levels[id]); layer++ {
			if bad(g.links(uint32(id), layer), g.m) {
				return fmt.Errorf("%w: node %d", ErrCorrupt, id)
			}
		}
	}
	return nil
}

// ReadWords reads r to its end into 4-byte-aligned words, with one read when size (the
// expected byte count, or 0) is right.
func ReadWords(r io.Reader, size int64) ([]uint32, error) {
	words := make([]uint32, (size+3)/4)
	b := asBytes(words)
	n, err := io.ReadFull(r, b)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if n%4 != 0 || int64(n) != size {
		return nil, ErrCorrupt
	}
	return words[:n/4], nil
}
