package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"warren/agent"
	"warren/config"
	"warren/internal/cli"
	"warren/internal/schema"
	"warren/internal/testkb"
	"warren/kb"
	"warren/llm/llmtest"
	"warren/service"
)

// noOllama points warren at a port nothing listens on: a command that reached a model would
// fail with another message than the one a test wants.
const noOllama = "OLLAMA_HOST=127.0.0.1:1"

// contractWorkspace is a workspace with one collection ("standards") and one gas table
// ("hmis-sample"), made without a model.
func contractWorkspace(t *testing.T) []string {
	t.Helper()
	ws := t.TempDir()
	env := []string{"WARREN_WORKSPACE=" + ws, noOllama}
	if r := warren(t, env, "init"); r.code != 0 {
		t.Fatalf("init: %+v", r)
	}
	docs := t.TempDir()
	os.WriteFile(filepath.Join(docs, "purge.md"), []byte("# Purge\n\n## 1 Nitrogen\nPurge the pigtail with nitrogen.\n"), 0o644)
	if r := warren(t, env, "ingest", docs, "--collection", "standards", "--embedder", "builtin"); r.code != 0 {
		t.Fatalf("ingest: %+v", r)
	}
	if r := warren(t, env, "gas", "import", filepath.Join(testkb.SampleDir(), "gas", "hmis-sample.csv")); r.code != 0 {
		t.Fatalf("gas import: %+v", r)
	}
	return env
}

// badLines are command lines with one bad flag value or argument each: every one must end
// with exit 2 before any work, in one line that names the flag (or argument) and the value.
var badLines = []struct {
	args []string
	want []string // in the message
}{
	{[]string{"--log-level", "loud", "version"}, []string{"--log-level", `"loud"`, "debug, info, warn or error"}},
	{[]string{"ingest", "x.md", "--embedder", "magic"}, []string{"--embedder", `"magic"`, "auto, builtin or ollama"}},
	{[]string{"kb", "migrate", "--to", "qdrant"}, []string{"--to", `"qdrant"`, "weaviate or embedded"}},
	{[]string{"kb", "migrate"}, []string{"--to", "missing", "weaviate or embedded"}},
	{[]string{"ingest", "x.md", "--collection", "Big Name"}, []string{"--collection", `"Big Name"`}},
	{[]string{"ingest"}, []string{"PATH", "--registry"}},
	{[]string{"ingest", "x.md", "--registry", "r.json"}, []string{"--registry", `"r.json"`, "not both"}},
	{[]string{"ingest", "x.md", "--allow-outside"}, []string{"--allow-outside", "--registry"}},
	{[]string{"audit", "--limit", "-1"}, []string{"--limit", "-1", "0 or more"}},
	{[]string{"audit", "--since", "yesterday"}, []string{"--since", `"yesterday"`, "2026-11-01"}},
	{[]string{"research", "export", "run-1", "--format", "rtf"}, []string{"--format", `"rtf"`, "md, docx, odt, pdf or html"}},
	{[]string{"research", "export", " "}, []string{"RUN", `" "`}},
	{[]string{"search", "nitrogen", "-k", "-1"}, []string{"-k", "-1", "1 or more"}},
	{[]string{"search", "nitrogen", "-k", "0"}, []string{"-k", "0", "1 or more"}},
	{[]string{"search", "nitrogen", "--mode", "fuzzy"}, []string{"--mode", `"fuzzy"`, "hybrid, dense or lexical"}},
	{[]string{"search", "nitrogen", "--lang", "fr"}, []string{"--lang", `"fr"`, "de or en"}},
	{[]string{"search", "nitrogen", "--collection", "a,,B"}, []string{"--collection", `"a,,B"`}},
	{[]string{"search", "nitrogen", "--collection", "nosuch"}, []string{"--collection", `"nosuch"`, "standards"}},
	{[]string{"search", "nitrogen", "--section", "4"}, []string{"--section", `"4"`, "--doc"}},
	{[]string{"search", "  "}, []string{"QUERY", `"  "`}},
	{[]string{"search", "?!"}, []string{"QUERY", `"?!"`, "no searchable words"}},
	{[]string{"kb", "list", "--collection", "Bad!"}, []string{"--collection", `"Bad!"`}},
	{[]string{"kb", "list", "--collection", "nosuch"}, []string{"--collection", `"nosuch"`, "standards"}},
	{[]string{"refs", "detect", "--detector", "psychic", "§ 5"}, []string{"--detector", `"psychic"`, "regex, model or hybrid"}},
	{[]string{"refs", "detect", ""}, []string{"TEXT", `""`}},
	{[]string{"refs", "resolve", "--detector", "psychic", "§ 5"}, []string{"--detector", `"psychic"`}},
	{[]string{"refs", "resolve", " "}, []string{"TEXT", `" "`}},
	{[]string{"eval", "ir", "--format", "msmarco", "--docs", "d", "--queries", "q", "--qrels", "r"}, []string{"--format", `"msmarco"`, "cranfield, cisi, cacm or trec"}},
	{[]string{"eval", "ir", "--mode", "fuzzy", "--docs", "d", "--queries", "q", "--qrels", "r"}, []string{"--mode", `"fuzzy"`}},
	{[]string{"eval", "ir", "--embedder", "magic", "--docs", "d", "--queries", "q", "--qrels", "r"}, []string{"--embedder", `"magic"`, "builtin or ollama"}},
	{[]string{"eval", "ir", "--heading-weight", "-2", "--docs", "d", "--queries", "q", "--qrels", "r"}, []string{"--heading-weight", "-2", "greater than 0"}},
	{[]string{"eval", "ir", "--docs", "d"}, []string{"--queries", "required"}},
	{[]string{"research", "--iterations", "-1", "Which purge?"}, []string{"--iterations", "-1", "1 or more"}},
	{[]string{"research", "--budget-calls", "-5", "Which purge?"}, []string{"--budget-calls", "-5", "1 or more"}},
	{[]string{"research", "--budget-calls", "0", "Which purge?"}, []string{"--budget-calls", "0", "1 or more"}},
	{[]string{"research", ""}, []string{"QUESTION", `""`}},
	{[]string{"research", "  \t"}, []string{"QUESTION"}},
	{[]string{"research"}, []string{"QUESTION", "--resume"}},
	{[]string{"gas", "fill", "--rows", "0-3"}, []string{"--rows", `"0-3"`, "1-20,25"}},
	{[]string{"gas", "fill", "--rows", ","}, []string{"--rows", `","`}},
	{[]string{"gas", "fill", "--rows", "1-1000000000"}, []string{"--rows", `"1-1000000000"`, "at most"}},
	{[]string{"gas", "fill", "--rows", "99"}, []string{"--rows", `"99"`, "no row 99"}},
	{[]string{"gas", "fill", "--tiers", "Suppliers!"}, []string{"--tiers", `"Suppliers!"`}},
	{[]string{"gas", "fill", "--tiers", "standards,nosuch"}, []string{"--tiers", `"standards,nosuch"`, `"nosuch"`, "standards"}},
	{[]string{"gas", "fill", "--resume", "--rows", "1"}, []string{"--resume", "--rows"}},
	{[]string{"gas", "fill", "--table", "nosuch"}, []string{"--table", `"nosuch"`, "hmis-sample"}},
	{[]string{"gas", "approve", "0", "cas_number"}, []string{"ROW", `"0"`, "row number"}},
	{[]string{"gas", "approve", "1", "cas"}, []string{"FIELD", `"cas"`, "field name"}},
	{[]string{"gas", "reject", "x1", "cas_number"}, []string{"ROW", `"x1"`, "row number"}},
	{[]string{"gas", "reject", "1", "Boiling Point"}, []string{"FIELD", `"Boiling Point"`, "field name"}},
	{[]string{"gas", "edit", "one", "cas_number", "7803-62-5"}, []string{"ROW", `"one"`, "row number"}},
	{[]string{"gas", "edit", "1", "nosuch", "7803-62-5"}, []string{"FIELD", `"nosuch"`, "field name"}},
	{[]string{"gas", "query", " "}, []string{"QUESTION", `" "`}},
	{[]string{"gas", "query"}, []string{"QUESTION", "--expr"}},
	{[]string{"gas", "query", "--expr", ""}, []string{"--expr", `""`}},
	{[]string{"gas", "query", "flammable?", "--expr", "true"}, []string{"--expr", `"true"`, "not both"}},
	{[]string{"gas", "export", "out.csv"}, []string{"FILE", `"out.csv"`, ".xlsx"}},
	{[]string{"gas", "export", "out.xlsx", "--table", "nosuch"}, []string{"--table", `"nosuch"`}},
	{[]string{"gas", "review", "--table", "x", "--json"}, []string{"--json", "interactive"}},
	{[]string{"tox", "import", "profiles.xlsx"}, []string{"FILE", `"profiles.xlsx"`, ".json or .csv"}},
	{[]string{"tox", "export", "EUGENOL", "--format", "xlsx"}, []string{"--format", `"xlsx"`, "md, docx, odt, pdf or html"}},
	{[]string{"tox", "export", " "}, []string{"INCI", `" "`}},
	{[]string{"tox", "show", "EUGENOL", "--version", "0"}, []string{"--version", "0", "1 or more"}},
	{[]string{"tox", "show", ""}, []string{"INCI", `""`}},
	{[]string{"tox", "history", " "}, []string{"INCI", `" "`}},
	{[]string{"tox", "diff", "EUGENOL", "one", "2"}, []string{"V1", `"one"`}},
	{[]string{"tox", "diff", "EUGENOL", "1", "0"}, []string{"V2", `"0"`}},
	{[]string{"tox", "diff", "", "1", "2"}, []string{"INCI", `""`}},
	{[]string{"tox", "rollback", "EUGENOL", "--to", "-1"}, []string{"--to", "-1", "1 or more"}},
	{[]string{"tox", "rollback", "EUGENOL"}, []string{"--to"}},
	{[]string{"tox", "rollback", "", "--to", "1"}, []string{"INCI", `""`}},
	{[]string{"tox", "edit", "EUGENOL", "  "}, []string{"INSTRUCTION", `"  "`}},
	{[]string{"tox", "edit", "", "set DAP to 10 %"}, []string{"INCI", `""`}},
	{[]string{"tox", "approve", ""}, []string{"RUN", `""`}},
	{[]string{"tox", "approve", "tox-1", "--reject", " "}, []string{"--reject", `" "`}},
	{[]string{"tox", "approve", "tox-1", "--reject", "no", "--summary", "s"}, []string{"--summary", `"s"`, "--reject"}},
	{[]string{"tox", "batch", ""}, []string{"FILE", `""`}},
	{[]string{"sessions", "show", ""}, []string{"RUN", `""`}},
	{[]string{"sessions", "rm", " "}, []string{"RUN", `" "`}},
}

// TestBadFlagValuesExit2 runs every command with each bad value, plain and with --json: exit
// 2, one line naming the flag and the value, and with --json one error object on stdout.
func TestBadFlagValuesExit2(t *testing.T) {
	env := contractWorkspace(t)
	for _, c := range badLines {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			r := warren(t, env, c.args...)
			first, _, _ := strings.Cut(r.stderr, "\n")
			if r.code != cli.ExitUsage || !strings.HasPrefix(first, "warren: ") || (r.stdout != "") != slices.Contains(c.args, "--json") {
				t.Fatalf("want exit 2, one line on stderr, nothing on stdout: %+v", r)
			}
			for _, w := range c.want {
				if !strings.Contains(first, w) {
					t.Errorf("the line lacks %q: %s", w, first)
				}
			}
			args := c.args
			if !slices.Contains(args, "--json") {
				args = append(slices.Clone(args), "--json")
			}
			r = warren(t, env, args...)
			f := decodeFailure(t, r)
			if f.Code != cli.ExitUsage || !strings.Contains(f.Error+" "+f.Hint, c.want[0]) {
				t.Errorf("--json: %+v", f)
			}
		})
	}
}

// decodeFailure checks that stdout is exactly one JSON object with error, hint and code, the
// code being the exit status, and returns it.
func decodeFailure(t *testing.T, r result) cli.Failure {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	var obj map[string]json.RawMessage
	if err := dec.Decode(&obj); err != nil {
		t.Fatalf("stdout is not a JSON object: %v\n%s", err, r.stdout)
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Fatalf("stdout holds more than one JSON value:\n%s", r.stdout)
	}
	var f cli.Failure
	for _, k := range []string{"error", "hint", "code"} {
		if _, ok := obj[k]; !ok {
			t.Fatalf("the failure object lacks %q: %s", k, r.stdout)
		}
	}
	json.Unmarshal(obj["error"], &f.Error)
	json.Unmarshal(obj["hint"], &f.Hint)
	json.Unmarshal(obj["code"], &f.Code)
	if f.Error == "" || f.Hint == "" || f.Code != r.code || r.code == 0 {
		t.Fatalf("want a non-empty error and hint and code = exit status %d: %s", r.code, r.stdout)
	}
	return f
}

// walk calls f for every command under root.
func walk(root *cobra.Command, f func(*cobra.Command)) {
	for _, c := range root.Commands() {
		if c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		f(c)
		walk(c, f)
	}
}

// TestEveryCommandReportsUsageErrorsAsJSON: an unknown flag, for every command, and an
// unknown subcommand, for every command that has subcommands, are exit 2 and, with --json,
// one error object, whether --json comes before or after the mistake.
func TestEveryCommandReportsUsageErrorsAsJSON(t *testing.T) {
	lines := [][]string{{"frobnicate", "--json"}, {"--json", "frobnicate"}}
	walk((&app{}).rootCommand(), func(c *cobra.Command) {
		path := strings.Fields(c.CommandPath())[1:]
		lines = append(lines, append(slices.Clone(path), "--no-such-flag", "--json"), append([]string{"--json"}, append(slices.Clone(path), "--no-such-flag")...))
		// A command that takes arguments of its own (research QUESTION, beside research
		// export) is no group: an unknown word is its argument.
		if c.HasSubCommands() && len(strings.Fields(c.Use)) == 1 {
			lines = append(lines, append(slices.Clone(path), "frobnicate", "--json"))
			if r := warren(t, nil, path...); r.code != 0 || !strings.Contains(r.stdout, "Available Commands") {
				t.Errorf("%v alone shows its help: %+v", path, r)
			}
		}
	})
	for _, args := range lines {
		r := warren(t, []string{noOllama}, args...)
		if r.code != cli.ExitUsage {
			t.Errorf("%v: want exit 2: %+v", args, r)
			continue
		}
		decodeFailure(t, r)
	}
}

// TestEveryCheckedFlagIsTested: every numeric flag of every command has a rule, and every
// rule of every command has a bad line in badLines, so a rule that stops checking fails a test.
func TestEveryCheckedFlagIsTested(t *testing.T) {
	root := (&app{}).rootCommand()
	covered := map[string]bool{} // "gas fill --rows", "research QUESTION"
	for _, c := range badLines {
		cmd, rest, err := root.Find(c.args)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		for _, a := range append(rest, c.want...) {
			covered[cmd.CommandPath()+" "+a] = true
		}
	}
	walk(root, func(c *cobra.Command) {
		rules := strings.Split(c.Annotations[cli.CheckedAnnotation], ",")
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			switch f.Value.Type() {
			case "int", "int64", "uint", "float64", "duration":
				if !slices.Contains(rules, f.Name) {
					t.Errorf("%s: the numeric flag --%s has no rule", c.CommandPath(), f.Name)
				}
			}
		})
		for _, name := range rules {
			if name == "" {
				continue
			}
			if !covered[c.CommandPath()+" "+cli.FlagName(name)] && !covered[c.CommandPath()+" "+name] {
				t.Errorf("%s: the rule for %s has no bad line in badLines", c.CommandPath(), name)
			}
		}
	})
}

func TestIngestRegistryIsCheckedFirst(t *testing.T) {
	ws := t.TempDir()
	env := []string{"WARREN_WORKSPACE=" + ws, noOllama}
	warren(t, env, "init")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.md"), []byte("# A\n\nAlpha text about purging.\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.md"), []byte("# B\n\nBeta text about leaks.\n"), 0o644)
	reg := filepath.Join(dir, "registry.json")
	write := func(s string) { os.WriteFile(reg, []byte(s), 0o644) }
	listed := func() int {
		r := warren(t, env, "kb", "list", "--json")
		var list struct{ Documents []any }
		json.Unmarshal([]byte(r.stdout), &list)
		return len(list.Documents)
	}

	// The same path in two collections, and one synonym for two documents.
	write(`{"collections":{
		"one":{"documents":[{"path":"a.md","title":"Alpha","synonyms":["Purge Rule"]}]},
		"two":{"documents":[{"path":"a.md","title":"Alpha again"},{"path":"b.md","title":"Beta","synonyms":["purge rule"]}]}}}`)
	r := warren(t, env, "ingest", "--registry", reg, "--embedder", "builtin")
	if r.code != cli.ExitFailure || !strings.Contains(r.stdout, "duplicate-path a.md") || !strings.Contains(r.stdout, "duplicate-synonym") ||
		!strings.Contains(r.stderr, "nothing was ingested") || !strings.Contains(r.stderr, "warren registry check") {
		t.Fatalf("a registry with conflicts is refused with its problems: %+v", r)
	}
	r = warren(t, env, "ingest", "--registry", reg, "--embedder", "builtin", "--json")
	decodeFailure(t, r)
	var refused struct{ Problems []struct{ Kind, Doc string } }
	if json.Unmarshal([]byte(r.stdout), &refused) != nil || len(refused.Problems) != 2 {
		t.Errorf("--json lists the problems: %s", r.stdout)
	}
	if n := listed(); n != 0 {
		t.Fatalf("a refused registry stored %d documents", n)
	}

	// A document outside the registry's folder needs --allow-outside.
	outside := filepath.Join(t.TempDir(), "c.md")
	os.WriteFile(outside, []byte("# C\n\nGamma text about cylinders.\n"), 0o644)
	rel, _ := filepath.Rel(dir, outside)
	write(`{"collections":{"one":{"documents":[{"path":"a.md","title":"Alpha"},{"path":` + mustQuote(filepath.ToSlash(rel)) + `,"title":"Gamma"}]}}}`)
	r = warren(t, env, "ingest", "--registry", reg, "--embedder", "builtin")
	if r.code != cli.ExitFailure || !strings.Contains(r.stdout, "outside-folder") || !strings.Contains(r.stderr, "--allow-outside") {
		t.Fatalf("a document outside the folder is refused, naming --allow-outside: %+v", r)
	}
	if n := listed(); n != 0 {
		t.Fatalf("a refused registry stored %d documents", n)
	}
	if r = warren(t, env, "ingest", "--registry", reg, "--embedder", "builtin", "--allow-outside"); r.code != 0 {
		t.Fatalf("--allow-outside ingests it: %+v", r)
	}
	if n := listed(); n != 2 {
		t.Errorf("want both documents stored, got %d", n)
	}
}

func mustQuote(s string) string {
	data, _ := json.Marshal(s)
	return string(data)
}

func TestIngestWithEveryFileSkippedStoresNothing(t *testing.T) {
	ws := t.TempDir()
	env := []string{"WARREN_WORKSPACE=" + ws, noOllama}
	warren(t, env, "init")
	docs := t.TempDir()
	os.WriteFile(filepath.Join(docs, "broken.txt"), []byte{0x89, 'P', 'N', 'G', 0x00, 0x41}, 0o644) // binary: FF FE would be a UTF-16 byte-order mark, read as text
	os.WriteFile(filepath.Join(docs, "empty.md"), nil, 0o644)

	r := warren(t, env, "ingest", docs, "--embedder", "builtin")
	if r.code != cli.ExitNothingStored || !strings.Contains(r.stdout, "broken.txt") || !strings.Contains(r.stderr, "nothing stored") {
		t.Fatalf("want exit %d with each skipped file listed: %+v", cli.ExitNothingStored, r)
	}
	r = warren(t, env, "ingest", docs, "--embedder", "builtin", "--json")
	f := decodeFailure(t, r)
	var rep kb.IngestReport
	if json.Unmarshal([]byte(r.stdout), &rep) != nil || rep.Skipped+rep.Failed != 2 || rep.Ingested != 0 || f.Code != cli.ExitNothingStored {
		t.Errorf("--json carries the report with the failure: %s", r.stdout)
	}

	// One good file among them makes it partial; an unchanged one is stored, not skipped.
	os.WriteFile(filepath.Join(docs, "good.md"), []byte("# Good\n\nPurge with nitrogen.\n"), 0o644)
	if r = warren(t, env, "ingest", docs, "--embedder", "builtin"); r.code != cli.ExitPartial {
		t.Errorf("want exit 3: %+v", r)
	}
	if r = warren(t, env, "ingest", filepath.Join(docs, "good.md"), "--embedder", "builtin"); r.code != 0 {
		t.Errorf("an unchanged file is a success: %+v", r)
	}
}

// finishedRun saves a run that has finished, with its report and references.
func finishedRun(t *testing.T, ws string) string {
	t.Helper()
	w, err := kb.Open(ws, config.Sources{}, schema.All())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	s := service.ResearchState{Question: "Which purge?", Report: "# Purge\n\nPurge with nitrogen [1].", References: []service.ResearchRef{
		{State: service.RefFollowed}, {State: service.RefFollowed}, {State: service.RefSkipped}, {State: service.RefUnresolved}}}
	data, _ := json.Marshal(s)
	store := &agent.Store{DB: w.DB}
	ctx := context.Background()
	const run = "20260101-120000-abcdef"
	if err := store.CreateRun(ctx, run, "research", s.Question); err != nil {
		t.Fatal(err)
	}
	if err := store.Save(ctx, service.RunCheckpoint{Run: run, Step: 9, Node: "attribute", Status: service.RunDone, State: data}); err != nil {
		t.Fatal(err)
	}
	return run
}

func TestResumingAFinishedRunSaysWhereItsReportIs(t *testing.T) {
	ws := t.TempDir()
	env := []string{"WARREN_WORKSPACE=" + ws, noOllama}
	warren(t, env, "init")
	run := finishedRun(t, ws)
	report := filepath.Join(ws, "exports", "research-"+run+".md")

	r := warren(t, env, "research", "--resume", run)
	want := "Run " + run + " has finished; its report is " + report + ".\n"
	if r.code != 0 || r.stdout != want || r.stderr != "" {
		t.Fatalf("want only %q: %+v", want, r)
	}
	if data, err := os.ReadFile(report); err != nil || !strings.Contains(string(data), "Purge with nitrogen") {
		t.Errorf("the report is where it says: %v %q", err, data)
	}
	r = warren(t, env, "research", "--resume", run, "--json")
	var res struct {
		Run, Status, Report string
		Finished            bool
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &res) != nil || res.Run != run || !res.Finished || res.Report != report {
		t.Errorf("--json: %+v", r)
	}

	// sessions show prints the references in words, never a Go map.
	r = warren(t, env, "sessions", "show", run)
	if r.code != 0 || !strings.Contains(r.stdout, "References: 2 followed, 1 skipped, 1 unresolved\n") || strings.Contains(r.stdout, "map[") {
		t.Errorf("sessions show: %+v", r)
	}
}

// A JSON Patch the analyst wrote without the guard is numbered as written: the guard warren
// puts before it is not counted.
func TestPatchErrorsNumberTheOperationsAsWritten(t *testing.T) {
	env, _ := toxEditWorkspace(t)
	for _, c := range []struct{ patch, want string }{
		{`[{"op":"replace","path":"/noael/7/value","value":1}]`, "operation 0 (replace /noael/7/value)"},
		{`[{"op":"replace","path":"/cas","value":"50-00-0"},{"op":"remove","path":"/dap/9"}]`, "operation 1 (remove /dap/9)"},
		{`[{"op":"add","path":"/nonsense","value":1}]`, "operation 0 (add /nonsense)"},
		{`[{"op":"test","path":"/inci","value":"COUMARIN"},{"op":"remove","path":"/dap/9"}]`, "operation 1 (remove /dap/9)"},
	} {
		r := warren(t, env, "tox", "edit", "COUMARIN", c.patch, "--yes")
		if r.code != cli.ExitFailure || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s: want %q: %+v", c.patch, c.want, r)
		}
	}
}

// A fill in which some rows failed ends with exit 3, with --json too (the summary and the
// failure in one object); the failed row is named on stderr.
func TestGasFillWithAFailedRowIsPartialAlsoWithJSON(t *testing.T) {
	ws, _, _ := testkb.Sample(t)
	srv := llmtest.New(t)
	srv.Handle(&llmtest.Rule{Name: "broken extract", SchemaHas: "values", AnyContains: "Substance: Silane", Replies: []string{`{"values": "not a list"}`}})
	scriptOdour(srv)
	env := []string{"WARREN_WORKSPACE=" + ws.Dir, "OLLAMA_HOST=" + srv.URL}
	if r := warren(t, env, "gas", "import", filepath.Join(testkb.SampleDir(), "gas", "hmis-sample.csv")); r.code != 0 {
		t.Fatalf("import: %+v", r)
	}
	r := warren(t, env, "gas", "fill", "--rows", "1-2")
	if r.code != cli.ExitPartial || !strings.Contains(r.stdout, "failed: row 1 Silane") || !strings.Contains(r.stderr, "1 of 2 rows failed") {
		t.Fatalf("want exit 3 naming the failed row: %+v", r)
	}
	r = warren(t, env, "gas", "fill", "--rows", "1-2", "--json")
	f := decodeFailure(t, r)
	var sum service.GasFillSummary
	if f.Code != cli.ExitPartial || json.Unmarshal([]byte(r.stdout), &sum) != nil || sum.Failed != 1 || len(sum.Results) != 2 {
		t.Errorf("--json: %s", r.stdout)
	}
}
