package tablequery

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func queryError(t *testing.T, expression string) *QueryError {
	t.Helper()
	_, err := Compile(gasSchema, expression)
	if err == nil {
		t.Fatalf("Compile(%q) accepted an invalid expression", expression)
	}
	var qe *QueryError
	if !errors.As(err, &qe) {
		t.Fatalf("Compile(%q) = %T %v, want a *QueryError", expression, err, err)
	}
	return qe
}

func TestCompileAcceptsTheSyntaxSheet(t *testing.T) {
	for _, e := range []string{
		`hazard_class contains "Flammable" and empty(cas_number)`,
		`has(flash_point_c) and flash_point_c < 0`,
		`health >= 3 or toxic`,
		`not pyrophoric`,
		`name in ["Argon", "Hydrogen"]`,
		`health in [0, 1]`,
		`lower(name) startsWith "ar" || formula endsWith "H4"`,
		`any_text contains "silane"`,
		`cas_number == nil`,
		`toxic == true && !(flammability > 2)`,
		"```expr\nhealth > 1\n```",
		"`health > 1`",
		`name == "SELECT LIKE WHERE"`, // SQL words inside text are text
		`health != 2 and health <= 3 and health >= 0`,
	} {
		if _, err := Compile(gasSchema, e); err != nil {
			t.Errorf("Compile(%q): %v", e, err)
		}
	}
}

// Type errors are found by Compile alone: no row is read before they are reported.
func TestCompileCatchesTypeErrorsBeforeRunning(t *testing.T) {
	for _, tc := range []struct{ expr, mention string }{
		{`flash_point_c < "0"`, "flash_point_c (number, °C)"},
		{`cas_number > 3`, "cas_number (text)"},
		{`toxic == "yes"`, "toxic (true/false)"},
		{`health == "4"`, "health (whole number)"},
		{`flash_point_c`, "true or false"},
		{`name`, "true or false"},
		{`health + 1`, "true or false"},
	} {
		qe := queryError(t, tc.expr)
		if qe.Kind != TypeMismatch {
			t.Errorf("%q: kind %q, want %q (%s)", tc.expr, qe.Kind, TypeMismatch, qe.Message)
		}
		if !strings.Contains(qe.Message, tc.mention) {
			t.Errorf("%q: message does not mention %q:\n%s", tc.expr, tc.mention, qe.Message)
		}
	}
}

func TestCompileRejectsSQL(t *testing.T) {
	for _, tc := range []struct{ expr, fix string }{
		{`SELECT * FROM gases WHERE health > 2`, "no SELECT"},
		{`WHERE health > 2`, "no WHERE"},
		{`health = 4`, "=="},
		{`name LIKE '%silane%'`, "contains"},
		{`cas_number IS NULL`, "empty(x)"},
		{`cas_number IS NOT NULL`, "has(x)"},
		{`cas_number == NULL`, "empty(x)"},
		{`health > 2 AND toxic`, "lower case"},
		{`health BETWEEN 2 AND 4`, "x >= a and x <= b"},
		{`name IN ('Argon', 'Neon')`, "square brackets"},
		{`health <> 2`, "!="},
	} {
		qe := queryError(t, tc.expr)
		if qe.Kind != SQL {
			t.Errorf("%q: kind %q, want sql (%s)", tc.expr, qe.Kind, qe.Message)
		}
		if !strings.Contains(qe.Message, tc.fix) {
			t.Errorf("%q: message does not give the fix %q: %s", tc.expr, tc.fix, qe.Message)
		}
	}
}

func TestCompileSuggestsFieldNames(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want []string // every one in Suggestions
	}{
		{`empty(cas)`, []string{"cas_number"}},
		{`flashpoint_c < 0`, []string{"flash_point_c"}},
		{`Health > 2`, []string{"health"}},
		{`flammable and hazard < 3`, []string{"flammability", "hazard_class"}},
	} {
		qe := queryError(t, tc.expr)
		if qe.Kind != UnknownField {
			t.Errorf("%q: kind %q, want unknown field (%s)", tc.expr, qe.Kind, qe.Message)
			continue
		}
		for _, w := range tc.want {
			if !slices.Contains(qe.Suggestions, w) {
				t.Errorf("%q: suggestions %v lack %q", tc.expr, qe.Suggestions, w)
			}
			if !strings.Contains(qe.Message, w) {
				t.Errorf("%q: message lacks %q: %s", tc.expr, w, qe.Message)
			}
		}
	}
	// Every unknown name is reported at once, not only the first.
	qe := queryError(t, `flammable and hazard < 3`)
	if !strings.Contains(qe.Message, `"flammable"`) || !strings.Contains(qe.Message, `"hazard"`) {
		t.Errorf("both unknown names should be reported: %s", qe.Message)
	}
}

func TestCompileSyntaxAndOtherErrors(t *testing.T) {
	for _, tc := range []struct {
		expr string
		kind ErrorKind
	}{
		{``, Syntax},
		{"  ``` ```  ", Syntax},
		{`health > `, Syntax},
		{`(health > 2`, Syntax},
		{`name == "Argon`, Syntax},
		{`isnull(cas_number)`, Other},
	} {
		if qe := queryError(t, tc.expr); qe.Kind != tc.kind {
			t.Errorf("%q: kind %q, want %q (%s)", tc.expr, qe.Kind, tc.kind, qe.Message)
		}
	}
	if qe := queryError(t, `isnull(cas_number)`); !strings.Contains(qe.Message, "empty(x)") {
		t.Errorf("an unknown function should point at empty()/has(): %s", qe.Message)
	}
}

func TestCompileRejectsUnusableSchemas(t *testing.T) {
	for _, s := range []Schema{
		nil,
		{{Name: "flash point", Type: TypeNumber}},
		{{Name: "1st", Type: TypeString}},
		{{Name: "and", Type: TypeBool}},
		{{Name: AnyText, Type: TypeString}},
		{{Name: "x", Type: "float"}},
		{{Name: "x", Type: TypeInt}, {Name: "x", Type: TypeInt}},
	} {
		_, err := Compile(s, "true")
		var qe *QueryError
		if err == nil || errors.As(err, &qe) {
			t.Errorf("schema %v: got %v, want a plain schema error", s, err)
		}
	}
}

func TestSuggest(t *testing.T) {
	names := []string{"cas_number", "flash_point_c", "health", "flammability", "hazard_class", "name"}
	for in, want := range map[string]string{
		"cas":          "cas_number",
		"CAS_Number":   "cas_number",
		"helth":        "health",
		"flammable":    "flammability",
		"flash_point":  "flash_point_c",
		"hazard_class": "hazard_class",
	} {
		if got := suggest(in, names); len(got) == 0 || got[0] != want {
			t.Errorf("suggest(%q) = %v, want %q first", in, got, want)
		}
	}
	if got := suggest("zzz", names); len(got) != 0 {
		t.Errorf("suggest(zzz) = %v, want none", got)
	}
}
