package llm

import (
	"strings"
)

const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
)

// StripThink removes <think>…</think> blocks that reasoning models put in their answers. An
// unclosed block runs to the end of the text: everything after it was thinking.
func StripThink(text string) string {
	var b strings.Builder
	for {
		i := strings.Index(text, thinkOpen)
		if i < 0 {
			b.WriteString(text)
			break
		}
		b.WriteString(text[:i])
		rest := text[i+len(thinkOpen):]
		j := strings.Index(rest, thinkClose)
		if j < 0 {
			break
		}
		text = rest[j+len(thinkClose):]
	}
	return strings.TrimSpace(b.String())
}

// extractJSON returns the JSON text inside a model's answer: thinking removed, a Markdown code
// fence unwrapped, and prose before the first brace or bracket dropped.
func extractJSON(text string) string {
	text = StripThink(text)
	if i := strings.Index(text, "```"); i >= 0 {
		body := text[i+3:]
		if nl := strings.IndexByte(body, '\n'); nl >= 0 && !strings.ContainsAny(body[:nl], "{[") {
			body = body[nl+1:] // drop the fence's language tag
		}
		if j := strings.Index(body, "```"); j >= 0 {
			body = body[:j]
		}
		text = strings.TrimSpace(body)
	}
	start := strings.IndexAny(text, "{[")
	if start < 0 {
		return text
	}
	closer := byte('}')
	if text[start] == '[' {
		closer = ']'
	}
	end := strings.LastIndexByte(text, closer)
	if end < start {
		return text[start:]
	}
	return text[start : end+1]
}

// thinkFilter removes <think> blocks from a token stream as it arrives, holding back only as
// many bytes as could be the start of a tag.
type thinkFilter struct {
	inThink bool
	pending string
}

// Push takes the next piece of the stream and returns the visible text it releases.
func (f *thinkFilter) Push(piece string) string {
	f.pending += piece
	var out strings.Builder
	for {
		tag := thinkOpen
		if f.inThink {
			tag = thinkClose
		}
		i := strings.Index(f.pending, tag)
		if i >= 0 {
			if !f.inThink {
				out.WriteString(f.pending[:i])
			}
			f.pending = f.pending[i+len(tag):]
			f.inThink = !f.inThink
			continue
		}
		keep := partialSuffix(f.pending, tag)
		if !f.inThink {
			out.WriteString(f.pending[:len(f.pending)-keep])
		}
		f.pending = f.pending[len(f.pending)-keep:]
		return out.String()
	}
}

// Flush releases whatever was held back at the end of the stream.
func (f *thinkFilter) Flush() string {
	if f.inThink {
		f.pending = ""
		return ""
	}
	out := f.pending
	f.pending = ""
	return out
}

// partialSuffix returns the length of the longest suffix of s that is a proper prefix of tag.
func partialSuffix(s, tag string) int {
	for n := min(len(tag)-1, len(s)); n > 0; n-- {
		if strings.HasSuffix(s, tag[:n]) {
			return n
		}
	}
	return 0
}
