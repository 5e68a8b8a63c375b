package audit

import (
	"bytes"
	"encoding/csv"
	"strconv"
	"time"
)

// CSV is entries as the CSV file an auditor opens: a header, then one row per entry in the
// order given, times in UTC. `warren audit --csv` and the workbench's export write it alike.
func CSV(entries []Entry) ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write([]string{"seq", "at", "analyst", "action", "target", "outcome", "detail"})
	for _, e := range entries {
		_ = w.Write([]string{strconv.FormatInt(e.Seq, 10), e.At.UTC().Format(time.RFC3339Nano), e.Analyst, e.Action,
			e.Target, e.Outcome, e.Detail})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
