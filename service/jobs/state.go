package jobs

import "warren/agent"

// The words a job's state is shown with: one vocabulary for `warren jobs list`, `warren sessions
// list`, their --json and the workbench, whichever record (a job's, a run's) it is read from.
const (
	ShownRunning     = "running"
	ShownWaiting     = "waiting" // for an analyst: "waiting for alice" (Shown.String)
	ShownInterrupted = "interrupted"
	ShownDone        = "done"
	ShownFailed      = "failed"
	ShownCancelled   = "cancelled"
)

// Shown is a job's state as people read it. State is one of the Shown… words; WaitingFor names
// the analyst a waiting job waits for ("" when that is not known).
type Shown struct {
	State      string `json:"state"`
	WaitingFor string `json:"waiting_for,omitempty"`
}

// String is the state in words: "waiting for alice", "cancelled", ….
func (s Shown) String() string {
	if s.State == ShownWaiting && s.WaitingFor != "" {
		return "waiting for " + s.WaitingFor
	}
	return s.State
}

// StateOf reads a job's record in the shared vocabulary. The stored states stay as they are
// ("canceled" among them), so that existing workspaces read the same.
func StateOf(j Job) Shown {
	switch j.State {
	case JobRunning:
		return Shown{State: ShownRunning}
	case JobWaiting:
		return Shown{State: ShownWaiting, WaitingFor: j.Owner}
	case JobInterrupted:
		return Shown{State: ShownInterrupted}
	case JobDone:
		return Shown{State: ShownDone}
	case JobFailed:
		return Shown{State: ShownFailed}
	case JobCanceled:
		return Shown{State: ShownCancelled}
	}
	return Shown{State: j.State}
}

// RunStateOf reads a saved run in the shared vocabulary. Its job, when it has one, decides:
// the job knows what the run's record cannot (its owner, a process that died, a server that
// stopped); a run without one (a toxicology edit, a run of an older warren) is read from its
// own status, where "interrupted" means stopped at a question.
func RunStateOf(r agent.RunInfo, j *Job) Shown {
	if j != nil {
		return StateOf(*j)
	}
	switch r.Status {
	case agent.StatusInterrupted:
		return Shown{State: ShownWaiting}
	case agent.StatusRunning:
		return Shown{State: ShownRunning}
	case agent.StatusDone:
		return Shown{State: ShownDone}
	case agent.StatusFailed:
		return Shown{State: ShownFailed}
	case agent.StatusCanceled:
		return Shown{State: ShownCancelled}
	}
	return Shown{State: r.Status}
}

// Listed is a job as the listings give it (`warren jobs list --json`): its record, with its state in
// the shared vocabulary in place of the stored one.
type Listed struct {
	Job
	State      string `json:"state"` // a Shown… word; hides Job.State, the stored value
	WaitingFor string `json:"waiting_for,omitempty"`
}

// ListOf reads jobs for a listing.
func ListOf(list []Job) []Listed {
	out := make([]Listed, len(list))
	for i, j := range list {
		s := StateOf(j)
		out[i] = Listed{Job: j, State: s.State, WaitingFor: s.WaitingFor}
	}
	return out
}
