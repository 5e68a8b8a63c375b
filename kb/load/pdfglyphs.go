package load

import (
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/ledongthuc/pdf"
)

// pdfGlyphs lists the text a page draws, one entry per character code, with where it is drawn
// and its width. It replaces the PDF library's Page.Content, which pairs the i-th character of
// the decoded text with the i-th byte of the string: a ligature ("fl", one code, two letters),
// or a two-byte code, shifts every later width by one, letters land on the wrong place and
// the page reads "Druckgasflschen"; its TJ also draws a stray byte 10 at the end of each
// array. Here each code is decoded and measured on its own.
func pdfGlyphs(p pdf.Page) []pdf.Text {
	if p.V.IsNull() || p.V.Key("Contents").Kind() == pdf.Null {
		return nil
	}
	type state struct {
		ctm, tm, tlm         pdfMatrix
		font                 *pdfFont
		size, tc, tw, th, tl float64
		rise                 float64
	}
	g := state{ctm: pdfIdentity, tm: pdfIdentity, tlm: pdfIdentity, th: 1}
	var stack []state
	fonts := map[string]*pdfFont{}
	var out []pdf.Text

	show := func(raw string) {
		f := g.font
		if f == nil {
			return
		}
		for i := 0; i < len(raw); {
			n := min(f.codeLen, len(raw)-i)
			code := raw[i : i+n]
			i += n
			c := 0
			for j := 0; j < len(code); j++ {
				c = c<<8 | int(code[j])
			}
			w0 := f.width(c)
			trm := pdfMatrix{g.size * g.th, 0, 0, g.size, 0, g.rise}.mul(g.tm).mul(g.ctm)
			out = append(out, pdf.Text{Font: f.name, FontSize: trm[0], X: trm[4], Y: trm[5], W: w0 / 1000 * trm[0], S: f.decode(code)})
			tx := w0/1000*g.size + g.tc
			if n == 1 && c == 32 {
				tx += g.tw // word spacing applies to the single-byte space only
			}
			g.tm = pdfMatrix{1, 0, 0, 1, tx * g.th, 0}.mul(g.tm)
		}
	}
	nextLine := func(tx, ty float64) {
		g.tlm = pdfMatrix{1, 0, 0, 1, tx, ty}.mul(g.tlm)
		g.tm = g.tlm
	}
	num := func(args []pdf.Value, i int) float64 { return args[i].Float64() }

	pdf.Interpret(p.V.Key("Contents"), func(stk *pdf.Stack, op string) {
		n := stk.Len()
		args := make([]pdf.Value, n)
		for i := n - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		need := func(k int) bool { return len(args) == k }
		switch op {
		case "q":
			stack = append(stack, g)
		case "Q":
			if len(stack) > 0 {
				g = stack[len(stack)-1]
				stack = stack[:len(stack)-1]
			}
		case "cm":
			if need(6) {
				g.ctm = pdfMatrix{num(args, 0), num(args, 1), num(args, 2), num(args, 3), num(args, 4), num(args, 5)}.mul(g.ctm)
			}
		case "BT":
			g.tm, g.tlm = pdfIdentity, pdfIdentity
		case "Tf":
			if need(2) {
				name := args[0].Name()
				f, ok := fonts[name]
				if !ok {
					f = newPDFFont(p.Font(name))
					fonts[name] = f
				}
				g.font, g.size = f, num(args, 1)
			}
		case "Tc":
			if need(1) {
				g.tc = num(args, 0)
			}
		case "Tw":
			if need(1) {
				g.tw = num(args, 0)
			}
		case "Tz":
			if need(1) {
				g.th = num(args, 0) / 100
			}
		case "TL":
			if need(1) {
				g.tl = num(args, 0)
			}
		case "Ts":
			if need(1) {
				g.rise = num(args, 0)
			}
		case "Td":
			if need(2) {
				nextLine(num(args, 0), num(args, 1))
			}
		case "TD":
			if need(2) {
				g.tl = -num(args, 1)
				nextLine(num(args, 0), num(args, 1))
			}
		case "Tm":
			if need(6) {
				g.tm = pdfMatrix{num(args, 0), num(args, 1), num(args, 2), num(args, 3), num(args, 4), num(args, 5)}
				g.tlm = g.tm
			}
		case "T*":
			nextLine(0, -g.tl)
		case "Tj":
			if need(1) {
				show(args[0].RawString())
			}
		case "'":
			if need(1) {
				nextLine(0, -g.tl)
				show(args[0].RawString())
			}
		case "\"":
			if need(3) {
				g.tw, g.tc = num(args, 0), num(args, 1)
				nextLine(0, -g.tl)
				show(args[2].RawString())
			}
		case "TJ":
			if need(1) {
				a := args[0]
				for i := 0; i < a.Len(); i++ {
					if x := a.Index(i); x.Kind() == pdf.String {
						show(x.RawString())
					} else {
						g.tm = pdfMatrix{1, 0, 0, 1, -x.Float64() / 1000 * g.size * g.th, 0}.mul(g.tm)
					}
				}
			}
		}
	})
	return out
}

// pdfMatrix is a PDF transformation [a b c d e f].
type pdfMatrix [6]float64

var pdfIdentity = pdfMatrix{1, 0, 0, 1, 0, 0}

func (m pdfMatrix) mul(n pdfMatrix) pdfMatrix {
	return pdfMatrix{
		m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4], m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

// pdfFont is what text extraction needs of a font: its name, how long its codes are, their
// text and their widths.
type pdfFont struct {
	name    string
	codeLen int // 2 for composite (Type0) fonts, else 1
	enc     pdf.TextEncoding
	first   int
	widths  []float64       // simple fonts: widths from first on
	cid     map[int]float64 // composite fonts: widths by CID (Identity encodings: CID = code)
	dw      float64         // composite fonts: the default width
	decoded map[string]string
	// wide are the ToUnicode ranges of a composite font that span more than their last byte.
	wide []wideRange
}

func newPDFFont(f pdf.Font) *pdfFont {
	pf := &pdfFont{name: f.BaseFont(), codeLen: 1, decoded: map[string]string{}}
	if i := indexByte(pf.name, '+'); i >= 0 {
		pf.name = pf.name[i+1:] // a subset's tag, "ABCDEF+DejaVuSerif"
	}
	pf.enc = f.Encoder()
	if pf.enc == nil {
		pf.enc = pdf.TextEncoding(nil)
	}
	if f.V.Key("Subtype").Name() == "Type0" {
		pf.codeLen, pf.dw, pf.cid = 2, 1000, map[int]float64{}
		pf.wide = wideRanges(f.V.Key("ToUnicode"))
		d := f.V.Key("DescendantFonts").Index(0)
		if v := d.Key("DW"); v.Kind() == pdf.Integer || v.Kind() == pdf.Real {
			pf.dw = v.Float64()
		}
		w := d.Key("W") // [c [w1 w2 …] cFirst cLast w …]
		for i := 0; i < w.Len(); {
			start := int(w.Index(i).Int64())
			if i+1 < w.Len() && w.Index(i+1).Kind() == pdf.Array {
				list := w.Index(i + 1)
				for j := 0; j < list.Len() && j < 65536; j++ {
					pf.cid[start+j] = list.Index(j).Float64()
				}
				i += 2
				continue
			}
			if i+2 >= w.Len() {
				break
			}
			last, width := int(w.Index(i+1).Int64()), w.Index(i+2).Float64()
			for c := start; c <= last && c-start < 65536; c++ {
				pf.cid[c] = width
			}
			i += 3
		}
		return pf
	}
	pf.first = f.FirstChar()
	pf.widths = f.Widths()
	return pf
}

// width is a code's advance in thousandths of the font size; 0 when the font does not say,
// which the layout then estimates.
func (f *pdfFont) width(code int) float64 {
	if f.cid != nil {
		if w, ok := f.cid[code]; ok {
			return w
		}
		return f.dw
	}
	if i := code - f.first; i >= 0 && i < len(f.widths) {
		return f.widths[i]
	}
	return 0
}

// decode is a code's text: one letter, several for a ligature, none for a code without one.
func (f *pdfFont) decode(code string) string {
	if s, ok := f.decoded[code]; ok {
		return s
	}
	s := code
	if f.enc != nil {
		s = f.enc.Decode(code)
	}
	for _, r := range f.wide {
		if fixed, ok := r.decode(code, s); ok {
			s = fixed
			break
		}
	}
	f.decoded[code] = s
	return s
}

// wideRange is a ToUnicode range over two-byte codes whose ends differ in more than the last
// byte, as fpdf writes one ("<0000> <FFFF> <0000>"): the PDF library adds a code's offset to
// the last byte of the text only, so U+2264 "≤" reads "d" and U+2022 "•" reads '"'.
type wideRange struct{ lo, hi, dst int }

// decode is code's text by the range, when code lies in it and the library read it the
// truncated way (lib); any other reading (a bfchar's, say) is the library's to keep.
func (r wideRange) decode(code, lib string) (string, bool) {
	if len(code) != 2 {
		return "", false
	}
	c := int(code[0])<<8 | int(code[1])
	if c < r.lo || c > r.hi {
		return "", false
	}
	truncated := r.dst&0xff00 | (r.dst+c-r.lo)&0xff
	if lib != string(utf16.Decode([]uint16{uint16(truncated)})) {
		return "", false
	}
	u := r.dst + c - r.lo
	if u > 0xffff {
		return "", false
	}
	return string(utf16.Decode([]uint16{uint16(u)})), true
}

// wideRanges reads the wide ranges of a ToUnicode CMap: the bfranges with a two-byte text
// whose codes span more than their last byte. It reads the CMap's text rather than running
// it, so that nothing of the PDF's own objects is touched.
func wideRanges(toUnicode pdf.Value) (out []wideRange) {
	if toUnicode.Kind() != pdf.Stream {
		return nil
	}
	defer func() {
		if recover() != nil {
			out = nil // a stream the library cannot read: its own reading stands
		}
	}()
	rc := toUnicode.Reader()
	data, err := io.ReadAll(io.LimitReader(rc, 1<<20))
	rc.Close()
	if err != nil {
		return nil
	}
	hex := func(s string) (int, int) {
		v, err := strconv.ParseUint(s, 16, 32)
		if err != nil {
			return 0, 0
		}
		return int(v), len(s) / 2
	}
	for _, section := range cmapRanges.FindAllSubmatch(data, -1) {
		tokens := cmapToken.FindAllString(string(section[1]), -1)
		for i := 0; i+2 < len(tokens); i += 3 {
			lo, loLen := hex(strings.Trim(tokens[i], "<>"))
			hi, hiLen := hex(strings.Trim(tokens[i+1], "<>"))
			dst := tokens[i+2]
			if strings.HasPrefix(dst, "[") {
				continue // a list of texts, which the library reads right
			}
			d, dLen := hex(strings.Trim(dst, "<>"))
			if loLen == 2 && hiLen == 2 && dLen == 2 && lo>>8 != hi>>8 {
				out = append(out, wideRange{lo: lo, hi: hi, dst: d})
			}
		}
	}
	return out
}

var (
	cmapRanges = regexp.MustCompile(`(?s)beginbfrange(.*?)endbfrange`)
	cmapToken  = regexp.MustCompile(`<[0-9A-Fa-f\s]*>|\[[^\]]*\]`)
)

func indexByte(s string, b byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == b {
			return i
		}
	}
	return -1
}
