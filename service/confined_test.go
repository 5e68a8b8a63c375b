package service

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"warren/agent"
	"warren/agent/gasfill"
	"warren/agent/research"
	"warren/gas"
	"warren/kb"
	"warren/kb/chunk"
	"warren/retrieval"
	"warren/service/audit"
	"warren/service/grants"
	"warren/service/jobs"
)

// secret is a phrase only the confidential collection holds: nothing bob is given may carry it.
const secret = "merger terms are secret"

// bobsRefusal is the refusal every use case gives bob for confidential.
const bobsRefusal = "bob may not read confidential; an admin grants it: warren access grant bob confidential read"

// withAgreement adds to confidentialWorkspace a supply agreement with numbered sections in
// confidential, and a memo in general that refers to it.
func withAgreement(t *testing.T, s *Service) {
	t.Helper()
	dir := t.TempDir()
	for path, text := range map[string]string{
		"confidential/agreement.md": "# Bluefinch Supply Policy\n\n## 6 Prices\n\nThe price is 4.20 per kilo; the " + secret + ".\n",
		"general/memo.md":           "# Memo\n\nPrices are set out in the Bluefinch Supply Policy.\n",
	} {
		p := filepath.Join(dir, path)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Knowledge().Ingest(context.Background(), nil, IngestOptions{Paths: []string{filepath.Dir(p)}, Collection: filepath.Dir(path)}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestReferencesIntoAnUnreadableCollectionAreNotAccessible(t *testing.T) {
	s := confidentialWorkspace(t)
	withAgreement(t, s)
	ctx := context.Background()
	grant(t, s, "bob", "confidential", grants.None)
	grant(t, s, "alice", "confidential", grants.Read)
	bob := s.As("bob", false).Served()
	alice := s.As("alice", false).Served()

	for _, tc := range []struct{ text, from string }{
		{"Prices are set out in the Bluefinch Supply Policy.", ""},     // a document named by its title
		{"See section 6 of the Bluefinch Supply Policy.", ""},          // its section
		{"Prices are set out in the Bluefinch Supply Policy.", "memo"}, // from a readable document
	} {
		res, err := bob.Knowledge().ResolveReferences(ctx, retrieval.DetectorRegex, tc.text, tc.from, "", nil)
		if err != nil || len(res) == 0 {
			t.Fatalf("bob, %q: %+v %v", tc.text, res, err)
		}
		for _, r := range res {
			if r.Resolved != nil || r.Reason != retrieval.NotAccessible+bobsRefusal {
				t.Errorf("bob, %q → %s: resolved %+v, reason %q; want not accessible", tc.text, r.OriginalText, r.Resolved, r.Reason)
			}
		}
		res, err = alice.Knowledge().ResolveReferences(ctx, retrieval.DetectorRegex, tc.text, tc.from, "", nil)
		if err != nil || len(res) == 0 || res[0].Resolved == nil || res[0].Resolved.Collection != "confidential" {
			t.Errorf("alice, %q: %+v %v", tc.text, res, err)
		}
	}
	// Resolving from inside a document he may not read is refused outright.
	if _, err := bob.Knowledge().ResolveReferences(ctx, retrieval.DetectorRegex, "see section 6", "agreement", "", nil); !errors.Is(err, ErrNoAccess) || err.Error() != bobsRefusal {
		t.Errorf("bob resolving from the agreement: %v", err)
	}

	// The research agent's own reads: the resolver it follows references with, and the
	// passages it reads by ID.
	agentSvc, err := bob.researchAgent(0, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ref := retrieval.Resolved{}
	found, _ := bob.Knowledge().DetectReferences(ctx, retrieval.DetectorRegex, "See section 6 of the Bluefinch Supply Policy.", nil)
	if len(found) == 0 {
		t.Fatal("no reference detected")
	}
	ref = agentSvc.Deps.Resolver.Resolve(ctx, found[0], retrieval.Origin{Doc: "general/memo.md"})
	if ref.Resolved != nil || !strings.HasPrefix(ref.Reason, retrieval.NotAccessible) {
		t.Errorf("the agent's resolver: %+v", ref)
	}
	cs, err := agentSvc.Deps.Store.Chunks(ctx, []string{chunk.ID("confidential/agreement.md", 0), chunk.ID("general/memo.md", 0)})
	if err != nil || len(cs) != 1 || cs[0].Collection != "general" {
		t.Errorf("the agent's passages by ID: %+v %v", cs, err)
	}
	for name, read := range map[string]func() error{
		"section": func() error {
			_, err := agentSvc.Deps.Store.SectionChunks(ctx, "confidential/agreement.md", "6")
			return err
		},
		"document": func() error {
			_, err := agentSvc.Deps.Store.DocumentChunks(ctx, "confidential/agreement.md")
			return err
		},
		"vectors": func() error {
			_, err := agentSvc.Deps.Store.DocumentVectors(ctx, "confidential/agreement.md")
			return err
		},
		"listing": func() error { _, err := agentSvc.Deps.Store.Documents(ctx, "confidential"); return err },
	} {
		if err := read(); !errors.Is(err, kb.ErrNotAccessible) || err.Error() != bobsRefusal {
			t.Errorf("the agent reading the agreement's %s: %v", name, err)
		}
	}
	if hits, err := agentSvc.Deps.Store.Lexical(ctx, "bluefinch", "en", chunk.Scope{}, 10); err != nil || len(hits) == 0 || slices.ContainsFunc(hits, func(h chunk.Hit) bool { return strings.HasPrefix(h.ChunkID, "confidential/") }) {
		t.Errorf("the agent's lexical ranking: %+v %v", hits, err)
	}
	// The account's own agent reads it all: the test can fail.
	mine, _ := s.researchAgent(0, nil, nil)
	if cs, _ := mine.Deps.Store.Chunks(ctx, []string{chunk.ID("confidential/agreement.md", 0)}); len(cs) != 1 {
		t.Errorf("the account's agent reads %d passages of the agreement, want 1", len(cs))
	}
}

// alicesRun records a run of alice's that read passages of general and of confidential.
func alicesRun(t *testing.T, s *Service, run string) {
	t.Helper()
	ctx := context.Background()
	store := s.RunStore()
	if err := store.CreateRun(ctx, run, research.GraphName, "bluefinch"); err != nil {
		t.Fatal(err)
	}
	st := research.State{Question: "What do we know of bluefinch?", Queries: []string{"bluefinch"},
		Seen:     []string{chunk.ID("general/general.md", 0), chunk.ID("confidential/confidential.md", 0)},
		Evidence: []research.Evidence{{ChunkID: chunk.ID("general/general.md", 0), Doc: "general/general.md", Text: "a small bird"}, {ChunkID: chunk.ID("confidential/confidential.md", 0), Doc: "confidential/confidential.md", Text: "Project bluefinch: the " + secret}},
		Insights: []string{"the " + secret},
		Plan:     []research.Task{{ID: "t1", Query: "bluefinch " + secret, Status: "done"}},
		Findings: []research.Finding{{Task: "t1", Doc: "general/general.md", Collection: "general", Information: "a small bird"}, {Task: "t1", Doc: "confidential/confidential.md", Collection: "confidential", Information: "the " + secret}},
		Sources:  []research.Source{{N: 1, Doc: "general/general.md", Collection: "general", Excerpt: "a small bird"}, {N: 2, Doc: "confidential/confidential.md", Collection: "confidential", Excerpt: "the " + secret}},
		Report:   "Bluefinch is a bird [1]; the " + secret + " [2]."}
	raw, _ := json.Marshal(st)
	intr, _ := agent.NewInterrupt(research.InterruptQuestions, map[string]any{"questions": []string{"Is the " + secret + "?"}})
	for step, cp := range []agent.Checkpoint{
		{Run: run, Step: 1, Node: "refine", Status: agent.StatusInterrupted, State: raw, Interrupt: intr},
		{Run: run, Step: 2, Node: "report", Status: agent.StatusDone, State: raw},
	} {
		_ = step
		if err := store.Save(ctx, cp); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.ws.DB.ExecContext(ctx, `INSERT INTO jobs (id, kind, owner, title, state, created_at, updated_at)
VALUES (?, 'research', 'alice', 'bluefinch', 'done', '', '')`, run); err != nil {
		t.Fatal(err)
	}
}

func mustNotCarry(t *testing.T, who, what string, v any) {
	t.Helper()
	raw, _ := json.Marshal(v)
	if strings.Contains(string(raw), secret) || strings.Contains(string(raw), "secret") {
		t.Errorf("%s's %s carries the confidential passage: %s", who, what, raw)
	}
}

func TestAnotherAnalystsRunWithholdsWhatTheWatcherMayNotRead(t *testing.T) {
	s := confidentialWorkspace(t)
	ctx := context.Background()
	grant(t, s, "bob", "confidential", grants.None)
	grant(t, s, "alice", "confidential", grants.Read)
	grant(t, s, "carol", "confidential", grants.Read)
	const run = "run-bluefinch"
	alicesRun(t, s, run)
	bob := s.As("bob", false).Served()

	cp, st, err := bob.Research().RunState(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	mustNotCarry(t, "bob", "run state", st)
	mustNotCarry(t, "bob", "checkpoint", cp)
	if !slices.Equal(st.Withheld, []string{"confidential"}) || st.Question == "" || len(st.Findings) != 1 || st.Findings[0].Collection != "general" || len(st.Sources) != 1 || len(st.Plan) != 1 {
		t.Errorf("bob's view of alice's run: %+v", st)
	}
	if report := ResearchReport(st); !strings.Contains(report, "this run used confidential, which you may not read") || strings.Contains(report, "secret") {
		t.Errorf("the report bob is shown:\n%s", report)
	}
	sess, err := bob.Research().Session(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	mustNotCarry(t, "bob", "session (steps, interrupt and state)", sess)
	if len(sess.Steps) != 2 {
		t.Errorf("bob sees %d steps, want 2", len(sess.Steps))
	}
	if _, err := bob.Research().ExportReport(run, st.Report); !errors.Is(err, ErrNoAccess) || err.Error() != bobsRefusal {
		t.Errorf("bob exporting alice's report: %v", err)
	}
	if es := trail(t, s, audit.Filter{Analyst: "bob"}); len(es) == 0 || es[len(es)-1].Action != audit.ActionExport || es[len(es)-1].Outcome != audit.Refused {
		t.Errorf("bob's refused export in the trail: %+v", es)
	}

	// Alice, carol (who may read confidential), an admin and the account see it whole.
	for who, v := range map[string]*Service{"alice": s.As("alice", false).Served(), "carol": s.As("carol", false).Served(), "lead": s.As("lead", true).Served(), "ana": s} {
		_, st, err := v.Research().RunState(ctx, run)
		if err != nil || len(st.Withheld) != 0 || !strings.Contains(st.Report, secret) || len(st.Findings) != 2 {
			t.Errorf("%s's view of alice's run: %+v %v", who, st, err)
		}
	}
	if _, err := s.As("carol", false).Served().Research().ExportReport(run, "report"); err != nil {
		t.Errorf("carol's export: %v", err)
	}
	// Jobs lists give bob no snapshot of alice's run.
	list, _ := bob.Jobs().List(ctx)
	for _, j := range list {
		if len(j.Snapshot) > 0 {
			t.Errorf("bob's job list has %s's snapshot", j.Owner)
		}
	}
}

func TestWatchingAnotherAnalystsLiveRunWithholdsItsPassages(t *testing.T) {
	s := confidentialWorkspace(t)
	ctx := context.Background()
	grant(t, s, "bob", "confidential", grants.None)
	const run = "run-live"
	if err := s.RunStore().CreateRun(ctx, run, research.GraphName, "bluefinch"); err != nil {
		t.Fatal(err)
	}
	st := research.State{Question: "bluefinch?", Findings: []research.Finding{{Doc: "confidential/confidential.md", Collection: "confidential", Information: "the " + secret}}}
	raw, _ := json.Marshal(st)
	release := make(chan struct{})
	work := func(ctx context.Context, em *jobs.Emitter) (string, error) {
		em.Agent(agent.Event{Time: time.Now(), Run: run, Node: "execute", Kind: agent.EventNodeStarted})
		em.Agent(agent.Event{Time: time.Now(), Run: run, Node: "execute", Kind: agent.EventNodeFinished, Summary: "read the " + secret, State: raw})
		<-release
		em.Agent(agent.Event{Time: time.Now(), Run: run, Node: "execute", Kind: agent.EventNote, Summary: "following the " + secret})
		em.Agent(agent.Event{Time: time.Now(), Run: run, Node: "synthesize", Kind: agent.EventToken, Summary: secret})
		em.Agent(agent.Event{Time: time.Now(), Run: run, Node: "synthesize", Kind: agent.EventNodeFinished, Summary: "wrote the " + secret, State: raw})
		return jobs.JobDone, nil
	}
	if _, err := s.jobs.Start(ctx, run, jobs.KindResearch, "alice", "bluefinch", work); err != nil {
		t.Fatal(err)
	}
	watch := func(v *Service) []agent.Event {
		var mu sync.Mutex
		var got []agent.Event
		done := make(chan struct{})
		go func() {
			defer close(done)
			v.Research().Watch(ctx, run, func(e agent.Event) { mu.Lock(); got = append(got, e); mu.Unlock() })
		}()
		return func() []agent.Event {
			<-done
			mu.Lock()
			defer mu.Unlock()
			return got
		}()
	}
	var bobs, alices []agent.Event
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); bobs = watch(s.As("bob", false).Served()) }()
	go func() { defer wg.Done(); alices = watch(s.As("alice", false).Served()) }()
	time.Sleep(200 * time.Millisecond) // let both attach; a late one gets the record replayed
	close(release)
	wg.Wait()

	mustNotCarry(t, "bob", "watched events", bobs)
	if len(bobs) < 3 {
		t.Errorf("bob saw %d events of the run, want its steps: %+v", len(bobs), bobs)
	}
	if !slices.ContainsFunc(alices, func(e agent.Event) bool { return strings.Contains(e.Summary, secret) }) {
		t.Errorf("alice watching her own run saw no passage: %+v", alices)
	}
	hist, err := s.As("bob", false).Served().Research().History(ctx, run, 0)
	if err != nil || len(hist) == 0 {
		t.Fatalf("bob's history: %v %v", hist, err)
	}
	mustNotCarry(t, "bob", "history", hist)
}

func TestMovingADocumentNeedsWriteOnItsCollection(t *testing.T) {
	s := openService(t)
	ctx := context.Background()
	inbox := filepath.Join(s.WorkspaceDir(), "inbox")
	os.MkdirAll(inbox, 0o755)
	if err := os.WriteFile(filepath.Join(inbox, "permit.md"), []byte("# Permit\n\nThe site permit allows 40 cylinders.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Knowledge().Ingest(ctx, nil, IngestOptions{Paths: []string{inbox}, Collection: "permits"}); err != nil {
		t.Fatal(err)
	}
	grant(t, s, "bob", "permits", grants.Read)
	grant(t, s, "bob", "general", grants.Write)
	bob := s.As("bob", false).Served()
	_, err := bob.Knowledge().Ingest(ctx, nil, IngestOptions{Paths: []string{"inbox/permit.md"}, Collection: "general", Move: true})
	want := "bob may not ingest into permits; an admin grants it: warren access grant bob permits write"
	if !errors.Is(err, ErrNoAccess) || err.Error() != want {
		t.Errorf("bob moving the permit out of permits:\n got %v\nwant %s", err, want)
	}
	if docs, _ := s.Knowledge().Documents(ctx, "permits"); len(docs) != 1 {
		t.Errorf("permits holds %d documents after the refused move, want 1", len(docs))
	}
	grant(t, s, "bob", "permits", grants.Write)
	if _, err := bob.Knowledge().Ingest(ctx, nil, IngestOptions{Paths: []string{"inbox/permit.md"}, Collection: "general", Move: true}); err != nil {
		t.Errorf("with write on permits: %v", err)
	}
}

func TestOpeningADocumentIsAudited(t *testing.T) {
	s := confidentialWorkspace(t)
	ctx := context.Background()
	grant(t, s, "bob", "confidential", grants.None)
	bob := s.As("bob", false).Served()
	if _, err := bob.Knowledge().DocumentChunks(ctx, "general/general.md"); err != nil {
		t.Fatal(err)
	}
	bob.Knowledge().DocumentChunks(ctx, "confidential/confidential.md")
	var got []string
	for _, e := range trail(t, s, audit.Filter{Analyst: "bob"}) {
		if e.Action == audit.ActionOpen {
			got = append(got, e.Target+" "+e.Outcome)
		}
	}
	if want := []string{"general/general.md ok", "confidential/confidential.md refused"}; !slices.Equal(got, want) {
		t.Errorf("bob's openings in the trail: %q, want %q", got, want)
	}
}

// A run that `warren serve` resumes when it starts goes on as its analyst's served view: it
// reads only what bob may read, not what the server's account may.
func TestAResumedRunReadsOnlyWhatItsAnalystMayRead(t *testing.T) {
	for _, tc := range []struct {
		name       string
		served     bool
		wantSecret bool
	}{{"by serve", true, false}, {"outside serve", false, true}} {
		t.Run(tc.name, func(t *testing.T) {
			s := confidentialWorkspace(t)
			ctx := context.Background()
			grant(t, s, "bob", "confidential", grants.None)
			const run = "run-resumed"
			store := s.RunStore()
			if err := store.CreateRun(ctx, run, research.GraphName, "bluefinch"); err != nil {
				t.Fatal(err)
			}
			state, _ := json.Marshal(research.State{Question: "What is bluefinch?", Queries: []string{"bluefinch merger"}})
			if err := store.Save(ctx, agent.Checkpoint{Run: run, Step: 1, Node: "generate_queries", Next: "retrieve", Status: agent.StatusRunning, State: state}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.ws.DB.ExecContext(ctx, `INSERT INTO jobs (id, kind, owner, title, state, created_at, updated_at)
VALUES (?, 'research', 'bob', 'bluefinch', 'interrupted', '', '')`, run); err != nil {
				t.Fatal(err)
			}
			resume := s.Jobs().ResumeInterrupted
			if tc.served {
				resume = func(ctx context.Context) ([]jobs.Job, error) {
					return s.Jobs().ResumeServed(ctx, func(string) bool { return false })
				}
			}
			if resumed, err := resume(ctx); err != nil || len(resumed) != 1 {
				t.Fatalf("resumed %+v %v", resumed, err)
			}
			// The model is not there: the run fails at its first model call, after retrieving,
			// and its last checkpoint holds what it retrieved.
			waitForState(t, s, run, jobs.JobFailed)
			cp, err := store.Latest(ctx, run)
			var st research.State
			if err != nil || json.Unmarshal(cp.State, &st) != nil || len(st.Seen) == 0 {
				t.Fatalf("the resumed run retrieved nothing: %+v %v", cp, err)
			}
			seen := st.Seen
			read := slices.ContainsFunc(seen, func(id string) bool { return strings.HasPrefix(id, "confidential/") })
			if read != tc.wantSecret {
				t.Errorf("bob's resumed run read %v; confidential among them: %v, want %v", seen, read, tc.wantSecret)
			}
			s.jobs.Shutdown()
		})
	}
}

// A gas fill's filler is its analyst's: its searches and the documents it reads (a title that
// names the substance) keep to what bob may read.
func TestAGasFillReadsOnlyWhatItsAnalystMayRead(t *testing.T) {
	s := confidentialWorkspace(t)
	ctx := context.Background()
	grant(t, s, "bob", "confidential", grants.None)
	bobs := s.As("bob", false).Served().gasFiller(gasfill.DefaultOptions(), nil)
	mine := s.gasFiller(gasfill.DefaultOptions(), nil)
	for who, f := range map[string]*gasfill.Filler{"bob": bobs, "ana": mine} {
		res, err := f.Searcher.Search(ctx, retrieval.Request{Query: "bluefinch merger", K: 10})
		if err != nil {
			t.Fatal(err)
		}
		_, _, docErr := f.Store.Document(ctx, "confidential/confidential.md")
		if got, want := slices.Contains(resultCollections(res), "confidential"), who == "ana"; got != want {
			t.Errorf("%s's fill finds confidential passages: %v, want %v", who, got, want)
		}
		if got, want := docErr == nil, who == "ana"; got != want {
			t.Errorf("%s's fill reads the confidential document: %v (%v), want %v", who, got, docErr, want)
		}
	}
}

// The gas table is the team's: bob sees alice's filled values, but not the passage a value was
// read from when it lies in confidential, in the desk, its exports and its queries; he may
// reject or overwrite such a value, not approve it.
func TestAGasTableWithholdsSourcesTheAnalystMayNotRead(t *testing.T) {
	s := confidentialWorkspace(t)
	ctx := context.Background()
	grant(t, s, "bob", "confidential", grants.None)
	tab := deskTable()
	for _, f := range []string{"un_number", "boiling_point_c"} {
		c := tab.Row(1).Cells[f]
		c.SourceDoc, c.SourceSection, c.SourceChunk, c.Excerpt = "confidential/confidential.md", "Merger", chunk.ID("confidential/confidential.md", 0), "the "+secret
		tab.Row(1).Cells[f] = c
	}
	if err := s.GasStore().SaveTable(ctx, tab); err != nil {
		t.Fatal(err)
	}
	bob := s.As("bob", false).Served()
	seen, err := bob.Gas().Table(ctx, "fab")
	if err != nil {
		t.Fatal(err)
	}
	mustNotCarry(t, "bob", "gas table", seen)
	un := seen.Row(1).Cells["un_number"]
	if un.Value != "UN2203" || un.SourceDoc != "" || un.Excerpt != "(withheld: the source is in confidential, which you may not read)" {
		t.Errorf("bob's cell: %+v", un)
	}
	if other := seen.Row(1).Cells["autoignition_c"]; other.SourceDoc != "suppliers/silane.md" {
		t.Errorf("a source bob may read was withheld too: %+v", other)
	}
	if _, err := bob.Gas().Approve(ctx, "fab", 1, "un_number", un); !errors.Is(err, ErrNoAccess) || err.Error() != bobsRefusal {
		t.Errorf("bob approving a value whose source he may not read: %v", err)
	}
	if _, err := bob.Gas().ApproveRow(ctx, "fab", 1, seen.Row(1).Cells); !errors.Is(err, ErrNoAccess) {
		t.Errorf("bob approving the row: %v", err)
	}
	if _, err := bob.Gas().Reject(ctx, "fab", 1, "un_number", un); err != nil {
		t.Errorf("bob rejecting it: %v", err)
	}
	if _, err := bob.Gas().Edit(ctx, "fab", 1, "boiling_point_c", "-111.9", seen.Row(1).Cells["boiling_point_c"]); err != nil {
		t.Errorf("bob overwriting it: %v", err)
	}
	// The rejection keeps, in its note, what the cell held, as for any rejection.
	whole, _ := s.Gas().Table(ctx, "fab")
	if c := whole.Row(1).Cells["un_number"]; c.Status != gas.StatusRejected || !strings.Contains(c.Note, "confidential/confidential.md") {
		t.Errorf("the stored rejection: %+v", c)
	}
	file := filepath.Join(t.TempDir(), "fab.xlsx")
	tab2 := deskTable()
	c := tab2.Row(1).Cells["melting_point_c"]
	c.SourceDoc, c.Excerpt = "confidential/confidential.md", "the "+secret
	tab2.Row(1).Cells["melting_point_c"] = c
	tab2.Name = "fab2"
	s.GasStore().SaveTable(ctx, tab2)
	if _, err := bob.Gas().Export(ctx, "fab2", file); err != nil {
		t.Fatal(err)
	}
	back, err := gas.ImportXLSX(file)
	if err != nil {
		t.Fatalf("reading bob's export back: %v", err)
	}
	mustNotCarry(t, "bob", "xlsx export", back)
}

// A fill watched by bob shows its values, not the passages of confidential they were read from.
func TestAWatchedFillWithholdsItsSources(t *testing.T) {
	s := confidentialWorkspace(t)
	ctx := context.Background()
	grant(t, s, "bob", "confidential", grants.None)
	cell := gas.Cell{Value: "UN2203", Status: gas.StatusFilled, SourceDoc: "confidential/confidential.md", Excerpt: "the " + secret}
	st, _ := json.Marshal(gasfill.State{Table: "fab", Results: []gasfill.RowResult{{Row: 1, Filled: 1, Changes: []gasfill.CellChange{{Field: "un_number", After: cell}}}}})
	for who, v := range map[string]*Service{"bob": s.As("bob", false).Served(), "lead": s.As("lead", true).Served()} {
		var got []agent.Event
		v.fillSink(ctx, func(e agent.Event) { got = append(got, e) })(agent.Event{Kind: agent.EventNodeFinished, State: st})
		if len(got) != 1 {
			t.Fatalf("%s got %d events", who, len(got))
		}
		carries := strings.Contains(string(got[0].State), secret)
		if carries != (who == "lead") || !strings.Contains(string(got[0].State), "UN2203") {
			t.Errorf("%s's view of the fill carries the passage: %v; state %s", who, carries, got[0].State)
		}
	}
}
