package cli

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestRules: a broken rule is a usage error naming the flag or argument, the value and what is
// allowed; a flag left at its default is never checked.
func TestRules(t *testing.T) {
	var k int
	var weight float64
	var mode, tiers string
	newCmd := func() *cobra.Command {
		cmd := Checked(&cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { return nil }},
			AtLeast("k", &k, 1), Above("weight", &weight, 0), OneOf("mode", &mode, "a", "b", "c"),
			CollectionList("tiers", &tiers), Text(0, "QUERY", "words"), Extension(1, "FILE", ".json", ".csv"))
		cmd.Flags().IntVarP(&k, "k", "k", 0, "")
		cmd.Flags().Float64Var(&weight, "weight", 0, "")
		cmd.Flags().StringVar(&mode, "mode", "", "")
		cmd.Flags().StringVar(&tiers, "tiers", "", "")
		cmd.SilenceErrors, cmd.SilenceUsage = true, true
		return cmd
	}
	for _, c := range []struct {
		args []string
		want string // "" for no error
	}{
		{[]string{"q"}, ""},
		{[]string{"q", "f.JSON", "-k", "2", "--weight", "0.5", "--mode", "b", "--tiers", "a, b"}, ""},
		{[]string{"q", "-k", "0"}, "-k 0: allowed is a whole number of 1 or more"},
		{[]string{"q", "--weight", "0"}, "--weight 0: allowed is a number greater than 0"},
		{[]string{"q", "--mode", "d"}, `--mode "d": allowed is a, b or c`},
		{[]string{"q", "--tiers", ","}, `--tiers ",": allowed is one or more collection names`},
		{[]string{"q", "--tiers", "a,B"}, `"B" is no collection name`},
		{[]string{" "}, `QUERY " ": allowed is words`},
		{[]string{"q", "f.xlsx"}, `FILE "f.xlsx": allowed is a .json or .csv file`},
	} {
		cmd := newCmd()
		cmd.SetArgs(c.args)
		err := cmd.Execute()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%v: %v", c.args, err)
		case c.want != "" && (err == nil || ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%v: got %v, want a usage error with %q", c.args, err, c.want)
		}
	}
	if got := newCmd().Annotations[CheckedAnnotation]; got != "k,weight,mode,tiers,QUERY,FILE" {
		t.Errorf("annotation %q", got)
	}
}

func TestOrListAndSplitList(t *testing.T) {
	if OrList(nil) != "nothing" || OrList([]string{"a"}) != "a" || OrList([]string{"a", "b", "c"}) != "a, b or c" {
		t.Error("OrList")
	}
	if got := SplitList(" a, ,b,c "); strings.Join(got, "|") != "a|b|c" {
		t.Errorf("SplitList: %q", got)
	}
}

func TestParseRowsRefusesHugeRanges(t *testing.T) {
	if _, err := ParseRows("1-1000000000"); err == nil || !strings.Contains(err.Error(), "leave out --rows") {
		t.Errorf("a billion-row range: %v", err)
	}
	if got, err := ParseRows("2-4, 9"); err != nil || len(got) != 4 || got[0] != 2 || got[3] != 9 {
		t.Errorf("ParseRows(2-4, 9) = %v, %v", got, err)
	}
}
