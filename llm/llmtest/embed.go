package llmtest

import (
	"hash/fnv"
	"math"
	"strings"
	"unicode"
)

// Embed is the server's deterministic embedding: hashed word features plus hashed character
// trigrams, signed and L2-normalised. Texts that share words or word pieces get similar
// vectors, so retrieval tests rank sensibly without a model.
func Embed(text string, dim int) []float32 {
	v := make([]float64, dim)
	add := func(feature string, weight float64) {
		h := fnv.New64a()
		h.Write([]byte(feature))
		sum := h.Sum64()
		sign := 1.0
		if sum&1 == 1 {
			sign = -1
		}
		v[(sum>>1)%uint64(dim)] += sign * weight
	}
	for _, word := range words(text) {
		add("w:"+word, 1)
		padded := []rune("^" + word + "$")
		for i := 0; i+3 <= len(padded); i++ {
			add("t:"+string(padded[i:i+3]), 0.35)
		}
	}
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	out := make([]float32, dim)
	if norm == 0 {
		out[0] = 1 // an empty text still gets a unit vector, never NaN
		return out
	}
	norm = math.Sqrt(norm)
	for i, x := range v {
		out[i] = float32(x / norm)
	}
	return out
}

func words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// tokenCount approximates a tokenizer: one token per word or punctuation run.
func tokenCount(text string) int {
	return max(len(strings.Fields(text)), 1)
}
