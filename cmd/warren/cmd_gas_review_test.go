package main

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"warren/gas"
	"warren/internal/schema"
	"warren/kb"
	"warren/llm/llmtest"
)

// The review desk opens only on a table that exists, and only in a terminal; each refusal is
// one line that says what to do.
func TestGasReviewChecksTheTableAndTheTerminal(t *testing.T) {
	srv := llmtest.New(t)
	dir := filepath.Join(t.TempDir(), "ws")
	if _, err := kb.Init(dir, schema.All()); err != nil {
		t.Fatal(err)
	}
	a := &app{env: []string{"WARREN_WORKSPACE=" + dir, "OLLAMA_HOST=" + srv.URL}, stdin: strings.NewReader(""),
		logger: slog.New(slog.DiscardHandler), closeLog: func() {}}
	review := func(args ...string) error {
		cmd := a.gasReviewCommand()
		cmd.SetArgs(args)
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		return cmd.Execute()
	}
	if err := review(); err == nil || !strings.Contains(err.Error(), "import one with `warren gas import FILE`") {
		t.Errorf("no table: %v", err)
	}
	e, err := a.open()
	if err != nil {
		t.Fatal(err)
	}
	tab := &gas.Table{Name: "fab", Columns: []string{"Chemical Name"}, Rows: []*gas.Row{{ID: 1, Cells: map[string]gas.Cell{"chemical_name": {Value: "Silane", Status: gas.StatusOriginal}}}}}
	err = e.GasStore().SaveTable(context.Background(), tab)
	e.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := review("--table", "nope"); err == nil || !strings.Contains(err.Error(), `--table "nope": no such gas table; allowed is fab`) {
		t.Errorf("a missing table: %v", err)
	}
	if err := review("--table", "fab"); err == nil || !strings.Contains(err.Error(), "needs a terminal") {
		t.Errorf("without a terminal: %v", err)
	}
}
