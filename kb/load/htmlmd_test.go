package load

import (
	"errors"
	"strings"
	"testing"
	"testing/iotest"
)

func TestHTMLToMarkdown(t *testing.T) {
	tests := []struct {
		name, in, title, want string
	}{
		{
			name:  "title and headings",
			in:    "<html><head><title> Gas  Cabinet\nProcedure </title></head><body><h1>Scope</h1><p>Applies to silane.</p><h2>4.1 Purge</h2><h6>Note</h6></body></html>",
			title: "Gas Cabinet Procedure",
			want:  "# Scope\n\nApplies to silane.\n\n## 4.1 Purge\n\n###### Note",
		},
		{
			name:  "title from first h1",
			in:    "<h2>Intro</h2><h1>Silane <em>data</em></h1><h1>Other</h1>",
			title: "Silane data",
			want:  "## Intro\n\n# Silane data\n\n# Other",
		},
		{
			name: "paragraphs, divs and breaks",
			in:   "<div>one</div><div><p>two\n   lines</p></div>three<br>four<br><br><br>five",
			want: "one\n\ntwo lines\n\nthree\nfour\n\nfive",
		},
		{
			name: "nested lists",
			in: `<ul><li>alpha<ul><li>beta</li><li>gamma<ol><li>one</li><li>two</li></ol></li></ul></li><li>delta</li></ul>
				<ol start="3"><li>three</li><li><p>four</p><p>more</p></li></ol><p>after</p>`,
			want: "- alpha\n  - beta\n  - gamma\n    1. one\n    2. two\n- delta\n\n3. three\n4. four\n\n   more\n\nafter",
		},
		{
			name: "table with th",
			in: `<p>before</p><table><thead><tr><th>Gas</th><th>Flash point</th></tr></thead>
				<tbody><tr><td>Silane</td><td>&lt; -50 <b>°C</b></td></tr><tr><td>a|b</td><td colspan="2">wide</td></tr></tbody></table><p>after</p>`,
			want: "before\n\n| Gas | Flash point |\n| --- | --- |\n| Silane | < -50 °C |\n| a\\|b | wide |\n\nafter",
		},
		{
			name: "table without th",
			in:   "<table><tr><td>k</td><td>v</td><td>x</td></tr><tr><td>1</td><td>2\n<br>3</td></tr></table>",
			want: "| k | v | x |\n| --- | --- | --- |\n| 1 | 2 3 |  |",
		},
		{
			name: "entities",
			in:   "<p>Tom&#39;s &amp; Jerry&rsquo;s &lt;tag&gt;&nbsp;caf&eacute;</p>",
			want: "Tom's & Jerry\u2019s <tag> café",
		},
		{
			name: "boilerplate removed",
			in: `<html><head><style>p{color:red}</style><script>var x = "<p>no</p>";</script></head><body>
				<header><h1>Site banner</h1></header><nav><a href="/">Home</a></nav><noscript>enable js</noscript>
				<form><input value="q"><button>Search</button></form><svg><title>icon</title><text>svg text</text></svg>
				<article><header><h1>Real heading</h1></header><p>Body<script>alert(1)</script> text.</p></article>
				<footer>© 2024</footer><script>track()</script></body></html>`,
			title: "Real heading",
			want:  "# Real heading\n\nBody text.",
		},
		{
			name:  "page wrapped in a form keeps its content",
			in:    `<form action="x"><h1>Title</h1><p>Text</p><input type="hidden"></form>`,
			title: "Title",
			want:  "# Title\n\nText",
		},
		{
			name: "pre block",
			in:   "<p>Run:</p><pre><code>if x {\n    y()\n}\n\n\nz := \"``` \"</code></pre><p>Inline <code>go  vet</code>.</p>",
			want: "Run:\n\n````\nif x {\n    y()\n}\n\n\nz := \"``` \"\n````\n\nInline `go vet`.",
		},
		{
			name: "links",
			in: `<p>See <a href="https://example.org/a?b=c">the spec</a>, <a href="/local">local</a>,
				<a href="mailto:x@y.z">mail</a>, <a href="http://e.org">http://e.org</a> and <a href="https://e.org"><img src="x.png"></a>.</p>`,
			want: "See the spec (https://example.org/a?b=c), local, mail, http://e.org and .",
		},
		{
			name: "hash at line start is not a heading",
			in:   "<p>#1 priority</p><p>a # b</p>",
			want: "\\#1 priority\n\na # b",
		},
		{
			name: "broken markup",
			in:   "<p>open <b>bold <i>both</p><li>stray item<table><tr><td>a<td>b",
			want: "open bold both\n\n- stray item\n\n  | a | b |\n  | --- | --- |",
		},
		{name: "empty", in: "", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			title, md, err := htmlToMarkdown(strings.NewReader(tt.in))
			if err != nil {
				t.Fatalf("htmlToMarkdown: %v", err)
			}
			if title != tt.title {
				t.Errorf("title %q, want %q", title, tt.title)
			}
			if md != tt.want {
				t.Errorf("markdown:\n got %q\nwant %q", md, tt.want)
			}
			if strings.Contains(md, "\n\n\n") && !strings.Contains(md, "```") {
				t.Errorf("more than one blank line in a row: %q", md)
			}
		})
	}
}

func TestHTMLToMarkdownReaderError(t *testing.T) {
	boom := errors.New("disk gone")
	if _, _, err := htmlToMarkdown(iotest.ErrReader(boom)); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want it to wrap %v", err, boom)
	}
}

func TestHTMLToMarkdownInvalidUTF8(t *testing.T) {
	// Bytes that are not UTF-8 are the caller's to decode, but must not break the converter.
	in := "<h1>\xff\xfe bad</h1><table><tr><td>\xc3</td></tr></table><ul><li>\x80</li></ul>"
	if _, _, err := htmlToMarkdown(strings.NewReader(in)); err != nil {
		t.Fatalf("htmlToMarkdown: %v", err)
	}
}
