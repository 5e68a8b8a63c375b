package toxedit

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"warren/agent"
)

// Batch line statuses.
const (
	StatusApplied  = "applied"  // saved as a new version (--yes, zero-model edits)
	StatusProposed = "proposed" // waiting for approval in the desk
	StatusNoChange = "no change"
	StatusFailed   = "failed"
)

// BatchLine is the result of one line of a batch file.
type BatchLine struct {
	Line     int       `json:"line"`
	INCI     string    `json:"inci,omitempty"`
	EditType EditType  `json:"edit_type,omitempty"`
	Status   string    `json:"status"`
	Version  int       `json:"version,omitempty"` // the saved version, when applied
	Error    string    `json:"error,omitempty"`
	Proposal *Proposal `json:"proposal,omitempty"`
}

// BatchResult is the results table of a batch.
type BatchResult struct {
	ID       string      `json:"batch_id"`
	Lines    []BatchLine `json:"lines"`
	Applied  int         `json:"applied"`
	Proposed int         `json:"proposed"`
	NoChange int         `json:"no_change"`
	Failed   int         `json:"failed"`
}

// BatchOptions tune a batch.
type BatchOptions struct {
	// Yes approves zero-model proposals (FORM_EDIT_STRUCTURED, and instructions parsed without
	// a model) at once; the others stay proposals for the desk.
	Yes      bool
	Progress func(done, total int)
}

// batchLine is one line of a batch file: an instruction (words or a form) or a payload.
type batchLine struct {
	INCI        string          `json:"inci"`
	Instruction string          `json:"instruction,omitempty"`
	Payload     json.RawMessage `json:"payload,omitempty"`
}

// Batch reads JSONL lines {"inci": …, "instruction": …} or {"inci": …, "payload": {…}} and
// proposes each edit under one batch id. Every line stands alone: a malformed line or a
// failing ingredient is reported with its line number and never affects the others. Blank
// lines and lines starting with # are skipped.
func (e *Editor) Batch(ctx context.Context, r io.Reader, progress func(done, total int)) (*BatchResult, error) {
	return e.BatchWith(ctx, r, BatchOptions{Progress: progress})
}

// BatchWith is Batch with options.
func (e *Editor) BatchWith(ctx context.Context, r io.Reader, opts BatchOptions) (*BatchResult, error) {
	type numbered struct {
		n    int
		text []byte
	}
	var lines []numbered
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for n := 1; sc.Scan(); n++ {
		t := bytes.TrimSpace(sc.Bytes())
		if len(t) == 0 || t[0] == '#' {
			continue
		}
		lines = append(lines, numbered{n, bytes.Clone(t)})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("couldn't read the batch: %w", err)
	}
	res := &BatchResult{ID: newBatchID(), Lines: make([]BatchLine, 0, len(lines))}
	for i, l := range lines {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		bl := e.batchOne(ctx, l.n, l.text, res.ID, opts.Yes)
		switch bl.Status {
		case StatusApplied:
			res.Applied++
		case StatusProposed:
			res.Proposed++
		case StatusNoChange:
			res.NoChange++
		default:
			res.Failed++
		}
		res.Lines = append(res.Lines, bl)
		if opts.Progress != nil {
			opts.Progress(i+1, len(lines))
		}
	}
	return res, nil
}

func (e *Editor) batchOne(ctx context.Context, n int, text []byte, batchID string, yes bool) (bl BatchLine) {
	bl = BatchLine{Line: n, Status: StatusFailed}
	var in batchLine
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		bl.Error = fmt.Sprintf("line %d: not a batch line (want {\"inci\": …, \"instruction\": …} or {\"inci\": …, \"payload\": {…}}): %v", n, err)
		return bl
	}
	bl.INCI = in.INCI
	hasPayload := len(bytes.TrimSpace(in.Payload)) > 0 && string(bytes.TrimSpace(in.Payload)) != "null"
	switch {
	case strings.TrimSpace(in.INCI) == "":
		bl.Error = fmt.Sprintf("line %d: no inci", n)
		return bl
	case hasPayload == (in.Instruction != ""):
		bl.Error = fmt.Sprintf("line %d: give either an instruction or a payload", n)
		return bl
	}
	input := in.Instruction
	if hasPayload {
		input = string(in.Payload)
	}
	p, err := e.propose(ctx, in.INCI, input, batchID)
	if err != nil {
		bl.Error = fmt.Sprintf("line %d: %v", n, err)
		return bl
	}
	bl.Proposal, bl.EditType, bl.INCI = p, p.EditType, p.INCI
	if p.Empty() {
		bl.Status = StatusNoChange
		bl.Error = p.Note
		return bl
	}
	bl.Status = StatusProposed
	if yes && p.ModelCalls == 0 && (p.Method == MethodStructured || p.Method == MethodParsed) {
		v, err := e.Approve(ctx, p, "")
		if err != nil {
			bl.Status, bl.Error = StatusFailed, fmt.Sprintf("line %d: %v", n, err)
			return bl
		}
		bl.Status, bl.Version = StatusApplied, v
	}
	return bl
}

func newBatchID() string { return agent.NewRunID("batch-") }
