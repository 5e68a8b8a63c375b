package ireval

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// smartRecord is one ".I n" record of a SMART-format file (Cranfield, CISI).
type smartRecord struct {
	id     string // the .I number, leading zeros removed
	line   int    // line of the .I marker
	fields map[byte][]string
}

func (r *smartRecord) field(f byte) string {
	return strings.TrimSpace(strings.Join(r.fields[f], "\n"))
}

// fieldMarker reports whether line is a field marker such as ".I 12", ".W" or ".T " and returns
// the field letter and whatever follows it on the line.
func fieldMarker(line string) (byte, string, bool) {
	if len(line) < 2 || line[0] != '.' || line[1] < 'A' || line[1] > 'Z' {
		return 0, "", false
	}
	if len(line) > 2 && line[2] != ' ' && line[2] != '\t' {
		return 0, "", false
	}
	return line[1], strings.TrimSpace(line[2:]), true
}

// readLines calls fn for every line of path (without its line ending), with 1-based numbers.
func readLines(path string, fn func(n int, line string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	n := 0
	for sc.Scan() {
		n++
		if err := fn(n, strings.TrimSuffix(sc.Text(), "\r")); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return parseErr(path, n+1, "read: %v", err)
	}
	return nil
}

// parseSMART reads a SMART-format file. allowed lists the field letters other than I that may
// occur; any other marker is an error, as is text before the first .I, text between .I and the
// first field marker, a missing or non-numeric .I number and a repeated one.
func parseSMART(path, allowed string) ([]*smartRecord, error) {
	var (
		recs []*smartRecord
		cur  *smartRecord
		fld  byte
		seen = map[string]int{}
	)
	err := readLines(path, func(n int, line string) error {
		if f, rest, ok := fieldMarker(line); ok {
			if f == 'I' {
				num, err := strconv.Atoi(rest)
				if err != nil || num < 0 {
					return parseErr(path, n, "record marker .I needs a number, got %q", rest)
				}
				id := strconv.Itoa(num)
				if prev, dup := seen[id]; dup {
					return parseErr(path, n, "record .I %s repeated (first on line %d)", rest, prev)
				}
				seen[id] = n
				cur = &smartRecord{id: id, line: n, fields: map[byte][]string{}}
				recs = append(recs, cur)
				fld = 0
				return nil
			}
			if cur == nil {
				return parseErr(path, n, "field .%c before the first .I record", f)
			}
			if !strings.ContainsRune(allowed, rune(f)) {
				return parseErr(path, n, "unknown field .%c in record .I %s", f, cur.id)
			}
			fld = f
			if rest != "" {
				cur.fields[f] = append(cur.fields[f], rest)
			}
			return nil
		}
		if strings.TrimSpace(line) == "" {
			if cur != nil && fld != 0 {
				cur.fields[fld] = append(cur.fields[fld], "")
			}
			return nil
		}
		if cur == nil {
			return parseErr(path, n, "text before the first .I record")
		}
		if fld == 0 {
			return parseErr(path, n, "text after .I %s before any field marker", cur.id)
		}
		cur.fields[fld] = append(cur.fields[fld], line)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, parseErr(path, 1, "no .I records")
	}
	return recs, nil
}

// oneLine collapses all whitespace runs to single spaces.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func smartDocs(path, allowed string) ([]Doc, map[string]bool, error) {
	recs, err := parseSMART(path, allowed)
	if err != nil {
		return nil, nil, err
	}
	docs := make([]Doc, 0, len(recs))
	ids := make(map[string]bool, len(recs))
	for _, r := range recs {
		docs = append(docs, Doc{ID: r.id, Title: r.field('T'), Text: r.field('W')})
		ids[r.id] = true
	}
	return docs, ids, nil
}

func loadCranfield(docsPath, queriesPath, qrelsPath string, keepSource bool) (*Collection, error) {
	docs, docIDs, err := smartDocs(docsPath, "TABW")
	if err != nil {
		return nil, err
	}
	recs, err := parseSMART(queriesPath, "W")
	if err != nil {
		return nil, err
	}
	// cranqrel numbers queries 1…225 by position in cran.qry, not by .I number.
	queries := make([]Query, 0, len(recs))
	for i, r := range recs {
		text := oneLine(r.field('W'))
		if text == "" {
			return nil, parseErr(queriesPath, r.line, "query .I %s has no .W text", r.id)
		}
		queries = append(queries, Query{ID: strconv.Itoa(i + 1), Text: text})
	}
	qrels := Qrels{}
	err = readLines(qrelsPath, func(n int, line string) error {
		f := strings.Fields(line)
		if len(f) == 0 {
			return nil
		}
		if len(f) != 3 {
			return parseErr(qrelsPath, n, "want \"qid docid code\", got %d fields", len(f))
		}
		qn, err1 := strconv.Atoi(f[0])
		dn, err2 := strconv.Atoi(f[1])
		code, err3 := strconv.Atoi(f[2])
		if err1 != nil || err2 != nil || err3 != nil {
			return parseErr(qrelsPath, n, "non-numeric field in %q", line)
		}
		if code == -1 {
			if !keepSource {
				return nil
			}
			code = 1 // the source paper, counted as a complete answer
		}
		if code < 1 || code > 4 {
			return parseErr(qrelsPath, n, "relevance code %d outside 1–4 (or -1)", code)
		}
		if qn < 1 || qn > len(queries) {
			return parseErr(qrelsPath, n, "query %d does not exist (cran.qry has %d queries, numbered by position)", qn, len(queries))
		}
		did := strconv.Itoa(dn)
		if !docIDs[did] {
			return parseErr(qrelsPath, n, "document %d is not in the collection", dn)
		}
		qrels.addJudgment(strconv.Itoa(qn), did, 5-code)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &Collection{Docs: docs, Queries: queries, Qrels: qrels}, nil
}

func loadCISI(docsPath, queriesPath, qrelsPath string) (*Collection, error) {
	docs, docIDs, err := smartDocs(docsPath, "TAWXBKC")
	if err != nil {
		return nil, err
	}
	recs, err := parseSMART(queriesPath, "TAWB")
	if err != nil {
		return nil, err
	}
	queries := make([]Query, 0, len(recs))
	queryIDs := map[string]bool{}
	for _, r := range recs {
		text := oneLine(r.field('T') + " " + r.field('W'))
		if r.field('W') == "" {
			return nil, parseErr(queriesPath, r.line, "query .I %s has no .W text", r.id)
		}
		queries = append(queries, Query{ID: r.id, Text: text})
		queryIDs[r.id] = true
	}
	qrels := Qrels{}
	err = readLines(qrelsPath, func(n int, line string) error {
		f := strings.Fields(line)
		if len(f) == 0 {
			return nil
		}
		if len(f) != 4 {
			return parseErr(qrelsPath, n, "want \"qid docid 0 0.000000\", got %d fields", len(f))
		}
		qn, err1 := strconv.Atoi(f[0])
		dn, err2 := strconv.Atoi(f[1])
		_, err3 := strconv.Atoi(f[2])
		_, err4 := strconv.ParseFloat(f[3], 64)
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
			return parseErr(qrelsPath, n, "non-numeric field in %q", line)
		}
		qid, did := strconv.Itoa(qn), strconv.Itoa(dn)
		if !queryIDs[qid] {
			return parseErr(qrelsPath, n, "query %d is not in the query file", qn)
		}
		if !docIDs[did] {
			return parseErr(qrelsPath, n, "document %d is not in the collection", dn)
		}
		qrels.addJudgment(qid, did, 1)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &Collection{Docs: docs, Queries: queries, Qrels: qrels}, nil
}
