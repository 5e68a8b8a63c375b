package refs

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"warren/internal/refcases"
	"warren/internal/shareddata"
)

// Fuzz targets for the regex reference detector. Two targets share one check so that German
// and English text each get their own corpus and fuzzing time.

// maxSeeds bounds the seeds taken from the shared corpus, so that `go test` replays them quickly.
const maxSeeds = 80

// corpusBlocks returns paragraphs of the files under rel (in shared/data) whose names end in
// suffix and that contain one of the cues, each at most 2000 bytes: at most maxSeeds of them,
// spread evenly over the files.
func corpusBlocks(f *testing.F, rel, suffix string, cues ...string) []string {
	dir := shareddata.Seeds(f, rel)
	if dir == "" {
		return nil
	}
	var files []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, suffix) {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	var out []string
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for _, block := range strings.Split(string(data), "\n\n") {
			if len(block) > 2000 {
				continue
			}
			for _, c := range cues {
				if strings.Contains(block, c) {
					out = append(out, block)
					break
				}
			}
		}
	}
	if len(out) <= maxSeeds {
		return out
	}
	spread := make([]string, maxSeeds)
	for i := range spread {
		spread[i] = out[i*len(out)/maxSeeds]
	}
	return spread
}

// slow is far more than detection takes on any input the fuzzer makes (microseconds to
// milliseconds); an input that needs longer loops, and the fuzzer must keep it.
const slow = 10 * time.Second

// checkDetections asserts what DetectRegex promises for any input.
func checkDetections(t *testing.T, text string) {
	// The fuzzer has no time limit per input: a loop that never ends would only stall it. A
	// panic on another goroutine ends the worker, and the fuzzer then saves the input.
	watchdog := time.AfterFunc(slow, func() { panic(fmt.Sprintf("DetectRegex still running after %v on %q", slow, text)) })
	got := DetectRegex(text)
	watchdog.Stop()
	valid := map[string]bool{TypeLegalSection: true, TypeSection: true, TypeDocumentMention: true,
		TypeAcademicNumbered: true, TypeAcademicShortform: true, TypeExternal: true}
	for i, r := range got {
		if r.Start < 0 || r.End > len(text) || r.Start >= r.End {
			t.Fatalf("reference %d %+v: span [%d,%d) outside the %d-byte input", i, r, r.Start, r.End, len(text))
		}
		if text[r.Start:r.End] != r.OriginalText {
			t.Fatalf("reference %d: original text %q is not the input's %q", i, r.OriginalText, text[r.Start:r.End])
		}
		if utf8.ValidString(text) && !utf8.ValidString(r.OriginalText) {
			t.Fatalf("reference %d: span [%d,%d) splits a character: %q", i, r.Start, r.End, r.OriginalText)
		}
		if !valid[r.Type] || r.Method != MethodRegex || strings.TrimSpace(r.Target) == "" {
			t.Fatalf("reference %d: bad type, method or empty target: %+v", i, r)
		}
		if n := r.SectionNumber(); r.Type == TypeLegalSection && !strings.HasPrefix(r.Target, n) {
			t.Fatalf("reference %d: section number %q is not the head of %q", i, n, r.Target)
		}
		if i > 0 && got[i-1].Start > r.Start {
			t.Fatalf("references out of text order: %+v before %+v", got[i-1], r)
		}
		for _, o := range got[:i] {
			if o.Key() == r.Key() && o.Start < r.End && r.Start < o.End {
				t.Fatalf("duplicate overlapping references %+v and %+v", o, r)
			}
		}
	}
	if again := DetectRegex(text); !reflect.DeepEqual(again, got) {
		t.Fatalf("two runs on the same text differ:\n%+v\n%+v", got, again)
	}
}

func FuzzDetectGerman(f *testing.F) {
	for _, s := range []string{
		"nach § 6 Absatz 1 Satz 2 Nummer 4 zu beurteilen",
		"die §§ 3 bis 5 gelten; §§ 15e bis 15g",
		"Artikel 3 der Verordnung (EG) Nr. 1272/2008 und Anhang I Nummer 1.7",
		"nach § 5 des Arbeitsschutzgesetzes und § 2 Nummer 5 der 12. BImSchV",
		"Richtlinie 2012/18/EU, § 7 Abs. 1 S. 2 GefStoffV",
		"§§ 1, 2 und 3 bis 999999999999 der Verordnung",
		"§",
		"§ 5a Absatz 1 und 2,",
	} {
		f.Add(s)
	}
	// The project's labelled passages (German and English).
	for _, c := range refcases.Load(f) {
		f.Add(c.Text)
	}
	for _, b := range corpusBlocks(f, "corpus/gesetze", ".md", "§", "Anhang", "Artikel", "Verordnung (") {
		f.Add(b)
	}
	f.Fuzz(checkDetections)
}

func FuzzDetectEnglish(f *testing.F) {
	for _, s := range []string{
		"as described in Section 4 of [RFC6901]",
		"BCP 14 [RFC2119] [RFC8174] when, and only when",
		"see Sections 3.2 and 4.1, Appendix A.1, and [12], [3-5]",
		"(Smith et al., 2020; Jones and Brown 2019)",
		"see the Gas Cabinet Procedure at https://example.org/a?b=[1]#Section-3.",
		"Section 999999999999999999.1",
		"[",
	} {
		f.Add(s)
	}
	for _, b := range corpusBlocks(f, "corpus/rfc", ".txt", "Section", "[RFC", "RFC ", "Appendix") {
		f.Add(b)
	}
	f.Fuzz(checkDetections)
}
