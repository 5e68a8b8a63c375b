// Command tinymodel writes the model the end-to-end suite runs on a real Ollama server: a
// llama-architecture GGUF with one block, 64-wide embeddings and a byte-level vocabulary, with
// random weights. Its answers have the shape a JSON schema asks for and no meaning at all, which
// is the harshest input warren has to survive from a small local model.
//
//	go run ./e2e/tinymodel -o tiny.gguf
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"

	"github.com/ollama/ollama/fs/ggml"

	"warren/e2e/internal/gguf"
)

const (
	embedding   = 64
	heads       = 4
	feedForward = 128
	blocks      = 1
	contextLen  = 32768
)

var closeBias *float64

func main() {
	out := flag.String("o", "tiny.gguf", "file to write")
	seed := flag.Uint64("seed", 1, "seed of the random weights (the same seed writes the same file)")
	closeBias = flag.Float64("close-bias", 0.6, "how strongly the model prefers closing a string, object or array")
	flag.Parse()
	if err := write(*out, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "tinymodel:", err)
		os.Exit(1)
	}
}

// byteTokens is GPT-2's byte-level alphabet: every byte as a printable rune, so any text
// tokenizes without merges, one token per byte.
func byteTokens() []string {
	tokens := make([]string, 256)
	next := 256
	for b := range 256 {
		printable := (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF)
		if printable {
			tokens[b] = string(rune(b))
		} else {
			tokens[b] = string(rune(next))
			next++
		}
	}
	return tokens
}

func write(path string, seed uint64) error {
	tokens := append(byteTokens(), "<s>", "</s>")
	types := make([]int32, len(tokens))
	for i := range types {
		types[i] = 1 // normal
	}
	bos, eos := uint32(len(tokens)-2), uint32(len(tokens)-1)
	types[bos], types[eos] = 3, 3 // control
	vocab := uint64(len(tokens))

	kv := ggml.KV{
		"general.architecture":                   "llama",
		"general.name":                           "warren-e2e-tiny",
		"general.file_type":                      uint32(0), // all F32
		"llama.block_count":                      uint32(blocks),
		"llama.context_length":                   uint32(contextLen),
		"llama.embedding_length":                 uint32(embedding),
		"llama.feed_forward_length":              uint32(feedForward),
		"llama.attention.head_count":             uint32(heads),
		"llama.attention.head_count_kv":          uint32(heads),
		"llama.attention.layer_norm_rms_epsilon": float32(1e-5),
		"llama.rope.dimension_count":             uint32(embedding / heads),
		"llama.rope.freq_base":                   float32(10000),
		"llama.vocab_size":                       uint32(vocab),
		"tokenizer.ggml.model":                   "gpt2",
		"tokenizer.ggml.pre":                     "default",
		"tokenizer.ggml.tokens":                  tokens,
		"tokenizer.ggml.token_type":              types,
		"tokenizer.ggml.merges":                  []string{},
		"tokenizer.ggml.bos_token_id":            bos,
		"tokenizer.ggml.eos_token_id":            eos,
		"tokenizer.ggml.add_bos_token":           true,
		"tokenizer.ggml.add_eos_token":           false,
	}

	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	random := func(name string, shape ...uint64) *ggml.Tensor {
		n := uint64(1)
		for _, d := range shape {
			n *= d
		}
		values := make([]float32, n)
		for i := range values {
			values[i] = float32(rng.NormFloat64() * 0.08)
		}
		return gguf.Tensor(name, values, shape)
	}
	ones := func(name string, size uint64) *ggml.Tensor {
		values := make([]float32, size)
		for i := range values {
			values[i] = 1
		}
		return gguf.Tensor(name, values, []uint64{size})
	}

	// Every token's embedding carries a constant first component, which survives the block
	// through the residual path; the output projection reads that component as a per-token bias.
	// Closing tokens get a positive one and whitespace a negative one, so strings and arrays end
	// after a few tokens often enough that some answers complete and others run out of num_predict.
	embed := random("token_embd.weight", embedding, vocab)
	output := random("output.weight", embedding, vocab)
	embedValues, outputValues := embed.WriterTo.(gguf.F32s), output.WriterTo.(gguf.F32s)
	for t := range vocab {
		embedValues[t*embedding] = 1
		outputValues[t*embedding] = float32(bias(t))
	}
	ts := []*ggml.Tensor{embed, output, ones("output_norm.weight", embedding)}
	for b := range blocks {
		p := fmt.Sprintf("blk.%d.", b)
		ts = append(ts,
			ones(p+"attn_norm.weight", embedding),
			random(p+"attn_q.weight", embedding, embedding),
			random(p+"attn_k.weight", embedding, embedding),
			random(p+"attn_v.weight", embedding, embedding),
			random(p+"attn_output.weight", embedding, embedding),
			ones(p+"ffn_norm.weight", embedding),
			random(p+"ffn_gate.weight", embedding, feedForward),
			random(p+"ffn_up.weight", embedding, feedForward),
			random(p+"ffn_down.weight", feedForward, embedding),
		)
	}

	return gguf.WriteFile(path, kv, ts)
}

// bias is the weight of token t on the constant component.
func bias(t uint64) float64 {
	if t >= 256 {
		return -1 // BOS and EOS: the grammar decides when an answer ends
	}
	switch byte(t) {
	case '"':
		return *closeBias
	case '}', ']':
		return *closeBias * 0.8
	case ',':
		return *closeBias * 0.3
	case ' ', '\n', '\t', '\r':
		return -0.6
	}
	return 0
}
