#!/usr/bin/env bash
# make e2e-docs: proves warren's document loaders on what an office suite writes and what a
# scanner gives. Installs LibreOffice (Writer, Calc, Impress), Tesseract with German and English
# and Poppler from Debian when missing, then runs the suite in e2e/docs: it writes its sources
# (HTML and flat OpenDocument), has LibreOffice write them as DOCX, ODT, PPTX, ODP, XLSX, ODS and
# PDF, renders PDF pages to 300 dpi images and back into image-only PDFs, ingests everything
# with the real binary and checks what `warren search` finds, where, and how well OCR read it.
# It also exports a German and an English research report as DOCX, ODT, HTML and PDF with
# `warren research export`, has LibreOffice open each DOCX, ODT and HTML and print it to PDF, and
# reads every PDF (warren's own too) back with pdftotext: every citation number, document name,
# page and quoted passage must be there, umlauts and symbols intact.
# The OCR tests of kb/load run too, with OCR required rather than skipped.
#
#   WARREN_E2E_DOCS_BENCH=1  also measure documents per second per format and OCR pages per minute
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v soffice >/dev/null || missing+=(libreoffice-writer libreoffice-calc libreoffice-impress)
command -v tesseract >/dev/null || missing+=(tesseract-ocr)
for lang in deu eng; do
	[ -n "$(ls /usr/share/tesseract-ocr/*/tessdata/$lang.traineddata 2>/dev/null)" ] || missing+=(tesseract-ocr-$lang)
done
command -v pdftoppm >/dev/null && command -v pdftotext >/dev/null || missing+=(poppler-utils)
if [ ${#missing[@]} -gt 0 ]; then
	echo "e2e-docs: installing ${missing[*]} from Debian"
	sudo=""
	[ "$(id -u)" = 0 ] || sudo=sudo
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# The first line of each version, without a pipe into head: under pipefail a program that
# is still writing when head has gone dies of SIGPIPE and fails the script.
for tool in "soffice --version" "tesseract --version" "pdftoppm -v"; do
	v=$($tool 2>&1 || true)
	echo "${v%%$'\n'*}"
done

start=$(date +%s)
WARREN_REQUIRE_OCR=1 go test -count=1 -run 'OCR' ./kb/load/
go test -tags e2e -count=1 -v -timeout 20m ./e2e/docs/
if [ "${WARREN_E2E_DOCS_BENCH:-}" = 1 ]; then
	go test -tags e2e -run '^$' -bench 'IngestFormats' -benchtime 20x -timeout 20m ./e2e/docs/
	WARREN_REQUIRE_OCR=1 go test -run '^$' -bench 'OCR' -benchtime 5x ./kb/load/
fi
echo "e2e-docs: passed in $(($(date +%s) - start))s"
