package loadtest

import "testing"

func TestCharErrorRate(t *testing.T) {
	for _, tc := range []struct {
		got, want string
		rate      float64
	}{
		{"Größe", "Größe", 0}, {"GroBe", "Größe", 0.4}, {"", "abcd", 1}, {"abxd", "abcd", 0.25},
	} {
		if r := CharErrorRate(tc.got, tc.want); r != tc.rate {
			t.Errorf("CharErrorRate(%q, %q) = %v, want %v", tc.got, tc.want, r, tc.rate)
		}
	}
}
