package kb

import (
	"context"
	"strings"

	"warren/kb/load"
)

// MetaAttachedTo is the metadata key of a document that came attached to another (an e-mail's
// attachment): the ID of the document it came with. Its other keys say which message:
// message_subject, message_from, message_date and, in a mailbox, message (its number).
const MetaAttachedTo = "attached_to"

// messageKeys are the metadata an attachment takes from its message: when they change, the
// attachment is stored again even if its own bytes did not.
var messageKeys = []string{MetaAttachedTo, "message_subject", "message_from", "message_date", "message"}

// ingestAttachments stores the attachments of a stored document, each whole on its own, named
// under it ("mail.eml/sds.pdf"), and those of attached e-mail in turn; each outcome goes to
// record, the path of the one in hand to current. It reports false when ctx ended it early.
func ingestAttachments(ctx context.Context, s Backend, path string, parent *load.Document, opts IngestOptions,
	current func(string), embedded func(int), record func(fileOutcome)) bool {
	for i, a := range parent.Attachments {
		if ctx.Err() != nil {
			return false
		}
		shown := " › " + attachmentPath(a.Name)
		res := fileOutcome{FileResult: FileResult{Path: path + shown, Doc: parent.ID + "/" + a.Name, AttachedTo: parent.ID}}
		if a.Doc == nil {
			res.Status, res.Reason = StatusSkipped, a.Skip
			record(res)
			continue
		}
		d := a.Doc
		d.ID, d.Collection, d.Source = res.Doc, parent.Collection, parent.Source+shown
		d.Meta[MetaAttachedTo] = parent.ID
		current(res.Path)
		res = storeDocument(ctx, s, d, res, opts, embedded)
		record(res)
		d.Sections = nil // stored: its text need not stay in memory with the rest
		if res.Status == StatusIngested || res.Status == StatusUnchanged {
			if !ingestAttachments(ctx, s, res.Path, d, opts, current, embedded, record) {
				return false
			}
		}
		parent.Attachments[i].Doc = nil
	}
	return ctx.Err() == nil
}

// attachmentPath shows an attachment's name as a path from its message: "sds.pdf", in a
// mailbox "message 3 › sds.pdf".
func attachmentPath(name string) string {
	if n, file, ok := strings.Cut(name, "/"); ok {
		return "message " + n + " › " + file
	}
	return name
}

// sameMessage says whether an attachment stored with meta old came with the same message as
// one loaded with meta now (for other documents both lack these keys).
func sameMessage(old, now map[string]string) bool {
	for _, k := range messageKeys {
		if old[k] != now[k] {
			return false
		}
	}
	return true
}

// removeDroppedAttachments removes the stored attachments of doc's earlier version that doc
// no longer has.
func removeDroppedAttachments(ctx context.Context, b Backend, doc *load.Document) error {
	keep := map[string]bool{}
	for _, a := range doc.Attachments {
		keep[doc.ID+"/"+a.Name] = true
	}
	attached, err := attachedTo(ctx, b, doc.ID)
	if err != nil {
		return err
	}
	for _, id := range attached {
		if !keep[id] {
			if _, err := RemoveDocumentAndAttachments(ctx, b, id); err != nil {
				return err
			}
		}
	}
	return nil
}

// RemoveDocumentAndAttachments removes a document and the documents that came attached to it
// (an e-mail's attachments, theirs in turn), and returns the IDs removed: the attachments
// first, so a removal that dies part-way can be run again on the same document.
func RemoveDocumentAndAttachments(ctx context.Context, b Backend, id string) ([]string, error) {
	doc, ok, err := b.Document(ctx, id)
	if err != nil || !ok {
		return nil, err
	}
	var removed []string
	if load.CarriesAttachments(doc.Format) {
		attached, err := attachedTo(ctx, b, id)
		if err != nil {
			return nil, err
		}
		for _, a := range attached {
			more, err := RemoveDocumentAndAttachments(ctx, b, a)
			removed = append(removed, more...)
			if err != nil {
				return removed, err
			}
		}
	}
	if _, err := b.RemoveDocument(ctx, id); err != nil {
		return removed, err
	}
	return append(removed, id), nil
}

// attachedTo lists the documents stored as attached to id, in any collection (one moved with
// its message may be in another until the message's ingest has finished).
func attachedTo(ctx context.Context, b Backend, id string) ([]string, error) {
	docs, err := b.Documents(ctx, "")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, d := range docs {
		if d.Meta[MetaAttachedTo] == id {
			out = append(out, d.ID)
		}
	}
	return out, nil
}
