package ireval

import (
	"html"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// lowerASCII lowercases ASCII letters only, so byte offsets stay valid for the original text.
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + ('a' - 'A')
		}
	}
	return string(b)
}

// lineAt returns the 1-based line number of byte offset off in s.
func lineAt(s string, off int) int {
	return 1 + strings.Count(s[:off], "\n")
}

// firstNonSpace returns the offset of the first non-whitespace byte in s[from:to], or -1.
func firstNonSpace(s string, from, to int) int {
	for i := from; i < to; i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\r', '\f', '\v':
		default:
			return i
		}
	}
	return -1
}

// element is one <open>…</close> block found in a TREC file.
type element struct {
	start, bodyStart, bodyEnd int // offsets of "<open>", of the body, and of "</close>"
}

// splitElements finds the top-level <tag>…</tag> blocks of a TREC file (tag matched
// case-insensitively). Non-blank text outside the blocks, a nested or unterminated opening tag
// and a stray closing tag are errors.
func splitElements(path, data, tag string) ([]element, error) {
	low := lowerASCII(data)
	open, closing := "<"+tag+">", "</"+tag+">"
	var out []element
	pos := 0
	for {
		i := strings.Index(low[pos:], open)
		end := len(data)
		if i >= 0 {
			end = pos + i
		}
		if j := strings.Index(low[pos:end], closing); j >= 0 {
			return nil, parseErr(path, lineAt(data, pos+j), "%s without a matching %s", strings.ToUpper(closing), strings.ToUpper(open))
		}
		if k := firstNonSpace(data, pos, end); k >= 0 {
			return nil, parseErr(path, lineAt(data, k), "text outside %s…%s", strings.ToUpper(open), strings.ToUpper(closing))
		}
		if i < 0 {
			return out, nil
		}
		start := pos + i
		body := start + len(open)
		j := strings.Index(low[body:], closing)
		if j < 0 {
			return nil, parseErr(path, lineAt(data, start), "%s is never closed with %s", strings.ToUpper(open), strings.ToUpper(closing))
		}
		if k := strings.Index(low[body:body+j], open); k >= 0 {
			return nil, parseErr(path, lineAt(data, body+k), "%s inside another %s (missing %s?)", strings.ToUpper(open), strings.ToUpper(open), strings.ToUpper(closing))
		}
		out = append(out, element{start: start, bodyStart: body, bodyEnd: body + j})
		pos = body + j + len(closing)
	}
}

var (
	tagRe   = regexp.MustCompile(`</?[A-Za-z][^<>]*>`)
	titleRe = []*regexp.Regexp{
		regexp.MustCompile(`(?is)<title\b[^>]*>(.*?)</title\s*>`),
		regexp.MustCompile(`(?is)<headline\b[^>]*>(.*?)</headline\s*>`),
		regexp.MustCompile(`(?is)<head\b[^>]*>(.*?)</head\s*>`),
	}
	docnoRe = regexp.MustCompile(`(?is)<docno>(.*?)</docno\s*>`)
)

// cleanText strips tags, decodes entities and tidies whitespace, keeping one line per non-blank
// source line.
func cleanText(s string) string {
	s = html.UnescapeString(tagRe.ReplaceAllString(s, " "))
	var lines []string
	for l := range strings.SplitSeq(s, "\n") {
		if l = oneLine(l); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

func parseTRECDocs(path string) ([]Doc, error) {
	return eachTRECDoc(path, func(id, body string, docno []int, _ int) (Doc, error) {
		rest := body[:docno[0]] + " " + body[docno[1]:]
		var titles []string
		for _, re := range titleRe {
			for _, t := range re.FindAllStringSubmatch(rest, -1) {
				if t := oneLine(cleanText(t[1])); t != "" {
					titles = append(titles, t)
				}
			}
			rest = re.ReplaceAllString(rest, "\n")
		}
		return Doc{ID: id, Title: strings.Join(titles, " "), Text: cleanText(rest)}, nil
	})
}

// eachTRECDoc reads the <DOC> elements of a TREC file, checks each one's <DOCNO> (present,
// one word, not repeated), and makes a document of each with doc, which is given the ID, the
// element's body, where the <DOCNO> element lies in it and the element's line.
func eachTRECDoc(path string, doc func(id, body string, docno []int, line int) (Doc, error)) ([]Doc, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	data := string(raw)
	els, err := splitElements(path, data, "doc")
	if err != nil {
		return nil, err
	}
	if len(els) == 0 {
		return nil, parseErr(path, 1, "no <DOC> elements")
	}
	docs := make([]Doc, 0, len(els))
	seen := map[string]int{}
	for _, el := range els {
		body := data[el.bodyStart:el.bodyEnd]
		line := lineAt(data, el.start)
		m := docnoRe.FindStringSubmatchIndex(body)
		if m == nil {
			return nil, parseErr(path, line, "<DOC> without <DOCNO>…</DOCNO>")
		}
		id := strings.TrimSpace(body[m[2]:m[3]])
		if id == "" || strings.ContainsAny(id, " \t\r\n<>") {
			return nil, parseErr(path, line, "bad <DOCNO> %q", id)
		}
		if prev, dup := seen[id]; dup {
			return nil, parseErr(path, line, "DOCNO %s repeated (first on line %d)", id, prev)
		}
		seen[id] = line
		d, err := doc(id, body, m, line)
		if err != nil {
			return nil, err
		}
		docs = append(docs, d)
	}
	return docs, nil
}

// topicField returns the text after the first <name> tag in body up to the next tag, and the
// offset of that tag, or ok=false when the tag is absent.
func topicField(body, name string) (text string, off int, ok bool) {
	low := lowerASCII(body)
	i := strings.Index(low, "<"+name+">")
	if i < 0 {
		return "", -1, false
	}
	start := i + len(name) + 2
	end := strings.IndexByte(body[start:], '<')
	if end < 0 {
		end = len(body)
	} else {
		end += start
	}
	return html.UnescapeString(body[start:end]), i, true
}

// normID removes leading zeros from a numeric ID ("051" → "51"); other IDs are kept as they are.
func normID(s string) string {
	if n, err := strconv.Atoi(s); err == nil && n >= 0 {
		return strconv.Itoa(n)
	}
	return s
}

// trimPrefixFold removes prefix from s when s starts with it, ignoring ASCII case.
func trimPrefixFold(s, prefix string) string {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):]
	}
	return s
}

func parseTRECTopics(path string) ([]Query, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	data := string(raw)
	els, err := splitElements(path, data, "top")
	if err != nil {
		return nil, err
	}
	if len(els) == 0 {
		return nil, parseErr(path, 1, "no <top> topics")
	}
	queries := make([]Query, 0, len(els))
	seen := map[string]int{}
	for _, el := range els {
		body := data[el.bodyStart:el.bodyEnd]
		line := lineAt(data, el.start)
		num, off, ok := topicField(body, "num")
		if !ok {
			return nil, parseErr(path, line, "topic without <num>")
		}
		numLine := lineAt(data, el.bodyStart+off)
		num = strings.TrimSpace(trimPrefixFold(strings.TrimSpace(num), "Number:"))
		if num == "" || strings.ContainsAny(num, " \t\r\n") {
			return nil, parseErr(path, numLine, "bad topic number %q", oneLine(num))
		}
		id := normID(num)
		if prev, dup := seen[id]; dup {
			return nil, parseErr(path, numLine, "topic %s repeated (first on line %d)", num, prev)
		}
		seen[id] = numLine
		title, off, ok := topicField(body, "title")
		if !ok {
			return nil, parseErr(path, line, "topic %s without <title>", num)
		}
		title = oneLine(trimPrefixFold(strings.TrimSpace(title), "Topic:"))
		if title == "" {
			return nil, parseErr(path, lineAt(data, el.bodyStart+off), "topic %s has an empty <title>", num)
		}
		queries = append(queries, Query{ID: id, Text: title})
	}
	return queries, nil
}

func parseTRECQrels(path string) (Qrels, error) {
	qrels := Qrels{}
	err := readLines(path, func(n int, line string) error {
		f := strings.Fields(line)
		if len(f) == 0 {
			return nil
		}
		if len(f) != 4 {
			return parseErr(path, n, "want \"qid iter docid rel\", got %d fields", len(f))
		}
		rel, err := strconv.Atoi(f[3])
		if err != nil {
			return parseErr(path, n, "relevance %q is not an integer", f[3])
		}
		qrels.addJudgment(normID(f[0]), f[2], rel)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return qrels, nil
}

func loadTREC(docsPath, queriesPath, qrelsPath string) (*Collection, error) {
	return loadTRECWith(parseTRECDocs, docsPath, queriesPath, qrelsPath)
}

// loadTRECWith reads a collection of TREC topics and qrels whose documents parseDocs reads.
func loadTRECWith(parseDocs func(string) ([]Doc, error), docsPath, queriesPath, qrelsPath string) (*Collection, error) {
	docs, err := parseDocs(docsPath)
	if err != nil {
		return nil, err
	}
	queries, err := parseTRECTopics(queriesPath)
	if err != nil {
		return nil, err
	}
	qrels, err := parseTRECQrels(qrelsPath)
	if err != nil {
		return nil, err
	}
	return &Collection{Docs: docs, Queries: queries, Qrels: qrels}, nil
}
