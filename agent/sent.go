package agent

import (
	"context"
	"fmt"
	"time"

	"warren/llm"
)

// OutcomeSent marks a ledger row written before its call was sent. The call's own entry
// replaces it when the call ends; a row still "sent" is a call that was in flight when its
// process died: it counts against the run's budget (Usage counts every row) though its answer
// is lost.
const OutcomeSent = "sent"

// RecordSend writes a "sent" row for a call of run that is about to be sent, so that it counts
// against the run's budget even if the process dies before the answer comes (see
// llm.Run.OnSend). The write must survive the caller's cancellation like any ledger entry.
func (s *Store) RecordSend(ctx context.Context, run string) error {
	_, err := s.DB.ExecContext(context.WithoutCancel(ctx), `INSERT INTO ledger (run, time, node, role, model, kind, prompt_tokens,
completion_tokens, duration_ms, attempts, outcome, error, key) VALUES (?, ?, '', '', '', '', 0, 0, 0, 0, ?, '', '')`,
		run, time.Now().UTC().Format(time.RFC3339Nano), OutcomeSent)
	if err != nil {
		return fmt.Errorf("couldn't record a call before sending it: %w", err)
	}
	return nil
}

// SettleLedger records a finished call's entry in place of one of the run's "sent" rows, the
// newest, so rows left by a process that died keep their place. The entry is written first: a
// process that dies between the two writes counts the call twice, never not at all.
func (s *Store) SettleLedger(ctx context.Context, e llm.LedgerEntry) error {
	if err := s.RecordLedger(ctx, e); err != nil {
		return err
	}
	_, err := s.DB.ExecContext(context.WithoutCancel(ctx), `DELETE FROM ledger WHERE id = (SELECT max(id) FROM ledger WHERE run = ? AND outcome = ?)`,
		e.Run, OutcomeSent)
	if err != nil {
		return fmt.Errorf("couldn't settle a ledger entry: %w", err)
	}
	return nil
}
