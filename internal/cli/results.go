package cli

// What the long commands that work many items end with: the exit status of an ingest, a gas
// fill and a toxicology batch by how many of their items failed, and an ingest's report.

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"warren/kb"
	"warren/service"
)

// IngestOutcome is the exit class of a finished ingest: interrupted (1), nothing stored (5),
// some files skipped or failed (3), or nil.
func IngestOutcome(rep *kb.IngestReport) error {
	bad := rep.Skipped + rep.Failed
	switch {
	case rep.Canceled:
		return WithHint(fmt.Errorf("interrupted: %d document(s) stored, the rest left as they were", rep.Ingested),
			"run the same ingest again to go on: stored files are unchanged and skipped")
	case len(rep.Files) == 0:
		return NothingStored("give files or folders with documents warren reads (Markdown, text, PDF, HTML, Word, OpenDocument, slides, spreadsheets, e-mail)", "nothing stored: no files to ingest")
	case rep.Ingested+rep.Unchanged == 0: // an unchanged file is stored
		return NothingStored("fix or remove the files listed, then ingest again",
			"nothing stored: all %d %s skipped or failed (each is listed with its reason)", bad, Plural(bad, "file was", "files were"))
	case rep.Partial():
		return Partial("fix or remove the files listed, then ingest again (stored files are unchanged and skipped)",
			"%d of %d files skipped or failed (each is listed with its reason); the others are stored", bad, len(rep.Files))
	}
	return nil
}

// WriteIngestReport lists the files an ingest skipped, failed or stored in part, then the counts.
func WriteIngestReport(w io.Writer, rep *kb.IngestReport) {
	for _, f := range rep.Files {
		switch f.Status {
		case kb.StatusSkipped, kb.StatusFailed:
			fmt.Fprintf(w, "%-7s %s: %s\n", strings.ToUpper(f.Status[:4]), Line(f.Path), Line(f.Reason))
		case kb.StatusIngested:
			if f.Reason != "" { // stored in part: a PDF's pages that could not be read
				fmt.Fprintf(w, "%-7s %s: %s\n", "PART", Line(f.Path), Line(f.Reason))
			}
		}
	}
	fmt.Fprintf(w, "Ingested %d, unchanged %d, skipped %d, failed %d: %d chunks in %.1fs (%.0f chunks/s).\n",
		rep.Ingested, rep.Unchanged, rep.Skipped, rep.Failed, rep.Chunks, rep.Duration.Seconds(), rep.ChunksPerSec)
}

// FillOutcome is the exit class of a fill: interrupted (1), every row failed (1), some rows
// failed (3), or nil. The message names the first failed row's error.
func FillOutcome(sum service.GasFillSummary) error {
	if sum.Interrupted {
		return WithHint(errors.New("interrupted: every finished row is saved"), "`warren gas fill --resume` goes on with the rest")
	}
	if sum.Failed == 0 {
		return nil
	}
	first := ""
	if r, ok := sum.FirstFailure(); ok {
		first = fmt.Sprintf(" (first: row %d %s: %s)", r.Row, r.Name, r.Err)
	}
	hint := "`warren gas fill --resume` retries the failed rows"
	if sum.Failed == sum.Rows {
		return WithHint(fmt.Errorf("every row failed (%d, listed)%s", sum.Failed, first), hint)
	}
	return Partial(hint, "%d of %d rows failed (listed)%s; the others are saved", sum.Failed, sum.Rows, first)
}

// BatchOutcome is the exit class of a batch: every line failed (5), some failed (3), or nil.
func BatchOutcome(res *service.ToxBatchResult) error {
	switch {
	case res.Failed == 0:
		return nil
	case res.Applied+res.Proposed+res.NoChange == 0:
		return NothingStored("fix the lines listed and run the batch again",
			"nothing saved or proposed: all %d %s failed (each is listed with its error)", res.Failed, Plural(res.Failed, "line", "lines"))
	}
	return Partial("fix the lines listed and run them again (the others are done)",
		"%d of %d lines failed (each is listed with its error)", res.Failed, res.Failed+res.Applied+res.Proposed+res.NoChange)
}
