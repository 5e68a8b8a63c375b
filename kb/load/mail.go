package load

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
)

// E-mail (EML, MBOX) is read with net/mail and mime/multipart. Attachments are listed, not
// read: each is counted as it streams past, through a limit, so none is held in memory.
const (
	maxMailParts    = 1000  // MIME parts per message
	maxMailDepth    = 16    // nested multiparts
	maxMboxMessages = 10000 // messages read from one mailbox
)

type attachment struct {
	name, ctype string
	size        int64
	over        bool // larger than the limit; counted only up to it
}

type mailMessage struct {
	subject, from, date string
	plain, html         string // the first inline text/plain and text/html parts
	attachments         []attachment
}

// mailReader reads one message's parts within limits.
type mailReader struct {
	limit int64 // the most a body or an attachment may hold
	parts int
	msg   *mailMessage
}

var headerDecoder = &mime.WordDecoder{CharsetReader: charset.NewReaderLabel}

func decodeHeader(v string) string {
	if d, err := headerDecoder.DecodeHeader(v); err == nil {
		v = d
	}
	return strings.Join(strings.Fields(strings.ToValidUTF8(v, "\uFFFD")), " ")
}

// readMail parses one message; an error means it is not a readable message.
func readMail(r io.Reader, limit int64) (*mailMessage, error) {
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
	mr := &mailReader{limit: limit, msg: msg}
	if err := mr.part(m.Header.Get("Content-Type"), m.Header.Get("Content-Transfer-Encoding"), m.Header.Get("Content-Disposition"), m.Body, 0); err != nil {
		return nil, err
	}
	return msg, nil
}

func (mr *mailReader) part(ctype, cte, disposition string, body io.Reader, depth int) error {
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
			h := p.Header
			if err := mr.part(h.Get("Content-Type"), h.Get("Content-Transfer-Encoding"), h.Get("Content-Disposition"), p, depth+1); err != nil {
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
		return mr.attach("(message body)", media, io.MultiReader(bytes.NewReader(data), decoded))
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

// attach lists an attachment with its size, counted through the limit.
func (mr *mailReader) attach(name, media string, r io.Reader) error {
	n, err := io.Copy(io.Discard, io.LimitReader(r, mr.limit+1))
	if err != nil {
		return fmt.Errorf("unreadable attachment %q: %w", name, err)
	}
	if name == "" {
		name = "(unnamed)"
	}
	mr.msg.attachments = append(mr.msg.attachments, attachment{name: name, ctype: media, size: min(n, mr.limit), over: n > mr.limit})
	return nil
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

func (m *mailMessage) attachmentList(limit int64) string {
	var lines []string
	for _, a := range m.attachments {
		size := fmt.Sprintf("%d bytes", a.size)
		if a.over {
			size = fmt.Sprintf("larger than the %.0f MB limit, not read", float64(limit)/(1<<20))
		}
		lines = append(lines, fmt.Sprintf("- %s (%s, %s)", strings.ReplaceAll(a.name, "\n", " "), a.ctype, size))
	}
	return strings.Join(lines, "\n")
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

func loadEMLFile(doc *Document, f io.Reader, limit int64) error {
	m, err := readMail(bufio.NewReader(f), limit)
	if err != nil {
		return &SkipError{Path: doc.Source, Reason: "not a readable e-mail message: " + err.Error()}
	}
	setMailMeta(doc, m)
	if m.subject != "" {
		doc.Title = m.subject
	}
	// Each attachment as a document of its own needs a Load that returns several documents;
	// until then they are listed in a section of their own.
	var sections []Section
	if body := m.body(); body != "" {
		heading := m.subject
		if heading == "" {
			heading = "Message"
		}
		sections = append(sections, Section{Heading: heading, Path: []string{heading}, Text: body})
	}
	if list := m.attachmentList(limit); list != "" {
		sections = append(sections, Section{Heading: "Attachments", Path: []string{"Attachments"}, Text: list})
	}
	return finishMail(doc, sections)
}

// loadMBOXFile reads a mailbox one message at a time: each message a section titled by its
// subject, with its sender and date above its body and its attachments listed below.
func loadMBOXFile(doc *Document, f io.Reader, limit int64) error {
	br := bufio.NewReader(f)
	var sections []Section
	var cur bytes.Buffer
	started, count, unreadable := false, 0, 0
	flush := func() {
		if !started {
			return
		}
		count++
		m, err := readMail(bytes.NewReader(cur.Bytes()), limit)
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
		if list := m.attachmentList(limit); list != "" {
			text = append(text, "", "Attachments:", list)
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
