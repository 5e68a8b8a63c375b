package refs

import (
	"slices"
	"testing"
)

func TestParseEntry(t *testing.T) {
	cases := []struct {
		text    string
		authors []string
		etAl    bool
		year    string
		title   string
	}{
		{"- Müller, A., Schmidt, B. and Weber, C. (2019). Ignition of silane releases at cylinder valve outlets. Journal of Fab Safety 12(3), 45–58.",
			[]string{"Müller", "Schmidt", "Weber"}, false, "2019", "Ignition of silane releases at cylinder valve outlets"},
		{"SMITH, J. 2020a. Alarm fatigue among gas technicians in round-the-clock fabs. Human Factors, 7(2), pp. 60–71.",
			[]string{"SMITH"}, false, "2020a", "Alarm fatigue among gas technicians in round-the-clock fabs"},
		{"3. Smith, J., & Jones, K. (2020). Response times of detectors. Quarterly, 8(4).", []string{"Smith", "Jones"}, false, "2020", "Response times of detectors"},
		{"[2] Okonkwo, T. and Lenz, M. (2021). Field evaluation of tape-based arsine detectors. Report KS-EHS-2021-03.",
			[]string{"Okonkwo", "Lenz"}, false, "2021", "Field evaluation of tape-based arsine detectors"},
		{"van der Berg, L. (2018). Purge cycles for toxic gas pigtails: a comparison. Reports 21.", []string{"van der Berg"}, false, "2018", "Purge cycles for toxic gas pigtails: a comparison"},
		{"Li, X., Wu, Y. et al. (2017). “Short names” in a title. J 1.", []string{"Li", "Wu"}, true, "2017", "Short names” in a title"},
		{"Smith JK, Lee A. 2016. Vancouver style. J 2.", []string{"Smith", "Lee"}, false, "2016", "Vancouver style"},
	}
	for _, c := range cases {
		e, ok := ParseEntry(c.text)
		if !ok || !slices.Equal(e.Authors, c.authors) || e.EtAl != c.etAl || e.Year != c.year || e.Title != c.title {
			t.Errorf("%q:\n got %v %q %v %q %q", c.text, ok, e.Authors, e.EtAl, e.Year, e.Title)
		}
	}
	for _, text := range []string{"European Chemicals Agency: harmonised classification (arsine).", "(2019). A title without authors."} {
		if e, ok := ParseEntry(text); ok {
			t.Errorf("%q is no author–year entry: %+v", text, e)
		}
	}
}

func TestCitationMatchesEntry(t *testing.T) {
	entry := func(text string) Entry {
		e, ok := ParseEntry(text)
		if !ok {
			t.Fatalf("%q", text)
		}
		return e
	}
	three := entry("Müller, A., Schmidt, B. and Weber, C. (2019). Ignition. J.")
	two := entry("Smith, J. and Jones, K. (2020). Response. J.")
	one := entry("Smith, J. (2020a). Alarm fatigue. J.")
	cases := []struct {
		target string
		e      Entry
		want   bool
	}{
		{"Müller et al. 2019", three, true},
		{"Mueller et al. 2019", three, true},
		{"MÜLLER et al. 2019", three, true},
		{"Müller et al. 2018", three, false},
		{"Schmidt et al. 2019", three, false},
		{"Müller and Schmidt 2019", three, false},
		{"Smith and Jones 2020", two, true},
		{"Jones and Smith 2020", two, false},
		{"Smith et al. 2020", two, false},
		{"Smith 2020", two, false},
		{"Smith 2020a", one, true},
		{"Smith 2020", one, true}, // a year without its letter fits; two such entries are ambiguous
		{"Smith 2020b", one, false},
	}
	for _, c := range cases {
		cite, ok := ParseCitation(c.target)
		if !ok {
			t.Fatalf("%q", c.target)
		}
		if got := cite.Matches(c.e); got != c.want {
			t.Errorf("%s matches %v: %v, want %v", c.target, c.e.Authors, got, c.want)
		}
	}
}

func TestBibliographyEntries(t *testing.T) {
	text := "[1] Smith, J. (2020). One.\n    Continued.\n\n[2] Jones, K. (2018). Two.\n- Lee, A. (2017). Three.\nwrapped line\n\nPlain, P. (2015). Four."
	want := []string{"[1] Smith, J. (2020). One. Continued.", "[2] Jones, K. (2018). Two.", "- Lee, A. (2017). Three. wrapped line", "Plain, P. (2015). Four."}
	if got := BibliographyEntries(text); !slices.Equal(got, want) {
		t.Errorf("%q", got)
	}
}

// FuzzBibliography: entries and citations of any text parse without panicking, and what
// parses has a four-digit year and a first author.
func FuzzBibliography(f *testing.F) {
	for _, s := range []string{"Müller, A., Schmidt, B. and Weber, C. (2019). Ignition. J.", "SMITH, J. 2020a. Alarm. H.", "[2] Okonkwo, T. (2021). Field.", "(2019). x", "Smith et al. 2020", "van der Berg 2018"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, raw := range BibliographyEntries(text) {
			if e, ok := ParseEntry(raw); ok && (len(e.Year) < 4 || len(e.Authors) == 0 || e.Title == "") {
				t.Errorf("%q parsed to %+v", raw, e)
			}
		}
		if c, ok := ParseCitation(text); ok {
			if len(c.Year) < 4 || len(c.Authors) == 0 {
				t.Errorf("%q parsed to %+v", text, c)
			}
			e, _ := ParseEntry(text)
			c.Matches(e)
		}
		FoldName(text)
	})
}
