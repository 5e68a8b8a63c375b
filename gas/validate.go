package gas

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// NotApplicable is the canonical spelling of "this property doesn't apply" (the flash point of a
// permanent gas, the LEL of a non-flammable one). It is a value, unlike an empty cell, which
// means "not known yet", so the fill run leaves it alone.
const NotApplicable = "n/a"

var placeholders = map[string]bool{"n/a": true, "n.a.": true, "na": true, "not applicable": true,
	"-": true, "–": true, "—": true, "nicht zutreffend": true, "entfällt": true}

// ValueError says why a value doesn't fit a field and what the field allows.
type ValueError struct {
	Field   string // the field's label
	Value   string // the value as given
	Problem string // what is wrong
	Allowed string // what would be accepted
}

func (e *ValueError) Error() string {
	return fmt.Sprintf("%s: %q %s; %s", e.Field, e.Value, e.Problem, e.Allowed)
}

// Normalize checks value against the field and returns it in its canonical form: quantities
// converted to the field's unit (unit, or a unit written after the number, says what the
// value is in), CAS and UN numbers in their standard layout, booleans as "yes"/"no", enums in
// their listed spelling, lists joined by "; ". An empty value stays empty. The error says what
// the field allows.
func Normalize(f Field, value, unit string) (string, error) {
	v := strings.TrimSpace(value)
	if v == "" {
		return "", nil
	}
	if placeholders[strings.ToLower(v)] {
		return NotApplicable, nil
	}
	switch f.Kind {
	case KindString:
		return strings.Join(strings.Fields(v), " "), nil
	case KindCAS:
		return normalizeCAS(f, v)
	case KindUN:
		return normalizeUN(f, v)
	case KindList:
		return normalizeList(f, v)
	case KindBool:
		return normalizeBool(f, v)
	case KindEnum:
		return normalizeEnum(f, v)
	case KindRating:
		return normalizeRating(f, v)
	case KindNumber, KindTemperature, KindPressure, KindPercent, KindPPM:
		return normalizeQuantity(f, v, unit)
	}
	return "", fmt.Errorf("%s: unknown kind %q", f.Label, f.Kind)
}

var (
	casPattern    = regexp.MustCompile(`^\d{2,7}-\d{2}-\d$`)
	casDigitsOnly = regexp.MustCompile(`^\d{5,10}$`)
)

func normalizeCAS(f Field, v string) (string, error) {
	v = strings.ReplaceAll(v, " ", "")
	v = strings.NewReplacer("‐", "-", "‑", "-", "–", "-").Replace(v)
	if casDigitsOnly.MatchString(v) {
		v = v[:len(v)-3] + "-" + v[len(v)-3:len(v)-1] + "-" + v[len(v)-1:]
	}
	allowed := "a CAS number is 2–7 digits, 2 digits and a check digit, like 7803-62-5"
	if !casPattern.MatchString(v) {
		return "", &ValueError{f.Label, v, "isn't a CAS number", allowed}
	}
	if want := CASCheckDigit(v); int(v[len(v)-1]-'0') != want {
		return "", &ValueError{f.Label, v, fmt.Sprintf("has a wrong check digit (the other digits give %d)", want), allowed}
	}
	return v, nil
}

// CASCheckDigit computes the check digit of a CAS number (its last digit is ignored): the sum
// of the other digits, each multiplied by its position counted from the right, modulo 10.
func CASCheckDigit(cas string) int {
	digits := strings.ReplaceAll(cas, "-", "")
	if digits == "" {
		return -1
	}
	sum, pos := 0, 1
	for i := len(digits) - 2; i >= 0; i-- {
		sum += int(digits[i]-'0') * pos
		pos++
	}
	return sum % 10
}

var unPattern = regexp.MustCompile(`(?i)^(?:UN)?\s*-?\s*(\d{4})$`)

func normalizeUN(f Field, v string) (string, error) {
	m := unPattern.FindStringSubmatch(v)
	if m == nil {
		return "", &ValueError{f.Label, v, "isn't a UN number", "a UN number is four digits, written UN1234 or 1234"}
	}
	return "UN" + m[1], nil
}

var (
	listSplit   = regexp.MustCompile(`[;\n\r|]+`)
	hSplit      = regexp.MustCompile(`[;,\s|]+`)
	hPlus       = regexp.MustCompile(`\s*\+\s*`)
	hCodePart   = regexp.MustCompile(`^(?:[Hh](\d{3})([A-Za-z]*)|(?i:EUH)(\d{3}))$`)
	hStatements = "h_statements"
)

func normalizeList(f Field, v string) (string, error) {
	var items []string
	if f.Name == hStatements {
		for _, tok := range hSplit.Split(hPlus.ReplaceAllString(v, "+"), -1) {
			if tok == "" {
				continue
			}
			code, ok := hCode(tok)
			if !ok {
				return "", &ValueError{f.Label, tok, "isn't an H-statement code",
					"write codes like H220, H360FD or EUH071 (combined: H300+H330), separated by semicolons"}
			}
			items = append(items, code)
		}
	} else {
		items = listSplit.Split(v, -1)
	}
	var out []string
	seen := map[string]bool{}
	for _, it := range items {
		it = strings.Join(strings.Fields(it), " ")
		if it == "" || seen[it] {
			continue
		}
		seen[it] = true
		out = append(out, it)
	}
	return strings.Join(out, "; "), nil
}

// hCode canonicalises one H-statement code or a "+"-combination of codes: "H" and "EUH" in
// capitals, the category letters kept as written (H360F and H361f differ).
func hCode(tok string) (string, bool) {
	parts := strings.Split(tok, "+")
	for i, p := range parts {
		m := hCodePart.FindStringSubmatch(p)
		if m == nil {
			return "", false
		}
		if m[3] != "" {
			parts[i] = "EUH" + m[3]
		} else {
			parts[i] = "H" + m[1] + m[2]
		}
	}
	return strings.Join(parts, "+"), true
}

var boolWords = map[string]string{
	"yes": "yes", "y": "yes", "true": "yes", "x": "yes", "✓": "yes", "✔": "yes", "1": "yes", "ja": "yes", "j": "yes", "wahr": "yes",
	"no": "no", "n": "no", "false": "no", "0": "no", "nein": "no", "✗": "no", "✘": "no", "falsch": "no",
}

func normalizeBool(f Field, v string) (string, error) {
	if b, ok := boolWords[strings.ToLower(v)]; ok {
		return b, nil
	}
	return "", &ValueError{f.Label, v, "isn't yes or no", "write yes/no (also true/false, x, ✓, 1/0, ja/nein)"}
}

// enumSynonyms maps other spellings (lower-cased) to an enum's canonical value, per field.
var enumSynonyms = map[string]map[string]string{
	"physical_state": {"gaseous": "gas", "compressed gas": "gas", "liquefied gas": "gas", "gasförmig": "gas", "gasfoermig": "gas",
		"g": "gas", "l": "liquid", "s": "solid", "flüssig": "liquid", "fluessig": "liquid", "fest": "solid"},
	"nfpa_special": {"-w-": "W", "w̶": "W", "₩": "W", "oxy": "OX", "oxidizer": "OX", "oxidiser": "OX",
		"asphyxiant": "SA", "simple asphyxiant": "SA", "none": "", "keine": ""},
	"signal_word": {"gefahr": "Danger", "achtung": "Warning"},
}

func normalizeEnum(f Field, v string) (string, error) {
	for _, e := range f.Enum {
		if strings.EqualFold(v, e) {
			return e, nil
		}
	}
	if c, ok := enumSynonyms[f.Name][strings.ToLower(strings.Join(strings.Fields(v), " "))]; ok {
		return c, nil
	}
	var shown []string
	for _, e := range f.Enum {
		if e == "" {
			e = `"" (none)`
		}
		shown = append(shown, e)
	}
	return "", &ValueError{f.Label, v, "isn't allowed", "write one of " + strings.Join(shown, ", ")}
}

func normalizeRating(f Field, v string) (string, error) {
	allowed := "ratings are whole numbers from 0 to 4"
	x, rest, ok := parseNumber(v)
	if !ok || rest != "" {
		return "", &ValueError{f.Label, v, "isn't a rating", allowed}
	}
	if x != math.Trunc(x) || x < 0 || x > 4 {
		return "", &ValueError{f.Label, v, "is out of range", allowed}
	}
	return strconv.Itoa(int(x)), nil
}

// unitConv converts a value in some unit to a field's canonical unit.
type unitConv func(float64) float64

func scale(k float64) unitConv { return func(x float64) float64 { return x * k } }

var identity unitConv = nil // nil means "already canonical", so no rounding beyond noise

// units lists, per kind, the accepted units (as squashed by unitKey) and their conversion.
var units = map[Kind]map[string]unitConv{
	KindTemperature: {
		"": identity, "c": identity, "celsius": identity,
		"k": func(x float64) float64 { return x + absoluteZero }, "kelvin": func(x float64) float64 { return x + absoluteZero },
		"f":          func(x float64) float64 { return (x - 32) * 5 / 9 },
		"fahrenheit": func(x float64) float64 { return (x - 32) * 5 / 9 },
	},
	KindPressure: {
		"": identity, "bar": identity, "bara": identity, "bar(a)": identity, "barabs": identity,
		"mbar": scale(1e-3), "hpa": scale(1e-3), "kpa": scale(1e-2), "mpa": scale(10), "pa": scale(1e-5),
		"atm": scale(1.01325), "psi": scale(0.0689475729), "psia": scale(0.0689475729),
		"mmhg": scale(1.01325 / 760), "torr": scale(1.01325 / 760),
	},
	KindPercent: {
		"": identity, "%": identity, "vol%": identity, "%vol": identity, "%v/v": identity, "v/v%": identity, "percent": identity,
		"ppm": scale(1e-4),
	},
	KindPPM: {
		"": identity, "ppm": identity, "ppmv": identity, "ml/m3": identity, "cm3/m3": identity,
		"ppb": scale(1e-3), "%": scale(1e4), "vol%": scale(1e4),
	},
}

// fractionUnits are the units of a percentage given as a fraction of one.
var fractionUnits = map[string]bool{"fraction": true, "molefraction": true, "molfraction": true, "volumefraction": true, "volfraction": true}

// numberUnits lists the accepted units of plain-number fields, by canonical unit.
var numberUnits = map[string]map[string]unitConv{
	"g/mol": {"": identity, "g/mol": identity, "gmol-1": identity, "g/mole": identity, "da": identity, "u": identity},
	"kg/m³": {"": identity, "kg/m3": identity, "g/l": identity, "g/dm3": identity, "mg/ml": identity,
		"g/cm3": scale(1000), "g/ml": scale(1000), "kg/l": scale(1000), "kg/dm3": scale(1000), "lb/ft3": scale(16.0184634)},
	"": {"": identity, "air=1": identity},
}

var allowedUnits = map[Kind]string{
	KindTemperature: "°C, K or °F",
	KindPressure:    "bar, mbar, hPa, kPa, MPa, Pa, atm, psi or mmHg (absolute)",
	KindPercent:     "%, vol % or a fraction with the unit \"fraction\"",
	KindPPM:         "ppm, ppb or %",
}

// unitKey squashes a unit for lookup: lower case, no spaces, dots, dashes or degree signs.
func unitKey(u string) string {
	u = strings.ToLower(strings.TrimSpace(u))
	u = strings.NewReplacer(" ", "", "°", "", "º", "", "deg", "", ".", "", "-", "", "³", "3", "·", "", "_", "").Replace(u)
	if strings.HasPrefix(u, "%(") && strings.HasSuffix(u, ")") { // "%(v/v)"
		u = "%" + u[2:len(u)-1]
	}
	return u
}

func normalizeQuantity(f Field, v, unit string) (string, error) {
	x, rest, ok := parseNumber(v)
	if !ok {
		return "", &ValueError{f.Label, v, "isn't a number", rangeText(f)}
	}
	if rest != "" {
		unit = rest // a unit written with the value is more specific than the column's
	}
	key := unitKey(unit)
	var conv unitConv
	known := false
	switch {
	case f.Kind == KindPercent && fractionUnits[key]:
		if x < 0 || x > 1 {
			return "", &ValueError{f.Label, v, "isn't a fraction", "a fraction lies between 0 and 1 (or give the value in %)"}
		}
		conv, known = scale(100), true
	case f.Kind == KindNumber:
		conv, known = numberUnits[f.Unit][key]
		if !known && key == unitKey(f.Unit) {
			known = true
		}
	default:
		conv, known = units[f.Kind][key]
	}
	if !known {
		if strings.HasSuffix(key, "g") && f.Kind == KindPressure { // barg, psig
			return "", &ValueError{f.Label, v, "is a gauge pressure", "give the absolute pressure in " + allowedUnits[f.Kind]}
		}
		if f.Kind == KindPPM && strings.HasPrefix(key, "mg/") {
			return "", &ValueError{f.Label, v, "is a mass concentration", "give ppm (ppm = mg/m³ × 24.45 / molecular weight at 25 °C)"}
		}
		allowed := allowedUnits[f.Kind]
		if allowed == "" {
			allowed = f.Unit
			if allowed == "" {
				allowed = "no unit"
			}
		}
		return "", &ValueError{f.Label, v, fmt.Sprintf("has a unit (%s) this field doesn't take", strings.TrimSpace(unit)), "use " + allowed}
	}
	switch {
	case f.Kind == KindTemperature:
		if conv != nil {
			x = conv(x)
		}
		x = roundDecimals(x, 1)
	case conv != nil:
		x = roundSignificant(conv(x), 4)
	default:
		x = roundSignificant(x, 10)
	}
	if (f.Min != nil && x < *f.Min) || (f.Max != nil && x > *f.Max) {
		return "", &ValueError{f.Label, v, "is out of range", rangeText(f)}
	}
	return formatNumber(x), nil
}

// rangeText describes the values a numeric field accepts.
func rangeText(f Field) string {
	u := ""
	if f.Unit != "" {
		u = " " + f.Unit
	}
	switch {
	case f.Min != nil && f.Max != nil:
		return fmt.Sprintf("write a number from %s to %s%s", formatNumber(*f.Min), formatNumber(*f.Max), u)
	case f.Min != nil:
		return fmt.Sprintf("write a number of at least %s%s", formatNumber(*f.Min), u)
	case f.Max != nil:
		return fmt.Sprintf("write a number of at most %s%s", formatNumber(*f.Max), u)
	}
	return "write a number" + u
}

var numberPattern = regexp.MustCompile(`^([+\-−‒–]?)\s*(\d[\d.,']*|[.,]\d+)(?:[eE]([+\-]?\d+))?\s*(.*)$`)

// parseNumber reads a number at the start of s and returns it with the rest of s (a unit, say).
// It accepts a decimal comma ("4,1"), thousands separators when both "." and "," appear (the
// last one is the decimal mark), "'" as a thousands separator, and the Unicode minus.
func parseNumber(s string) (float64, string, bool) {
	m := numberPattern.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, "", false
	}
	digits := strings.ReplaceAll(m[2], "'", "")
	lastDot, lastComma := strings.LastIndex(digits, "."), strings.LastIndex(digits, ",")
	switch {
	case lastDot >= 0 && lastComma >= 0:
		if lastComma > lastDot {
			digits = strings.ReplaceAll(digits, ".", "")
			digits = strings.Replace(digits, ",", ".", 1)
		} else {
			digits = strings.ReplaceAll(digits, ",", "")
		}
	case strings.Count(digits, ",") > 1: // 1,000,000
		digits = strings.ReplaceAll(digits, ",", "")
	case lastComma >= 0:
		digits = strings.Replace(digits, ",", ".", 1)
	}
	if strings.Count(digits, ".") > 1 {
		return 0, "", false
	}
	text := digits
	if m[3] != "" {
		text += "e" + m[3]
	}
	x, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
		return 0, "", false
	}
	if m[1] != "" && m[1] != "+" {
		x = -x
	}
	return x, strings.TrimSpace(m[4]), true
}

// roundSignificant rounds to n significant digits, which also removes binary noise such as
// 4.1000000000000005.
func roundSignificant(x float64, n int) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	r, err := strconv.ParseFloat(strconv.FormatFloat(x, 'g', n, 64), 64)
	if err != nil {
		return x
	}
	return r
}

// roundDecimals rounds half away from zero to d decimals, after removing binary noise, so that
// 161.0 K − 273.15 = −112.14999… becomes −112.2 as on paper.
func roundDecimals(x float64, d int) float64 {
	p := math.Pow(10, float64(d))
	return math.Round(roundSignificant(x, 12)*p) / p
}

// formatNumber writes a number without exponent or trailing zeros.
func formatNumber(x float64) string {
	if x == 0 {
		return "0" // also for −0
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}
