package tablequery

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"warren/llm"
	"warren/llm/llmtest"
)

const question = "flammable gases without a CAS number"

const goodExpr = `hazard_class contains "Flammable" and empty(cas_number)`

// script answers each tier by the phrase its prompt opens with.
func script(t *testing.T, write, fix, fresh []string) *llmtest.Server {
	t.Helper()
	srv := llmtest.New(t)
	if fresh != nil {
		srv.Handle(&llmtest.Rule{Name: "tier 2", Contains: freshOpening, Replies: fresh})
	}
	if fix != nil {
		srv.Handle(&llmtest.Rule{Name: "tier 1", Contains: fixOpening, Replies: fix})
	}
	srv.Handle(&llmtest.Rule{Name: "tier 0", Contains: questionLabel, Replies: write})
	t.Cleanup(func() {
		if u := srv.Unmatched(); len(u) > 0 {
			t.Errorf("requests no rule answered: %q", u)
		}
	})
	return srv
}

func askScripted(t *testing.T, srv *llmtest.Server) *Answer {
	t.Helper()
	ans, err := Ask(context.Background(), newGateway(t, srv.URL), llm.Call{}, gasSchema, question)
	if err != nil {
		t.Fatal(err)
	}
	return ans
}

// chats returns the chat requests the server received.
func chats(srv *llmtest.Server) []llmtest.Recorded {
	var out []llmtest.Recorded
	for _, r := range srv.Requests() {
		if r.Path == "/api/chat" {
			out = append(out, r)
		}
	}
	return out
}

func lastUser(r llmtest.Recorded) string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Content
		}
	}
	return ""
}

func tiers(ans *Answer) []int {
	var out []int
	for _, a := range ans.Attempts {
		out = append(out, a.Tier)
	}
	return out
}

// checkAnswer asserts the answer compiles and selects the rows of the question.
func checkModelAnswer(t *testing.T, ans *Answer, wantTiers []int) {
	t.Helper()
	if ans.Fallback || ans.ModelError != nil {
		t.Fatalf("want a model answer, got fallback=%v error=%v note=%q", ans.Fallback, ans.ModelError, ans.Note)
	}
	if got := tiers(ans); !slices.Equal(got, wantTiers) {
		t.Errorf("attempt tiers %v, want %v (%+v)", got, wantTiers, ans.Attempts)
	}
	if last := ans.Attempts[len(ans.Attempts)-1]; last.Error != nil || last.Expression != ans.Expression {
		t.Errorf("the last attempt should be the answer: %+v", last)
	}
	if got := match(t, ans.Expression); !slices.Equal(got, []int{3}) {
		t.Errorf("%s selects %v, want [3]", ans.Expression, got)
	}
	if ans.Calls != len(wantTiers) || len(ans.Ledger) != ans.Calls {
		t.Errorf("calls %d, ledger %d, want %d", ans.Calls, len(ans.Ledger), len(wantTiers))
	}
}

func TestAskValidFirstAnswer(t *testing.T) {
	srv := script(t, []string{reply(goodExpr)}, nil, nil)
	ans := askScripted(t, srv)
	checkModelAnswer(t, ans, []int{TierWrite})
	if ans.Explanation == "" {
		t.Error("the model's explanation was dropped")
	}
	reqs := chats(srv)
	if len(reqs) != 1 {
		t.Fatalf("want 1 call, got %d", len(reqs))
	}
	prompt := lastUser(reqs[0])
	for _, want := range []string{
		"flash_point_c (number, °C)", "health (whole number)", "toxic (true/false)", `"Flammable gas"`,
		"empty(x)", "has(x)", "no SQL", "Question: " + question,
	} {
		if !strings.Contains(prompt, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, prompt)
		}
	}
	if !strings.Contains(string(reqs[0].Format), `"expression"`) {
		t.Errorf("structured output not requested: %s", reqs[0].Format)
	}
}

func TestAskUnknownFieldFixedInTier1(t *testing.T) {
	srv := script(t, []string{reply(`hazard_class contains "Flammable" and empty(cas)`)}, []string{reply(goodExpr)}, nil)
	ans := askScripted(t, srv)
	checkModelAnswer(t, ans, []int{TierWrite, TierFix})
	if e := ans.Attempts[0].Error; e == nil || e.Kind != UnknownField || !slices.Contains(e.Suggestions, "cas_number") {
		t.Errorf("tier 0 error: %+v", e)
	}
	fix := chats(srv)[1]
	repair := lastUser(fix)
	if !strings.Contains(strings.ToLower(repair), "did you mean cas_number") || !strings.Contains(repair, "unknown field") ||
		!strings.Contains(repair, `empty(cas)`) {
		t.Errorf("the repair prompt should carry the expression, the kind and the did-you-mean name:\n%s", repair)
	}
	// The fix continues the conversation: the first prompt and answer come before it.
	if roles := roleList(fix); !slices.Equal(roles, []string{"system", "user", "assistant", "user"}) {
		t.Errorf("tier 1 messages %v", roles)
	}
}

func roleList(r llmtest.Recorded) []string {
	var out []string
	for _, m := range r.Messages {
		out = append(out, m.Role)
	}
	return out
}

func TestAskTypeMismatchFixedInTier1(t *testing.T) {
	srv := script(t, []string{reply(`flammability >= "4" and empty(cas_number)`)},
		[]string{reply(`flammability >= 4 and empty(cas_number) and has(flash_point_c)`)}, nil)
	ans := askScripted(t, srv)
	if e := ans.Attempts[0].Error; e == nil || e.Kind != TypeMismatch {
		t.Fatalf("tier 0 error: %+v", e)
	}
	if ans.Fallback || len(ans.Attempts) != 2 || ans.Attempts[1].Tier != TierFix {
		t.Fatalf("want a tier 1 fix, got %+v", ans)
	}
	if got := match(t, ans.Expression); !slices.Equal(got, []int{3}) {
		t.Errorf("%s selects %v", ans.Expression, got)
	}
	if repair := lastUser(chats(srv)[1]); !strings.Contains(repair, "flammability (whole number)") {
		t.Errorf("the repair prompt should name the field's type:\n%s", repair)
	}
}

func TestAskSQLRejectedThenFixed(t *testing.T) {
	srv := script(t, []string{reply(`SELECT * FROM gases WHERE hazard_class LIKE '%Flammable%' AND cas_number IS NULL`)},
		[]string{reply(goodExpr)}, nil)
	ans := askScripted(t, srv)
	checkModelAnswer(t, ans, []int{TierWrite, TierFix})
	if e := ans.Attempts[0].Error; e == nil || e.Kind != SQL {
		t.Fatalf("tier 0 error: %+v", e)
	}
	if repair := lastUser(chats(srv)[1]); !strings.Contains(repair, "not SQL") || !strings.Contains(repair, "contains") {
		t.Errorf("the repair prompt should explain the SQL mistake:\n%s", repair)
	}
}

func TestAskSyntaxErrorsPersistingThroughTier1AreFixedByTier2(t *testing.T) {
	srv := script(t,
		[]string{reply(`hazard_class contains "Flammable" and (empty(cas_number)`)},
		[]string{reply(`hazard_class contains "Flammable and empty(cas_number)`), reply(`hazard_class contains and empty(cas_number)`)},
		[]string{reply(goodExpr)})
	ans := askScripted(t, srv)
	checkModelAnswer(t, ans, []int{TierWrite, TierFix, TierFix, TierFresh})
	for _, a := range ans.Attempts[:3] {
		if a.Error == nil || a.Error.Kind != Syntax {
			t.Errorf("attempt %+v: want a syntax error", a)
		}
	}
	fresh := chats(srv)[3]
	// A fresh start: its own system prompt, no earlier turns, the failures listed.
	if roles := roleList(fresh); !slices.Equal(roles, []string{"system", "user"}) || fresh.Messages[0].Content != systemFresh {
		t.Errorf("tier 2 should start a new conversation: %v", roles)
	}
	prompt := lastUser(fresh)
	for _, a := range ans.Attempts[:3] {
		if !strings.Contains(prompt, a.Expression) {
			t.Errorf("tier 2 prompt does not list the rejected %q:\n%s", a.Expression, prompt)
		}
	}
	if !strings.Contains(prompt, "do not repeat") || !strings.Contains(prompt, "cas_number (text)") {
		t.Errorf("tier 2 prompt lacks the warning or the field list:\n%s", prompt)
	}
}

func TestAskEverythingInvalidFallsBack(t *testing.T) {
	bad := reply(`hazard_class contains "Flammable" and empty(cas)`)
	srv := script(t, []string{bad}, []string{bad}, []string{bad})
	ans := askScripted(t, srv)
	if !ans.Fallback || ans.ModelError != nil {
		t.Fatalf("want a fallback after the tiers ran out, got %+v", ans)
	}
	if got := tiers(ans); !slices.Equal(got, []int{0, 1, 1, 2, 2, 3}) {
		t.Errorf("attempt tiers %v", got)
	}
	if n := srv.Count("/api/chat"); n > MaxCalls || n != ans.Calls || n != 5 {
		t.Errorf("%d chat requests, %d counted; want 5 (at most %d)", n, ans.Calls, MaxCalls)
	}
	if ans.Expression != `flammability >= 3 and empty(cas_number)` || !strings.HasPrefix(ans.Note, "fallback:") ||
		!strings.Contains(ans.Note, "no expression from the model compiled") {
		t.Errorf("fallback %q, note %q", ans.Expression, ans.Note)
	}
	// The word match reads the question as the model should have: flammable and no CAS.
	if got := match(t, ans.Expression); !slices.Equal(got, []int{3}) {
		t.Errorf("the fallback selects %v", got)
	}
}

// Answers that are not JSON make the gateway spend repair rounds inside one call; the cap
// counts those too and stops at six exchanges.
func TestAskNeverSpendsMoreThanSixCalls(t *testing.T) {
	srv := llmtest.New(t)
	srv.Handle(&llmtest.Rule{Name: "prose, never JSON", Replies: []string{"I think you want the flammable ones."}})
	ans := askScripted(t, srv)
	if n := srv.Count("/api/chat"); n != MaxCalls || ans.Calls != MaxCalls {
		t.Errorf("%d chat requests, %d counted; want exactly %d", n, ans.Calls, MaxCalls)
	}
	if !ans.Fallback || !errors.Is(ans.ModelError, llm.ErrBudgetExhausted) {
		t.Fatalf("want a fallback for a spent budget, got fallback=%v error=%v", ans.Fallback, ans.ModelError)
	}
	if !strings.Contains(ans.Note, "6 model calls a question may use are spent") {
		t.Errorf("note %q", ans.Note)
	}
	// Tier 0 lost its round to invalid JSON, so tier 1 had nothing to fix and tier 2 began.
	if got := tiers(ans); !slices.Equal(got, []int{0, 2, 3}) {
		t.Errorf("attempt tiers %v", got)
	}
}

func TestAskModelUnreachableFallsBack(t *testing.T) {
	srv := llmtest.Start()
	host := srv.URL
	srv.Close()
	ans, err := Ask(context.Background(), newGateway(t, host), llm.Call{}, gasSchema, question)
	if err != nil {
		t.Fatalf("an unreachable model should not fail Ask: %v", err)
	}
	if !ans.Fallback || !errors.Is(ans.ModelError, llm.ErrUnreachable) {
		t.Fatalf("want a fallback with ErrUnreachable, got fallback=%v error=%v", ans.Fallback, ans.ModelError)
	}
	if !strings.Contains(ans.Note, "could not be asked") || !strings.Contains(ans.Note, "ollama serve") {
		t.Errorf("the note should say why and how to fix it: %q", ans.Note)
	}
	if ans.Expression != `flammability >= 3 and empty(cas_number)` || ans.Calls != 1 {
		t.Errorf("expression %q, calls %d", ans.Expression, ans.Calls)
	}
}

func TestAskRespectsTheCallersRun(t *testing.T) {
	bad := reply(`empty(cas)`)
	srv := script(t, []string{bad}, []string{bad}, []string{bad})
	parent := llm.NewRun("research", llm.Budget{Calls: 10}, nil)
	parent.Restore(llm.Usage{Calls: 8})
	ctx, call := context.Background(), llm.Call{Run: parent}
	ans, err := Ask(ctx, newGateway(t, srv.URL), call, gasSchema, question)
	if err != nil {
		t.Fatal(err)
	}
	if n := srv.Count("/api/chat"); n != 2 || !ans.Fallback || !errors.Is(ans.ModelError, llm.ErrBudgetExhausted) {
		t.Errorf("want 2 calls (what the run had left) then a fallback; got %d calls, %+v", n, ans)
	}

	parent.Restore(llm.Usage{Calls: 10})
	ans, err = Ask(ctx, newGateway(t, srv.URL), call, gasSchema, question)
	if err != nil {
		t.Fatal(err)
	}
	if ans.Calls != 0 || !ans.Fallback || !strings.Contains(ans.Note, "budgets.model_calls") {
		t.Errorf("a spent run should fall back without calling: %+v", ans)
	}
}

func TestAskStopsWhenCancelled(t *testing.T) {
	srv := script(t, []string{reply(goodExpr)}, nil, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if ans, err := Ask(ctx, newGateway(t, srv.URL), llm.Call{}, gasSchema, question); err == nil || !errors.Is(err, context.Canceled) {
		t.Errorf("want a cancellation error, got %+v, %v", ans, err)
	}
}

// Cancelled after a call was spent, Ask still hands back that call for the caller's ledger.
func TestAskCancelledMidwayKeepsItsLedger(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := llmtest.New(t)
	srv.Handle(&llmtest.Rule{Reply: func(llmtest.Call) string {
		cancel() // the analyst presses Esc while the first answer arrives
		return reply("no_such_field == 1")
	}})
	ans, err := Ask(ctx, newGateway(t, srv.URL), llm.Call{}, gasSchema, question)
	if !errors.Is(err, context.Canceled) || ans == nil {
		t.Fatalf("want the cancellation with the answer so far: %+v %v", ans, err)
	}
	// Every request the server saw is in the ledger (the cancel may reach the first call
	// before its answer is read, so it may be there as an error). The server records a request
	// after its rule has answered, which may be after Ask returned: wait for that record.
	for deadline := time.Now().Add(5 * time.Second); srv.Count("/api/chat") == 0 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if n := srv.Count("/api/chat"); n == 0 || len(ans.Ledger) < n {
		t.Errorf("the server saw %d request(s); the ledger handed back holds %d", n, len(ans.Ledger))
	}
}

func TestAskRejectsAnUnusableSchema(t *testing.T) {
	if _, err := Ask(context.Background(), nil, llm.Call{}, Schema{{Name: "flash point", Type: TypeNumber}}, question); err == nil {
		t.Error("want an error for an unusable schema")
	}
}

func TestAskWithoutGatewayFallsBack(t *testing.T) {
	ans, err := Ask(context.Background(), nil, llm.Call{}, gasSchema, question)
	if err != nil || !ans.Fallback || ans.ModelError == nil || ans.Calls != 0 {
		t.Errorf("got %+v, %v", ans, err)
	}
}
