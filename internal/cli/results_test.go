package cli

import (
	"strings"
	"testing"

	"warren/kb"
)

// A file stored in part is listed with what is missing; one stored whole is not listed.
func TestIngestReportListsFilesStoredInPart(t *testing.T) {
	rep := &kb.IngestReport{Ingested: 2, Files: []kb.FileResult{
		{Path: "scan.pdf", Status: kb.StatusIngested, Reason: "stored without page 2: no text layer, and OCR is off"},
		{Path: "whole.pdf", Status: kb.StatusIngested},
		{Path: "x.exe", Status: kb.StatusSkipped, Reason: "unsupported format"},
	}}
	var out strings.Builder
	WriteIngestReport(&out, rep)
	for _, want := range []string{"PART    scan.pdf: stored without page 2: no text layer, and OCR is off\n", "SKIP    x.exe: unsupported format\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "whole.pdf") {
		t.Errorf("a file stored whole is listed:\n%s", out.String())
	}
}
