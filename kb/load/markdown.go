package load

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// splitFrontMatter separates a leading YAML front matter block ("---" … "---") from the body.
// It returns the metadata flattened to strings and the byte offset where the body starts.
func splitFrontMatter(text string) (meta map[string]any, body int, err error) {
	if !strings.HasPrefix(text, "---\n") && !strings.HasPrefix(text, "---\r\n") {
		return nil, 0, nil
	}
	start := strings.Index(text, "\n") + 1
	rest := text[start:]
	end := -1
	for off := 0; off < len(rest); {
		nl := strings.IndexByte(rest[off:], '\n')
		line := rest[off:]
		if nl >= 0 {
			line = rest[off : off+nl]
		}
		if strings.TrimRight(line, "\r ") == "---" || strings.TrimRight(line, "\r ") == "..." {
			end = off
			body = start + off + len(line)
			if nl >= 0 {
				body++
			}
			break
		}
		if nl < 0 {
			break
		}
		off += nl + 1
	}
	if end < 0 {
		return nil, 0, fmt.Errorf("front matter starts with --- but never ends")
	}
	meta = map[string]any{}
	if err := yaml.Unmarshal([]byte(rest[:end]), &meta); err != nil {
		return nil, 0, fmt.Errorf("front matter is not valid YAML: %w", err)
	}
	return meta, body, nil
}

// flattenMeta turns front matter values into strings: lists are joined with "; ".
func flattenMeta(meta map[string]any) map[string]string {
	out := make(map[string]string, len(meta))
	for k, v := range meta {
		out[k] = metaString(v)
	}
	return out
}

func metaString(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case []any:
		parts := make([]string, 0, len(t))
		for _, x := range t {
			parts = append(parts, metaString(x))
		}
		return strings.Join(parts, "; ")
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, 0, len(keys))
		for _, k := range keys {
			parts = append(parts, k+": "+metaString(t[k]))
		}
		return strings.Join(parts, "; ")
	default:
		return fmt.Sprint(t)
	}
}

func metaList(v any) []string {
	switch t := v.(type) {
	case []any:
		out := make([]string, 0, len(t))
		for _, x := range t {
			out = append(out, metaString(x))
		}
		return out
	case string:
		if t != "" {
			return []string{t}
		}
	}
	return nil
}

var (
	atxHeading  = regexp.MustCompile(`^(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$`)
	fenceLine   = regexp.MustCompile("^[ \t]{0,3}(```|~~~)")
	legalNumber = regexp.MustCompile(`^(§§?)\s*(\d+[a-z]?)\b\.?\s*(.*)$`)
	articleNum  = regexp.MustCompile(`^(?i)(Art\.|Artikel|Article)\s*(\d+[a-z]?)\b\.?\s*(.*)$`)
	annexNum    = regexp.MustCompile(`^(Anhang|Anlage|Annex|Appendix)(?:\s+([IVXLC]+|\d+|[A-Z]))?\b[.:]?\s*(.*)$`)
	partNum     = regexp.MustCompile(`^(Abschnitt|Teil|Kapitel|Chapter|Part)\s+(\d+|[IVXLC]+)\b[.:]?\s*(.*)$`)
	dottedNum   = regexp.MustCompile(`^(?:(?i:section)\s+)?(\d{1,3}(?:\.\d{1,3})*)(?:\.|:)?(?:\s+(.*)|$)`)
	letterNum   = regexp.MustCompile(`^([A-Z]\.\d{1,3}(?:\.\d{1,3})*)\.?(?:\s+(.*)|$)`)
)

// splitHeadingNumber separates a section number from a heading: "§ 6 Informationsermittlung"
// → ("§ 6", "Informationsermittlung"), "4.2 Purge before disconnect" → ("4.2", …),
// "Anhang I Nummer 1" → ("Anhang I", …). A heading without a number returns ("", heading).
func splitHeadingNumber(h string) (number, rest string) {
	h = strings.TrimSpace(h)
	if m := legalNumber.FindStringSubmatch(h); m != nil {
		return "§ " + m[2], strings.TrimSpace(m[3])
	}
	if m := articleNum.FindStringSubmatch(h); m != nil {
		return "Artikel " + m[2], strings.TrimSpace(m[3])
	}
	if m := annexNum.FindStringSubmatch(h); m != nil {
		if m[2] == "" {
			return m[1], strings.TrimSpace(m[3])
		}
		return m[1] + " " + m[2], strings.TrimSpace(m[3])
	}
	if m := partNum.FindStringSubmatch(h); m != nil {
		return m[1] + " " + m[2], strings.TrimSpace(m[3])
	}
	if m := letterNum.FindStringSubmatch(h); m != nil {
		return m[1], strings.TrimSpace(m[2])
	}
	if m := dottedNum.FindStringSubmatch(h); m != nil {
		return m[1], strings.TrimSpace(m[2])
	}
	return "", h
}

// parseMarkdown cuts a Markdown body into sections at its ATX headings (ignoring headings in
// fenced code). offset is where body starts in its file; parent prefixes every section path.
// It returns the text of the first level-1 heading as a title candidate.
func parseMarkdown(body string, offset int, file string, parent []string) (title string, sections []Section) {
	type open struct {
		level int
		label string
	}
	var stack []open
	cur := Section{Path: append([]string(nil), parent...), File: file, Offset: offset}
	var text strings.Builder
	inFence := false
	flush := func() {
		t := strings.TrimSpace(text.String())
		if t != "" || cur.Number != "" || cur.Heading != "" {
			lead := len(text.String()) - len(strings.TrimLeft(text.String(), " \t\r\n"))
			cur.Offset += lead
			cur.Text = t
			sections = append(sections, cur)
		}
		text.Reset()
	}
	pos := 0
	for pos < len(body) {
		nl := strings.IndexByte(body[pos:], '\n')
		end := len(body)
		if nl >= 0 {
			end = pos + nl + 1
		}
		line := body[pos:end]
		trimmed := strings.TrimRight(line, "\r\n")
		if fenceLine.MatchString(trimmed) {
			inFence = !inFence
		}
		if m := atxHeading.FindStringSubmatch(trimmed); m != nil && !inFence {
			flush()
			level := len(m[1])
			number, heading := splitHeadingNumber(m[2])
			if level == 1 && title == "" {
				title = strings.TrimSpace(m[2])
			}
			for len(stack) > 0 && stack[len(stack)-1].level >= level {
				stack = stack[:len(stack)-1]
			}
			label := number
			if label == "" {
				label = heading
			}
			path := append([]string(nil), parent...)
			for _, o := range stack {
				path = append(path, o.label)
			}
			path = append(path, label)
			stack = append(stack, open{level: level, label: label})
			cur = Section{Number: number, Heading: heading, Path: path, File: file, Offset: offset + end}
		} else {
			text.WriteString(line)
		}
		pos = end
	}
	flush()
	return title, sections
}
