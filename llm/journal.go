package llm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// Journal remembers the answers of completed exchanges so that a run resumed after a crash
// replays them instead of calling the model again: a node re-run from its checkpoint asks the
// same questions and gets the same answers, and no completed call is paid for twice.
type Journal interface {
	// Lookup returns the recorded answer for a request key.
	Lookup(ctx context.Context, key string) (JournalEntry, bool, error)
	// Record stores an answer; it must be durable when it returns.
	Record(ctx context.Context, key string, e JournalEntry) error
	// Forget drops the answer recorded for key if it is still e: an answer of a structured
	// call that failed, so that a resumed run asks the model again instead of replaying the
	// same failure, while an identical request's good answer recorded meanwhile stays.
	Forget(ctx context.Context, key string, e JournalEntry) error
}

// JournalEntry is a recorded answer.
type JournalEntry struct {
	Content          string      `json:"content,omitempty"`
	Predict          int         `json:"predict,omitempty"` // the num_predict sent, which the length retry doubles
	DoneReason       string      `json:"done_reason,omitempty"`
	PromptTokens     int         `json:"prompt_tokens,omitempty"`
	CompletionTokens int         `json:"completion_tokens,omitempty"`
	Embeddings       [][]float32 `json:"embeddings,omitempty"`
}

// requestKey identifies a request by everything that determines its answer.
func requestKey(parts ...any) string {
	h := sha256.New()
	enc := json.NewEncoder(h)
	for _, p := range parts {
		enc.Encode(p)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}
