package ireval

import (
	"strings"
	"testing"

	"warren/internal/shareddata"
)

func cranfieldData(t *testing.T) *Collection {
	t.Helper()
	return sharedCollection(t, "cranfield", "ir/cranfield/cran.all.1400", "ir/cranfield/cran.qry", "ir/cranfield/cranqrel")
}

func cisiData(t *testing.T) *Collection {
	t.Helper()
	return sharedCollection(t, "cisi", "ir/cisi/CISI.ALL", "ir/cisi/CISI.QRY", "ir/cisi/CISI.REL")
}

func cacmData(t *testing.T) *Collection {
	t.Helper()
	return sharedCollection(t, "cacm", "ir/cacm/doc-text.trec", "ir/cacm/query-text.trec", "ir/cacm/qrels")
}

// sharedCollection loads a collection from its files in shared/data.
func sharedCollection(t *testing.T, name, docs, queries, qrels string) *Collection {
	t.Helper()
	c, err := Load(name, shareddata.Path(t, docs), shareddata.Path(t, queries), shareddata.Path(t, qrels))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// counts is what a loaded collection must hold; pairs are its judged pairs, all relevant.
type counts struct{ docs, queries, qrelQueries, judged, pairs int }

func checkCounts(t *testing.T, c *Collection, want counts) {
	t.Helper()
	if len(c.Docs) != want.docs {
		t.Errorf("docs = %d, want %d", len(c.Docs), want.docs)
	}
	if len(c.Queries) != want.queries {
		t.Errorf("queries = %d, want %d", len(c.Queries), want.queries)
	}
	if len(c.Qrels) != want.qrelQueries {
		t.Errorf("qrels cover %d queries, want %d", len(c.Qrels), want.qrelQueries)
	}
	if n := len(c.Judged()); n != want.judged {
		t.Errorf("judged queries = %d, want %d", n, want.judged)
	}
	if rel, all := pairs(c.Qrels); rel != want.pairs || all != want.pairs {
		t.Errorf("qrels pairs: %d relevant of %d, want %d of %d", rel, all, want.pairs, want.pairs)
	}
}

func pairs(q Qrels) (relevant, all int) {
	for _, m := range q {
		for _, g := range m {
			all++
			if g > 0 {
				relevant++
			}
		}
	}
	return relevant, all
}

func findDoc(t *testing.T, c *Collection, id string) Doc {
	t.Helper()
	for _, d := range c.Docs {
		if d.ID == id {
			return d
		}
	}
	t.Fatalf("doc %s not loaded", id)
	return Doc{}
}

func TestCranfieldCounts(t *testing.T) {
	c := cranfieldData(t)
	// cranqrel has 1837 lines, 225 of them -1.
	checkCounts(t, c, counts{docs: 1400, queries: 225, qrelQueries: 225, judged: 225, pairs: 1612})
	// Grade histogram: code 1 → 4 … code 4 → 1 (cranqrel: 128×1, 387×2, 734×3, 363×4).
	hist := map[int]int{}
	for _, m := range c.Qrels {
		for _, g := range m {
			hist[g]++
		}
	}
	want := map[int]int{4: 128, 3: 387, 2: 734, 1: 363}
	for g, n := range want {
		if hist[g] != n {
			t.Errorf("grade %d: %d pairs, want %d (all: %v)", g, hist[g], n, hist)
		}
	}
}

func TestCranfieldDetails(t *testing.T) {
	c := cranfieldData(t)
	// Queries are numbered by position: the first is .I 001, the last (225th) is .I 365.
	if q := c.Queries[0]; q.ID != "1" || !strings.HasPrefix(q.Text, "what similarity laws must be obeyed") {
		t.Errorf("first query = %+v", q)
	}
	if q := c.Queries[224]; q.ID != "225" || !strings.HasPrefix(q.Text, "what design factors can be used to control lift-drag ratios") {
		t.Errorf("last query = %+v", q)
	}
	if strings.Contains(c.Queries[0].Text, "\n") {
		t.Errorf("query text keeps newlines: %q", c.Queries[0].Text)
	}
	// "1 184 2" → grade 3; "1 486 -1" dropped.
	if g, ok := c.Qrels["1"]["184"]; !ok || g != 3 {
		t.Errorf("qrels[1][184] = %d, %v; want 3", g, ok)
	}
	if _, ok := c.Qrels["1"]["486"]; ok {
		t.Error("-1 line 1 486 was kept")
	}
	d := findDoc(t, c, "1")
	if d.Title != "experimental investigation of the aerodynamics of a\nwing in a slipstream ." {
		t.Errorf("doc 1 title = %q", d.Title)
	}
	if !strings.HasSuffix(d.Text, "the specific configuration of the experiment .") || !strings.Contains(d.Content(), "slipstream") {
		t.Errorf("doc 1 text = %q", d.Text)
	}
	if strings.Contains(d.Text, "brenckman") || strings.Contains(d.Text, "j. ae. scs.") {
		t.Error("doc 1 text contains the .A or .B field")
	}
	for _, id := range []string{"471", "995"} {
		if d := findDoc(t, c, id); d.Title != "" || d.Text != "" {
			t.Errorf("doc %s should be empty, got %+v", id, d)
		}
	}
	if c.Docs[1399].ID != "1400" {
		t.Errorf("last doc id = %s", c.Docs[1399].ID)
	}
}

func TestCISICounts(t *testing.T) {
	c := cisiData(t)
	checkCounts(t, c, counts{docs: 1460, queries: 112, qrelQueries: 76, judged: 76, pairs: 3114})
	for _, m := range c.Qrels {
		for d, g := range m {
			if g != 1 {
				t.Fatalf("CISI grade %d for doc %s, want 1", g, d)
			}
		}
	}
}

func TestCISIDetails(t *testing.T) {
	c := cisiData(t)
	d := findDoc(t, c, "1")
	if d.Title != "18 Editions of the Dewey Decimal Classifications" {
		t.Errorf("doc 1 title = %q", d.Title)
	}
	if !strings.HasPrefix(d.Text, "The present study is a history of the DEWEY Decimal") ||
		!strings.HasSuffix(d.Text, "librarianship in this country and abroad.") {
		t.Errorf("doc 1 text = %q", d.Text)
	}
	if strings.Contains(d.Content(), "Comaromi") || strings.Contains(d.Text, "1004") {
		t.Error("doc 1 indexes the .A or .X field")
	}
	// Query 1 has only .W; query 58 has .T, .A, .W and .B: take .T then .W.
	if q := c.Queries[0]; q.ID != "1" || !strings.HasPrefix(q.Text, "What problems and concerns are there in making up descriptive titles?") {
		t.Errorf("query 1 = %+v", q)
	}
	q := c.Queries[57]
	if q.ID != "58" || !strings.HasPrefix(q.Text, "Directions in Library Networking Bibliographic control before and after MARC") {
		t.Errorf("query 58 = %+v", q)
	}
	if strings.Contains(q.Text, "Avram") || strings.Contains(q.Text, "JASIS") {
		t.Errorf("query 58 includes .A or .B: %q", q.Text)
	}
	if _, ok := c.Qrels["1"]["28"]; !ok {
		t.Error("qrels[1][28] missing")
	}
}

func TestCACMCounts(t *testing.T) {
	c := cacmData(t)
	// 64 queries, 52 of them judged, 796 binary judgments.
	checkCounts(t, c, counts{docs: 3204, queries: 64, qrelQueries: 52, judged: 52, pairs: 796})
	// qrels as distributed name "CACM-756" for "CACM-0756" 55 times (shared/data's README).
	if n := c.Absent(); n != 55 {
		t.Errorf("%d judgments name absent documents, want 55", n)
	}
	padded, err := Load("cacm", shareddata.Path(t, "ir/cacm/doc-text.trec"), shareddata.Path(t, "ir/cacm/query-text.trec"), shareddata.Path(t, "ir/cacm/qrels.padded"))
	if err != nil {
		t.Fatal(err)
	}
	if n := padded.Absent(); n != 0 {
		t.Errorf("qrels.padded: %d judgments name absent documents, want 0", n)
	}
}

func TestCACMDetails(t *testing.T) {
	c := cacmData(t)
	d := findDoc(t, c, "CACM-0001")
	if d.Title != "Preliminary Report-International Algebraic Language" {
		t.Errorf("CACM-0001 title = %q", d.Title)
	}
	if d.Text != "CACM December, 1958\nPerlis, A. J.\nSamelson,K." {
		t.Errorf("CACM-0001 text = %q", d.Text)
	}
	// A title over two lines, an abstract, keywords and CR categories; no record line, no
	// citations.
	d = findDoc(t, c, "CACM-0011")
	if d.Title != "The Problem of Programming Communication with Changing Machines A Proposed Solution-Part 2" {
		t.Errorf("CACM-0011 title = %q", d.Title)
	}
	d = findDoc(t, c, "CACM-2500")
	if !strings.HasPrefix(d.Text, "Resource scheduling and allocation can be expensive") ||
		!strings.Contains(d.Text, "deadlock, resource allocation, scheduling") || !strings.HasSuffix(d.Text, "4.30 4.32") {
		t.Errorf("CACM-2500 text = %q", d.Text)
	}
	for _, doc := range c.Docs {
		if strings.Contains(doc.Text, "CA5812") || strings.Contains(doc.Text, "\t") {
			t.Fatalf("%s keeps its record line or citations: %q", doc.ID, doc.Text)
		}
	}
	if q := c.Queries[0]; q.ID != "1" || !strings.HasPrefix(q.Text, "What articles exist which deal with TSS") {
		t.Errorf("query 1 = %+v", q)
	}
}
