package kbcopy

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"

	"warren/kb"
	"warren/kb/chunk"
)

// Digest sums up a knowledge base: its counts, and a checksum of every chunk that does not
// depend on the order the chunks are read in.
type Digest struct {
	Documents int    `json:"documents"`
	Chunks    int    `json:"chunks"`
	Sum       string `json:"checksum"`
}

// Checksum reads every chunk of b with its vector and sums the SHA-256 of each chunk's ID,
// text and vector (the float32 bits, little-endian) as four 64-bit lanes: addition makes the
// result independent of order, and unlike XOR a chunk present twice does not cancel out.
func Checksum(ctx context.Context, b kb.Backend) (Digest, error) {
	docs, err := b.Documents(ctx, "")
	if err != nil {
		return Digest{}, err
	}
	var lanes [4]uint64
	d := Digest{Documents: len(docs)}
	for _, doc := range docs {
		chunks, err := b.DocumentChunks(ctx, doc.ID)
		if err != nil {
			return Digest{}, fmt.Errorf("couldn't read the chunks of %s: %w", doc.ID, err)
		}
		vectors, err := b.DocumentVectors(ctx, doc.ID)
		if err != nil {
			return Digest{}, fmt.Errorf("couldn't read the vectors of %s: %w", doc.ID, err)
		}
		if len(vectors) != len(chunks) {
			return Digest{}, fmt.Errorf("%s has %d chunks but %d vectors", doc.ID, len(chunks), len(vectors))
		}
		for i, c := range chunks {
			sum := chunkSum(c, vectors[i])
			for l := range lanes {
				lanes[l] += binary.LittleEndian.Uint64(sum[8*l:])
			}
		}
		d.Chunks += len(chunks)
	}
	d.Sum = fmt.Sprintf("%016x%016x%016x%016x", lanes[0], lanes[1], lanes[2], lanes[3])
	return d, nil
}

func chunkSum(c chunk.Chunk, vector []float32) [sha256.Size]byte {
	h := sha256.New()
	// The lengths keep "ab"+"c" and "a"+"bc" apart.
	var n [8]byte
	for _, s := range []string{c.ID, c.Text} {
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	buf := make([]byte, 4*len(vector))
	for i, x := range vector {
		binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(x))
	}
	h.Write(buf)
	var out [sha256.Size]byte
	h.Sum(out[:0])
	return out
}
