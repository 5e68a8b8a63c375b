// Package gas is warren's model of a hazardous-gas (HMIS) table: the 47-field schema, value
// validation, cells that carry their provenance, the rule that merges proposed values into
// cells, xlsx and CSV import and export, and the SQLite store with an append-only decision log.
package gas

import (
	"sort"
	"strings"
	"unicode"
)

// Kind says how a field's values are written and checked; see Normalize.
type Kind string

// The kinds of field. Quantities are stored in one canonical unit each.
const (
	KindString      Kind = "string"
	KindCAS         Kind = "cas"         // CAS registry number with a valid check digit
	KindUN          Kind = "un"          // "UN1234"
	KindNumber      Kind = "number"      // a plain number in the field's unit
	KindTemperature Kind = "temperature" // °C
	KindPressure    Kind = "pressure"    // bar
	KindPercent     Kind = "percent"     // vol %
	KindPPM         Kind = "ppm"         // ppm (by volume)
	KindRating      Kind = "rating"      // integer 0–4
	KindBool        Kind = "bool"        // "yes" or "no"
	KindEnum        Kind = "enum"        // one of Field.Enum
	KindList        Kind = "list"        // items joined by "; "
)

// The groups fields belong to, in the order a sheet usually shows them.
const (
	GroupIdentification = "identification"
	GroupPhysical       = "physical"
	GroupSafety         = "safety"
	GroupGHS            = "ghs"
	GroupTransport      = "transport"
	GroupRegulatory     = "regulatory"
)

// Field describes one column of the gas table.
type Field struct {
	Name    string   // stable identifier, used in the store (screens and the Provenance sheet use the label)
	Label   string   // the header warren writes
	Group   string   // one of the Group constants
	Kind    Kind     // how values are checked and written
	Unit    string   // canonical unit of the stored value ("" for unitless kinds)
	Min     *float64 // smallest allowed value of a numeric kind, nil when unbounded
	Max     *float64 // largest allowed value of a numeric kind, nil when unbounded
	Enum    []string // allowed values of an enum kind, in their canonical spelling
	Aliases []string // other headers that mean this field
	Doc     string   // what the value means
}

func ptr(v float64) *float64 { return &v }

// absoluteZero is the lower bound of every temperature.
const absoluteZero = -273.15

// Fields returns the schema in column order. The slice is a copy; changing it changes nothing.
func Fields() []Field {
	out := make([]Field, len(fields))
	copy(out, fields)
	return out
}

// FieldByName returns the field with the given name.
func FieldByName(name string) (Field, bool) {
	i, ok := fieldIndex[name]
	if !ok {
		return Field{}, false
	}
	return fields[i], true
}

// FieldNames returns the field names in schema order.
func FieldNames() []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = f.Name
	}
	return out
}

func temp(name, label, group, doc string, aliases ...string) Field {
	return Field{Name: name, Label: label, Group: group, Kind: KindTemperature, Unit: "°C",
		Min: ptr(absoluteZero), Max: ptr(3000), Aliases: aliases, Doc: doc}
}

func rating(name, label, doc string, aliases ...string) Field {
	return Field{Name: name, Label: label, Group: GroupSafety, Kind: KindRating,
		Min: ptr(0), Max: ptr(4), Aliases: aliases, Doc: doc}
}

func ppmField(name, label, doc string, aliases ...string) Field {
	return Field{Name: name, Label: label, Group: GroupSafety, Kind: KindPPM, Unit: "ppm",
		Min: ptr(0), Aliases: aliases, Doc: doc}
}

func ghs(name, code, label, doc string, aliases ...string) Field {
	return Field{Name: name, Label: code + " " + label, Group: GroupGHS, Kind: KindBool,
		Aliases: append([]string{code, label + " (" + code + ")"}, aliases...), Doc: doc}
}

var fields = []Field{
	{Name: "chemical_name", Label: "Chemical Name", Group: GroupIdentification, Kind: KindString,
		Aliases: []string{"Chemical", "Name", "Gas", "Gas Name", "Substance", "Substance Name", "Product", "Product Name", "Process Gas", "Stoffname", "Chemikalie", "Bezeichnung"},
		Doc:     "Name of the gas as the site uses it; the key of the row."},
	{Name: "cas_number", Label: "CAS No.", Group: GroupIdentification, Kind: KindCAS,
		Aliases: []string{"CAS", "CAS Number", "CAS-Nr.", "CAS Nr", "CAS#", "CAS RN", "CAS Registry Number"},
		Doc:     "Chemical Abstracts Service registry number, checked against its check digit."},
	{Name: "formula", Label: "Formula", Group: GroupIdentification, Kind: KindString,
		Aliases: []string{"Chemical Formula", "Molecular Formula", "Summenformel", "Formel"},
		Doc:     "Molecular formula, e.g. SiH4."},
	{Name: "subsystem_formula", Label: "Subsystem / Filter Formula", Group: GroupIdentification, Kind: KindString,
		Aliases: []string{"Subsystem Formula", "Filter Formula", "Subsystem/Filter Formula", "Subsystem"},
		Doc:     "The formula as the gas-delivery subsystem or a filter of the table writes it (e.g. with isotopes or dilution)."},
	{Name: "un_number", Label: "UN No.", Group: GroupTransport, Kind: KindUN,
		Aliases: []string{"UN", "UN Number", "UN-Nr.", "UN Nr", "UN ID", "UN/NA Number"},
		Doc:     "Four-digit UN number of the dangerous good, written UN1234."},
	{Name: "synonyms", Label: "Synonyms", Group: GroupIdentification, Kind: KindList,
		Aliases: []string{"Synonym", "Other Names", "Also Known As", "Synonyme", "Trade Names"},
		Doc:     "Other names of the gas, separated by semicolons."},
	{Name: "molecular_weight", Label: "Molecular Weight (g/mol)", Group: GroupPhysical, Kind: KindNumber, Unit: "g/mol",
		Min: ptr(1), Max: ptr(1000),
		Aliases: []string{"MW", "Mol. Weight", "Molar Mass", "Molecular Mass", "Molmasse", "Molare Masse", "Molekulargewicht"},
		Doc:     "Molar mass in g/mol."},
	temp("boiling_point_c", "Boiling Point (°C)", GroupPhysical,
		"Normal boiling point at 1.013 bar (sublimation point for gases that sublime).",
		"Boiling Point", "BP", "Boiling point [C]", "Normal Boiling Point", "Siedepunkt", "Siedetemperatur", "Sdp"),
	temp("melting_point_c", "Melting Point (°C)", GroupPhysical,
		"Melting (freezing) point.",
		"Melting Point", "MP", "Freezing Point", "Schmelzpunkt", "Smp"),
	{Name: "vapour_pressure_bar", Label: "Vapour Pressure @ 20 °C (bar)", Group: GroupPhysical, Kind: KindPressure, Unit: "bar",
		Min: ptr(0), Max: ptr(1000),
		Aliases: []string{"Vapour Pressure", "Vapor Pressure", "VP", "Vapor Pressure @ 20 °C", "Vapour Pressure at 20 °C", "Dampfdruck"},
		Doc:     "Vapour pressure at 20 °C (absolute), in bar."},
	{Name: "density_kg_m3", Label: "Density (kg/m³)", Group: GroupPhysical, Kind: KindNumber, Unit: "kg/m³",
		Min: ptr(0), Max: ptr(25000),
		Aliases: []string{"Density", "Gas Density", "Dichte"},
		Doc:     "Density in kg/m³ (of the gas at 15 °C and 1.013 bar, or of the liquid for liquids)."},
	{Name: "specific_gravity", Label: "Specific Gravity (Air = 1)", Group: GroupPhysical, Kind: KindNumber,
		Min: ptr(0), Max: ptr(20),
		Aliases: []string{"Specific Gravity", "SG", "Relative Density", "Relative Density (air = 1)", "Density (air = 1)", "Vapour Density", "Vapor Density", "Vapour Density (air = 1)", "Relative Gas Density", "Relative Dichte"},
		Doc:     "Density relative to air (air = 1); above 1 the gas collects at the floor."},
	temp("critical_temperature_c", "Critical Temperature (°C)", GroupPhysical,
		"Temperature above which the gas cannot be liquefied by pressure.",
		"Critical Temperature", "Tc", "Crit. Temp.", "Kritische Temperatur"),
	{Name: "critical_pressure_bar", Label: "Critical Pressure (bar)", Group: GroupPhysical, Kind: KindPressure, Unit: "bar",
		Min: ptr(0), Max: ptr(1000),
		Aliases: []string{"Critical Pressure", "Pc", "Crit. Pressure", "Kritischer Druck"},
		Doc:     "Vapour pressure at the critical temperature, in bar."},
	{Name: "physical_state", Label: "Physical State", Group: GroupPhysical, Kind: KindEnum,
		Enum:    []string{"gas", "liquid", "solid"},
		Aliases: []string{"State", "Phase", "Physical Form", "Aggregatzustand", "State at 20 °C"},
		Doc:     "State at 20 °C and 1.013 bar."},
	{Name: "odour", Label: "Odour", Group: GroupPhysical, Kind: KindString,
		Aliases: []string{"Odor", "Smell", "Geruch"},
		Doc:     "What the gas smells like, or \"odourless\"."},
	{Name: "water_solubility", Label: "Water Solubility", Group: GroupPhysical, Kind: KindString,
		Aliases: []string{"Solubility in Water", "Solubility", "Wasserlöslichkeit", "Löslichkeit in Wasser"},
		Doc:     "Solubility in water as the source states it (e.g. \"1.7 g/L at 20 °C\", \"reacts\")."},
	rating("hmis_health", "HMIS Health", "HMIS health hazard rating, 0 (minimal) to 4 (severe).",
		"HMIS H", "Health (HMIS)", "HMIS Gesundheit"),
	rating("hmis_flammability", "HMIS Flammability", "HMIS flammability rating, 0 (will not burn) to 4 (severe).",
		"HMIS F", "Flammability (HMIS)", "HMIS Fire"),
	rating("hmis_physical_hazard", "HMIS Physical Hazard", "HMIS physical hazard rating (HMIS III; reactivity in older editions), 0 to 4.",
		"HMIS PH", "HMIS Physical", "Physical Hazard (HMIS)", "HMIS Reactivity", "HMIS R"),
	rating("nfpa_health", "NFPA Health", "NFPA 704 health rating (blue diamond), 0 to 4.",
		"NFPA H", "Health (NFPA)", "NFPA 704 Health"),
	rating("nfpa_flammability", "NFPA Flammability", "NFPA 704 flammability rating (red diamond), 0 to 4.",
		"NFPA F", "Flammability (NFPA)", "NFPA Fire", "NFPA 704 Flammability"),
	rating("nfpa_instability", "NFPA Instability", "NFPA 704 instability rating (yellow diamond; reactivity before 2007), 0 to 4.",
		"NFPA I", "NFPA Reactivity", "NFPA R", "Instability (NFPA)", "NFPA 704 Instability"),
	{Name: "nfpa_special", Label: "NFPA Special", Group: GroupSafety, Kind: KindEnum,
		Enum:    []string{"W", "OX", "SA", ""},
		Aliases: []string{"NFPA Special Hazard", "NFPA Special Hazards", "NFPA S", "Special Hazard", "Special (NFPA)", "NFPA 704 Special"},
		Doc:     "NFPA 704 special hazard (white diamond): W reacts with water, OX oxidiser, SA simple asphyxiant, empty for none."},
	temp("flash_point_c", "Flash Point (°C)", GroupSafety,
		"Lowest temperature at which the liquid gives off enough vapour to ignite; \"n/a\" for gases.",
		"Flash Point", "FP", "Flammpunkt"),
	temp("autoignition_c", "Autoignition Temperature (°C)", GroupSafety,
		"Lowest temperature at which the substance ignites in air without a spark or flame.",
		"Autoignition Temperature", "Auto-ignition Temperature", "Autoignition", "AIT", "Ignition Temperature", "Zündtemperatur", "Selbstentzündungstemperatur"),
	{Name: "lel_vol_pct", Label: "LEL (vol %)", Group: GroupSafety, Kind: KindPercent, Unit: "vol %",
		Min: ptr(0), Max: ptr(100),
		Aliases: []string{"LEL", "LEL (%)", "LFL", "Lower Explosive Limit", "Lower Explosion Limit", "Lower Flammability Limit", "Lower Flammable Limit", "UEG", "Untere Explosionsgrenze"},
		Doc:     "Lower explosive (flammable) limit in air, in percent by volume."},
	{Name: "uel_vol_pct", Label: "UEL (vol %)", Group: GroupSafety, Kind: KindPercent, Unit: "vol %",
		Min: ptr(0), Max: ptr(100),
		Aliases: []string{"UEL", "UEL (%)", "UFL", "Upper Explosive Limit", "Upper Explosion Limit", "Upper Flammability Limit", "Upper Flammable Limit", "OEG", "Obere Explosionsgrenze"},
		Doc:     "Upper explosive (flammable) limit in air, in percent by volume."},
	ppmField("idlh_ppm", "IDLH (ppm)", "Concentration immediately dangerous to life or health (NIOSH), in ppm.",
		"IDLH"),
	ppmField("tlv_twa_ppm", "TLV-TWA (ppm)", "8-hour time-weighted average exposure limit (ACGIH TLV or the site's OEL), in ppm.",
		"TLV", "TWA", "TWA (ppm)", "TLV (ppm)", "TLV TWA", "OEL", "OEL TWA", "PEL", "AGW", "MAK"),
	ppmField("stel_ppm", "STEL (ppm)", "15-minute short-term exposure limit, in ppm.",
		"STEL", "TLV-STEL", "Short-Term Exposure Limit", "Kurzzeitwert"),
	ppmField("odour_threshold_ppm", "Odour Threshold (ppm)", "Concentration at which most people notice the smell, in ppm.",
		"Odour Threshold", "Odor Threshold", "Odor Threshold (ppm)", "Geruchsschwelle"),
	{Name: "pyrophoric", Label: "Pyrophoric", Group: GroupSafety, Kind: KindBool,
		Aliases: []string{"Pyrophoric (Y/N)", "Pyrophor", "Selbstentzündlich", "Ignites in Air"},
		Doc:     "Whether the gas ignites spontaneously in air below 54 °C."},
	ghs("ghs01_explosive", "GHS01", "Explosive", "GHS01 pictogram (exploding bomb) applies.", "Exploding Bomb"),
	ghs("ghs02_flammable", "GHS02", "Flammable", "GHS02 pictogram (flame) applies.", "Flame"),
	ghs("ghs03_oxidising", "GHS03", "Oxidising", "GHS03 pictogram (flame over circle) applies.", "Oxidizing", "GHS03 Oxidizing", "Flame over Circle"),
	ghs("ghs04_gas_under_pressure", "GHS04", "Gas under Pressure", "GHS04 pictogram (gas cylinder) applies.", "Gas Cylinder", "Compressed Gas"),
	ghs("ghs05_corrosive", "GHS05", "Corrosive", "GHS05 pictogram (corrosion) applies.", "Corrosion"),
	ghs("ghs06_toxic", "GHS06", "Toxic", "GHS06 pictogram (skull and crossbones) applies.", "Skull and Crossbones", "Acute Toxicity"),
	ghs("ghs07_harmful", "GHS07", "Harmful", "GHS07 pictogram (exclamation mark) applies.", "Exclamation Mark", "Irritant"),
	ghs("ghs08_health_hazard", "GHS08", "Health Hazard", "GHS08 pictogram (health hazard) applies.", "Serious Health Hazard"),
	ghs("ghs09_environment", "GHS09", "Environment", "GHS09 pictogram (environment) applies.", "Environmental Hazard", "Hazardous to the Environment"),
	{Name: "signal_word", Label: "Signal Word", Group: GroupGHS, Kind: KindEnum,
		Enum:    []string{"Danger", "Warning"},
		Aliases: []string{"GHS Signal Word", "Signalwort"},
		Doc:     "GHS signal word."},
	{Name: "h_statements", Label: "H-Statements", Group: GroupGHS, Kind: KindList,
		Aliases: []string{"H Statements", "Hazard Statements", "H-Phrases", "H-Codes", "H-Sätze", "Gefahrenhinweise"},
		Doc:     "GHS hazard statement codes (H220, EUH071, combined H300+H330), separated by semicolons."},
	{Name: "hazard_class", Label: "Hazard Class", Group: GroupGHS, Kind: KindString,
		Aliases: []string{"GHS Classification", "Classification", "GHS Hazard Class", "CLP Classification", "Einstufung"},
		Doc:     "GHS/CLP hazard classes and categories, e.g. \"Flam. Gas 1; Press. Gas\"."},
	{Name: "transport_class", Label: "Transport Class", Group: GroupTransport, Kind: KindString,
		Aliases: []string{"DOT Class", "ADR Class", "DOT Hazard Class", "ADR/DOT Class", "UN Class", "Transport Hazard Class", "Klasse ADR"},
		Doc:     "ADR/DOT hazard class with subsidiary risks, e.g. \"2.3 (5.1, 8)\"."},
	{Name: "seveso_category", Label: "Seveso Category", Group: GroupRegulatory, Kind: KindString,
		Aliases: []string{"Seveso", "Seveso III", "Seveso III Category", "Seveso Kategorie", "Störfallverordnung"},
		Doc:     "Seveso III (Directive 2012/18/EU) category or named substance entry, e.g. \"P2; H2\"."},
}

var fieldIndex = map[string]int{}

func init() {
	for i, f := range fields {
		if _, dup := fieldIndex[f.Name]; dup {
			panic("gas: field " + f.Name + " declared twice")
		}
		fieldIndex[f.Name] = i
	}
	buildHeaderIndex()
}

// Header matching. A header is normalised (case, accents, umlauts, punctuation, spacing) and
// looked up under several keys: as written, without its bracketed part (usually a unit), without
// a trailing unit word, and as a sorted set of words ("Health (HMIS)" = "HMIS Health"). Keys
// with the bracketed part kept are tried first so that "Density (air = 1)" finds the specific
// gravity, not the density.

var (
	headerExact  = map[string]int{} // squashed key → field index
	headerSorted = map[string]int{} // sorted words → field index
)

func buildHeaderIndex() {
	add := func(i int, s string) {
		for _, v := range headerVariants(s) {
			if _, ok := headerExact[v.squashed]; !ok {
				headerExact[v.squashed] = i
			}
			if _, ok := headerSorted[v.sorted]; !ok {
				headerSorted[v.sorted] = i
			}
		}
	}
	// Names, labels and aliases in that order, so that a label never loses to another field's alias.
	for i, f := range fields {
		add(i, strings.ReplaceAll(f.Name, "_", " "))
	}
	for i, f := range fields {
		add(i, f.Label)
	}
	for i, f := range fields {
		for _, a := range f.Aliases {
			add(i, a)
		}
	}
}

type headerKey struct{ squashed, sorted string }

// headerVariants returns the lookup keys of a header, most specific first.
func headerVariants(h string) []headerKey {
	kept := headerWords(h, false)
	stripped := headerWords(h, true)
	cands := [][]string{kept, stripped, trimUnitWord(kept), trimUnitWord(stripped)}
	var out []headerKey
	seen := map[string]bool{}
	for _, ws := range cands {
		if len(ws) == 0 {
			continue
		}
		for _, w := range [][]string{ws, foldDigraphs(ws)} {
			k := headerKey{squashed: strings.Join(w, "")}
			s := append([]string(nil), w...)
			sort.Strings(s)
			k.sorted = strings.Join(s, " ")
			if !seen[k.squashed+"|"+k.sorted] {
				seen[k.squashed+"|"+k.sorted] = true
				out = append(out, k)
			}
		}
	}
	return out
}

// MatchHeader finds the field a spreadsheet header stands for, ignoring case, punctuation,
// accents, units in brackets and the order of words.
func MatchHeader(header string) (Field, bool) {
	vs := headerVariants(header)
	for _, v := range vs {
		if i, ok := headerExact[v.squashed]; ok {
			return fields[i], true
		}
	}
	for _, v := range vs {
		if i, ok := headerSorted[v.sorted]; ok {
			return fields[i], true
		}
	}
	return Field{}, false
}

// letterFold spells German umlauts out and drops the accents of other Latin letters; headers
// are short, so a table beats pulling in a Unicode normaliser.
var letterFold = strings.NewReplacer(
	"ä", "ae", "ö", "oe", "ü", "ue", "Ä", "ae", "Ö", "oe", "Ü", "ue", "ß", "ss",
	"á", "a", "à", "a", "â", "a", "å", "a", "ã", "a", "Á", "a", "À", "a", "Â", "a", "Å", "a",
	"é", "e", "è", "e", "ê", "e", "ë", "e", "É", "e", "È", "e", "Ê", "e",
	"í", "i", "ì", "i", "î", "i", "ï", "i", "ó", "o", "ò", "o", "ô", "o", "õ", "o", "ø", "o",
	"ú", "u", "ù", "u", "û", "u", "ç", "c", "ñ", "n", "Ç", "c", "Ñ", "n",
	"³", "3", "²", "2", "µ", "u", "μ", "u")

// headerWords lower-cases a header, spells umlauts out, drops other accents and splits it into
// words of letters and digits. With stripBrackets the text inside (), [] and {} is dropped.
func headerWords(h string, stripBrackets bool) []string {
	h = letterFold.Replace(h)
	var b strings.Builder
	depth := 0
	for _, r := range h {
		switch {
		case r == '(' || r == '[' || r == '{':
			depth++
			b.WriteRune(' ')
		case r == ')' || r == ']' || r == '}':
			if depth > 0 {
				depth--
			}
			b.WriteRune(' ')
		case stripBrackets && depth > 0:
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(' ')
		}
	}
	return strings.Fields(b.String())
}

// unitWords are words that, at the end of a header, only say the unit.
var unitWords = map[string]bool{"c": true, "degc": true, "k": true, "f": true, "bar": true, "bara": true, "kpa": true,
	"mpa": true, "pa": true, "psi": true, "atm": true, "ppm": true, "vol": true, "pct": true, "percent": true,
	"g": true, "mol": true, "kg": true, "m3": true, "l": true, "yn": true}

func trimUnitWord(ws []string) []string {
	n := len(ws)
	for n > 1 && unitWords[ws[n-1]] {
		n--
	}
	if n == len(ws) {
		return nil
	}
	return ws[:n]
}

// foldDigraphs maps "ae", "oe", "ue" to their base letter, so that "Zuendtemperatur",
// "Zündtemperatur" and "Zundtemperatur" meet.
func foldDigraphs(ws []string) []string {
	r := strings.NewReplacer("ae", "a", "oe", "o", "ue", "u")
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = r.Replace(w)
	}
	return out
}
