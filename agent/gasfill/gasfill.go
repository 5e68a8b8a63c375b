// Package gasfill fills the empty cells of an HMIS gas table from the knowledge base. Each row
// is worked on its own (rows in parallel up to a limit): the substance's identity is grounded
// first, so that a row is never filled from another substance's sheet; then the collections
// are searched tier by tier (suppliers, standards, regulatory, general), each tier extracting
// all still-empty fields in one batched model call from passages that name the substance;
// every value is validated for its field and merged by the table's rules; a few general
// passes with a lower bar may follow, their values marked for review.
package gasfill

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"warren/agent"
	"warren/gas"
	"warren/kb"
	"warren/kb/chunk"
	"warren/llm"
	"warren/retrieval"
)

// Options tune a fill.
type Options struct {
	Tiers           []string // collections, searched in order
	Concurrency     int      // rows worked at once at most; 0: the chat role's capacity (see workers)
	MinConfidence   float64  // a value fills an empty cell at this confidence
	OverwriteMargin float64  // and replaces a filled one only this much more confident
	GeneralPasses   int      // extra passes over every collection, values marked for review
	ReviewBar       float64  // the lower confidence those passes accept
	ChunksPerQuery  int
	NarrowAbove     int // bytes of material above which a cheap call picks sections first
}

// DefaultTiers is the order collections are searched in.
var DefaultTiers = []string{"suppliers", "standards", "regulatory", "general"}

// DefaultOptions are the rules of the issue: fill at 0.3, overwrite at +0.2, three general
// passes.
func DefaultOptions() Options {
	return Options{Tiers: DefaultTiers, MinConfidence: 0.3, OverwriteMargin: 0.2,
		GeneralPasses: 3, ReviewBar: 0.15, ChunksPerQuery: 6, NarrowAbove: 6000}
}

// Filler fills rows.
type Filler struct {
	Gateway  *llm.Gateway
	Searcher *retrieval.Searcher
	Store    kb.Backend
	Options  Options
	// Rejected holds the values the analyst rejected per cell (see RejectedValues); a fill
	// never proposes them again.
	Rejected map[gas.CellRef]map[string]bool
	// Ledger, when set, receives every exchange with the model (query embeddings included),
	// so that a caller can keep the fill's ledger; it may be called from several rows at once.
	Ledger func(llm.LedgerEntry)
}

// searcher is the knowledge base's searcher with the query embeddings made as part of call,
// so that they are metered, recorded and replayed with the row's other model calls.
func (f *Filler) searcher(call llm.Call) *retrieval.Searcher {
	return f.Searcher.EmbeddingWith(f.Gateway.EmbedFor(call))
}

// RowResult is what one row's fill did.
type RowResult struct {
	Row      int    `json:"row"`
	Name     string `json:"name"`
	Grounded bool   `json:"grounded"`
	Identity string `json:"identity"` // how the substance was recognised, or why not
	Filled   int    `json:"filled"`
	// Unsupported counts the values kept as gas.StatusUnsupported: no passage offered states
	// them. They are changes, never counted as filled.
	Unsupported int           `json:"unsupported,omitempty"`
	Calls       int           `json:"calls"`
	Changes     []CellChange  `json:"changes"`
	Skipped     []SkippedTier `json:"skipped_tiers,omitempty"`
	Err         string        `json:"error,omitempty"`

	err error
}

// fail records the error that stopped the row.
func (r *RowResult) fail(err error) {
	r.err, r.Err = err, err.Error()
}

// stopsTheFill reports an error no other row can get past: the model host is down, the
// model is missing, or a collection was embedded with another model or dimension than the
// configured one (its error names the collection and `warren ingest --rebuild`).
func stopsTheFill(err error) bool {
	return errors.Is(err, llm.ErrUnreachable) || errors.Is(err, llm.ErrModelMissing) || errors.Is(err, kb.ErrEmbedderChanged)
}

// CellChange is one cell the fill changed.
type CellChange struct {
	Field  string   `json:"field"`
	Before gas.Cell `json:"before"`
	After  gas.Cell `json:"after"`
	Reason string   `json:"reason"`
}

// SkippedTier records a tier that cost no model call, and why.
type SkippedTier struct {
	Tier   string `json:"tier"`
	Reason string `json:"reason"`
}

// Fill works the given rows (all rows when rows is empty) and returns one result per row in
// table order. save is called with each row's changes as soon as the row is done, so an
// interrupted fill keeps every finished row; it may drop changes it did not keep. A row not
// saved because the fill was interrupted or stopped reports no changes. A failed save,
// an unreachable model host, a missing model or a collection embedded with another model
// (kb.ErrEmbedderChanged) stops the fill and is returned; rows not started have a zero result.
func (f *Filler) Fill(ctx context.Context, t *gas.Table, rows []int, save func(*RowResult) error) ([]RowResult, error) {
	want := map[int]bool{}
	for _, r := range rows {
		want[r] = true
	}
	var work []*gas.Row
	for _, r := range t.Rows {
		if len(want) == 0 || want[r.ID] {
			work = append(work, r)
		}
	}
	results := make([]RowResult, len(work))
	// The first error that stops the fill cancels the rows in flight; Wait returns it.
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(f.workers())
	for i, row := range work {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() (err error) {
			defer agent.Recover(&err) // a row that panics stops the fill, not the process
			// Outside a run: no meter above the row's own, no journal to replay from.
			res := f.fillRow(gctx, llm.Call{}, row)
			if res.err != nil && stopsTheFill(res.err) {
				err = res.err
			}
			if save != nil && err == nil && gctx.Err() == nil {
				if serr := save(&res); serr != nil {
					err = fmt.Errorf("couldn't save row %d (%s): %w", res.Row, res.Name, serr)
				}
			} else if save != nil {
				// Interrupted or stopped: the row is not saved, so none of its changes count.
				res.Changes, res.Filled, res.Unsupported = nil, 0, 0
			}
			results[i] = res
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return results, err
	}
	return results, ctx.Err()
}

// counter meters one row's model calls.
type counter struct {
	mu    sync.Mutex
	calls int
}

// fillRow works one row, its model calls made as call with a meter of the row's own (see
// FillRow).
func (f *Filler) fillRow(ctx context.Context, call llm.Call, row *gas.Row) (res RowResult) {
	res = RowResult{Row: row.ID, Name: row.Name()}
	c := &counter{}
	run := llm.NewRun(fmt.Sprintf("gasfill-row-%d", row.ID), llm.Budget{}, func(e llm.LedgerEntry) {
		if f.Ledger != nil {
			f.Ledger(e)
		}
		if e.Kind == "embed" {
			return // query embeddings of the search are not model calls of the fill
		}
		c.mu.Lock()
		c.calls++
		c.mu.Unlock()
	})
	call.Run, call.Node = run, "gasfill"
	defer func() { res.Calls = c.calls }()

	id, err := f.ground(ctx, call, row)
	if err != nil {
		res.fail(err)
		return res
	}
	res.Grounded, res.Identity = id.ok, id.why
	if !id.ok {
		return res
	}
	seen := map[string]bool{}
	for _, tier := range f.Options.Tiers {
		if len(emptyFields(row)) == 0 {
			break
		}
		chunks, err := f.material(ctx, call, id, []string{tier}, seen)
		if err != nil {
			res.fail(err)
			return res
		}
		if len(chunks) == 0 {
			res.Skipped = append(res.Skipped, SkippedTier{Tier: tier, Reason: "nothing new about the substance"})
			continue
		}
		if err := f.extract(ctx, call, row, id, chunks, "tier:"+tier, f.Options.MinConfidence, false, &res); err != nil {
			res.fail(err)
			return res
		}
	}
	// General passes over every collection, with a lower bar: what they find needs review.
	for pass := 1; pass <= f.Options.GeneralPasses && len(emptyFields(row)) > 0; pass++ {
		chunks, err := f.material(ctx, call, id, nil, seen)
		if err != nil {
			res.fail(err)
			return res
		}
		if len(chunks) == 0 {
			res.Skipped = append(res.Skipped, SkippedTier{Tier: fmt.Sprintf("general pass %d", pass), Reason: "nothing new about the substance"})
			break
		}
		if err := f.extract(ctx, call, row, id, chunks, fmt.Sprintf("general:%d", pass), f.Options.ReviewBar, true, &res); err != nil {
			res.fail(err)
			return res
		}
	}
	return res
}

// emptyFields lists the fields a fill still asks for, in schema order: empty, rejected or
// unsupported cells, and cells an earlier fill marked for review, which a more confident value may replace (by the
// merge rule's margin). Cells from the sheet and the analyst's are never asked for.
func emptyFields(row *gas.Row) []gas.Field {
	var out []gas.Field
	for _, f := range gas.Fields() {
		if f.Name == "chemical_name" {
			continue
		}
		c := row.Cells[f.Name]
		if c.Fillable() || c.Status == gas.StatusReview && c.Method != gas.MethodSheet {
			out = append(out, f)
		}
	}
	return out
}

// RejectedValues collects, from a table's decision log, the values the analyst rejected in each
// cell, so that a later fill does not propose them again. A rejection that was undone does not
// count.
func RejectedValues(decisions []gas.Decision) map[gas.CellRef]map[string]bool {
	out := map[gas.CellRef]map[string]bool{}
	undone := map[int64]bool{}
	for _, d := range decisions {
		if d.Undoes != 0 {
			undone[d.Undoes] = true
		}
	}
	for _, d := range decisions {
		if undone[d.ID] || d.After.Status != gas.StatusRejected || d.Before.Value == "" {
			continue
		}
		ref := gas.CellRef{Row: d.Row, Field: d.Field}
		if out[ref] == nil {
			out[ref] = map[string]bool{}
		}
		out[ref][d.Before.Value] = true
	}
	return out
}

// identity is what the knowledge base knows the substance as.
type identity struct {
	ok       bool
	why      string
	name     string
	cas      string
	names    []string        // name and synonyms, for matching passages
	docs     map[string]bool // documents about this substance
	patterns []*regexp.Regexp
}

// casShaped is anything written like a CAS number; casCandidates keeps those the text labels
// as one, so that a standard's number such as "IEC 60079-20-1" is never taken for one.
var casShaped = regexp.MustCompile(`\b\d{2,7}-\d{2}-\d\b`)

func validCAS(cas string) bool {
	m := regexp.MustCompile(`^\d{2,7}-\d{2}-(\d)$`).FindStringSubmatch(cas)
	return m != nil && gas.CASCheckDigit(cas) == int(m[1][0]-'0')
}

// ground checks name ↔ CAS ↔ synonyms against the knowledge base before anything is filled.
// A row with a CAS number is grounded by the documents that give that number and also name
// the substance: a document that gives the number for something else is a conflict, and the
// row is not filled. A row without one first looks for its CAS number, labelled as such, in
// passages that name the substance; it is grounded through that number only when exactly one
// is found.
func (f *Filler) ground(ctx context.Context, call llm.Call, row *gas.Row) (identity, error) {
	id := identity{name: strings.TrimSpace(row.Name()), cas: row.Cells["cas_number"].Value, docs: map[string]bool{}}
	if id.name == "" {
		// An empty name would match every passage: any document giving the CAS number would
		// ground the row, and every passage of it, about whatever gas, would be offered.
		id.why = "the row has no chemical name"
		return id, nil
	}
	id.names = append(id.names, id.name)
	for _, s := range strings.Split(row.Cells["synonyms"].Value, ";") {
		if s = strings.TrimSpace(s); len(s) >= 3 {
			id.names = append(id.names, s)
		}
	}
	for _, n := range id.names {
		id.patterns = append(id.patterns, regexp.MustCompile(`(?i)(^|[^\pL\pN])`+regexp.QuoteMeta(n)+`($|[^\pL\pN])`))
	}
	query := strings.Join(append(append([]string{}, id.names...), id.cas), " ")
	results, err := f.searcher(call).Search(ctx, retrieval.Request{Query: query, K: 30, Mode: retrieval.Lexical})
	if err != nil {
		return id, err
	}
	if id.cas == "" {
		// A bare "CAS No.:" line is the substance's its own heading names; one whose heading
		// names it only through a parent ("Boron Trifluoride and Germane" over "Boron
		// trifluoride") counts only when no passage gives a number so plainly.
		found, byParent := map[string]bool{}, map[string]bool{}
		for _, r := range results {
			if !id.namedIn(r.Heading + "\n" + r.SectionPath + "\n" + r.Text) {
				continue
			}
			for _, cas := range casCandidates(r.Text) {
				switch attributeCAS(r.Text, cas, id.names) {
				case attributedToUs:
					found[cas] = true
				case attributedByLabel:
					if id.namedIn(r.Heading) {
						found[cas] = true
					} else if id.namedIn(r.SectionPath) {
						byParent[cas] = true
					}
				}
			}
		}
		if len(found) == 0 {
			found = byParent
		}
		if len(found) != 1 {
			id.why = "the row has no CAS number and the knowledge base gives none for this name"
			if len(found) > 1 {
				id.why = fmt.Sprintf("the row has no CAS number and the knowledge base gives %d for this name: fill it by hand", len(found))
			}
			return id, nil
		}
		for cas := range found {
			id.cas = cas
		}
		if results, err = f.searcher(call).Search(ctx, retrieval.Request{Query: query + " " + id.cas, K: 30, Mode: retrieval.Lexical}); err != nil {
			return id, err
		}
	}
	id.patterns = append(id.patterns, regexp.MustCompile(`(^|\D)`+regexp.QuoteMeta(id.cas)+`(\D|$)`))
	givesCAS, supports := map[string]bool{}, map[string]bool{}
	for _, r := range results {
		text := r.Heading + "\n" + r.SectionPath + "\n" + r.Text
		if !strings.Contains(text, id.cas) {
			continue
		}
		givesCAS[r.Doc] = true
		switch attributeCAS(r.Text, id.cas, id.names) {
		case attributedToUs:
			supports[r.Doc] = true
		case attributedByLabel:
			// "CAS number: …" on a line of its own: the substance is the one the section or
			// the document is about.
			if id.namedIn(r.Heading+"\n"+r.SectionPath) || f.titleNames(ctx, id, r.Doc) {
				supports[r.Doc] = true
			}
		}
	}
	var conflicts []string
	for doc := range givesCAS {
		if supports[doc] {
			id.docs[doc] = true
		} else {
			conflicts = append(conflicts, doc)
		}
	}
	sort.Strings(conflicts)
	switch {
	case len(id.docs) == 0 && len(conflicts) > 0:
		id.why = fmt.Sprintf("identity conflict: %s gives CAS %s without naming %s", strings.Join(conflicts, ", "), id.cas, id.name)
		return id, nil
	case len(id.docs) == 0:
		id.why = "no document in the knowledge base gives CAS " + id.cas
		return id, nil
	}
	docs := make([]string, 0, len(id.docs))
	for d := range id.docs {
		docs = append(docs, d)
	}
	sort.Strings(docs)
	id.ok = true
	id.why = "CAS " + id.cas + " and the name found in " + strings.Join(docs, ", ")
	if row.Cells["cas_number"].Value == "" {
		id.why += " (CAS found by name)"
	}
	return id, nil
}

// How a passage attributes a CAS number.
const (
	attributedElsewhere = iota // to another substance, or it cannot be told
	attributedToUs             // one of the names stands with the number
	attributedByLabel          // a bare "CAS number: …" line: to whatever the section is about
)

// attributeCAS reports to whom a passage gives a CAS number: the names on the same line, the
// header of its column in a table, or the rows above it in a two-column table or the lines
// above it in a label paragraph ("Chemical name: …" / "CAS number: …"). A name elsewhere on
// the page does not count: a sheet about arsine that mentions phosphine does not make
// arsine's number phosphine's.
func attributeCAS(text, cas string, names []string) int {
	named := func(s string) bool { return nearName(s, "", names) }
	lines := strings.Split(text, "\n")
	best := attributedElsewhere
	for i, line := range lines {
		if !strings.Contains(line, cas) {
			continue
		}
		if named(line) {
			return attributedToUs
		}
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "|") {
			cells := tableCells(trimmed)
			start := i
			for start > 0 && strings.HasPrefix(strings.TrimSpace(lines[start-1]), "|") {
				start--
			}
			if len(cells) <= 2 {
				// A field | value table about one substance: the rows above say which.
				for j := i - 1; j >= start; j-- {
					if named(lines[j]) {
						return attributedToUs
					}
				}
				best = attributedByLabel
				continue
			}
			// A table of several substances: the header of the number's column.
			header := tableCells(strings.TrimSpace(lines[start]))
			for col, cell := range cells {
				if strings.Contains(cell, cas) && start < i && col < len(header) && named(header[col]) {
					return attributedToUs
				}
			}
			continue
		}
		if !labelledCAS.MatchString(trimmed) {
			continue
		}
		// A label line such as "- CAS number: 7784-42-1": look at its paragraph.
		for j := i - 1; j >= 0 && j >= i-8 && strings.TrimSpace(lines[j]) != ""; j-- {
			if named(lines[j]) {
				return attributedToUs
			}
		}
		best = attributedByLabel
	}
	return best
}

// labelledCAS is a line that starts with a CAS label, after list or emphasis marks.
var labelledCAS = regexp.MustCompile(`(?i)^[-*_#\s]*CAS\b`)

// tableCells splits a Markdown table row into its cells.
func tableCells(row string) []string {
	return strings.Split(strings.Trim(row, "|"), "|")
}

// casCandidates lists the valid CAS numbers a text labels as such: on a line that mentions
// CAS, or in a table row whose first cell or column header does.
func casCandidates(text string) []string {
	var out []string
	seen := map[string]bool{}
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		labelled := strings.Contains(strings.ToUpper(line), "CAS")
		if !labelled && strings.HasPrefix(strings.TrimSpace(line), "|") {
			start := i
			for start > 0 && strings.HasPrefix(strings.TrimSpace(lines[start-1]), "|") {
				start--
			}
			labelled = strings.Contains(strings.ToUpper(lines[start]), "CAS")
		}
		if !labelled {
			continue
		}
		for _, cas := range casShaped.FindAllString(line, -1) {
			if validCAS(cas) && !seen[cas] {
				seen[cas] = true
				out = append(out, cas)
			}
		}
	}
	return out
}

// titleNames reports that a document's title names the substance.
func (f *Filler) titleNames(ctx context.Context, id identity, doc string) bool {
	info, ok, err := f.Store.Document(ctx, doc)
	return err == nil && ok && id.namedIn(info.Title)
}

// nearName reports that a CAS number stands within a short distance of one of the names:
// it is given for that substance, not for another one on the same page. Without a number it
// reports that the text names the substance.
func nearName(text, cas string, names []string) bool {
	window := text
	if cas != "" {
		i := strings.Index(text, cas)
		lo, hi := max(i-120, 0), min(i+len(cas)+120, len(text))
		window = text[lo:hi]
	}
	for _, n := range names {
		if regexp.MustCompile(`(?i)(^|[^\pL\pN])` + regexp.QuoteMeta(n) + `($|[^\pL\pN])`).MatchString(window) {
			return true
		}
	}
	return false
}

// namedIn reports that a passage names the substance or gives its CAS number.
func (id identity) namedIn(text string) bool {
	for _, p := range id.patterns {
		if p.MatchString(text) {
			return true
		}
	}
	return false
}

// material gathers new passages about the substance from the given collections (all when
// nil): chunks of grounded documents that name the substance or sit in a section that does.
func (f *Filler) material(ctx context.Context, call llm.Call, id identity, collections []string, seen map[string]bool) ([]chunk.Chunk, error) {
	var out []chunk.Chunk
	queries := append(append([]string{}, id.names...), id.cas)
	for _, q := range queries {
		if strings.TrimSpace(q) == "" {
			continue
		}
		results, err := f.searcher(call).Search(ctx, retrieval.Request{Query: q, K: max(f.Options.ChunksPerQuery, 1),
			Scope: chunk.Scope{Collections: collections}, Mode: retrieval.Hybrid})
		if err != nil {
			return nil, err
		}
		for _, r := range results {
			if seen[r.ID] || !id.docs[r.Doc] {
				continue
			}
			if !id.namedIn(r.Heading + "\n" + r.SectionPath + "\n" + r.Text) {
				continue // a passage of a multi-substance sheet that is about another gas
			}
			seen[r.ID] = true
			out = append(out, r.Chunk)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}
