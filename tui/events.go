package tui

import (
	"warren/service"
	"warren/tui/component"
)

// The queues that carry a job's events and other analysts' changes into the program (see
// component.Queue).
type (
	eventsMsg   = component.Drained[service.RunEvent]
	changeQueue = component.Queue[service.Change]
	changesMsg  = component.Drained[service.Change]
)
