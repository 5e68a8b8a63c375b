package delimiter

import "testing"

func TestSniff(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want rune
	}{
		{"Gas,CAS,TLV\nSilane,7803-62-5,5\n", ','},
		{"Gas;CAS;TLV\nSilane;7803-62-5;\"5,0\"\n", ';'},
		{"Gas\tCAS\tTLV\n", '\t'},
		{"\"a;b;c\",d\n", ','},          // separators inside quotes don't count
		{"\n\nGas;CAS\nx,y,z,w\n", ';'}, // the first non-empty line decides
		{"one column only\n", ','},      // none: a comma
		{"", ','},
		{"a,b,c\n1;2", ','},
		{"a;b;c\n1,2,3,4,5", ';'},
		{"name;\"mw, g/mol\";cas", ';'},
	} {
		if got := Sniff([]byte(tc.in)); got != tc.want {
			t.Errorf("Sniff(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
