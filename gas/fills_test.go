package gas

import (
	"context"
	"reflect"
	"testing"
)

// A fill row never overwrites what the analyst did while the fill was working, and a fill
// records which rows it finished so that an interrupted one can go on.
func TestSaveFillRowKeepsConcurrentDecisionsAndRecordsProgress(t *testing.T) {
	ctx := context.Background()
	s, tab := storedSample(t)
	row := tab.Rows[0]
	fill, err := s.StartFill(ctx, tab.Name, []int{row.ID}, []string{"suppliers"})
	if err != nil {
		t.Fatal(err)
	}
	if f, ok, err := s.LastFill(ctx, tab.Name); err != nil || !ok || f.Finished || len(f.Done) != 0 || !reflect.DeepEqual(f.Rows, []int{row.ID}) {
		t.Fatalf("LastFill after start = %+v %v %v", f, ok, err)
	}
	// The fill saw two empty cells; meanwhile the analyst typed a value into one of them.
	seen := Cell{}
	typed := Cell{Value: "colourless", Status: StatusEdited}
	if err := s.SetCell(ctx, tab.Name, row.ID, "odour", typed, "analyst"); err != nil {
		t.Fatal(err)
	}
	proposal := Cell{Value: "pungent", Status: StatusFilled, Confidence: 0.9, Method: "tier:suppliers", SourceDoc: "d", SourceChunk: "d#1"}
	written, err := s.SaveFillRow(ctx, fill, tab.Name, row.ID, []FillChange{
		{Field: "odour", Before: seen, After: proposal, Reason: "fill"},
		{Field: "water_solubility", Before: seen, After: Cell{Value: "slight", Status: StatusReview, Confidence: 0.5}, Reason: "fill"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(written) != 1 || written[0].Field != "water_solubility" {
		t.Errorf("written = %+v, want only water_solubility", written)
	}
	got, err := s.LoadTable(ctx, tab.Name)
	if err != nil {
		t.Fatal(err)
	}
	if c := got.Row(row.ID).Cells["odour"]; c.Value != "colourless" || c.Status != StatusEdited {
		t.Errorf("the analyst's odour became %+v", c)
	}
	if c := got.Row(row.ID).Cells["water_solubility"]; c.Value != "slight" {
		t.Errorf("water_solubility = %+v, want the fill's value", c)
	}
	f, ok, err := s.LastFill(ctx, tab.Name)
	if err != nil || !ok || !reflect.DeepEqual(f.Done, []int{row.ID}) || f.Finished {
		t.Fatalf("LastFill after a row = %+v %v %v", f, ok, err)
	}
	if err := s.FinishFill(ctx, fill); err != nil {
		t.Fatal(err)
	}
	if f, _, _ := s.LastFill(ctx, tab.Name); !f.Finished {
		t.Error("the fill is not marked finished")
	}
}
