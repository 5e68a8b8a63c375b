package tablequery

import (
	"encoding/json"
	"testing"
	"time"

	"warren/config"
	"warren/llm"
)

// gasSchema is a small stand-in for the HMIS gas table.
var gasSchema = Schema{
	{Name: "name", Type: TypeString, Doc: "gas name", Examples: []string{"Argon", "Silane"}},
	{Name: "cas_number", Type: TypeString, Doc: "CAS registry number", Examples: []string{"7440-37-1"}},
	{Name: "formula", Type: TypeString, Doc: "chemical formula", Examples: []string{"SiH4"}},
	{Name: "hazard_class", Type: TypeString, Doc: "GHS hazard class", Examples: []string{"Flammable gas", "Inert gas"}},
	{Name: "flash_point_c", Type: TypeNumber, Unit: "°C", Doc: "flash point", Examples: []string{"-50"}},
	{Name: "health", Type: TypeInt, Doc: "HMIS health rating 0-4", Examples: []string{"0", "3"}},
	{Name: "flammability", Type: TypeInt, Doc: "HMIS flammability rating 0-4", Examples: []string{"4"}},
	{Name: "toxic", Type: TypeBool, Doc: "acutely toxic"},
	{Name: "pyrophoric", Type: TypeBool, Doc: "ignites in air"},
}

// gasRows has blanks in every kind of field.
var gasRows = []map[string]any{
	{"name": "Argon", "cas_number": "7440-37-1", "formula": "Ar", "hazard_class": "Inert gas",
		"flash_point_c": nil, "health": 1, "flammability": 0, "toxic": false, "pyrophoric": false},
	{"name": "Silane", "cas_number": "7803-62-5", "formula": "SiH4", "hazard_class": "Flammable gas, pyrophoric",
		"flash_point_c": -50.0, "health": 2, "flammability": 4, "toxic": false, "pyrophoric": true},
	{"name": "Hydrogen", "cas_number": "1333-74-0", "formula": "H2", "hazard_class": "Flammable gas",
		"health": 0, "flammability": 4, "toxic": false, "pyrophoric": false},
	{"name": "Process mix B", "cas_number": nil, "hazard_class": "Flammable gas",
		"flash_point_c": -20.0, "health": 2, "flammability": 4, "toxic": nil},
	{"name": "Arsine", "cas_number": "", "formula": "AsH3", "hazard_class": "Toxic gas",
		"flash_point_c": nil, "health": 4, "flammability": nil, "toxic": true, "pyrophoric": false},
}

func newGateway(t testing.TB, host string) *llm.Gateway {
	t.Helper()
	c := config.Default()
	c.Ollama.Host = host
	c.Ollama.BackoffBase = time.Millisecond
	c.Ollama.BackoffMax = 5 * time.Millisecond
	c.Ollama.Timeout = 10 * time.Second
	g, err := llm.New(c)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// reply is the model's structured answer carrying an expression.
func reply(expression string) string {
	b, _ := json.Marshal(map[string]string{"expression": expression, "explanation": "rows the analyst asked for"})
	return string(b)
}

// match runs an expression over gasRows, failing the test when it does not compile.
func match(t *testing.T, expression string) []int {
	t.Helper()
	p, err := Compile(gasSchema, expression)
	if err != nil {
		t.Fatalf("Compile(%q): %v", expression, err)
	}
	got, err := Run(p, gasRows)
	if err != nil {
		t.Fatalf("Run(%q): %v", expression, err)
	}
	return got
}
