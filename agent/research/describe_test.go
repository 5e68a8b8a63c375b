package research

import (
	"strings"
	"testing"
)

func TestDescribeChangeSpeaksInWords(t *testing.T) {
	plan := []Task{{ID: "t1", Query: "purge", Status: "done"}, {ID: "t2", Query: "cylinders", Status: "pending"}}
	cases := []struct {
		name          string
		before, after State
		want          []string
	}{
		{"nothing", State{ElapsedNS: 1}, State{ElapsedNS: 9}, []string{"nothing new"}},
		{"retrieval", State{}, State{Evidence: make([]Evidence, 4), Queries: []string{"a", "b"}, DedupRatio: 0.5},
			[]string{"2 search queries written", "4 new passages found (4 in all)"}},
		{"questions", State{}, State{Coverage: 0.5, Gaps: []string{"g"}, Questions: []string{"q1", "q2"}},
			[]string{"coverage 50 %", "1 gap named", "2 questions for you"}},
		{"plan", State{}, State{Plan: plan[:1], PlanRounds: 1}, []string{"plan of 1 task proposed", "1 task done (1 of 1)"}},
		{"work", State{Plan: []Task{{ID: "t1"}, {ID: "t2"}}}, State{Plan: plan, Findings: make([]Finding, 3), RefTokens: map[string]int{"t1": 80},
			References: []RefRecord{{State: RefFollowed}, {State: RefFollowed}, {State: RefUnresolved}, {State: RefOverBudget}}},
			[]string{"1 task done (1 of 2)", "3 findings", "4 references: 2 followed, 1 unresolved, 1 over budget"}},
		{"report", State{}, State{Report: "one two three [1].", Sources: []Source{{N: 1}}}, []string{"report written (4 words, 1 source)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := DescribeChange(&c.before, &c.after)
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("%q lacks %q", got, w)
				}
			}
			for _, field := range []string{"elapsed_ns", "ref_tokens", "dedup_ratio", "changed "} {
				if strings.Contains(got, field) {
					t.Errorf("%q names an internal field %q", got, field)
				}
			}
		})
	}
}
