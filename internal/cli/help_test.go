package cli

import (
	"slices"
	"testing"

	"github.com/spf13/cobra"
)

func TestSetHelp(t *testing.T) {
	root := &cobra.Command{Use: "warren", Short: "from the code"}
	gas := &cobra.Command{Use: "gas"}
	fill := &cobra.Command{Use: "fill"}
	gas.AddCommand(fill)
	root.AddCommand(gas, &cobra.Command{Use: "doctor"})
	text := `Not read: "## " starts an entry.

## warren

warren follows references.

  An indented line.

### Example

  warren doctor

## warren gas fill
Fill empty cells

fill works row by row.
### Example
  warren gas fill --rows 1-5
  warren gas fill --resume

## warren tox
`
	missing, orphaned := SetHelp(root, text)
	if !slices.Equal(missing, []string{"warren doctor", "warren gas"}) || !slices.Equal(orphaned, []string{"warren tox"}) {
		t.Errorf("missing %q, orphaned %q", missing, orphaned)
	}
	if root.Short != "from the code" || root.Long != "warren follows references.\n\n  An indented line." || root.Example != "  warren doctor" {
		t.Errorf("root: %q / %q / %q", root.Short, root.Long, root.Example)
	}
	if fill.Short != "Fill empty cells" || fill.Long != "fill works row by row." || fill.Example != "  warren gas fill --rows 1-5\n  warren gas fill --resume" {
		t.Errorf("fill: %q / %q / %q", fill.Short, fill.Long, fill.Example)
	}
}
