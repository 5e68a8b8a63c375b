package llm

import (
	"bytes"
	"encoding/json"
	"strings"
)

const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
)

// StripThink removes the reasoning that thinking models put before their answer: leading
// <think>…</think> blocks, an unclosed leading block (all of it was thinking), and text ending
// in an orphan </think> whose opening tag the template swallowed. A <think> later in the answer
// is content (a string in JSON, say) and stays.
func StripThink(text string) string {
	for {
		trimmed := strings.TrimLeft(text, " \t\r\n")
		if strings.HasPrefix(trimmed, thinkOpen) {
			rest := trimmed[len(thinkOpen):]
			j := strings.Index(rest, thinkClose)
			if j < 0 {
				return ""
			}
			text = rest[j+len(thinkClose):]
			continue
		}
		if j := strings.Index(trimmed, thinkClose); j >= 0 && !strings.Contains(trimmed[:j], thinkOpen) &&
			!strings.ContainsAny(trimmed[:1], "{[") {
			text = trimmed[j+len(thinkClose):]
			continue
		}
		return strings.TrimSpace(trimmed)
	}
}

// extractJSON returns the JSON value in a model's answer. It tries, in order: the whole answer;
// the body of a Markdown code fence the answer starts with; the first complete JSON value that
// begins at a brace or bracket. Strings inside the value may contain braces, fences or tags.
func extractJSON(text string) string {
	text = StripThink(text)
	if json.Valid([]byte(text)) {
		return text
	}
	if strings.HasPrefix(text, "```") {
		body := text[3:]
		if nl := strings.IndexByte(body, '\n'); nl >= 0 {
			body = body[nl+1:] // the fence's language tag
		}
		if j := strings.LastIndex(body, "```"); j >= 0 {
			body = body[:j]
		}
		if body = strings.TrimSpace(body); json.Valid([]byte(body)) {
			return body
		}
		text = body
	}
	for i := 0; i < len(text); i++ {
		if text[i] != '{' && text[i] != '[' {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(text[i:]))
		var raw json.RawMessage
		if err := dec.Decode(&raw); err == nil && (raw[0] == '{' || raw[0] == '[') {
			return string(bytes.TrimSpace(raw))
		}
	}
	return text
}

// thinkFilter removes leading <think> blocks from a token stream as it arrives, holding back
// only what could still turn out to be the start of a tag.
type thinkFilter struct {
	pending string
	inThink bool
	past    bool // the answer proper has started: nothing more is filtered
}

// Push takes the next piece of the stream and returns the visible text it releases.
func (f *thinkFilter) Push(piece string) string {
	if f.past {
		return piece
	}
	f.pending += piece
	for {
		if f.inThink {
			j := strings.Index(f.pending, thinkClose)
			if j < 0 {
				// Keep only what could be the start of the closing tag.
				f.pending = f.pending[len(f.pending)-partialSuffix(f.pending, thinkClose):]
				return ""
			}
			f.pending = f.pending[j+len(thinkClose):]
			f.inThink = false
			continue
		}
		trimmed := strings.TrimLeft(f.pending, " \t\r\n")
		switch {
		case strings.HasPrefix(trimmed, thinkOpen):
			f.pending = trimmed[len(thinkOpen):]
			f.inThink = true
		case strings.HasPrefix(thinkOpen, trimmed):
			f.pending = trimmed // may still become <think>
			return ""
		default:
			f.past = true
			out := trimmed
			f.pending = ""
			return out
		}
	}
}

// Flush releases whatever was held back at the end of the stream.
func (f *thinkFilter) Flush() string {
	if f.inThink || f.past {
		f.pending = ""
		return ""
	}
	out := strings.TrimSpace(f.pending)
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
