package ireval

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

const eps = 1e-9

func near(a, b float64) bool { return math.Abs(a-b) < eps }

func checkMetrics(t *testing.T, name string, got, want Metrics) {
	t.Helper()
	if !near(got.MAP, want.MAP) || !near(got.NDCG10, want.NDCG10) || !near(got.P10, want.P10) ||
		!near(got.Recall100, want.Recall100) || got.Queries != want.Queries {
		t.Errorf("%s:\n got  %+v\n want %+v", name, got, want)
	}
}

func TestEvaluateQueryBinary(t *testing.T) {
	// [rel, non, rel] with 2 relevant docs, both retrieved.
	judged := map[string]int{"a": 1, "c": 1, "x": 0}
	got := EvaluateQuery(judged, []string{"a", "b", "c"})
	idcg := 1 + 1/math.Log2(3)
	checkMetrics(t, "rel,non,rel", got, Metrics{
		MAP:       (1 + 2.0/3) / 2,
		NDCG10:    (1 + 1/math.Log2(4)) / idcg,
		P10:       0.2,
		Recall100: 1,
		Queries:   1,
	})
	// A judged non-relevant doc (grade 0) is not relevant.
	got = EvaluateQuery(judged, []string{"x", "a"})
	checkMetrics(t, "non(judged),rel", got, Metrics{
		MAP:       (1.0 / 2) / 2,
		NDCG10:    (1 / math.Log2(3)) / idcg,
		P10:       0.1,
		Recall100: 0.5,
		Queries:   1,
	})
}

func TestEvaluateQueryGraded(t *testing.T) {
	// Grades 3, 2, 1; the run finds the grade-1 doc first, then the grade-3 doc, misses grade 2.
	judged := map[string]int{"d1": 3, "d2": 1, "d3": 2}
	got := EvaluateQuery(judged, []string{"d2", "d1", "n1"})
	dcg := 1 + 3/math.Log2(3)
	idcg := 3 + 2/math.Log2(3) + 1/math.Log2(4)
	checkMetrics(t, "graded", got, Metrics{
		MAP:       (1.0 + 1.0) / 3,
		NDCG10:    dcg / idcg,
		P10:       0.2,
		Recall100: 2.0 / 3,
		Queries:   1,
	})
	// The ideal order scores nDCG 1; perfect binary MAP too.
	got = EvaluateQuery(judged, []string{"d1", "d3", "d2"})
	if !near(got.NDCG10, 1) || !near(got.MAP, 1) {
		t.Errorf("ideal ranking: %+v", got)
	}
	// Same docs, grades ignored by MAP but not by nDCG: worst order of the three.
	got = EvaluateQuery(judged, []string{"d2", "d3", "d1"})
	if !near(got.MAP, 1) || !(got.NDCG10 < 1) {
		t.Errorf("reversed grades: %+v", got)
	}
}

func TestEvaluateQueryCutoffs(t *testing.T) {
	judged := map[string]int{"r11": 1, "r101": 1}
	ranked := make([]string, 0, 101)
	for i := 1; i <= 101; i++ {
		id := fmt.Sprintf("n%d", i)
		switch i {
		case 11:
			id = "r11"
		case 101:
			id = "r101"
		}
		ranked = append(ranked, id)
	}
	got := EvaluateQuery(judged, ranked)
	checkMetrics(t, "cutoffs", got, Metrics{
		MAP:       (1.0/11 + 2.0/101) / 2, // MAP looks at the whole ranking
		NDCG10:    0,                      // nothing relevant in the top 10
		P10:       0,
		Recall100: 0.5, // rank 101 is past the cutoff
		Queries:   1,
	})
}

func TestEvaluateQueryEdgeCases(t *testing.T) {
	judged := map[string]int{"a": 2, "b": 1}
	checkMetrics(t, "no results", EvaluateQuery(judged, nil), Metrics{Queries: 1})
	checkMetrics(t, "no relevant judgments", EvaluateQuery(map[string]int{"a": 0}, []string{"a"}), Metrics{})
	// A repeated doc counts once, at its first rank: [a, a, b] is scored as [a, b].
	checkMetrics(t, "duplicates", EvaluateQuery(judged, []string{"a", "a", "b"}), EvaluateQuery(judged, []string{"a", "b"}))
	// P@10 divides by 10 even when fewer than 10 docs are returned.
	if got := EvaluateQuery(judged, []string{"a"}); !near(got.P10, 0.1) {
		t.Errorf("P@10 of one relevant hit = %v, want 0.1", got.P10)
	}
}

func TestEvaluateAverages(t *testing.T) {
	c := &Collection{
		Queries: []Query{{ID: "1", Text: "one"}, {ID: "2", Text: "two"}, {ID: "3", Text: "three"}, {ID: "4", Text: "four"}},
		Qrels: Qrels{
			"1": {"a": 1, "c": 1},
			"2": {"x": 1},
			"3": {"y": 0}, // judged, nothing relevant: not evaluated
			// "4" has no judgments: not evaluated
			"99": {"z": 1}, // not in the query file: not evaluated
		},
	}
	run := map[string][]string{
		"1": {"a", "b", "c"},
		// "2" missing from the run: scores 0
		"3": {"y"},
		"4": {"q"},
	}
	got := Evaluate(c, run)
	idcg := 1 + 1/math.Log2(3)
	checkMetrics(t, "mean", got, Metrics{
		MAP:       (1 + 2.0/3) / 2 / 2,
		NDCG10:    (1 + 1/math.Log2(4)) / idcg / 2,
		P10:       0.2 / 2,
		Recall100: 1.0 / 2,
		Queries:   2,
	})
	run["2"] = []string{"x"}
	got = Evaluate(c, run)
	if !near(got.MAP, ((1+2.0/3)/2+1)/2) || got.Queries != 2 {
		t.Errorf("with query 2 answered: %+v", got)
	}
	checkMetrics(t, "empty collection", Evaluate(&Collection{}, run), Metrics{})
}

func TestMetricsJSON(t *testing.T) {
	b, err := json.Marshal(Metrics{MAP: 0.5, NDCG10: 0.25, P10: 0.1, Recall100: 1, Queries: 3})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"map":0.5,"ndcg10":0.25,"p10":0.1,"recall100":1,"queries":3}`
	if string(b) != want {
		t.Errorf("json = %s, want %s", b, want)
	}
}

func TestRun(t *testing.T) {
	c := &Collection{
		Queries: []Query{{ID: "1", Text: "alpha"}, {ID: "2", Text: "beta"}, {ID: "3", Text: "gamma"}},
		Qrels:   Qrels{"1": {"a": 1}, "3": {"c": 2}},
	}
	var asked []string
	search := func(q string, k int) ([]string, error) {
		asked = append(asked, fmt.Sprintf("%s/%d", q, k))
		out := make([]string, k+5) // more than asked for: Run cuts to k
		for i := range out {
			out[i] = fmt.Sprintf("%s%d", q[:1], i)
		}
		return out, nil
	}
	run, err := Run(c, search, 0)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(asked) != "[alpha/100 gamma/100]" {
		t.Errorf("searcher calls = %v, want only the judged queries with k=100", asked)
	}
	if len(run) != 2 || len(run["1"]) != 100 || len(run["3"]) != 100 || run["1"][0] != "a0" {
		t.Errorf("run = %d queries, len(1)=%d len(3)=%d", len(run), len(run["1"]), len(run["3"]))
	}
	asked = nil
	if _, err := Run(c, search, 7); err != nil || fmt.Sprint(asked) != "[alpha/7 gamma/7]" {
		t.Errorf("k=7: calls %v, err %v", asked, err)
	}

	boom := errors.New("boom")
	_, err = Run(c, func(q string, k int) ([]string, error) {
		if q == "gamma" {
			return nil, boom
		}
		return nil, nil
	}, 10)
	if !errors.Is(err, boom) || err == nil || !strings.Contains(err.Error(), "query 3") {
		t.Errorf("searcher error = %v, want it wrapped with the query ID", err)
	}
	if _, err := Run(c, nil, 10); err == nil {
		t.Error("nil searcher accepted")
	}
}
