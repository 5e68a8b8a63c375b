package loadtest

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"strings"
)

// MailAttachment is a file attached to a test message.
type MailAttachment struct {
	Name, Type string // Name "" sends it without a file name
	Data       []byte
	Encoding   string // the transfer encoding: "" is base64; "8bit" and "7bit" send Data as it is
}

// Message is the header of a test message.
type Message struct {
	From, Subject, Date string
	Boundary            string // of its parts; "" is "b0undary" (a message attached in another needs its own)
}

// Mail returns an e-mail message (CRLF line ends) with a text body and the attachments, in a
// multipart/mixed when it has any.
func Mail(m Message, body string, atts ...MailAttachment) []byte {
	boundary := m.Boundary
	if boundary == "" {
		boundary = "b0undary"
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "From: %s\nSubject: %s\nDate: %s\nMIME-Version: 1.0\n", m.From, m.Subject, m.Date)
	if len(atts) == 0 {
		fmt.Fprintf(&b, "Content-Type: text/plain; charset=utf-8\n\n%s\n", body)
		return crlf(b.Bytes())
	}
	fmt.Fprintf(&b, "Content-Type: multipart/mixed; boundary=%q\n\n--%s\nContent-Type: text/plain; charset=utf-8\n\n%s\n", boundary, boundary, body)
	out := crlf(b.Bytes())
	for _, a := range atts {
		var h bytes.Buffer
		h.WriteString("--" + boundary + "\n")
		if a.Name != "" {
			fmt.Fprintf(&h, "Content-Type: %s; name=%q\nContent-Disposition: attachment; filename=%q\n", a.Type, a.Name, a.Name)
		} else {
			fmt.Fprintf(&h, "Content-Type: %s\nContent-Disposition: attachment\n", a.Type)
		}
		enc := a.Encoding
		if enc == "" {
			enc = "base64"
		}
		fmt.Fprintf(&h, "Content-Transfer-Encoding: %s\n\n", enc)
		out = append(out, crlf(h.Bytes())...)
		if enc == "base64" {
			var data bytes.Buffer
			WriteBase64Lines(&data, bytes.NewReader(a.Data))
			out = append(out, data.Bytes()...)
		} else {
			out = append(out, a.Data...)
		}
		out = append(out, "\r\n"...)
	}
	return append(out, "--"+boundary+"--\r\n"...)
}

// MBOX returns a mailbox of the messages, each after its "From " line.
func MBOX(messages ...[]byte) []byte {
	var b bytes.Buffer
	for _, m := range messages {
		b.WriteString("From sender@example.com Tue Mar  3 09:15:00 2026\n")
		b.Write(m)
		b.WriteString("\n")
	}
	return b.Bytes()
}

// WriteBase64Lines writes r to w in base64 in lines of 76 characters, as mail carries it,
// without holding r whole.
func WriteBase64Lines(w io.Writer, r io.Reader) error {
	buf := make([]byte, 57*1024) // 57 bytes make one line of 76 characters
	line := make([]byte, 78)
	for {
		n, err := io.ReadFull(r, buf)
		for i := 0; i < n; i += 57 {
			end := min(i+57, n)
			k := base64.StdEncoding.EncodedLen(end - i)
			base64.StdEncoding.Encode(line, buf[i:end])
			line[k], line[k+1] = '\r', '\n'
			if _, err := w.Write(line[:k+2]); err != nil {
				return err
			}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func crlf(b []byte) []byte { return []byte(strings.ReplaceAll(string(b), "\n", "\r\n")) }
