package termsafe

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestText(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "Purge the pigtail.\n\tThen close.", "Purge the pigtail.\n\tThen close."},
		{"umlauts and symbols", "Prüfgasflasche € ✓ 日本", "Prüfgasflasche € ✓ 日本"},
		{"replacement character kept", "a\uFFFDb", "a\uFFFDb"},
		{"SGR", "\x1b[31mred\x1b[0m text", "red text"},
		{"CSI with private parameters", "a\x1b[?1049hb\x1b[2J\x1b[Hc", "abc"},
		{"CSI with intermediate", "a\x1b[1 qb", "ab"},
		{"OSC 52 with BEL", "x\x1b]52;c;aGVsbG8=\x07y", "xy"},
		{"OSC with ST", "x\x1b]0;title\x1b\\y", "xy"},
		{"OSC 8 hyperlink", "\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\", "click"},
		{"OSC ended by another ESC", "x\x1b]0;title\x1b[31my", "xy"},
		{"unterminated OSC keeps its payload", "x\x1b]52;c;aGVsbG8=", "x52;c;aGVsbG8="},
		{"DCS", "a\x1bPq#0;2;0;0;0\x1b\\b", "ab"},
		{"SOS PM APC", "a\x1bXsos\x1b\\b\x1b^pm\x1b\\c\x1b_apc\x1b\\d", "abcd"},
		{"two-byte ESC", "a\x1b7b\x1b8c\x1bcd\x1bMe", "abcde"},
		{"charset designation", "a\x1b(Bb\x1b)0c", "abc"},
		{"lone ESC at the end", "abc\x1b", "abc"},
		{"ESC before a control", "a\x1b\x07b", "ab"},
		{"ESC before non-ASCII", "a\x1bäb", "aäb"},
		{"CSI cut by a control", "a\x1b[31\nb", "a\nb"},
		{"C0 and DEL", "a\x00b\x07c\x08d\x0be\x0cf\x7fg", "abcdefg"},
		{"CR LF and lone CR", "a\r\nb\rc", "a\nb\nc"},
		{"C1 CSI", "a\u009b31mb", "ab"},
		{"C1 OSC with C1 ST", "a\u009d52;c;x\u009cb", "ab"},
		{"C1 OSC with BEL", "a\u009d0;t\x07b", "ab"},
		{"C1 DCS", "a\u0090q\u009cb", "ab"},
		{"single C1 controls", "a\u0085b\u0084c\u009cd", "abcd"},
		{"raw C1 CSI byte", "a\x9b31mb", "ab"},
		{"raw C1 OSC byte with raw ST", "a\x9d52;c;x\x9cb", "ab"},
		{"raw C1 byte", "a\x85b", "ab"},
		{"invalid UTF-8", "a\xffb\xc3", "a\uFFFDb\uFFFD"},
		{"overlong encoding", "a\xc0\xafb", "a\uFFFD\uFFFDb"},
		{"ST inside a character is no ST", "a\x1b]0;Ĝ\x07b", "ab"}, // Ĝ is C4 9C
		{"bidi overrides", "invoice\u202Efdp.exe\u202C and \u2066x\u2069", "invoicefdp.exe and x"},
		{"line separators stay in Text", "a\u2028b", "a\u2028b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Text(tt.in); got != tt.want {
				t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestLine(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "Gas Cabinet Procedure", "Gas Cabinet Procedure"},
		{"newline", "evil\nname.md", "evil⏎name.md"},
		{"CR LF is one break", "a\r\nb", "a⏎b"},
		{"lone CR", "a\rb", "a⏎b"},
		{"tab", "a\tb", "a b"},
		{"line separators", "a\u2028b\u2029c", "a⏎b⏎c"},
		{"escape and newline", "\x1b[31mred\n.md", "red⏎.md"},
		{"OSC across a newline is removed whole", "a\x1b]0;x\ny\x07b", "ab"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Line(tt.in); got != tt.want {
				t.Errorf("Line(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestStyled(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"SGR kept", "\x1b[1;38;5;12mwarren\x1b[m \x1b[38:2::1:2:3mx\x1b[0m", "\x1b[1;38;5;12mwarren\x1b[m \x1b[38:2::1:2:3mx\x1b[0m"},
		{"OSC removed", "\x1b[31ma\x1b]52;c;aGVsbG8=\x07b\x1b[0m", "\x1b[31mab\x1b[0m"},
		{"other CSI removed", "a\x1b[2Jb\x1b[?25lc\x1b[>4;1m", "abc"},
		{"OSC 8 removed", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"C1 removed", "a\u009b31mb\u009d0;x\u009cc", "abc"},
		{"CSI with a C1 introducer is no SGR", "a\x9b31mb", "ab"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Styled(tt.in); got != tt.want {
				t.Errorf("Styled(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	frame := strings.Repeat("\x1b[1mGas table\x1b[m \x1b[38;5;245m· 12 rows\x1b[m\n", 40)
	if a := testing.AllocsPerRun(100, func() { _ = Styled(frame) }); a != 0 {
		t.Errorf("Styled of a clean frame allocates %v times", a)
	}
}

func TestCleanTextDoesNotAllocate(t *testing.T) {
	s := strings.Repeat("Fünfzig Zyklen wie in Abschnitt 5.2, danach 5 min Spülen.\n\t", 20)
	if a := testing.AllocsPerRun(100, func() { _ = Text(s) }); a != 0 {
		t.Errorf("Text of clean text allocates %v times", a)
	}
	one := "standards/gas-cabinet-procedure.md — Gas Cabinet Procedure"
	if a := testing.AllocsPerRun(100, func() { _ = Line(one) }); a != 0 {
		t.Errorf("Line of a clean line allocates %v times", a)
	}
}

func TestWriter(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	// ü is cut between two writes: it must come through whole.
	for _, p := range []string{"a\x1b[31mb ", "Pr\xc3", "\xbcf\n", "\x1b]52;c;aGVsbG8=\x07end\xe2\x82"} {
		if n, err := w.Write([]byte(p)); err != nil || n != len(p) {
			t.Fatalf("Write(%q) = %d, %v", p, n, err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "ab Prüf\nend\uFFFD"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if w.Unwrap() != &out {
		t.Error("Unwrap is not the underlying writer")
	}
}

// checkSafe fails when out holds anything that could drive a terminal.
func checkSafe(t *testing.T, in, out string, line bool) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("output of %q is not valid UTF-8: %q", in, out)
	}
	for _, r := range out {
		switch {
		case r == '\n' || r == '\t':
			if line {
				t.Fatalf("Line(%q) = %q holds %q", in, out, r)
			}
		case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f:
			t.Fatalf("output of %q holds control %U: %q", in, r, out)
		case isBidi(r):
			t.Fatalf("output of %q holds bidi control %U: %q", in, r, out)
		case line && (r == '\u2028' || r == '\u2029'):
			t.Fatalf("Line(%q) = %q holds a line separator", in, out)
		}
	}
}

// sgrRE finds what Styled may keep: ESC [ parameters m.
var sgrRE = regexp.MustCompile("\x1b\\[[0-9;:]*m")

func FuzzText(f *testing.F) {
	for _, s := range []string{"", "plain text", "\x1b[31mred\x1b[0m", "\x1b]52;c;aGVsbG8=\x07", "\x1b]0;t\x1b\\",
		"\u009b31m", "\u009d52;c;x\u009c", "\x9b31m\x9d0;x\x9c", "a\r\nb\rc\td", "\x1bP\x1b\\", "\xff\xc3", "\u202Eabc",
		"\x1b[", "\x1b]", "\x1b(", "Ĝ\x1b]Ĝ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		text := Text(s)
		checkSafe(t, s, text, false)
		if again := Text(text); again != text {
			t.Fatalf("Text is not idempotent on %q: %q, then %q", s, text, again)
		}
		line := Line(s)
		checkSafe(t, s, line, true)
		// Styled may keep SGR sequences and nothing else that drives a terminal.
		styled := Styled(s)
		for _, seq := range sgrRE.FindAllString(styled, -1) {
			if !isSGR(seq) {
				t.Fatalf("Styled(%q) = %q keeps %q", s, styled, seq)
			}
		}
		checkSafe(t, s, sgrRE.ReplaceAllString(styled, ""), false)
		if utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool {
			return r < 0x20 || r >= 0x7f && r <= 0x9f || isBidi(r) || r == '\u2028' || r == '\u2029'
		}) && line != s {
			t.Fatalf("Line changed the clean text %q into %q", s, line)
		}
	})
}
