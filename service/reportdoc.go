package service

import (
	"fmt"
	"strings"

	"warren/agent"
	"warren/agent/research"
	"warren/report"
)

// reportWords are the words of an exported research report, in the report's language.
type reportWords struct {
	title, question, date, analyst, run, status, complete, partial, score, unchecked string
	plan, approved, edited, unfinished, added, body, quality                         string
	problems, unsupported, notStated, remarks, references, passages, withheld        string
}

var reportLanguages = map[string]reportWords{
	"en": {title: "Research report", question: "Question", date: "Date", analyst: "Analyst", run: "Run", status: "Status",
		complete: "complete", partial: "partial: %s", score: "Score: %d of 500", unchecked: "The report was not checked by the model.",
		plan: "Approved plan", approved: "Approved by %s on %s.", edited: "Approved with changes by %s on %s.",
		unfinished: "not finished", added: "added during the run", body: "Report", quality: "Quality check",
		problems: "Problems found", unsupported: "Unsupported sentences", notStated: "not stated by source",
		remarks: "Remarks of the check", references: "References", passages: "Appendix: cited passages",
		withheld: "Withheld: this run used %s, which you may not read; its passages and what was written from them are left out."},
	"de": {title: "Recherchebericht", question: "Frage", date: "Datum", analyst: "Analyst", run: "Lauf", status: "Status",
		complete: "vollständig", partial: "unvollständig: %s", score: "Bewertung: %d von 500", unchecked: "Der Bericht wurde nicht vom Modell geprüft.",
		plan: "Genehmigter Plan", approved: "Genehmigt von %s am %s.", edited: "Mit Änderungen genehmigt von %s am %s.",
		unfinished: "nicht abgeschlossen", added: "während des Laufs ergänzt", body: "Bericht", quality: "Qualitätsprüfung",
		problems: "Gefundene Probleme", unsupported: "Nicht belegte Sätze", notStated: "nicht belegt durch Quelle",
		remarks: "Anmerkungen der Prüfung", references: "Quellen", passages: "Anhang: zitierte Textstellen",
		withheld: "Zurückgehalten: Dieser Lauf nutzte %s, die Sie nicht lesen dürfen; ihre Textstellen und was daraus geschrieben wurde, fehlen."},
}

// researchDocument is a research run's report as a document: its facts, the approved plan,
// the report, the quality check, the numbered references and the cited passages (quoted by
// source number). It is a function of the run alone, so that the same run gives the same file.
func researchDocument(st *research.State, cp agent.Checkpoint, analyst string, passages map[int]string) *report.Document {
	lang := st.Language
	w, ok := reportLanguages[lang]
	if !ok {
		lang, w = "en", reportLanguages["en"]
	}
	d := &report.Document{Lang: lang, Title: w.title, Author: analyst, Created: cp.SavedAt}
	status := w.complete
	if st.Exhausted {
		status = fmt.Sprintf(w.partial, st.PartialNote)
	}
	d.Meta = []report.Field{{Label: w.question, Value: st.Question}}
	if !cp.SavedAt.IsZero() {
		d.Meta = append(d.Meta, report.Field{Label: w.date, Value: cp.SavedAt.UTC().Format("2006-01-02 15:04 UTC")})
	}
	d.Meta = append(d.Meta, report.Field{Label: w.analyst, Value: analyst}, report.Field{Label: w.run, Value: cp.Run},
		report.Field{Label: w.status, Value: status})
	if len(st.Withheld) > 0 {
		d.Blocks = append(d.Blocks, note(true, report.Plain(fmt.Sprintf(w.withheld, strings.Join(st.Withheld, ", ")))))
	}

	if len(st.Plan) > 0 {
		d.Blocks = append(d.Blocks, report.Head(1, w.plan))
		if line := approval(st, w); line != "" {
			d.Blocks = append(d.Blocks, report.Para(report.Inline{Text: line, Italic: true}))
		}
		list := report.Block{Kind: report.List, Ordered: true}
		for _, t := range st.Plan {
			in := []report.Inline{report.Plain(t.Query)}
			var marks []string
			if t.Unfinished {
				marks = append(marks, w.unfinished)
			}
			if t.Added {
				marks = append(marks, w.added)
			}
			if len(marks) > 0 {
				in = append(in, report.Inline{Text: " (" + strings.Join(marks, ", ") + ")", Italic: true})
			}
			item := []report.Block{report.Para(in...)}
			if t.Rationale != "" {
				item = append(item, report.Para(report.Inline{Text: t.Rationale, Italic: true}))
			}
			list.Items = append(list.Items, item)
		}
		d.Blocks = append(d.Blocks, list)
	}

	d.Blocks = append(d.Blocks, report.Head(1, w.body))
	var flagged []string
	for _, u := range st.Quality.Unsupported {
		flagged = append(flagged, u.Sentence)
	}
	d.Blocks = append(d.Blocks, report.FromMarkdown(st.Report, report.MarkdownOptions{Shift: 1, Mark: research.UnsupportedMark, Flagged: flagged})...)

	d.Blocks = append(d.Blocks, report.Head(1, w.quality))
	if st.Quality.Checked {
		d.Blocks = append(d.Blocks, report.Para(report.Plain(fmt.Sprintf(w.score, st.Quality.Total))))
	} else {
		d.Blocks = append(d.Blocks, report.Para(report.Plain(w.unchecked)))
	}
	if len(st.Quality.Unsupported) > 0 {
		d.Blocks = append(d.Blocks, report.Head(2, w.unsupported))
		list := report.Block{Kind: report.List}
		for _, u := range st.Quality.Unsupported {
			in := []report.Inline{{Text: u.Sentence, Flag: true}, report.Plain(" — " + strings.Join(u.Claims, ", ") + " " + w.notStated + " ")}
			in = append(in, cites(u.Cited)...)
			list.Items = append(list.Items, []report.Block{report.Para(in...)})
		}
		d.Blocks = append(d.Blocks, report.Block{Kind: report.Note, Warn: true, Blocks: []report.Block{list}})
	}
	if problems := otherProblems(st); len(problems) > 0 {
		d.Blocks = append(d.Blocks, report.Head(2, w.problems), bullets(problems))
	}
	if len(st.Quality.Issues) > 0 {
		d.Blocks = append(d.Blocks, report.Head(2, w.remarks), bullets(st.Quality.Issues))
	}

	if len(st.Sources) > 0 {
		d.Blocks = append(d.Blocks, report.Head(1, w.references))
		for _, src := range st.Sources {
			in := []report.Inline{{Text: src.Doc, Bold: true}}
			if place := src.Place(); place != "" {
				in = append(in, report.Plain(", "+place))
			}
			if src.Collection != "" {
				in = append(in, report.Plain(" ("+src.Collection+")"))
			}
			d.Blocks = append(d.Blocks, report.Block{Kind: report.Reference, N: src.N, Inlines: in})
		}
		d.Blocks = append(d.Blocks, report.Head(1, w.passages))
		for _, src := range st.Sources {
			where := src.Doc
			if place := src.Place(); place != "" {
				where += ", " + place
			}
			d.Blocks = append(d.Blocks, report.Para(report.Inline{Text: fmt.Sprintf("[%d] %s", src.N, where), Bold: true}),
				report.Block{Kind: report.Quote, Blocks: []report.Block{report.Para(report.Plain(passages[src.N]))}})
		}
	}
	return d
}

// approval says who approved the plan and when, from the run's last decision on it.
func approval(st *research.State, w reportWords) string {
	for i := len(st.Decisions) - 1; i >= 0; i-- {
		dec := st.Decisions[i]
		if dec.Kind != research.InterruptPlan || (dec.Action != research.DecisionApproved && dec.Action != research.DecisionEdited) {
			continue
		}
		by, at := dec.By, dec.At.UTC().Format("2006-01-02 15:04 UTC")
		if by == "" {
			by = "—"
		}
		if dec.Action == research.DecisionEdited {
			return fmt.Sprintf(w.edited, by, at)
		}
		return fmt.Sprintf(w.approved, by, at)
	}
	return ""
}

// otherProblems are the check's problems other than unsupported numbers: those are listed
// with their sentences, from the final draft.
func otherProblems(st *research.State) []string {
	var out []string
	for _, p := range st.Quality.Problems {
		if !strings.Contains(p, "not stated by the cited source") {
			out = append(out, p)
		}
	}
	return out
}

func note(warn bool, in ...report.Inline) report.Block {
	return report.Block{Kind: report.Note, Warn: warn, Blocks: []report.Block{report.Para(in...)}}
}

func bullets(lines []string) report.Block {
	list := report.Block{Kind: report.List}
	for _, l := range lines {
		list.Items = append(list.Items, []report.Block{report.Para(report.Plain(l))})
	}
	return list
}

// cites writes source numbers as a linked citation: "[2, 5]".
func cites(ns []int) []report.Inline {
	if len(ns) == 0 {
		return nil
	}
	out := []report.Inline{report.Plain("[")}
	for i, n := range ns {
		if i > 0 {
			out = append(out, report.Plain(", "))
		}
		out = append(out, report.Inline{Text: fmt.Sprint(n), Cite: n})
	}
	return append(out, report.Plain("]"))
}
