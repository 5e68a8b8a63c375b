package citation

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestNumbers(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []int
	}{
		{"one", "Silane ignites [3].", []int{3}},
		{"list", "Claim [1, 3].", []int{1, 3}},
		{"list without spaces", "[1,3,5]", []int{1, 3, 5}},
		{"en dash range", "Other claim [2–4].", []int{2, 3, 4}},
		{"hyphen range", "Ranges work [2-3].", []int{2, 3}},
		{"spaced range", "[2 – 4]", []int{2, 3, 4}},
		{"list with a range", "[1, 4–6, 9]", []int{1, 4, 5, 6, 9}},
		{"several citations in order, repeats kept", "a [2] b [1, 2] c [7]", []int{2, 1, 2, 7}},
		{"a list may break a line", "[1,\n2]", []int{1, 2}},
		{"backwards range keeps its first number", "[5–3]", []int{5}},
		{"range of 50 numbers is expanded", "[1–50]", seq(1, 50)},
		{"wider range keeps its first number", "[1–51]", []int{1}},
		{"a second dash makes the end unreadable", "[1-2-3]", []int{1}},
		{"zero is read, not judged", "[0]", []int{0}},
		{"leading zeros", "[07]", []int{7}},
		{"a number too large is passed over", "[1, 99999999999999999999]", []int{1}},
		{"no citation", "plain text", nil},
		{"words in brackets", "[Name] and [a1]", nil},
		{"space inside the bracket", "[ 1]", nil},
		{"trailing comma", "[1,]", nil},
		{"negative", "[-1]", nil},
		{"markdown link text is no citation", "[see 2](x)", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Numbers(tt.text); !slices.Equal(got, tt.want) {
				t.Errorf("Numbers(%q) = %v, want %v", tt.text, got, tt.want)
			}
		})
	}
}

func TestContains(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"A claim with its source [1].", true},
		{"A claim with a range [2–4].", true},
		{"[0] is a citation, even if it names no source", true},
		{"an unreadable number still counts [99999999999999999999]", true},
		{"A claim without any source at all.", false},
		{"# [Heading]", false},
		{"[1,]", false},
	}
	for _, tt := range tests {
		if got := Contains(tt.text); got != tt.want {
			t.Errorf("Contains(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

func TestRewrite(t *testing.T) {
	// keep rewrites each citation to the numbers 1..3, as the research graph's attribution does.
	keep := func(numbers []int) string {
		var kept []string
		for _, n := range numbers {
			if n >= 1 && n <= 3 {
				kept = append(kept, strconv.Itoa(n))
			}
		}
		if len(kept) == 0 {
			return ""
		}
		return "[" + strings.Join(kept, ", ") + "]"
	}
	tests := []struct {
		text, want string
	}{
		{"Silane ignites in air [1, 7].", "Silane ignites in air [1]."},
		{"Ranges work [2-3].", "Ranges work [2, 3]."},
		{"Wide [2–9].", "Wide [2, 3]."},
		{"Gone [7] here.", "Gone  here."},
		{"Two [1] and [3].", "Two [1] and [3]."},
		{"[Name] stays, as does text.", "[Name] stays, as does text."},
		{"Unreadable [99999999999999999999].", "Unreadable ."},
	}
	for _, tt := range tests {
		if got := Rewrite(tt.text, keep); got != tt.want {
			t.Errorf("Rewrite(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func seq(a, b int) []int {
	var out []int
	for n := a; n <= b; n++ {
		out = append(out, n)
	}
	return out
}

func TestLocateFindsEachBracket(t *testing.T) {
	text := "Silan ist pyrophor [1]; siehe [2, 5] und [4–6], nicht [x]."
	got := Locate(text)
	var cited []string
	for _, at := range got {
		cited = append(cited, text[at[0]:at[1]])
	}
	if want := []string{"[1]", "[2, 5]", "[4–6]"}; !slices.Equal(cited, want) {
		t.Errorf("Locate found %q, want %q", cited, want)
	}
}
