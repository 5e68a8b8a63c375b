package doctor

import (
	"context"
	"os"
	"strings"
	"testing"

	"warren/config"
	"warren/kb/load"
	"warren/llm/llmtest"
)

func TestOCRCheck(t *testing.T) {
	srv := llmtest.New(t)
	ws := workspace(t)
	run := func(env ...string) (Report, Check) {
		r := Run(context.Background(), Input{Workspace: ws, Sources: config.Sources{Env: append(env, "OLLAMA_HOST="+srv.URL)}})
		return r, find(r, "ocr")
	}

	r, c := run("WARREN_KB_OCR=off")
	if !r.OK || c.Status != Skip || !strings.Contains(c.Detail, `off (kb.ocr = "off")`) {
		t.Errorf("OCR off: %+v", c)
	}

	path := os.Getenv("PATH")
	t.Setenv("PATH", t.TempDir()) // no tesseract, no pdftoppm
	r, c = run()
	// OCR is optional: missing, it is skipped with what to install, and the report passes.
	if !r.OK || c.Status != Skip || !strings.Contains(c.Detail, "not installed") || c.Fix != load.OCRInstallLine {
		t.Errorf("OCR not installed: %+v\n%s", c, r.Text())
	}
	if !strings.Contains(r.Text(), "fix: "+load.OCRInstallLine) {
		t.Errorf("the table shows the install line:\n%s", r.Text())
	}
	t.Setenv("PATH", path)

	if st := load.CheckOCR(context.Background(), "deu+eng"); st.PDFProblem != "" {
		if os.Getenv("WARREN_REQUIRE_OCR") == "1" {
			t.Fatalf("OCR is not available here: %s", st.PDFProblem)
		}
		t.Skipf("OCR is not available here (%s); install it with `%s`", st.PDFProblem, st.Fix)
	}
	r, c = run()
	if c.Status != OK || !strings.Contains(c.Detail, "reads deu+eng") || !strings.Contains(c.Detail, "pdftoppm") {
		t.Errorf("OCR installed: %+v", c)
	}
	_, c = run("WARREN_KB_OCR_LANGUAGES=deu+eng+xyz")
	if c.Status != Skip || !strings.Contains(c.Detail, "lacks the language(s) xyz") || c.Fix != "apt-get install tesseract-ocr-xyz" {
		t.Errorf("a missing language: %+v", c)
	}
}
