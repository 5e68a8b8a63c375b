package ireval

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// wantParseError checks that err is a *ParseError for file at line, and that its message says so.
func wantParseError(t *testing.T, name string, err error, file string, line int) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Errorf("%s: error = %v, want a *ParseError", name, err)
		return
	}
	if pe.File != file || pe.Line != line {
		t.Errorf("%s: error at %s:%d, want %s:%d (%v)", name, pe.File, pe.Line, file, line, err)
	}
	if !strings.Contains(err.Error(), fmt.Sprintf("%s:%d:", file, line)) {
		t.Errorf("%s: message %q does not name %s:%d", name, err, file, line)
	}
}

const trecDocs = `<DOC>
<DOCNO> FT911-1 </DOCNO>
<HEADLINE>Markets &amp; Money</HEADLINE>
<TEXT>
Shares <B>rose</B> sharply
in   London.
</TEXT>
</DOC>
<doc><docno>LA010189-0001</docno><text>one line doc</text></doc>

<DOC>
<DOCNO>plain</DOCNO>
just text, no inner tags; 3 < 4 stays
</DOC>
`

const trecTopics = `<top>
<num> Number: 401
<title> foreign minorities, Germany

<desc> Description:
What language and cultural differences impede the integration?
<narr> Narrative:
A relevant document will focus on the causes.
</top>

<top>
<num> Number: 051 </num>
<title> Topic:  Airbus
  Subsidies </title>
<desc> Description: ignored
</top>
<top><num>q7<title>bare id</top>
`

const trecQrels = `401 0 FT911-1 1
401 0 LA010189-0001 0

401 0 plain 2
51 0 plain 1
051 0 FT911-1 0
7 0 x -1
`

func TestTRECLoad(t *testing.T) {
	c, err := Load("trec", writeTemp(t, "docs", trecDocs), writeTemp(t, "topics", trecTopics), writeTemp(t, "qrels", trecQrels))
	if err != nil {
		t.Fatal(err)
	}
	wantDocs := []Doc{
		{ID: "FT911-1", Title: "Markets & Money", Text: "Shares rose sharply\nin London."},
		{ID: "LA010189-0001", Title: "", Text: "one line doc"},
		{ID: "plain", Title: "", Text: "just text, no inner tags; 3 < 4 stays"},
	}
	if fmt.Sprintf("%q", c.Docs) != fmt.Sprintf("%q", wantDocs) {
		t.Errorf("docs:\n got  %q\n want %q", c.Docs, wantDocs)
	}
	wantQueries := []Query{
		{ID: "401", Text: "foreign minorities, Germany"},
		{ID: "51", Text: "Airbus Subsidies"},
		{ID: "q7", Text: "bare id"},
	}
	if fmt.Sprintf("%q", c.Queries) != fmt.Sprintf("%q", wantQueries) {
		t.Errorf("queries:\n got  %q\n want %q", c.Queries, wantQueries)
	}
	wantQrels := Qrels{
		"401": {"FT911-1": 1, "LA010189-0001": 0, "plain": 2},
		"51":  {"plain": 1, "FT911-1": 0},
		"7":   {"x": -1},
	}
	if fmt.Sprint(c.Qrels) != fmt.Sprint(wantQrels) {
		t.Errorf("qrels:\n got  %v\n want %v", c.Qrels, wantQrels)
	}
	// Topic q7 has no judgments, so only 401 and 51 are evaluated.
	if j := c.Judged(); len(j) != 2 || j[0].ID != "401" || j[1].ID != "51" {
		t.Errorf("judged = %v", j)
	}
	if got := c.Docs[0].Content(); got != "Markets & Money\nShares rose sharply\nin London." {
		t.Errorf("Content() = %q", got)
	}
}

func TestTRECMalformed(t *testing.T) {
	goodTopics := "<top>\n<num> Number: 1\n<title> t\n</top>\n"
	goodQrels := "1 0 a 1\n"
	goodDocs := "<DOC><DOCNO>a</DOCNO>x</DOC>\n"
	cases := []struct {
		name               string
		docs, topics, qrel string
		bad                string // which file is bad: docs, topics or qrels
		line               int
	}{
		{"unterminated doc", "<DOC><DOCNO>a</DOCNO>x</DOC>\n\n<DOC>\n<DOCNO>b</DOCNO>\nno end\n", goodTopics, goodQrels, "docs", 3},
		{"nested doc", "<DOC>\n<DOCNO>a</DOCNO>\n<DOC>\n<DOCNO>b</DOCNO></DOC>\n", goodTopics, goodQrels, "docs", 3},
		{"no docno", "<DOC><DOCNO>a</DOCNO>x</DOC>\n<DOC>\n<TEXT>hi</TEXT>\n</DOC>\n", goodTopics, goodQrels, "docs", 2},
		{"empty docno", "<DOC><DOCNO> </DOCNO>x</DOC>\n", goodTopics, goodQrels, "docs", 1},
		{"duplicate docno", "<DOC><DOCNO>a</DOCNO>x</DOC>\n<DOC><DOCNO>a</DOCNO>y</DOC>\n", goodTopics, goodQrels, "docs", 2},
		{"text outside doc", "<DOC><DOCNO>a</DOCNO>x</DOC>\nstray\n", goodTopics, goodQrels, "docs", 2},
		{"stray close", "</DOC>\n<DOC><DOCNO>a</DOCNO>x</DOC>\n", goodTopics, goodQrels, "docs", 1},
		{"no docs", "\n\n", goodTopics, goodQrels, "docs", 1},
		{"topic without num", goodDocs, "<top>\n<num> Number: 1\n<title> t\n</top>\n<top>\n<title> u\n</top>\n", goodQrels, "topics", 5},
		{"topic without title", goodDocs, "<top>\n<num> Number: 1\n<desc> d\n</top>\n", goodQrels, "topics", 1},
		{"empty title", goodDocs, "<top>\n<num> Number: 1\n<title>\n<desc> d\n</top>\n", goodQrels, "topics", 3},
		{"empty num", goodDocs, "<top>\n\n<num> Number:\n<title> t\n</top>\n", goodQrels, "topics", 3},
		{"duplicate topic", goodDocs, goodTopics + "<top>\n<num> Number: 001\n<title> t\n</top>\n", goodQrels, "topics", 6},
		{"unterminated topic", goodDocs, goodTopics + "<top>\n<num> Number: 2\n", goodQrels, "topics", 5},
		{"qrels 3 fields", goodDocs, goodTopics, "1 0 a 1\n1 a 1\n", "qrels", 2},
		{"qrels bad rel", goodDocs, goodTopics, "\n1 0 a yes\n", "qrels", 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			paths := map[string]string{
				"docs":   writeTemp(t, "docs", tc.docs),
				"topics": writeTemp(t, "topics", tc.topics),
				"qrels":  writeTemp(t, "qrels", tc.qrel),
			}
			c, err := Load("trec", paths["docs"], paths["topics"], paths["qrels"])
			if err == nil {
				t.Fatalf("no error; loaded %d docs, %d queries", len(c.Docs), len(c.Queries))
			}
			wantParseError(t, tc.name, err, paths[tc.bad], tc.line)
		})
	}
}

// A small valid Cranfield-format triple, and the same shape for CISI.
const (
	cranDocs = ".I 1\n.T\ntitle one\n.A\nauthor\n.B\nsource\n.W\nbody one\n.I 2\n.T\n.A\n.B\n.W\n"
	cranQry  = ".I 001\n.W\nfirst query\n.I 004\n.W\nsecond\nquery\n"
	cranRel  = "1 1 2 \n1 2 -1\n2 2 4\n"
	cisiDocs = ".I 1\n.T \nA title\n.A \nSomeone\n.W\n  body text\n.X\n1\t5\t1\n.I 2\n.T\nT2\n.K \nkw\n.C \n3.42\n.W\nb2\n.X\n2\t1\t2\n"
	cisiQry  = ".I 1\n.W\nplain query\n.I 2\n.T\nTitled\n.A\nAuthor, A.\n.W\nwith body\n.B\n(JASIS)\n"
	cisiRel  = "     1     2\t0\t0.000000\n 2 1 0 0.000000\n"
)

func TestSMARTSmall(t *testing.T) {
	c, err := Load("cranfield", writeTemp(t, "d", cranDocs), writeTemp(t, "q", cranQry), writeTemp(t, "r", cranRel))
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprintf("%q", c.Docs) != `[{"1" "title one" "body one"} {"2" "" ""}]` {
		t.Errorf("cranfield docs = %q", c.Docs)
	}
	if fmt.Sprintf("%q", c.Queries) != `[{"1" "first query"} {"2" "second query"}]` {
		t.Errorf("cranfield queries = %q (want IDs by position)", c.Queries)
	}
	if fmt.Sprint(c.Qrels) != "map[1:map[1:3] 2:map[2:1]]" {
		t.Errorf("cranfield qrels = %v", c.Qrels)
	}

	c, err = Load("CISI", writeTemp(t, "d", cisiDocs), writeTemp(t, "q", cisiQry), writeTemp(t, "r", cisiRel))
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprintf("%q", c.Docs) != `[{"1" "A title" "body text"} {"2" "T2" "b2"}]` {
		t.Errorf("cisi docs = %q", c.Docs)
	}
	if fmt.Sprintf("%q", c.Queries) != `[{"1" "plain query"} {"2" "Titled with body"}]` {
		t.Errorf("cisi queries = %q", c.Queries)
	}
	if fmt.Sprint(c.Qrels) != "map[1:map[2:1] 2:map[1:1]]" {
		t.Errorf("cisi qrels = %v", c.Qrels)
	}
}

func TestSMARTMalformed(t *testing.T) {
	cases := []struct {
		name, format   string
		docs, qry, rel string
		bad            string
		line           int
	}{
		{"text before .I", "cranfield", "junk\n" + cranDocs, cranQry, cranRel, "docs", 1},
		{"field before .I", "cranfield", ".W\nx\n" + cranDocs, cranQry, cranRel, "docs", 1},
		{".I without number", "cranfield", cranDocs + ".I\n.W\nx\n", cranQry, cranRel, "docs", 15},
		{".I not numeric", "cranfield", cranDocs + ".I abc\n", cranQry, cranRel, "docs", 15},
		{"duplicate .I", "cranfield", cranDocs + ".I 2\n.W\nx\n", cranQry, cranRel, "docs", 15},
		{"unknown field", "cranfield", cranDocs + ".I 3\n.K\nx\n", cranQry, cranRel, "docs", 16},
		{"text before field", "cranfield", cranDocs + ".I 3\nloose\n", cranQry, cranRel, "docs", 16},
		{"query without text", "cranfield", cranDocs, cranQry + ".I 009\n.W\n\n", cranRel, "qry", 8},
		{"qrels two fields", "cranfield", cranDocs, cranQry, cranRel + "2 1\n", "rel", 4},
		{"qrels code 5", "cranfield", cranDocs, cranQry, "1 1 5\n", "rel", 1},
		{"qrels code 0", "cranfield", cranDocs, cranQry, "\n1 1 2\n1 2 0\n", "rel", 3},
		{"qrels non-numeric", "cranfield", cranDocs, cranQry, "1 x 2\n", "rel", 1},
		{"qrels query past end", "cranfield", cranDocs, cranQry, "3 1 2\n", "rel", 1},
		{"qrels unknown doc", "cranfield", cranDocs, cranQry, "1 1 1\n1 9 1\n", "rel", 2},
		{"cisi unknown field", "cisi", cisiDocs + ".I 3\n.Z\nx\n", cisiQry, cisiRel, "docs", 22},
		{"cisi rel 3 fields", "cisi", cisiDocs, cisiQry, "1 2 0\n", "rel", 1},
		{"cisi rel bad float", "cisi", cisiDocs, cisiQry, cisiRel + "1 1 0 zero\n", "rel", 3},
		{"cisi rel unknown query", "cisi", cisiDocs, cisiQry, "7 1 0 0.000000\n", "rel", 1},
		{"cisi rel unknown doc", "cisi", cisiDocs, cisiQry, "1 3 0 0.000000\n", "rel", 1},
		{"cisi query field", "cisi", cisiDocs, cisiQry + ".I 3\n.X\n1\n", cisiRel, "qry", 14},
		{"empty docs file", "cisi", "", cisiQry, cisiRel, "docs", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			paths := map[string]string{
				"docs": writeTemp(t, "docs", tc.docs),
				"qry":  writeTemp(t, "qry", tc.qry),
				"rel":  writeTemp(t, "rel", tc.rel),
			}
			c, err := Load(tc.format, paths["docs"], paths["qry"], paths["rel"])
			if err == nil {
				t.Fatalf("no error; loaded %d docs, %d queries, %v", len(c.Docs), len(c.Queries), c.Qrels)
			}
			wantParseError(t, tc.name, err, paths[tc.bad], tc.line)
		})
	}
}

func TestLoadErrors(t *testing.T) {
	if _, err := Load("smart", "a", "b", "c"); err == nil || !strings.Contains(err.Error(), "smart") {
		t.Errorf("unknown format: %v", err)
	}
	missing := filepath.Join(t.TempDir(), "nope")
	if _, err := Load("cranfield", missing, missing, missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := Load("trec", missing, missing, missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing trec file: %v", err)
	}
}

func TestCACMLoad(t *testing.T) {
	docs := writeTemp(t, "docs", `<DOC>
<DOCNO>CACM-0002</DOCNO>
<TEXT>
Extraction of Roots by
Repeated Subtractions

An abstract &amp; more.

CACM December, 1958

Sugai, I.

CA581202 JB March 22, 1978  8:29 PM

2	5	2
2	5	2
</TEXT>
</DOC>
`)
	topics := writeTemp(t, "topics", "<top>\n<num>1</num>\n<title>roots by subtraction</title>\n</top>\n")
	qrels := writeTemp(t, "qrels", "1 0 CACM-0002 1\n1 0 CACM-2 1\n")
	c, err := Load("cacm", docs, topics, qrels)
	if err != nil {
		t.Fatal(err)
	}
	want := Doc{ID: "CACM-0002", Title: "Extraction of Roots by Repeated Subtractions", Text: "An abstract & more.\nCACM December, 1958\nSugai, I."}
	if len(c.Docs) != 1 || c.Docs[0] != want {
		t.Errorf("docs = %+v, want %+v", c.Docs, want)
	}
	if c.Absent() != 1 {
		t.Errorf("absent judgments = %d, want 1 (CACM-2)", c.Absent())
	}
	for name, body := range map[string]string{
		"no text":  "<DOC>\n<DOCNO>CACM-1</DOCNO>\n</DOC>\n",
		"no title": "<DOC>\n<DOCNO>CACM-1</DOCNO>\n<TEXT>\n\n</TEXT>\n</DOC>\n",
	} {
		bad := writeTemp(t, "bad", body)
		_, err := Load("cacm", bad, topics, qrels)
		wantParseError(t, name, err, bad, 1)
	}
}
