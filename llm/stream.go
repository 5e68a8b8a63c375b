package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/ollama/ollama/api"
)

// streamChat posts a chat request and hands each streamed message to fn. It speaks the same
// protocol and types as api.Client.Chat but differs where the gateway needs it to: it reports
// a connection cut mid-stream as an error instead of a normal end, and it reads with a
// growing buffer rather than allocating 8 MB per call.
func (h *host) streamChat(ctx context.Context, req *api.ChatRequest, fn func(api.ChatResponse)) error {
	body, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("couldn't encode the chat request: %w", err)
	}
	httpReq, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url+"/api/chat", bytes.NewReader(body))
	if err != nil {
		return err
	}
	httpReq.Header.Set("Content-Type", "application/json")
	httpReq.Header.Set("Accept", "application/x-ndjson")
	resp, err := h.http.Do(httpReq)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= http.StatusBadRequest {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		se := api.StatusError{StatusCode: resp.StatusCode, Status: resp.Status}
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(data, &e) == nil && e.Error != "" {
			se.ErrorMessage = e.Error
		} else {
			se.ErrorMessage = string(bytes.TrimSpace(data))
		}
		return se
	}
	dec := json.NewDecoder(resp.Body)
	for {
		var msg struct {
			api.ChatResponse
			Error string `json:"error"`
		}
		if err := dec.Decode(&msg); err != nil {
			if errors.Is(err, io.EOF) {
				return nil // the caller checks that a done message arrived
			}
			return err
		}
		if msg.Error != "" {
			return errors.New(msg.Error)
		}
		fn(msg.ChatResponse)
	}
}
