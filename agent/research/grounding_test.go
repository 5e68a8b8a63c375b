package research

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"warren/llm/llmtest"
)

func TestSentences(t *testing.T) {
	p := "Der TLV beträgt 0,05 ppm [1]. Die Siedetemperatur liegt bei −62,5 °C. [2] 3 Absätze folgen.\n- Punkt eins mit 1.5 bar\n- Punkt zwei"
	want := []string{"Der TLV beträgt 0,05 ppm [1].", "Die Siedetemperatur liegt bei −62,5 °C. [2]", "3 Absätze folgen.", "- Punkt eins mit 1.5 bar", "- Punkt zwei"}
	got := sentences(p)
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("sentences:\n got %q\nwant %q", got, want)
	}
}

func TestCheckNumbers(t *testing.T) {
	passages := map[int]string{
		1: "Arsine: ACGIH TLV-TWA 0.005 ppm (0.016 mg/m³). CAS 7784-42-1. Boiling point −62.5 °C.",
		2: "Phosphine: TLV-TWA 0.3 ppm, STEL 1 ppm.",
	}
	tests := []struct {
		report string
		want   []string // the claims found unsupported, per sentence
	}{
		{"The TLV of arsine is 0.005 ppm [1].", nil},
		{"The TLV of arsine is 0,005 ppm (16 µg/m³) [1].", nil},
		{"Arsine (CAS 7784-42-1) boils at 210.65 K [1].", nil},
		{"The TLV of arsine is 0.05 ppm [1].", []string{"0.05 ppm"}},
		{"The TLV of arsine is 0.005 ppm [2].", []string{"0.005 ppm"}}, // cited to the wrong source
		{"The TLV of arsine is 0.005 ppm [1, 2].", nil},
		{"Arsine has CAS 7784-42-2 [1].", []string{"7784-42-2"}},
		{"Arsine's limit is 5 [1].", []string{"5"}}, // a limit value needs no unit
		{"Since 2017 there are 3 tables [1].", nil}, // years and counts are not checked
		{"The TLV is 0.05 ppm.\n\nNothing here is cited, so CheckCitations reports it.", nil},
		{"# TLV 0.05 ppm\n\nThe phosphine STEL is 1 ppm. It is 0.3 ppm as TWA [2].", nil}, // the paragraph's citation holds for both
		{"The phosphine STEL is 10 ppm. It is 0.3 ppm as TWA [2].", []string{"10 ppm"}},
	}
	for _, tt := range tests {
		found := CheckNumbers(tt.report, passages)
		var got []string
		for _, u := range found {
			got = append(got, u.Claims...)
		}
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("CheckNumbers(%q) = %q, want %q", tt.report, got, tt.want)
		}
	}
}

// reportState is a state at the report: two findings whose passages state arsine's numbers.
func reportState() *State {
	return &State{Question: "What is the exposure limit of arsine?", Language: "en", Findings: []Finding{
		{Task: "t1", ChunkID: "x#1", Doc: "arsine-sds", Collection: "suppliers", Information: "TLV-TWA 0.005 ppm",
			Excerpt: "Arsine: ACGIH TLV-TWA 0.005 ppm (0.016 mg/m³). CAS 7784-42-1."},
		{Task: "t1", ChunkID: "x#2", Doc: "arsine-dossier", Collection: "internal", Information: "boiling point",
			Excerpt: "Arsine boils at −62.5 °C."},
	}}
}

// scriptReportDrafts answers the report's calls: drafts in order, a model check that finds
// nothing wrong (it misses numbers, as small models do), and remediation that asks for a
// second draft. It counts the remediation calls and keeps their prompts.
func scriptReportDrafts(srv *llmtest.Server, drafts []string, remediations *atomic.Int32, prompts *[]string) {
	srv.Handle(&llmtest.Rule{Name: "drafts", Contains: "Write the research report", Replies: drafts})
	srv.Handle(&llmtest.Rule{Name: "quality", SchemaHas: "factual_accuracy", Replies: []string{reply(map[string]any{
		"factual_accuracy": 95, "semantic_validity": 95, "structural_integrity": 95, "citation_correctness": 95, "query_relevance": 95, "issues": []string{}})}})
	srv.Handle(&llmtest.Rule{Name: "remediation", SchemaHas: "decision", Reply: func(c llmtest.Call) string {
		remediations.Add(1)
		*prompts = append(*prompts, c.LastUser())
		return `{"decision":"retry","focus":"Check the numbers."}`
	}})
}

// runReport drives the report's nodes as the graph routes them: synthesize, check, remediate
// and write again when the check says so, attribute.
func runReport(t *testing.T, d *Deps, s *State) []string {
	t.Helper()
	ctx := context.Background()
	var route []string
	if _, err := d.synthesize(ctx, caller{}, s); err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := d.quality(ctx, caller{}, s); err != nil {
			t.Fatal(err)
		}
		next := d.afterQuality(s)
		route = append(route, next)
		if next != "remediate" {
			break
		}
		if _, err := d.remediate(ctx, caller{}, s); err != nil {
			t.Fatal(err)
		}
		if afterRemediation(s) != "synthesize" {
			break
		}
		if _, err := d.synthesize(ctx, caller{}, s); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.attribute(ctx, caller{}, s); err != nil {
		t.Fatal(err)
	}
	return route
}

// A report that gives arsine's limit as 0.05 ppm, citing a passage that says 0.005 ppm, is
// flagged by the check although the model's own check scores it high, and goes to remediation,
// which is told the number; the second draft, with the right number, is not flagged.
func TestWrongNumberIsFlaggedAndRemediated(t *testing.T) {
	h := newHarness(t)
	var remediations atomic.Int32
	var prompts []string
	scriptReportDrafts(h.srv, []string{
		"The ACGIH limit for arsine is a TLV-TWA of 0.05 ppm [1]. It boils at −62.5 °C [2].",
		"The ACGIH limit for arsine is a TLV-TWA of 0.005 ppm [1]. It boils at −62.5 °C [2].",
	}, &remediations, &prompts)
	s := reportState()
	route := runReport(t, h.svc.Deps, s)
	if strings.Join(route, ",") != "remediate,attribute" || remediations.Load() != 1 {
		t.Fatalf("route %v with %d remediation(s): the wrong number must send the draft to remediation once", route, remediations.Load())
	}
	if !strings.Contains(prompts[0], "0.05 ppm not stated by the cited source(s) 1") {
		t.Errorf("remediation was not told the unsupported number:\n%s", prompts[0])
	}
	if !strings.Contains(s.RetryFocus, "0.05 ppm") {
		t.Errorf("the second draft's focus does not name the number: %q", s.RetryFocus)
	}
	if len(s.Quality.Unsupported) != 0 || strings.Contains(s.Report, UnsupportedMark) {
		t.Errorf("the corrected draft is flagged: %+v\n%s", s.Quality.Unsupported, s.Report)
	}
}

// A wrong number the second draft repeats is marked in the final report, with a note above it.
func TestRepeatedWrongNumberIsMarked(t *testing.T) {
	h := newHarness(t)
	var remediations atomic.Int32
	var prompts []string
	scriptReportDrafts(h.srv, []string{"The ACGIH limit for arsine is a TLV-TWA of 0.05 ppm [1]."}, &remediations, &prompts)
	s := reportState()
	if route := runReport(t, h.svc.Deps, s); strings.Join(route, ",") != "remediate,attribute" {
		t.Errorf("route %v", route)
	}
	if len(s.Quality.Unsupported) != 1 || !strings.Contains(s.Report, "The ACGIH limit for arsine is a TLV-TWA of 0.05 ppm [1]. ("+UnsupportedMark+" 0.05 ppm not stated by source 1)") ||
		!strings.HasPrefix(s.Report, "> 1 sentence(s) state numbers") {
		t.Errorf("the accepted wrong number is not marked: %+v\n%s", s.Quality.Unsupported, s.Report)
	}
}

// A report whose numbers its sources state (in another spelling, another unit) is not
// flagged: no remediation, no mark.
func TestRightNumbersAreNotFlagged(t *testing.T) {
	h := newHarness(t)
	var remediations atomic.Int32
	var prompts []string
	scriptReportDrafts(h.srv, []string{
		"The ACGIH limit for arsine (CAS 7784-42-1) is a TLV-TWA of 0,005 ppm, or 16 µg/m³ [1]. It boils at 210.65 K [2].",
	}, &remediations, &prompts)
	s := reportState()
	route := runReport(t, h.svc.Deps, s)
	if strings.Join(route, ",") != "attribute" || remediations.Load() != 0 {
		t.Errorf("route %v with %d remediation(s) for a report with the right numbers: %v", route, remediations.Load(), s.Quality.Problems)
	}
	if len(s.Quality.Unsupported) != 0 || strings.Contains(s.Report, UnsupportedMark) {
		t.Errorf("flagged: %+v\n%s", s.Quality.Unsupported, s.Report)
	}
}
