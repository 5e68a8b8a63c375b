package kb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"warren/kb/chunk"
	"warren/kb/load"
)

// Ingest loads, chunks, embeds and stores every item in a backend. Each document is stored
// whole; an unchanged document (same file size and time, or same content hash, and the same
// embedder) costs no embedding call, and one whose size and time are unchanged is not read.
//
// The work is a pipeline, so that a document costs the same however many are stored: workers
// load and chunk items ahead (as many as there are cores), one stage embeds the chunks of many
// documents per call (IngestOptions.EmbedGroup texts, so every host of the embed role has work),
// and one writer stores what is ready in one transaction (Backend.ReplaceDocuments). At most
// a window of items is between loading and storing, so memory stays bounded.
//
// Cancelling the context stops loading and embedding; what was embedded is still stored, each
// document whole, and the backend is flushed. A second ingest goes on from there: what was
// stored is found unchanged.
func Ingest(ctx context.Context, s Backend, items []Item, opts IngestOptions) (*IngestReport, error) {
	if opts.Embedder == nil {
		return nil, errors.New("couldn't ingest: no embedder")
	}
	if opts.Chunk.Size == 0 {
		opts.Chunk = load.DefaultChunkOptions
	}
	if opts.EmbedGroup <= 0 {
		opts.EmbedGroup = defaultEmbedGroup
	}
	if err := s.Prepare(ctx); err != nil {
		return nil, err
	}
	p := &pipeline{s: s, items: items, opts: opts, collections: map[string]collectionState{},
		results: make([][]FileResult, len(items)), started: time.Now()}
	p.prog.Files = len(items)
	p.run(ctx)
	// Every file is done: say so before the flush, which at a large collection builds the
	// vector index and takes a while of its own.
	p.mu.Lock()
	p.prog.Saving = true
	p.mu.Unlock()
	p.progress(true)
	// The backend is flushed even after a cancel, with a fresh context: what was stored stays
	// consistent with its vectors.
	if err := s.Flush(context.WithoutCancel(ctx)); err != nil {
		return p.report(ctx), err
	}
	return p.report(ctx), nil
}

const (
	// defaultEmbedGroup is how many texts one embedding call takes at most.
	defaultEmbedGroup = 256
	// window is how many items may be between loading and storing: room for several write
	// batches, so one slow write does not starve the loaders.
	window = 1024
	// writeBatchDocs and writeBatchChunks bound one write; the writer also writes what it has
	// writeBatchWait after the first document of a batch came.
	writeBatchDocs   = 256
	writeBatchChunks = 4096
	writeBatchWait   = 100 * time.Millisecond
)

// staged is one item on its way through the pipeline.
type staged struct {
	idx     int
	res     fileOutcome
	doc     *load.Document // to store; nil once res is final (skipped, failed, unchanged)
	chunks  []chunk.Chunk
	vecs    [][]float32
	touch   bool // unchanged in content under a new file time: the time is recorded
	whole   bool // an e-mail: stored on its own by the writer, its attachments after it
	skipped bool // never started: the ingest was cancelled first
}

// collectionState is what the ingest knows of a collection from before it started.
type collectionState struct {
	info   CollectionInfo
	exists bool
}

type pipeline struct {
	s     Backend
	items []Item
	opts  IngestOptions

	mu          sync.Mutex // guards collections, prog, samples, lastReport
	collections map[string]collectionState
	prog        Progress
	samples     []progressSample
	lastReport  time.Time
	started     time.Time

	results    [][]FileResult // by item; an e-mail's attachments follow its own line
	stopReason string         // set when every further item fails the same way
}

type progressSample struct {
	at   time.Time
	done int
}

// run moves every item through the stages and returns when all are recorded.
func (p *pipeline) run(ctx context.Context) {
	work, stop := context.WithCancel(ctx)
	defer stop()
	if b, ok := p.s.(interface{ BeginBulk() (end func()) }); ok {
		defer b.BeginBulk()() // the vectors are indexed once, when flushed
	}
	tokens := make(chan struct{}, window)
	next := make(chan int)
	go func() { // hands out items while the window has room
		defer close(next)
		for i := range p.items {
			select {
			case tokens <- struct{}{}:
			case <-work.Done():
				return
			}
			select {
			case next <- i:
			case <-work.Done():
				<-tokens
				return
			}
		}
	}()
	loaded := make(chan *staged, window)
	var workers sync.WaitGroup
	for range max(runtime.GOMAXPROCS(0), 2) {
		workers.Add(1)
		go func() {
			defer workers.Done()
			for i := range next {
				loaded <- p.prepare(work, i)
			}
		}()
	}
	go func() { workers.Wait(); close(loaded) }()
	embedded := make(chan *staged, window)
	go p.embed(work, loaded, embedded)
	p.write(ctx, stop, embedded, tokens)
}

// prepare finds out what an item needs: nothing (unchanged, skipped, failed) or storing, in
// which case it is loaded and chunked.
func (p *pipeline) prepare(ctx context.Context, i int) (st *staged) {
	it := p.items[i]
	st = &staged{idx: i}
	if ctx.Err() != nil {
		st.skipped = true
		return st
	}
	// A file already in the knowledge base keeps its ID however its path is given now
	// (through its folder or on its own, relative or absolute).
	abs, absErr := filepath.Abs(it.Path)
	if absErr == nil {
		if id, ok, err := p.s.DocumentBySource(ctx, abs); err == nil && ok {
			it.ID = id
		}
	}
	st.res.Path, st.res.Doc = it.Path, it.ID
	final := func(status, reason string, err error) *staged {
		st.res.Status, st.res.Reason, st.res.err = status, reason, err
		return st
	}
	if it.Skip != "" {
		return final(StatusSkipped, it.Skip, nil)
	}
	old, found, err := p.s.Document(ctx, it.ID)
	if err != nil {
		return final(StatusFailed, err.Error(), err)
	}
	if absErr == nil && found && p.unchangedByStamp(ctx, it, abs, old, st) {
		return st
	}
	lo := p.opts.Load
	if it.Within != "" {
		lo.Within = it.Within
	}
	doc, err := load.LoadContext(ctx, it.Path, lo)
	var skip *load.SkipError
	var outside *load.OutsideError
	switch {
	case errors.As(err, &skip):
		return final(StatusSkipped, skip.Reason, nil)
	case errors.As(err, &outside):
		return final(StatusSkipped, outside.Reason, nil)
	case err != nil:
		return final(StatusFailed, err.Error(), err)
	}
	doc.ID, doc.Collection = it.ID, it.Collection
	if it.Title != "" {
		doc.Title = it.Title
	}
	if load.CarriesAttachments(doc.Format) || len(doc.Attachments) > 0 {
		st.doc, st.whole = doc, true
		return st
	}
	if found && old.Source != doc.Source {
		// Two files with the same name from different folders: never let one replace the other.
		err := fmt.Errorf("the ID %s is taken by %s: ingest this file through its folder, or remove the other with `warren kb rm %s`",
			doc.ID, old.Source, doc.ID)
		return final(StatusFailed, err.Error(), err)
	}
	info, exists := p.collection(ctx, doc.Collection)
	if !p.opts.Force && found && old.Hash == doc.Hash && old.Collection == doc.Collection && exists && SameEmbedder(info.Embedder, p.opts.Embedder.ID()) {
		st.res.Chunks = old.Chunks
		if doc.Size != old.Size || doc.ModTime != old.ModTime {
			doc.Sections = nil
			st.doc, st.touch = doc, true
		}
		return final(StatusUnchanged, "", nil)
	}
	if exists {
		if err := info.CheckEmbedder(p.opts.Embedder.ID(), 0); err != nil {
			return final(StatusFailed, err.Error(), err)
		}
	}
	chunker := &load.Chunker{Doc: doc.ID, Collection: doc.Collection, Options: p.opts.Chunk}
	if err := doc.EachSection(func(sec load.Section) error {
		st.chunks = append(st.chunks, chunker.Section(sec)...)
		return ctx.Err()
	}); err != nil {
		err = fmt.Errorf("couldn't read: %w", err)
		return final(StatusFailed, err.Error(), err)
	}
	if len(st.chunks) == 0 {
		return final(StatusSkipped, "no text to index", nil)
	}
	doc.Sections = nil // the chunks carry the text on
	st.doc = doc
	return st
}

// unchangedByStamp finds an item unchanged without reading it: a file whose size and time are
// those stored, in the same collection built by the same embedder.
func (p *pipeline) unchangedByStamp(ctx context.Context, it Item, abs string, old DocInfo, st *staged) bool {
	if p.opts.Force || load.CarriesAttachments(load.FormatOf(it.Path)) {
		return false // an e-mail is read to list its attachments' outcomes
	}
	fi, err := os.Stat(abs)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	// A record without a hash is one a write left unfinished (Weaviate): never unchanged.
	if old.Hash == "" || old.Size == 0 || old.Size != fi.Size() || old.ModTime != fi.ModTime().UnixNano() ||
		old.Source != abs || old.Collection != it.Collection {
		return false
	}
	info, exists := p.collection(ctx, it.Collection)
	if !exists || !SameEmbedder(info.Embedder, p.opts.Embedder.ID()) {
		return false
	}
	st.res.Status, st.res.Chunks = StatusUnchanged, old.Chunks
	return true
}

// collection is a collection as it was when the ingest first asked: what the ingest itself
// creates is checked when it is written.
func (p *pipeline) collection(ctx context.Context, name string) (CollectionInfo, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c, ok := p.collections[name]; ok {
		return c.info, c.exists
	}
	info, exists, err := p.s.Collection(ctx, name)
	if err != nil {
		return CollectionInfo{}, false // asked again by the next item
	}
	p.collections[name] = collectionState{info: info, exists: exists}
	return info, exists
}

// embed embeds the chunks of many documents per call and passes every item on.
func (p *pipeline) embed(ctx context.Context, in <-chan *staged, out chan<- *staged) {
	var calls sync.WaitGroup
	defer func() { calls.Wait(); close(out) }()
	running := make(chan struct{}, 2) // a call forms while one is in flight: the hosts stay busy
	var group []*staged
	texts := 0
	flush := func(haveSlot bool) {
		if len(group) == 0 {
			if haveSlot {
				<-running
			}
			return
		}
		g := group
		group, texts = nil, 0
		if !haveSlot {
			running <- struct{}{}
		}
		calls.Add(1)
		go func() {
			defer func() { <-running; calls.Done() }()
			p.embedGroup(ctx, g)
			for _, st := range g {
				out <- st
			}
		}()
	}
	for {
		var st *staged
		var ok bool
		if len(group) == 0 {
			st, ok = <-in
		} else {
			// A group not yet full goes as soon as a call may start; until then it grows.
			select {
			case st, ok = <-in:
			case running <- struct{}{}:
				flush(true)
				continue
			}
		}
		if !ok {
			flush(false)
			return
		}
		if st.doc == nil || st.whole || st.touch {
			out <- st
			continue
		}
		group = append(group, st)
		texts += len(st.chunks)
		if texts >= p.opts.EmbedGroup {
			flush(false)
		}
	}
}

// embedGroup embeds the chunks of a group of documents in one call.
func (p *pipeline) embedGroup(ctx context.Context, group []*staged) {
	var texts []string
	for _, st := range group {
		for _, c := range st.chunks {
			texts = append(texts, chunk.IndexText(c))
		}
	}
	p.mu.Lock()
	base := p.prog.Embedded
	p.mu.Unlock()
	vecs, err := p.opts.Embedder.Embed(ctx, texts, func(done int) {
		p.mu.Lock()
		p.prog.Embedded = max(p.prog.Embedded, base+done)
		p.mu.Unlock()
		p.progress(false)
	})
	if err == nil && len(vecs) != len(texts) {
		err = fmt.Errorf("the embedder gave %d vectors for %d texts", len(vecs), len(texts))
	}
	at := 0
	for _, st := range group {
		if err != nil {
			err := fmt.Errorf("couldn't embed: %w", err)
			st.res.Status, st.res.Reason, st.res.err = StatusFailed, err.Error(), err
			st.doc, st.chunks = nil, nil
			continue
		}
		st.vecs = vecs[at : at+len(st.chunks)]
		at += len(st.chunks)
	}
}

// write stores what arrives, many documents per transaction, and records every outcome. Items
// are taken in the order they were given, whatever order the workers finish them in: chunks
// are stored, and equal scores later ranked, in the same order on every run and backend.
func (p *pipeline) write(ctx context.Context, stop context.CancelFunc, in <-chan *staged, tokens <-chan struct{}) {
	var batch []*staged
	chunks := 0
	var due <-chan time.Time // when the batch in hand is written if it has not filled up
	flush := func() {
		if len(batch) > 0 {
			p.store(ctx, stop, batch)
			for range batch {
				<-tokens
			}
		}
		batch, chunks, due = nil, 0, nil
	}
	take := func(st *staged) {
		switch {
		case st.doc != nil && !st.whole && !st.touch && p.stopReason == "":
			if len(batch) == 0 {
				// A commit costs far more than a small document: gather what comes within
				// a moment, so documents cost the same however they arrive.
				due = time.After(writeBatchWait)
			}
			batch = append(batch, st)
			chunks += len(st.chunks)
			if len(batch) >= writeBatchDocs || chunks >= writeBatchChunks {
				flush()
			}
			return
		case st.whole && p.stopReason == "":
			flush() // in item order with what came before it
			p.storeMessage(ctx, st)
		case st.touch:
			// Recorded for the next ingest; a failure only costs that ingest a read.
			p.s.TouchDocument(context.WithoutCancel(ctx), st.doc.ID, st.doc.Size, st.doc.ModTime)
			p.record(ctx, st, st.res)
		case st.skipped:
		default:
			p.record(ctx, st, st.res)
		}
		<-tokens
	}
	waiting := map[int]*staged{} // arrived ahead of an item still being loaded
	next := 0
	for {
		var st *staged
		var ok bool
		if len(batch) == 0 {
			st, ok = <-in
		} else {
			select {
			case st, ok = <-in:
			case <-due:
				flush()
				continue
			}
		}
		if !ok {
			break
		}
		waiting[st.idx] = st
		for waiting[next] != nil {
			st := waiting[next]
			delete(waiting, next)
			next++
			take(st)
		}
	}
	// After a cancel, items never handed out leave gaps: the rest goes in order all the same.
	for ; len(waiting) > 0; next++ {
		if st := waiting[next]; st != nil {
			delete(waiting, next)
			take(st)
		}
	}
	flush()
}

// store writes a batch in one transaction; when that fails, document by document, so each
// failure is its own document's.
func (p *pipeline) store(ctx context.Context, stop context.CancelFunc, batch []*staged) {
	wctx := context.WithoutCancel(ctx) // embedded work is stored even after a cancel
	writes := make([]DocumentWrite, len(batch))
	for i, st := range batch {
		writes[i] = DocumentWrite{Doc: st.doc, Chunks: st.chunks, Vectors: st.vecs}
	}
	embedder := p.opts.Embedder.ID()
	var errs []error
	if err := p.s.ReplaceDocuments(wctx, writes, embedder); err != nil {
		errs = make([]error, len(batch))
		for i, w := range writes {
			errs[i] = p.storeOne(wctx, w, embedder)
		}
	}
	for i, st := range batch {
		res := st.res
		var err error
		if errs != nil {
			err = errs[i]
		}
		var mismatch *EmbedderMismatchError
		switch {
		case err != nil:
			res.Status, res.Reason, res.err = StatusFailed, err.Error(), err
			if errors.As(err, &mismatch) && p.stopReason == "" {
				// Every further document would fail the same way: report them all, untried.
				p.stopReason = err.Error()
				stop()
			}
		default:
			res.Status, res.Chunks = StatusIngested, len(st.chunks)
			if unread := st.doc.Meta["pages_not_read"]; unread != "" {
				// Stored, but not whole: the analyst must hear which pages are missing and why.
				res.Reason = "stored without " + unread
			}
		}
		p.record(ctx, st, res)
		st.doc, st.chunks, st.vecs = nil, nil, nil
	}
}

// storeOne stores one document; in a rebuild (Force), a collection whose model now gives
// vectors of another length is emptied first, as a rebuild with another model empties it.
func (p *pipeline) storeOne(ctx context.Context, w DocumentWrite, embedder string) error {
	err := p.s.ReplaceDocument(ctx, w.Doc, w.Chunks, w.Vectors, embedder)
	var mismatch *EmbedderMismatchError
	if p.opts.Force && errors.As(err, &mismatch) && SameEmbedder(mismatch.Built, mismatch.Asked) {
		if err = p.s.EmptyCollection(ctx, w.Doc.Collection, embedder); err == nil {
			err = p.s.ReplaceDocument(ctx, w.Doc, w.Chunks, w.Vectors, embedder)
		}
	}
	return err
}

// storeMessage stores an e-mail and then each of its attachments, each whole on its own.
func (p *pipeline) storeMessage(ctx context.Context, st *staged) {
	embedded := func(int) {}
	res := storeDocument(ctx, p.s, st.doc, st.res, p.opts, embedded)
	p.record(ctx, st, res)
	if res.Status == StatusIngested || res.Status == StatusUnchanged {
		ingestAttachments(ctx, p.s, p.items[st.idx].Path, st.doc, p.opts, func(path string) {
			p.mu.Lock()
			p.prog.Current = path
			p.mu.Unlock()
			p.progress(false)
		}, embedded, func(r fileOutcome) { p.recordExtra(ctx, st.idx, r) })
	}
	st.doc = nil
}

// record keeps an item's outcome and counts it done.
func (p *pipeline) record(ctx context.Context, st *staged, res fileOutcome) {
	if !p.recordExtra(ctx, st.idx, res) {
		return
	}
	p.mu.Lock()
	p.prog.FilesDone++
	p.prog.Current = res.Path
	p.mu.Unlock()
	p.progress(false)
}

// recordExtra keeps an outcome of an item without counting the item done: its attachments'.
// An item the analyst's cancel cut short is not kept: like one never started, it is simply
// not stored, and the next ingest does it. It reports whether the outcome was kept.
func (p *pipeline) recordExtra(ctx context.Context, idx int, res fileOutcome) bool {
	cut := res.Status == StatusFailed && errors.Is(res.err, context.Canceled)
	switch {
	case p.stopReason != "" && (res.Status == "" || cut):
		// Stopped by an embedder mismatch before it was stored: it fails the same way.
		res.Status, res.Reason = StatusFailed, p.stopReason
	case cut && ctx.Err() != nil:
		return false
	case res.Status == StatusFailed && ctx.Err() != nil:
		res.Reason = "interrupted; nothing of it was stored"
	}
	p.results[idx] = append(p.results[idx], res.FileResult)
	if res.Status == StatusIngested {
		p.mu.Lock()
		p.prog.Chunks += res.Chunks
		p.mu.Unlock()
	}
	return true
}

// progress reports to the caller, at most every 50 ms unless final, with the rate over the
// last seconds and the time the rest would take at it.
func (p *pipeline) progress(final bool) {
	if p.opts.Progress == nil {
		return
	}
	p.mu.Lock()
	now := time.Now()
	if !final && now.Sub(p.lastReport) < 50*time.Millisecond {
		p.mu.Unlock()
		return
	}
	p.lastReport = now
	pr := p.prog
	pr.Elapsed = now.Sub(p.started)
	p.samples = append(p.samples, progressSample{at: now, done: pr.FilesDone})
	for len(p.samples) > 2 && now.Sub(p.samples[1].at) > 10*time.Second {
		p.samples = p.samples[1:] // the rate is of the last ten seconds or so
	}
	if first := p.samples[0]; now.Sub(first.at) >= time.Second && pr.FilesDone > first.done {
		pr.Rate = float64(pr.FilesDone-first.done) / now.Sub(first.at).Seconds()
		pr.Remaining = time.Duration(float64(pr.Files-pr.FilesDone) / pr.Rate * float64(time.Second))
	}
	p.mu.Unlock()
	p.opts.Progress(pr)
}

// report sums the outcomes up in item order; an item left untried after an embedder mismatch
// fails with it.
func (p *pipeline) report(ctx context.Context) *IngestReport {
	p.progress(true)
	rep := &IngestReport{Canceled: ctx.Err() != nil}
	for i, files := range p.results {
		if len(files) == 0 && p.stopReason != "" {
			files = []FileResult{{Path: p.items[i].Path, Doc: p.items[i].ID, Status: StatusFailed, Reason: p.stopReason}}
		}
		for _, f := range files {
			rep.Files = append(rep.Files, f)
			switch f.Status {
			case StatusIngested:
				rep.Ingested++
				rep.Chunks += f.Chunks
				rep.Embedded += f.Chunks
			case StatusUnchanged:
				rep.Unchanged++
			case StatusSkipped:
				rep.Skipped++
			case StatusFailed:
				rep.Failed++
				if strings.HasPrefix(f.Reason, "interrupted") {
					rep.Canceled = true
				}
			}
		}
	}
	rep.Duration = time.Since(p.started)
	if secs := rep.Duration.Seconds(); secs > 0 {
		rep.ChunksPerSec = float64(rep.Chunks) / secs
	}
	return rep
}
