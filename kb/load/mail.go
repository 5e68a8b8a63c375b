package load

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
)

// E-mail (EML, MBOX) is read with net/mail and mime/multipart. Each attachment in a format
// warren reads becomes a document of its own: it streams through the limit into a temporary
// file, which the loader of its format reads as it reads a file on disk, so no attachment is
// held in memory whole. Others are counted as they stream past and listed with the reason.
const (
	maxMailParts    = 1000  // MIME parts per message
	maxMailDepth    = 16    // nested multiparts
	maxMboxMessages = 10000 // messages read from one mailbox
	// maxMailNesting bounds e-mail attached to e-mail: a message attached this many levels
	// down is listed, not read.
	maxMailNesting = 3
	// maxAttachmentName keeps an attachment's name, part of its ID, within file-name limits.
	maxAttachmentName = 120
)

// Attachment is a file an e-mail message came with: a document of its own, or, when warren
// does not read it, the reason why not.
type Attachment struct {
	// Name places it under the message, whose ID it is stored beneath ("<message ID>/<Name>"):
	// its file name made safe for an ID and unique in the message ("sds.pdf", "sds-2.pdf"); in
	// a mailbox under the message's number ("3/sds.pdf").
	Name string
	Doc  *Document // nil when it is not a document
	Skip string    // why it is not, when Doc is nil
}

// CarriesAttachments says whether documents of a format may have attachments stored as
// documents of their own.
func CarriesAttachments(format string) bool { return format == "eml" || format == "mbox" }

type attachment struct {
	name, ctype string
	size        int64
	over        bool      // larger than the limit; counted only up to it
	embedded    bool      // a picture the HTML body shows: listed, not an attachment
	id          string    // the unique safe name Attachment.Name is made of
	doc         *Document // read as a document of its own
	reason      string    // why it was not, when doc is nil
}

type mailMessage struct {
	subject, from, date string
	plain, html         string // the first inline text/plain and text/html parts
	attachments         []attachment
}

// mailLoad is what reading a message needs besides the message.
type mailLoad struct {
	limit int64      // the most a body or an attachment may hold
	depth int        // e-mail messages this one came attached to (0 for a file on disk)
	conv  *converter // the load's, so attachments are read by OCR as files are; nil: none
}

// mailReader reads one message's parts within limits.
type mailReader struct {
	mailLoad
	parts int
	msg   *mailMessage
	tmp   string          // the folder attachments are read from, made on first use
	ids   map[string]bool // attachment IDs taken in this message
}

// header is a message's or a part's header.
type header interface{ Get(key string) string }

var headerDecoder = &mime.WordDecoder{CharsetReader: charset.NewReaderLabel}

func decodeHeader(v string) string {
	if d, err := headerDecoder.DecodeHeader(v); err == nil {
		v = d
	}
	return strings.Join(strings.Fields(strings.ToValidUTF8(v, "\uFFFD")), " ")
}

// readMail parses one message, reading its attachments as documents; an error means it is
// not a readable message.
func readMail(r io.Reader, ml mailLoad) (*mailMessage, error) {
	m, err := mail.ReadMessage(r)
	if err != nil {
		return nil, err
	}
	if len(m.Header) == 0 {
		return nil, errors.New("no message headers")
	}
	msg := &mailMessage{subject: decodeHeader(m.Header.Get("Subject")), from: decodeHeader(m.Header.Get("From"))}
	if d, err := m.Header.Date(); err == nil {
		msg.date = d.UTC().Format(time.RFC3339)
	} else {
		msg.date = decodeHeader(m.Header.Get("Date"))
	}
	mr := &mailReader{mailLoad: ml, msg: msg, ids: map[string]bool{}}
	defer mr.cleanup()
	if err := mr.part(m.Header, m.Body, 0, false); err != nil {
		return nil, err
	}
	return msg, nil
}

// part reads one part of the message; related says it is in a multipart/related, whose
// other parts the HTML body shows.
func (mr *mailReader) part(h header, body io.Reader, depth int, related bool) error {
	ctype, cte, disposition := h.Get("Content-Type"), h.Get("Content-Transfer-Encoding"), h.Get("Content-Disposition")
	if mr.parts++; mr.parts > maxMailParts {
		return fmt.Errorf("more than %d MIME parts", maxMailParts)
	}
	media, params, err := mime.ParseMediaType(ctype)
	if err != nil || ctype == "" {
		media, params = "text/plain", map[string]string{"charset": "us-ascii"}
	}
	if strings.HasPrefix(media, "multipart/") {
		if depth >= maxMailDepth {
			return fmt.Errorf("multiparts nested deeper than %d", maxMailDepth)
		}
		if params["boundary"] == "" {
			return errors.New("a multipart without a boundary")
		}
		r := multipart.NewReader(body, params["boundary"])
		for {
			// Raw parts: the transfer encoding is decoded here, the same way for every part.
			p, err := r.NextRawPart()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return fmt.Errorf("broken multipart: %w", err)
			}
			if err := mr.part(p.Header, p, depth+1, media == "multipart/related"); err != nil {
				return err
			}
		}
	}
	decoded := transferDecoder(cte, body)
	disp, dparams, _ := mime.ParseMediaType(disposition)
	name := decodeHeader(dparams["filename"])
	if name == "" {
		name = decodeHeader(params["name"])
	}
	if related && strings.HasPrefix(media, "image/") && h.Get("Content-ID") != "" && disp != "attachment" {
		// A logo or a picture in a signature, not a file sent with the message.
		return mr.list(attachment{name: cmp.Or(name, "(unnamed)"), ctype: media, embedded: true}, decoded)
	}
	text := media == "text/plain" || media == "text/html"
	if !text || disp == "attachment" || name != "" {
		return mr.attach(name, media, decoded)
	}
	data, err := io.ReadAll(io.LimitReader(decoded, mr.limit+1))
	if err != nil {
		return fmt.Errorf("unreadable %s part: %w", media, err)
	}
	if int64(len(data)) > mr.limit {
		// A body past the limit is listed like an attachment rather than read.
		a := mr.newAttachment("(message body)", media)
		a.reason = "the message body is larger than the limit"
		return mr.list(a, io.MultiReader(bytes.NewReader(data), decoded))
	}
	s := toUTF8(data, params["charset"])
	switch {
	case media == "text/plain" && mr.msg.plain == "":
		mr.msg.plain = s
	case media == "text/html" && mr.msg.html == "":
		mr.msg.html = s
	}
	return nil
}

// attach reads an attachment as a document of its own when warren reads its format, and
// lists it, with its size counted through the limit, either way.
func (mr *mailReader) attach(name, media string, r io.Reader) error {
	a := mr.newAttachment(name, media)
	format, reason := attachmentFormat(a.id, media)
	a.reason = reason
	if a.reason == "" && CarriesAttachments(format) && mr.depth+1 >= maxMailNesting {
		a.reason = fmt.Sprintf("e-mail attached to e-mail more than %d levels deep", maxMailNesting-1)
	}
	if a.reason != "" {
		return mr.list(a, r)
	}
	return mr.read(a, format, r)
}

// newAttachment names an attachment: as it is listed, and by a name unique in the message.
func (mr *mailReader) newAttachment(name, media string) attachment {
	a := attachment{name: name, ctype: media}
	if a.name == "" {
		a.name = "(unnamed)"
	}
	id := attachmentFileName(name)
	if id == "" {
		id = "attachment" + mediaExt[media]
	}
	if filepath.Ext(id) == "" {
		id += mediaExt[media] // "report" sent as application/pdf is read as report.pdf
	}
	stem, ext := strings.TrimSuffix(id, filepath.Ext(id)), filepath.Ext(id)
	for n := 2; mr.ids[id]; n++ {
		id = fmt.Sprintf("%s-%d%s", stem, n, ext)
	}
	mr.ids[id] = true
	a.id = id
	return a
}

// list counts an attachment that is not read through the limit and lists it.
func (mr *mailReader) list(a attachment, r io.Reader) error {
	n, err := io.Copy(io.Discard, io.LimitReader(r, mr.limit+1))
	if err != nil {
		return fmt.Errorf("unreadable attachment %q: %w", a.name, err)
	}
	mr.add(a, n)
	return nil
}

// add lists an attachment of n bytes counted (past the limit when more than it).
func (mr *mailReader) add(a attachment, n int64) {
	a.size, a.over = min(n, mr.limit), n > mr.limit
	if a.over {
		a.doc, a.reason = nil, fmt.Sprintf("larger than the %s limit (raise kb.max_file_mb to ingest it)", limitText(mr.limit))
	}
	mr.msg.attachments = append(mr.msg.attachments, a)
}

// read streams an attachment through the limit into a temporary file and loads it from there
// with the loader of its format; what cannot be read is listed with the reason.
func (mr *mailReader) read(a attachment, format string, r io.Reader) error {
	if mr.conv != nil && mr.conv.ctx.Err() != nil {
		return mr.conv.ctx.Err() // the load was given up: read no more
	}
	if mr.tmp == "" {
		dir, err := os.MkdirTemp("", "warren-mail-")
		if err != nil {
			a.reason = "couldn't make a temporary folder to read it in: " + err.Error()
			return mr.list(a, r)
		}
		mr.tmp = dir
	}
	path := filepath.Join(mr.tmp, a.id)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		a.reason = "couldn't write it to a temporary file: " + err.Error()
		return mr.list(a, r)
	}
	defer os.Remove(path)
	defer f.Close()
	n, err := io.Copy(f, io.LimitReader(r, mr.limit+1))
	if err != nil {
		if isWriteError(err, f) {
			a.reason = "couldn't write it to a temporary file: " + err.Error()
			return mr.list(a, r)
		}
		return fmt.Errorf("unreadable attachment %q: %w", a.name, err)
	}
	if n > mr.limit || n == 0 {
		if n == 0 {
			a.reason = "empty file"
		}
		mr.add(a, n) // the rest of an attachment past the limit is skipped by the part reader
		return nil
	}
	a.doc, a.reason = mr.load(f, path, format)
	mr.add(a, n)
	return nil
}

// isWriteError tells a failed write to f (a full disk) from a broken transfer encoding.
func isWriteError(err error, f *os.File) bool {
	var pe *os.PathError
	return errors.As(err, &pe) && pe.Path == f.Name()
}

// load reads the attachment written to f (at path) as a document, with the message's subject,
// sender and date as its metadata; when it is not one, the reason says why in words that name
// the attachment, not the temporary file.
func (mr *mailReader) load(f *os.File, path, format string) (*Document, string) {
	name := filepath.Base(path)
	reason := func(err error) string {
		var skip *SkipError
		if errors.As(err, &skip) {
			return strings.ReplaceAll(skip.Reason, path, name)
		}
		return strings.ReplaceAll(err.Error(), path, name)
	}
	info, err := f.Stat()
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		return nil, reason(err)
	}
	// Not confined to the ingest's folders: the temporary file is warren's own.
	doc, err := loadFile(f, path, format, info, mr.limit, guard{conv: mr.conv}, mr.depth+1)
	if mr.conv != nil && mr.conv.wd != nil {
		mr.conv.wd.rearm() // an attachment read is a step done: a long message is not a hung one
	}
	if err != nil {
		return nil, reason(err)
	}
	if doc.stream != nil {
		// A streamed text is read now: the temporary file is gone once the message is read.
		stream := doc.stream
		doc.stream = nil
		if err := stream(func(s Section) error {
			doc.Sections = append(doc.Sections, s)
			return nil
		}); err != nil {
			return nil, reason(err)
		}
	}
	if doc.Title == strings.TrimSuffix(name, filepath.Ext(name)) {
		doc.Title = name // no title in its content: its file name, as the message lists it
	}
	for k, v := range map[string]string{"message_subject": mr.msg.subject, "message_from": mr.msg.from, "message_date": mr.msg.date} {
		if v != "" {
			doc.Meta[k] = v
		}
	}
	return doc, ""
}

// limitText names a size limit as kb.max_file_mb sets it.
func limitText(limit int64) string {
	if limit%(1<<20) == 0 {
		return fmt.Sprintf("%d MB", limit>>20)
	}
	return fmt.Sprintf("%d-byte", limit)
}

func (mr *mailReader) cleanup() {
	if mr.tmp != "" {
		os.RemoveAll(mr.tmp)
	}
}

// mediaExt gives an attachment whose name says nothing of its format the extension its
// media type stands for.
var mediaExt = map[string]string{
	"application/pdf": ".pdf", "message/rfc822": ".eml", "application/mbox": ".mbox",
	"text/plain": ".txt", "text/markdown": ".md", "text/x-markdown": ".md", "text/html": ".html", "text/csv": ".csv",
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document":   ".docx",
	"application/vnd.openxmlformats-officedocument.presentationml.presentation": ".pptx",
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet":         ".xlsx",
	"application/vnd.oasis.opendocument.text":                                   ".odt",
	"application/vnd.oasis.opendocument.presentation":                           ".odp",
	"application/vnd.oasis.opendocument.spreadsheet":                            ".ods",
}

// attachmentFormat is the format warren reads an attachment named name in, or why it reads
// none.
func attachmentFormat(name, media string) (format, reason string) {
	ext := strings.ToLower(filepath.Ext(name))
	if f, ok := formatByExt[ext]; ok && ext != "" {
		return f, ""
	}
	if ext == "" {
		return "", fmt.Sprintf("unsupported format (%s without a file extension; warren reads %s)", media, readsFormats)
	}
	return "", fmt.Sprintf("unsupported format %q (warren reads %s)", ext, readsFormats)
}

// attachmentFileName makes an attachment's file name safe as the last part of an ID and as
// a file name: no folders, no control characters, not too long.
func attachmentFileName(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Join(strings.Fields(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return ' '
		}
		return r
	}, name)), " ")
	if name == "." || name == ".." {
		return ""
	}
	if len(name) > maxAttachmentName {
		ext := filepath.Ext(name)
		if len(ext) > 16 {
			ext = ""
		}
		stem := strings.ToValidUTF8(name[:maxAttachmentName-len(ext)], "")
		name = strings.TrimSpace(stem) + ext
	}
	return name
}

func transferDecoder(cte string, r io.Reader) io.Reader {
	switch strings.ToLower(strings.TrimSpace(cte)) {
	case "base64":
		return base64.NewDecoder(base64.StdEncoding, r) // it skips the line breaks
	case "quoted-printable":
		return quotedprintable.NewReader(r)
	}
	return r
}

// toUTF8 decodes text in its declared charset; text that claims none, or one unknown, is
// kept when it is UTF-8 and read as Latin-1 otherwise.
func toUTF8(data []byte, cs string) string {
	if cs != "" && !strings.EqualFold(cs, "utf-8") && !strings.EqualFold(cs, "us-ascii") {
		if r, err := charset.NewReaderLabel(cs, bytes.NewReader(data)); err == nil {
			if d, err := io.ReadAll(r); err == nil {
				return strings.ToValidUTF8(string(d), "\uFFFD")
			}
		}
	}
	if utf8.Valid(data) {
		return string(data)
	}
	runes := make([]rune, len(data))
	for i, b := range data {
		runes[i] = rune(b)
	}
	return string(runes)
}

// body is the message's text as Markdown: text/plain preferred, else its HTML converted.
func (m *mailMessage) body() string {
	if strings.TrimSpace(m.plain) != "" {
		return strings.TrimSpace(strings.ReplaceAll(m.plain, "\r\n", "\n"))
	}
	if m.html != "" {
		if _, md, err := htmlToMarkdown(strings.NewReader(m.html)); err == nil {
			return strings.TrimSpace(md)
		}
	}
	return ""
}

// attachmentList names the attachments in the message's text, so a search on the message
// finds them; one that is not a document says why.
func (m *mailMessage) attachmentList() string {
	var lines []string
	for _, a := range m.attachments {
		size := fmt.Sprintf("%d bytes", a.size)
		switch {
		case a.over:
			size = "not read: " + a.reason
		case a.embedded:
			size += ", shown in the message"
		case a.doc == nil:
			size += ", not read: " + a.reason
		}
		lines = append(lines, fmt.Sprintf("- %s (%s, %s)", strings.ReplaceAll(a.name, "\n", " "), a.ctype, size))
	}
	return strings.Join(lines, "\n")
}

// attachmentsUnder turns the message's attachments into Attachments named under prefix ("" for
// a message file, "3/" for the third message of a mailbox).
func (m *mailMessage) attachmentsUnder(prefix string) []Attachment {
	out := make([]Attachment, 0, len(m.attachments))
	for _, a := range m.attachments {
		if !a.embedded {
			out = append(out, Attachment{Name: prefix + a.id, Doc: a.doc, Skip: a.reason})
		}
	}
	return out
}

func setMailMeta(doc *Document, m *mailMessage) {
	for k, v := range map[string]string{"subject": m.subject, "from": m.from, "date": m.date} {
		if v != "" {
			doc.Meta[k] = v
		}
	}
}

func finishMail(doc *Document, sections []Section) error {
	if len(sections) == 0 {
		return &SkipError{Path: doc.Source, Reason: "no text and no attachments in the message"}
	}
	text := placeSections(sections)
	doc.Sections = sections
	doc.Language = languageOf(nil, text)
	return nil
}

func loadEMLFile(doc *Document, f io.Reader, ml mailLoad) error {
	m, err := readMail(bufio.NewReader(f), ml)
	if err != nil {
		return &SkipError{Path: doc.Source, Reason: "not a readable e-mail message: " + err.Error()}
	}
	setMailMeta(doc, m)
	if m.subject != "" {
		doc.Title = m.subject
	}
	// The attachments are listed in a section of their own, and come as documents of their own.
	doc.Attachments = m.attachmentsUnder("")
	var sections []Section
	if body := m.body(); body != "" {
		heading := m.subject
		if heading == "" {
			heading = "Message"
		}
		sections = append(sections, Section{Heading: heading, Path: []string{heading}, Text: body})
	}
	if list := m.attachmentList(); list != "" {
		sections = append(sections, Section{Heading: "Attachments", Path: []string{"Attachments"}, Text: list})
	}
	return finishMail(doc, sections)
}

// loadMBOXFile reads a mailbox one message at a time: each message a section titled by its
// subject, with its sender and date above its body and its attachments listed below; the
// attachments come as documents named under the message's number in the mailbox.
func loadMBOXFile(doc *Document, f io.Reader, ml mailLoad) error {
	br := bufio.NewReader(f)
	var sections []Section
	var cur bytes.Buffer
	started, count, unreadable := false, 0, 0
	flush := func() {
		if !started {
			return
		}
		count++
		m, err := readMail(bytes.NewReader(cur.Bytes()), ml)
		cur.Reset()
		if err != nil {
			unreadable++
			return
		}
		if len(sections) == 0 {
			setMailMeta(doc, m)
		}
		heading := m.subject
		if heading == "" {
			heading = "(no subject)"
		}
		var text []string
		if m.from != "" {
			text = append(text, "From: "+m.from)
		}
		if m.date != "" {
			text = append(text, "Date: "+m.date)
		}
		if body := m.body(); body != "" {
			text = append(text, "", body)
		}
		if list := m.attachmentList(); list != "" {
			text = append(text, "", "Attachments:", list)
		}
		for _, a := range m.attachmentsUnder(fmt.Sprintf("%d/", count)) {
			if a.Doc != nil {
				a.Doc.Meta["message"] = fmt.Sprint(count)
			}
			doc.Attachments = append(doc.Attachments, a)
		}
		sections = append(sections, Section{Heading: heading, Path: []string{heading}, Text: strings.TrimSpace(strings.Join(text, "\n"))})
	}
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			switch {
			case bytes.HasPrefix(line, []byte("From ")):
				flush()
				if count >= maxMboxMessages {
					doc.Meta["truncated"] = fmt.Sprintf("only the first %d messages were read", maxMboxMessages)
					return finishMbox(doc, sections, count, unreadable)
				}
				started = true
			case !started:
				return &SkipError{Path: doc.Source, Reason: "not an mbox mailbox (it does not start with a \"From \" line)"}
			default:
				// mboxrd quotes body lines that start with From; one '>' is taken off.
				if t := bytes.TrimLeft(line, ">"); len(t) < len(line) && bytes.HasPrefix(t, []byte("From ")) {
					line = line[1:]
				}
				cur.Write(line)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("couldn't read %s: %w", doc.Source, err)
		}
	}
	flush()
	return finishMbox(doc, sections, count, unreadable)
}

func finishMbox(doc *Document, sections []Section, count, unreadable int) error {
	doc.Meta["messages"] = fmt.Sprint(count)
	if unreadable > 0 {
		doc.Meta["unreadable_messages"] = fmt.Sprint(unreadable)
	}
	if len(sections) == 0 && count > 0 {
		return &SkipError{Path: doc.Source, Reason: fmt.Sprintf("none of its %d messages is a readable e-mail message", count)}
	}
	return finishMail(doc, sections)
}
