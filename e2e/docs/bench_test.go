//go:build e2e

package docs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"warren/config"
	"warren/kb"
)

// BenchmarkIngestFormats ingests documents of each format, as an office suite and a scanner
// wrote them, through the knowledge base's ingest with the built-in embedder: loading, chunking,
// embedding and storing, one document at a time. It reports documents per second; every
// iteration must store one document of the format named, with chunks.
func BenchmarkIngestFormats(b *testing.B) {
	root := documents(b)
	for _, tc := range []struct{ name, file, format string }{
		{"markdown", "office/law.md", "markdown"},
		{"docx", "office/law-word.docx", "docx"},
		{"odt", "office/law-odt.odt", "odt"},
		{"pptx", "office/slides-pptx.pptx", "pptx"},
		{"odp", "office/slides-odp.odp", "odp"},
		{"xlsx", "office/sheets-xlsx.xlsx", "xlsx"},
		{"ods", "office/sheets-ods.ods", "ods"},
		{"csv", "office/deliveries.csv", "csv"},
		{"eml", "office/notice.eml", "eml"},
		{"pdf-text", "text/handbook.pdf", "pdf"},
		{"pdf-scanned", "scan/handbook-scan.pdf", "pdf"},
		{"png", "images/handbook-1.png", "image"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			dir := b.TempDir()
			kb.Init(dir, kb.Migrations)
			ws, err := kb.Open(dir, config.Sources{}, kb.Migrations)
			if err != nil {
				b.Fatal(err)
			}
			defer ws.Close()
			store := kb.NewStore(ws)
			data, err := os.ReadFile(filepath.Join(root, tc.file))
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			docs, elapsed := 0, time.Duration(0)
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				// A copy under a new name: the same file again would be found unchanged.
				path := filepath.Join(dir, fmt.Sprintf("copy-%d%s", i, filepath.Ext(tc.file)))
				if err := os.WriteFile(path, data, 0o644); err != nil {
					b.Fatal(err)
				}
				id := filepath.Base(path)
				b.StartTimer()
				start := time.Now()
				rep, err := store.Ingest(ctx, []kb.Item{{Path: path, ID: id, Collection: "bench"}}, kb.IngestOptions{Embedder: kb.Builtin{}})
				elapsed += time.Since(start)
				b.StopTimer()
				if err != nil || rep.Ingested < 1 || rep.Chunks == 0 {
					b.Fatalf("%s: %+v %v", tc.file, rep, err)
				}
				info, ok, err := store.Document(ctx, id)
				if err != nil || !ok || info.Format != tc.format {
					b.Fatalf("%s was stored as %+v (%v), want format %s", tc.file, info, err, tc.format)
				}
				docs++
				b.StartTimer()
			}
			b.ReportMetric(float64(docs)/elapsed.Seconds(), "docs/s")
		})
	}
}
