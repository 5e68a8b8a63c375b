package evidence

import (
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Quantity is one reading of a number written in a text, with the unit written after it.
type Quantity struct {
	Value    float64
	Decimals int    // digits after the decimal mark as written
	Sig      int    // significant digits as written
	Unit     string // the unit's canonical spelling (see units), "" for none
	Span     Span   // the number, its sign and its unit
}

// unit is a unit a quantity may be written in: its dimension and how to get to the
// dimension's base unit (base = value·scale + offset).
type unit struct {
	id, dim       string
	scale, offset float64
}

func (u unit) toBase(x float64) float64 { return x*u.scale + u.offset }

// The dimensions. Concentrations by volume (ppm, %) and by mass (mg/m³) convert into each
// other with the molar mass, at 25 °C and 1 atm (24.45 L/mol).
const (
	dimTemperature = "temperature" // °C
	dimPressure    = "pressure"    // bar (absolute)
	dimGauge       = "gauge"       // bar gauge: never the same as an absolute pressure
	dimVolume      = "volume"      // ppm by volume
	dimMass        = "massconc"    // mg/m³
	dimMolar       = "molar"       // g/mol
	dimDensity     = "density"     // kg/m³
	dimDose        = "dose"        // mg/kg
	dimSolution    = "solution"    // mg/L
)

// MolarVolume is the volume of a mole of gas at 25 °C and 1 atm, in L/mol, by which ppm and
// mg/m³ convert: ppm = mg/m³ × 24.45 / molar mass.
const MolarVolume = 24.45

var (
	celsius = unit{"°C", dimTemperature, 1, 0}
	percent = unit{"%", dimVolume, 1e4, 0}
	ppm     = unit{"ppm", dimVolume, 1, 0}
	mgm3    = unit{"mg/m³", dimMass, 1, 0}
)

// spellings maps how units are written to the unit; matched case-insensitively except those
// in caseSensitive, longest first.
var spellings = map[string]unit{
	"°C": celsius, "° C": celsius, "ºC": celsius, "℃": celsius, "degC": celsius, "deg C": celsius,
	"degrees C": celsius, "degrees Celsius": celsius, "Celsius": celsius,
	"°F": {"°F", dimTemperature, 5.0 / 9, -32 * 5.0 / 9}, "° F": {"°F", dimTemperature, 5.0 / 9, -32 * 5.0 / 9},
	"ºF": {"°F", dimTemperature, 5.0 / 9, -32 * 5.0 / 9}, "℉": {"°F", dimTemperature, 5.0 / 9, -32 * 5.0 / 9},
	"deg F": {"°F", dimTemperature, 5.0 / 9, -32 * 5.0 / 9}, "degrees F": {"°F", dimTemperature, 5.0 / 9, -32 * 5.0 / 9},
	"Fahrenheit": {"°F", dimTemperature, 5.0 / 9, -32 * 5.0 / 9},
	"K":          {"K", dimTemperature, 1, -273.15}, "Kelvin": {"K", dimTemperature, 1, -273.15},

	"bar": {"bar", dimPressure, 1, 0}, "bara": {"bar", dimPressure, 1, 0}, "bar(a)": {"bar", dimPressure, 1, 0},
	"bar abs": {"bar", dimPressure, 1, 0}, "mbar": {"mbar", dimPressure, 1e-3, 0}, "hPa": {"hPa", dimPressure, 1e-3, 0},
	"kPa": {"kPa", dimPressure, 1e-2, 0}, "MPa": {"MPa", dimPressure, 10, 0}, "Pa": {"Pa", dimPressure, 1e-5, 0},
	"atm": {"atm", dimPressure, 1.01325, 0}, "psi": {"psi", dimPressure, 0.0689475729, 0}, "psia": {"psi", dimPressure, 0.0689475729, 0},
	"mmHg": {"mmHg", dimPressure, 1.01325 / 760, 0}, "mm Hg": {"mmHg", dimPressure, 1.01325 / 760, 0}, "Torr": {"mmHg", dimPressure, 1.01325 / 760, 0},
	"barg": {"barg", dimGauge, 1, 0}, "bar(g)": {"barg", dimGauge, 1, 0}, "psig": {"psig", dimGauge, 0.0689475729, 0},

	"ppm": ppm, "ppmv": ppm, "ppm(v)": ppm, "ml/m³": ppm, "ml/m3": ppm, "cm³/m³": ppm, "cm3/m3": ppm,
	"ppb": {"ppb", dimVolume, 1e-3, 0},
	"%":   percent, "vol%": percent, "vol %": percent, "vol.%": percent, "vol.-%": percent, "vol-%": percent,
	"% vol": percent, "%(v/v)": percent, "% (v/v)": percent, "% v/v": percent, "percent": percent, "per cent": percent,
	"volume %": percent,

	"mg/m³": mgm3, "mg/m3": mgm3, "mg/m^3": mgm3, "mg m-3": mgm3, "mg·m-3": mgm3, "mg m⁻³": mgm3, "mg·m⁻³": mgm3,
	"µg/m³": {"µg/m³", dimMass, 1e-3, 0}, "µg/m3": {"µg/m³", dimMass, 1e-3, 0}, "μg/m³": {"µg/m³", dimMass, 1e-3, 0},
	"μg/m3": {"µg/m³", dimMass, 1e-3, 0}, "ug/m3": {"µg/m³", dimMass, 1e-3, 0},

	"g/mol": {"g/mol", dimMolar, 1, 0}, "g mol-1": {"g/mol", dimMolar, 1, 0}, "g·mol-1": {"g/mol", dimMolar, 1, 0},
	"g·mol⁻¹": {"g/mol", dimMolar, 1, 0}, "g mol⁻¹": {"g/mol", dimMolar, 1, 0}, "g/mole": {"g/mol", dimMolar, 1, 0},
	"kg/kmol": {"g/mol", dimMolar, 1, 0}, "Da": {"g/mol", dimMolar, 1, 0},

	"kg/m³": {"kg/m³", dimDensity, 1, 0}, "kg/m3": {"kg/m³", dimDensity, 1, 0}, "g/l": {"kg/m³", dimDensity, 1, 0},
	"g/dm³": {"kg/m³", dimDensity, 1, 0}, "g/dm3": {"kg/m³", dimDensity, 1, 0},
	"g/cm³": {"g/cm³", dimDensity, 1000, 0}, "g/cm3": {"g/cm³", dimDensity, 1000, 0}, "g/ml": {"g/cm³", dimDensity, 1000, 0},
	"kg/l": {"g/cm³", dimDensity, 1000, 0}, "kg/dm³": {"g/cm³", dimDensity, 1000, 0}, "kg/dm3": {"g/cm³", dimDensity, 1000, 0},
	"lb/ft³": {"lb/ft³", dimDensity, 16.0184634, 0}, "lb/ft3": {"lb/ft³", dimDensity, 16.0184634, 0},

	"mg/kg": {"mg/kg", dimDose, 1, 0}, "mg/l": {"mg/L", dimSolution, 1, 0},
}

// caseSensitive are spellings that mean something else in another case ("k", "da").
var caseSensitive = map[string]bool{"K": true, "Da": true, "Pa": true, "MPa": true}

var spellingOrder = func() []string {
	out := make([]string, 0, len(spellings))
	for s := range spellings {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool {
		if len(out[i]) != len(out[j]) {
			return len(out[i]) > len(out[j])
		}
		return out[i] < out[j]
	})
	return out
}()

// unitAt reads a unit at the start of s (after at most one space); n is the bytes it takes.
func unitAt(s string) (unit, int, bool) {
	skip := 0
	for _, sp := range []string{" ", "\u00a0", "\u202f", "\u2009"} {
		if strings.HasPrefix(s, sp) {
			skip = len(sp)
			break
		}
	}
	rest := s[skip:]
	for _, sp := range spellingOrder {
		if len(rest) < len(sp) {
			continue
		}
		head := rest[:len(sp)]
		if head != sp && (caseSensitive[sp] || !strings.EqualFold(head, sp)) {
			continue
		}
		// A unit ends where a word would: "5 Kg" is no kelvin, "5 bars" no bar.
		if r, _ := utf8.DecodeRuneInString(rest[len(sp):]); wordRune(r) && !strings.HasSuffix(sp, "%") {
			continue
		}
		return spellings[sp], skip + len(sp), true
	}
	return unit{}, 0, false
}

// numberShape is a run of digits with single separators (decimal marks, thousands separators)
// between digits; a sign is read from what precedes it.
var numberShape = regexp.MustCompile(`\d(?:\d|[.,'\x{2009}\x{202F}\x{00A0}]\d)*`)

// Quantities reads every number of text that stands as a whole token (not inside a word such
// as H220 or SiH4, not a part of a CAS number), with the unit written after it. A number whose
// separators can be read two ways ("1,000": a thousand, or one with a decimal comma) gives
// both readings, with the same span.
func Quantities(text string) []Quantity {
	masked := []byte(text)
	for _, loc := range casShape.FindAllStringIndex(text, -1) {
		if !digitNear(text, loc[0], loc[1]) {
			for i := loc[0]; i < loc[1]; i++ {
				masked[i] = 'x' // a CAS number is no number of anything
			}
		}
	}
	var out []Quantity
	for _, loc := range numberShape.FindAllIndex(masked, -1) {
		start, end := loc[0], loc[1]
		before, n := utf8.DecodeLastRuneInString(text[:start])
		if n > 0 && (wordRune(before) || before == '.' || before == ',') {
			continue // inside a word or code, or after a decimal mark of a malformed number
		}
		negative := false
		if n > 0 && strings.ContainsRune("-−–", before) {
			// A sign when nothing that reads as a word or number stands before the dash:
			// "−62.5", "(-10)"; "1.4–7.6" and "H2-62" are a range and a code.
			prev, m := utf8.DecodeLastRuneInString(text[:start-n])
			if m == 0 || !wordRune(prev) && prev != '.' && prev != ')' && prev != '%' {
				negative, start = true, start-n
			}
		}
		after, _ := utf8.DecodeRuneInString(text[end:])
		u, ulen, hasUnit := unitAt(text[end:])
		if wordRune(after) && !hasUnit {
			continue // "2nd", "3D", "4x"
		}
		spanEnd := end
		if hasUnit {
			spanEnd = end + ulen
		} else {
			u = unit{}
		}
		for _, r := range readings(text[loc[0]:loc[1]]) {
			if negative {
				r.Value = -r.Value
			}
			r.Unit, r.Span = u.id, Span{start, spanEnd}
			out = append(out, r)
		}
	}
	return out
}

// ParseQuantity reads text that is one quantity, such as "-62.5 °C" or "0,05 ppm"; ok is
// false when it holds no number or more than the number and its unit.
func ParseQuantity(text string) ([]Quantity, bool) {
	text = strings.TrimSpace(text)
	qs := Quantities(text)
	if len(qs) == 0 || qs[0].Span.Start != 0 || qs[0].Span.End != len(text) {
		return nil, false
	}
	var out []Quantity
	for _, q := range qs {
		if q.Span == qs[0].Span {
			out = append(out, q)
		}
	}
	return out, true
}

// readings reads the digits of a number: the last of "." and "," when both appear is the
// decimal mark; several of one kind are thousands separators; one followed by exactly three
// digits after one to three others ("1,000", "62.500") can be either and gives both.
func readings(s string) []Quantity {
	s = strings.NewReplacer("'", "", "\u2009", "", "\u202f", "", "\u00a0", "").Replace(s)
	dots, commas := strings.Count(s, "."), strings.Count(s, ",")
	var texts []string
	switch {
	case dots == 0 && commas == 0:
		texts = []string{s}
	case dots > 0 && commas > 0:
		if strings.LastIndex(s, ",") > strings.LastIndex(s, ".") {
			texts = []string{strings.Replace(strings.ReplaceAll(s, ".", ""), ",", ".", 1)}
		} else {
			texts = []string{strings.ReplaceAll(s, ",", "")}
		}
		if strings.Count(texts[0], ".") > 1 {
			return nil
		}
	case dots+commas > 1:
		sep := "."
		if commas > 0 {
			sep = ","
		}
		for i, g := range strings.Split(s, sep) {
			if i > 0 && len(g) != 3 || i == 0 && len(g) > 3 {
				return nil // "2.3.1" is a section number, not a number
			}
		}
		texts = []string{strings.ReplaceAll(s, sep, "")}
	default:
		sep := "."
		if commas > 0 {
			sep = ","
		}
		whole, frac, _ := strings.Cut(s, sep)
		texts = []string{whole + "." + frac}
		if len(frac) == 3 && len(whole) <= 3 && whole != "0" {
			texts = append(texts, whole+frac)
		}
	}
	var out []Quantity
	for _, t := range texts {
		x, err := strconv.ParseFloat(t, 64)
		if err != nil {
			continue
		}
		q := Quantity{Value: x}
		whole, frac, _ := strings.Cut(t, ".")
		q.Decimals = len(frac)
		q.Sig = len(strings.TrimLeft(whole+frac, "0"))
		out = append(out, q)
	}
	return out
}

// Options say what a quantity claim may be matched with.
type Options struct {
	// MolarMass, in g/mol, lets ppm and mg/m³ meet; 0 when unknown.
	MolarMass float64
	// Near, when set, are labels one of which must end at most NearWindow words before the
	// number: "Health: 3" states an HMIS health rating, a stray 3 does not.
	Near       []string
	NearWindow int
}

// FindQuantity finds a quantity of text that states want (see Matches) and returns where it
// stands.
func FindQuantity(text string, want []Quantity, opt Options) (Span, bool) {
	var toks []token
	if len(opt.Near) > 0 {
		toks = tokens(text)
	}
	for _, got := range Quantities(text) {
		for _, w := range want {
			if !Matches(w, got, opt.MolarMass) {
				continue
			}
			if len(opt.Near) == 0 {
				return got.Span, true
			}
			i := sort.Search(len(toks), func(i int) bool { return toks[i].start >= got.Span.Start })
			if i < len(toks) && toks[i].start > got.Span.Start+len("−") {
				continue
			}
			if s, ok := labelBefore(toks, i, opt.Near, opt.NearWindow); ok {
				return Span{s, got.Span.End}, true
			}
			if s, ok := rowLabel(text, got.Span.Start, opt.Near); ok {
				return Span{s, got.Span.End}, true
			}
		}
	}
	return Span{}, false
}

// Matches reports whether a passage's quantity got states the claim want.
//
// In the same unit (or got written without one, as in a table whose header gives it; or want
// without one, as a bare limit value) the values are equal, or want is got rounded to fewer
// decimals and keeps at least two significant digits (−62.5 for −62.47; but 0.5 is not 0.45,
// nor 1 1.4). In another unit of the same dimension (°F for °C, mg/m³ for ppm with the molar
// mass) got is converted and may differ by half a unit of the last digit of either, the
// precision the conversion cannot beat.
func Matches(want, got Quantity, molarMass float64) bool {
	if want.Unit == got.Unit || got.Unit == "" || want.Unit == "" {
		return sameValue(want, got)
	}
	wu, gu := unitByID(want.Unit), unitByID(got.Unit)
	var conv func(float64) float64
	slope := 0.0
	switch {
	case wu.dim == gu.dim:
		conv = func(x float64) float64 { return (gu.toBase(x) - wu.offset) / wu.scale }
		slope = gu.scale / wu.scale
	case molarMass > 0 && wu.dim == dimVolume && gu.dim == dimMass:
		conv = func(x float64) float64 { return gu.toBase(x) * MolarVolume / molarMass / wu.scale }
		slope = gu.scale * MolarVolume / molarMass / wu.scale
	case molarMass > 0 && wu.dim == dimMass && gu.dim == dimVolume:
		conv = func(x float64) float64 { return gu.toBase(x) * molarMass / MolarVolume / wu.scale }
		slope = gu.scale * molarMass / MolarVolume / wu.scale
	default:
		return false
	}
	x := conv(got.Value)
	tol := math.Max(halfUnit(want.Decimals), math.Abs(slope)*halfUnit(got.Decimals))
	return math.Abs(x-want.Value) <= tol*(1+1e-9)+1e-12
}

func halfUnit(decimals int) float64 { return 0.5 * math.Pow(10, -float64(decimals)) }

func sameValue(want, got Quantity) bool {
	if nearlyEqual(want.Value, got.Value) {
		return true
	}
	return want.Sig >= 2 && want.Decimals < got.Decimals && nearlyEqual(roundDecimals(got.Value, want.Decimals), want.Value)
}

func nearlyEqual(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// roundDecimals rounds half away from zero, after removing binary noise (as the gas desk
// rounds: −112.14999… is −112.1 on paper only when it was written so).
func roundDecimals(x float64, d int) float64 {
	p := math.Pow(10, float64(d))
	clean, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 12, 64), 64)
	return math.Round(clean*p) / p
}

var unitIDs = func() map[string]unit {
	out := map[string]unit{}
	for _, u := range spellings {
		out[u.id] = u
	}
	return out
}()

func unitByID(id string) unit { return unitIDs[id] }
