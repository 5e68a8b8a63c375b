package ireval

import (
	"fmt"
	"strings"
	"testing"

	"warren/kb/lexical"
	"warren/kb/load"
)

// Documents longer than a chunk. None of the three collections has long documents (their
// means are 45–100 analysed terms), and no collection of long documents with relevance
// judgments is at hand (shared/data's German laws and RFCs have none). What can be measured
// honestly is how passage scores combine on these documents cut into the passages warren
// would cut them into: at the knowledge base's chunk size (1,200 bytes, 150 overlapping) a
// part of them spans two or three chunks, at 400 bytes most span several. The documents are
// real and so are the judgments; the documents are short, so the figures speak for documents
// of a few passages, not for a 50-page decision.
//
//	go test -run TestPassageAggregation -v ./retrieval/ireval/ -loo

func TestPassageAggregation(t *testing.T) {
	if !*looFlag {
		t.Skip("the ranking study runs with -loo")
	}
	p := lexical.DefaultParams()
	for _, opts := range []load.ChunkOptions{evalChunking, load.DefaultChunkOptions, {Size: 400, Overlap: 50}} {
		hs := harnessCollections(t, opts)
		for _, h := range hs {
			perDoc := map[string]int{}
			for _, d := range h.docOf {
				perDoc[d]++
			}
			multi := 0
			for _, n := range perDoc {
				if n > 1 {
					multi++
				}
			}
			row := fmt.Sprintf("chunks of %5d bytes, %-9s %.2f passages a document, %3.0f %% in more than one:", opts.Size, h.name,
				float64(len(h.docOf))/float64(len(perDoc)), 100*float64(multi)/float64(len(perDoc)))
			for _, share := range []float64{0, 0.1, 0.25, 0.5, 1} {
				run := map[string][]string{}
				var cache lexical.Cache
				for _, q := range h.coll.Judged() {
					var hits []Passage
					for _, hit := range h.search(&cache, p, q.Text, 1000) {
						hits = append(hits, Passage{h.docOf[hit.ChunkID], hit.Score})
					}
					docs := RankDocuments(hits, share)
					run[q.ID] = docs[:min(len(docs), DefaultK)]
				}
				row += fmt.Sprintf(" %.2f→%.4f", share, Evaluate(h.coll, run).MAP)
			}
			t.Log(row)
		}
	}
}

// A document ranks by its best passage; with a share, its other passages add to it; ties go
// by the best passage's rank.
func TestRankDocuments(t *testing.T) {
	passages := []Passage{{"a", 5}, {"b", 4}, {"c", 4}, {"b", 3}, {"b", 2}, {"a", 1}}
	for _, tc := range []struct {
		share float64
		want  string
	}{{0, "a b c"}, {0.5, "b a c"}, {1, "b a c"}} {
		if got := strings.Join(RankDocuments(passages, tc.share), " "); got != tc.want {
			t.Errorf("share %g: %s, want %s", tc.share, got, tc.want)
		}
	}
	if got := RankDocuments(nil, 0); len(got) != 0 {
		t.Errorf("no passages: %v", got)
	}
}
