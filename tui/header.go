package tui

// jobsLabel names what runs, for the header's right side: the research run and a gas fill,
// so that the header does not say "no run" while a fill works.
func (m *Model) jobsLabel() string {
	run, fill := m.research.StateLabel(), m.gas.StateLabel()
	switch {
	case fill == "":
		return run
	case run == "no run":
		return fill
	}
	return run + " · " + fill
}
