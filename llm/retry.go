package llm

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"

	"github.com/ollama/ollama/api"
)

// errStreamCut means a streamed answer ended without its final "done" message: the connection
// dropped or the server died mid-answer. The exchange is retried from the start.
var errStreamCut = errors.New("the answer stream ended before the answer was complete")

type failure int

const (
	failConnection   failure = iota // could not talk to the host, or it went away mid-answer
	failStatus                      // 5xx or 429: the host is there but busy or broken
	failModelMissing                // 404 for the model
	failPermanent                   // retrying cannot help (400, 401, …)
)

// classify sorts an error from one attempt into what to do about it.
func classify(err error) failure {
	var status api.StatusError
	if errors.As(err, &status) {
		msg := strings.ToLower(status.ErrorMessage)
		switch {
		// Ollama says `model "x" not found, try pulling it first`; any other 404 (a wrong
		// path, another kind of server) is not a missing model.
		case status.StatusCode == http.StatusNotFound && strings.Contains(msg, "model") && strings.Contains(msg, "not found"):
			return failModelMissing
		// Ollama answers 500 when it cannot use the request's format: the same request fails
		// the same way however often it is sent.
		case strings.Contains(msg, "invalid json schema") || strings.Contains(msg, "invalid format"):
			return failPermanent
		case status.StatusCode == http.StatusTooManyRequests, status.StatusCode >= 500:
			return failStatus
		default:
			return failPermanent
		}
	}
	var auth api.AuthorizationError
	if errors.As(err, &auth) {
		return failPermanent
	}
	var opErr *net.OpError
	var netErr net.Error
	switch {
	case errors.Is(err, errStreamCut), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.As(err, &opErr):
		return failConnection
	case errors.As(err, &netErr) && netErr.Timeout():
		return failConnection
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		// TLS, certificate and malformed-address errors: retrying cannot help.
		return failPermanent
	}
	// The client reports an {"error": …} line inside a 200 stream as a plain error: the model
	// runner failed mid-answer, which a new attempt may not repeat.
	return failStatus
}

// finalError is the typed error for an exchange that ran out of attempts or cannot be retried;
// host is the one asked last.
func finalError(model, host string, kind failure, err error, attempts int) error {
	var status api.StatusError
	switch {
	case kind == failConnection:
		return &UnreachableError{Host: host, Attempts: attempts, Err: err}
	case errors.As(err, &status):
		return &ServerError{Host: host, Status: status.StatusCode, Message: status.ErrorMessage, Attempts: attempts}
	default:
		return fmt.Errorf("couldn't get an answer from %s at %s after %d attempt(s): %w", model, host, attempts, err)
	}
}

// hostURL names the host of a ledger entry: the one that answered, or was asked last; the
// role's first host when the exchange never reached one.
func hostURL(used *host, t target) string {
	if used != nil {
		return used.url
	}
	return t.hosts[0].url
}
