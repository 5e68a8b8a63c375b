package tablequery

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/expr-lang/expr/vm"

	"warren/llm"
	"warren/llm/llmtest"
)

// failsOnEveryRow compiles and fails on every row when it runs: int() of a gas name.
const failsOnEveryRow = `int(name) > 3 and empty(cas_number)`

// A model expression that compiles but fails on every row while it runs is recovered from
// like a compile error: the fix tier is told it failed at run time, with the original question
// (it used to be returned as the answer, and the run failed later).
func TestRuntimeErrorIsFixedInTierOne(t *testing.T) {
	srv := llmtest.New(t)
	srv.Handle(&llmtest.Rule{Name: "tier 1", Contains: runtimeOpening, Replies: []string{reply(goodExpr)}})
	srv.Handle(&llmtest.Rule{Name: "tier 0", Contains: questionLabel, Replies: []string{reply(failsOnEveryRow)}})
	ans, err := AskOver(context.Background(), newGateway(t, srv.URL), llm.Call{}, gasSchema, gasRows, question)
	if err != nil {
		t.Fatal(err)
	}
	if ans.Fallback || ans.Expression != goodExpr || !slices.Equal(tiers(ans), []int{TierWrite, TierFix}) {
		t.Fatalf("want the fixed expression from tier 1: %+v", ans)
	}
	if e := ans.Attempts[0].Error; e == nil || e.Kind != Runtime || !strings.Contains(e.Message, "int(Argon)") {
		t.Errorf("the first attempt failed at run time: %+v", e)
	}
	fix := lastUser(chats(srv)[1])
	for _, want := range []string{runtimeOpening, failsOnEveryRow, "int(Argon)", questionLabel + question} {
		if !strings.Contains(fix, want) {
			t.Errorf("the fix prompt lacks %q:\n%s", want, fix)
		}
	}
	if got, err := Run(mustCompile(t, ans.Expression), gasRows); err != nil || !slices.Equal(got, []int{3}) {
		t.Errorf("the answer runs: %v %v", got, err)
	}
}

// Runtime errors drive every tier and the fallback, within the six calls of a question; the
// fresh start lists the failed expressions with why, and the original question.
func TestRuntimeErrorsRunEveryTierWithinTheCap(t *testing.T) {
	srv := llmtest.New(t)
	srv.Handle(&llmtest.Rule{Name: "any", Contains: questionLabel, Replies: []string{reply(failsOnEveryRow)}})
	ans, err := AskOver(context.Background(), newGateway(t, srv.URL), llm.Call{}, gasSchema, gasRows, question)
	if err != nil {
		t.Fatal(err)
	}
	want := []int{TierWrite, TierFix, TierFix, TierFresh, TierFresh, TierFallback}
	if !ans.Fallback || !slices.Equal(tiers(ans), want) || ans.Calls > MaxCalls || len(chats(srv)) > MaxCalls {
		t.Fatalf("tiers %v, fallback %v, %d calls (%d requests)", tiers(ans), ans.Fallback, ans.Calls, len(chats(srv)))
	}
	last := lastUser(chats(srv)[len(chats(srv))-1])
	if !strings.HasPrefix(last, freshOpening) || !strings.Contains(last, "runtime: ") || !strings.Contains(last, questionLabel+question) {
		t.Errorf("the fresh start names the runtime failures and the question:\n%s", last)
	}
	if _, err := Run(mustCompile(t, ans.Expression), gasRows); err != nil {
		t.Errorf("the fallback runs: %v", err)
	}
}

// Without rows (Ask), an expression is only compiled: the runtime check needs the table.
func TestAskWithoutRowsOnlyCompiles(t *testing.T) {
	srv := llmtest.New(t)
	srv.Handle(&llmtest.Rule{Name: "tier 0", Contains: questionLabel, Replies: []string{reply(failsOnEveryRow)}})
	ans := askScripted(t, srv)
	if ans.Fallback || ans.Expression != failsOnEveryRow || ans.Calls != 1 {
		t.Errorf("%+v", ans)
	}
}

func mustCompile(t *testing.T, expression string) *vm.Program {
	t.Helper()
	p, err := Compile(gasSchema, expression)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
