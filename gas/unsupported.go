package gas

import "fmt"

// exportCell is a cell as an export writes it: an unsupported value (no passage the fill was
// given states it) is never written as a value, in the sheet or the Provenance sheet; it
// stands in the note with the reason, for the analyst to check.
func exportCell(c Cell) Cell {
	if c.Status != StatusUnsupported || c.Value == "" {
		return c
	}
	note := fmt.Sprintf("unsupported value %q (not exported as a value)", c.Value)
	if c.Note != "" {
		note += ": " + c.Note
	}
	c.Value, c.Unit, c.Note = "", "", note
	return c
}
