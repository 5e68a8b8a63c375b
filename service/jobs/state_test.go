package jobs

import (
	"encoding/json"
	"strings"
	"testing"

	"warren/agent"
)

// Every stored state, of a job or of a run, reads as a word of the one vocabulary; the stored
// "canceled" reads as "cancelled", and a waiting job names its analyst.
func TestEveryStoredStateHasItsWord(t *testing.T) {
	words := map[string]bool{ShownRunning: true, ShownWaiting: true, ShownInterrupted: true, ShownDone: true, ShownFailed: true, ShownCancelled: true}
	for _, st := range []string{JobRunning, JobWaiting, JobDone, JobFailed, JobCanceled, JobInterrupted} {
		s := StateOf(Job{State: st, Owner: "alice"})
		if !words[s.State] {
			t.Errorf("job state %q reads as %q, not a word of the vocabulary", st, s.State)
		}
		if (s.State == ShownWaiting) != (s.WaitingFor == "alice") {
			t.Errorf("job state %q: waiting for %q", st, s.WaitingFor)
		}
	}
	for _, st := range []string{agent.StatusRunning, agent.StatusInterrupted, agent.StatusDone, agent.StatusFailed, agent.StatusCanceled} {
		if s := RunStateOf(agent.RunInfo{Status: st}, nil); !words[s.State] {
			t.Errorf("run status %q reads as %q, not a word of the vocabulary", st, s.State)
		}
	}
	if got := StateOf(Job{State: JobCanceled}).String(); got != "cancelled" {
		t.Errorf("canceled reads as %q", got)
	}
	if got := StateOf(Job{State: JobWaiting, Owner: "alice"}).String(); got != "waiting for alice" {
		t.Errorf("waiting reads as %q", got)
	}
	// The listing's JSON gives the word, not the stored value, under "state".
	data, _ := json.Marshal(ListOf([]Job{{ID: "j", State: JobWaiting, Owner: "bob"}}))
	if s := string(data); !strings.Contains(s, `"state":"waiting"`) || !strings.Contains(s, `"waiting_for":"bob"`) || strings.Count(s, `"state"`) != 1 {
		t.Errorf("jobs JSON: %s", s)
	}
}
