// Package docs proves warren's document loaders on files an office suite wrote and pages a
// scanner would give. The suite writes its own sources (HTML and flat OpenDocument), has
// LibreOffice write them as DOCX, ODT, PPTX, ODP, XLSX, ODS and PDF, renders PDF pages with
// Poppler at 300 dpi into images and image-only PDFs, then ingests them all with the real
// binary and checks that `warren search` finds each marker sentence as the top passage with its
// section and page, that a reference in a Word law text resolves as in Markdown, and that OCR
// reads the scanned pages close to their text layer. It also exports a German and an English
// research report as DOCX, ODT, HTML and PDF (`warren research export`), has LibreOffice print
// each DOCX, ODT and HTML to PDF, and reads every PDF, warren's own too, back with pdftotext:
// every citation number, document name, page and quoted passage is there, umlauts intact.
//
// The suite is behind the e2e build tag; `make e2e-docs` installs LibreOffice, Tesseract and
// Poppler from Debian and runs it (scripts/e2e-docs.sh). By hand:
//
//	go test -tags e2e -v ./e2e/docs/
package docs
