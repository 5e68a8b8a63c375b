package doctor

import (
	"context"
	"fmt"
	"strings"
	"time"

	"warren/config"
	"warren/kb/load"
)

// checkOCR says whether scanned pages and images can be read (kb.ocr) and in which
// languages. OCR is optional: without it the check is skipped, not failed, with the line that
// installs it, and ingest skips such pages with the same reason.
func (r *Report) checkOCR(ctx context.Context, cfg *config.Config) {
	if cfg.KB.OCR == load.OCROff {
		r.add(Check{Name: "ocr", Status: Skip, Detail: `off (kb.ocr = "off"): scanned pages and images are skipped`})
		return
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	st := load.CheckOCR(ctx, cfg.KB.OCRLanguages)
	switch {
	case st.Problem != "":
		r.add(Check{Name: "ocr", Status: Skip, Detail: st.Problem + "; scanned pages and images are skipped", Fix: st.Fix})
	case st.PDFProblem != "":
		r.add(Check{Name: "ocr", Status: Skip,
			Detail: fmt.Sprintf("%s reads images in %s, but %s; scanned PDF pages are skipped", describeTesseract(st), cfg.KB.OCRLanguages, st.PDFProblem),
			Fix:    st.Fix})
	default:
		r.add(Check{Name: "ocr", Status: OK,
			Detail: fmt.Sprintf("%s reads %s (it has %s); pdftoppm renders PDF pages", describeTesseract(st), cfg.KB.OCRLanguages, strings.Join(st.Languages, ", "))})
	}
}

func describeTesseract(st load.OCRStatus) string {
	if st.Version != "" {
		return st.Version
	}
	return "tesseract"
}
