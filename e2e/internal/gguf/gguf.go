// Package gguf holds what the e2e model writers (glovemodel, tinymodel) share: F32 tensors and
// writing the GGUF file so that Ollama never sees a half-written model.
package gguf

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/ollama/ollama/fs/ggml"
)

// Tensor is an F32 tensor whose shape lists the fastest-varying dimension first, as GGUF does.
func Tensor(name string, values []float32, shape []uint64) *ggml.Tensor {
	return &ggml.Tensor{Name: name, Kind: 0, Shape: shape, WriterTo: F32s(values)}
}

// F32s writes its values little-endian, streamed: the GloVe embedding is 40 MB.
type F32s []float32

func (v F32s) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	var buf [4]byte
	var n int64
	for _, x := range v {
		binary.LittleEndian.PutUint32(buf[:], math.Float32bits(x))
		m, err := bw.Write(buf[:])
		n += int64(m)
		if err != nil {
			return n, err
		}
	}
	return n, bw.Flush()
}

// WriteFile writes the model to a temporary file beside path and renames it into place.
func WriteFile(path string, kv ggml.KV, ts []*ggml.Tensor) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".model-*.gguf")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := ggml.WriteGGUF(tmp, kv, ts); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
