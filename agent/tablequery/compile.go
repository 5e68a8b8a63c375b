package tablequery

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/builtin"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"
)

// Compile checks an expression against the schema and compiles it for [Run]. Nothing about
// the expression is left to run time that can be known before: SQL, syntax, unknown names
// and type errors come back as a *QueryError (match with errors.As) whose Kind says which.
// A schema that cannot be used at all (see [Schema.Validate]) is a plain error.
//
// The compiled program follows the package's missing-value rules (see the package doc).
func Compile(schema Schema, expression string) (*vm.Program, error) {
	if err := schema.Validate(); err != nil {
		return nil, fmt.Errorf("couldn't compile against the table schema: %w", err)
	}
	expression = Clean(expression)
	if expression == "" {
		return nil, &QueryError{Kind: Syntax, Message: "the expression is empty; write one condition such as has(x) and x > 3"}
	}
	if qe := checkSQL(schema, expression); qe != nil {
		return nil, qe
	}
	tree, err := parser.Parse(expression)
	if err != nil {
		return nil, &QueryError{Kind: Syntax, Message: errorText(err)}
	}
	if qe := checkNames(schema, tree.Node); qe != nil {
		return nil, qe
	}
	n := &nilSafe{types: schema.types(), text: schema.textFields()}
	if id, ok := tree.Node.(*ast.IdentifierNode); ok && n.types[id.Value] == TypeBool {
		n.rootBool = id.Value
	}
	program, err := expr.Compile(expression,
		expr.Env(schema.env()),
		expr.AsBool(),
		expr.Function(fnHas, func(p ...any) (any, error) { return !isEmpty(p[0]), nil }, new(func(any) bool)),
		expr.Function(fnEmpty, func(p ...any) (any, error) { return isEmpty(p[0]), nil }, new(func(any) bool)),
		expr.Function(fnText, func(p ...any) (any, error) { return asText(p[0]), nil }, new(func(any) string)),
		expr.Function(fnAnyText, anyText, new(func(...any) string)),
		expr.Patch(n),
	)
	if err != nil {
		return nil, classifyCheck(schema, tree.Node, err)
	}
	return program, nil
}

// Clean trims what models put around an expression: white space, code fences and quotes of
// backticks.
func Clean(expression string) string {
	s := strings.TrimSpace(expression)
	if strings.HasPrefix(s, "```") {
		s = strings.TrimPrefix(s, "```")
		if i := strings.IndexByte(s, '\n'); i >= 0 && !strings.ContainsAny(s[:i], " ()=<>\"'") {
			s = s[i+1:] // a language tag such as ```expr
		}
		s = strings.TrimSuffix(strings.TrimSpace(s), "```")
	}
	s = strings.TrimSpace(s)
	if len(s) >= 2 && s[0] == '`' && s[len(s)-1] == '`' && strings.Count(s, "`") == 2 {
		s = s[1 : len(s)-1]
	}
	return strings.TrimSpace(s)
}

func isEmpty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	}
	return false
}

func asText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	}
	return fmt.Sprint(v)
}

func anyText(params ...any) (any, error) {
	var parts []string
	for _, p := range params {
		if s := asText(p); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.ToLower(strings.Join(parts, " | ")), nil
}

// errorText is an expr error with its position and the caret line under the source.
func errorText(err error) string {
	var fe *file.Error
	if errors.As(err, &fe) {
		return fe.Error()
	}
	return err.Error()
}

// checkNames reports every identifier that is not a field and every call of a function that
// does not exist, each with did-you-mean suggestions. expr's checker would stop at the first.
func checkNames(schema Schema, root ast.Node) *QueryError {
	fields := schema.types()
	declared := map[string]bool{}
	var unknownFields, unknownFuncs []string
	var walk func(n ast.Node)
	walk = func(n ast.Node) {
		switch n := n.(type) {
		case nil:
		case *ast.IdentifierNode:
			if _, ok := fields[n.Value]; !ok && n.Value != AnyText && n.Value != "$env" && !declared[n.Value] &&
				!slices.Contains(unknownFields, n.Value) {
				unknownFields = append(unknownFields, n.Value)
			}
		case *ast.CallNode:
			if id, ok := n.Callee.(*ast.IdentifierNode); ok {
				if id.Value != fnHas && id.Value != fnEmpty && !slices.Contains(unknownFuncs, id.Value) {
					unknownFuncs = append(unknownFuncs, id.Value)
				}
			} else {
				walk(n.Callee)
			}
			for _, a := range n.Arguments {
				walk(a)
			}
		case *ast.MemberNode:
			walk(n.Node) // the property of x.y is not a name of the table
			if _, ok := n.Property.(*ast.StringNode); !ok {
				walk(n.Property)
			}
		case *ast.VariableDeclaratorNode:
			walk(n.Value)
			declared[n.Name] = true
			walk(n.Expr)
		default:
			for _, c := range children(n) {
				walk(c)
			}
		}
	}
	walk(root)
	if len(unknownFields) == 0 && len(unknownFuncs) == 0 {
		return nil
	}
	names := make([]string, 0, len(schema)+1)
	for _, f := range schema {
		names = append(names, f.Name)
	}
	funcs := append([]string{fnHas, fnEmpty}, builtin.Names...)
	return unknownNamesError(unknownFields, unknownFuncs, schema, names, funcs)
}

// children returns the direct sub-nodes of the node kinds a filter uses.
func children(n ast.Node) []ast.Node {
	switch n := n.(type) {
	case *ast.UnaryNode:
		return []ast.Node{n.Node}
	case *ast.BinaryNode:
		return []ast.Node{n.Left, n.Right}
	case *ast.ChainNode:
		return []ast.Node{n.Node}
	case *ast.MemberNode:
		return []ast.Node{n.Node, n.Property}
	case *ast.SliceNode:
		return []ast.Node{n.Node, n.From, n.To}
	case *ast.CallNode:
		return append([]ast.Node{n.Callee}, n.Arguments...)
	case *ast.BuiltinNode:
		return n.Arguments
	case *ast.PredicateNode:
		return []ast.Node{n.Node}
	case *ast.VariableDeclaratorNode:
		return []ast.Node{n.Value, n.Expr}
	case *ast.SequenceNode:
		return n.Nodes
	case *ast.ConditionalNode:
		return []ast.Node{n.Cond, n.Exp1, n.Exp2}
	case *ast.ArrayNode:
		return n.Nodes
	case *ast.MapNode:
		return n.Pairs
	case *ast.PairNode:
		return []ast.Node{n.Key, n.Value}
	}
	return nil
}

// classifyCheck turns an error of expr's checker into a QueryError. Type errors get a hint
// with the types of the fields the expression uses, which is what a model needs to fix them.
func classifyCheck(schema Schema, root ast.Node, err error) *QueryError {
	msg := errorText(err)
	kind := Other
	switch first := strings.SplitN(msg, "\n", 2)[0]; {
	case strings.Contains(first, "unknown name"):
		kind = UnknownField
	case strings.Contains(first, "mismatched type"), strings.Contains(first, "expected bool"),
		strings.Contains(first, "invalid operation"), strings.Contains(first, "cannot use"),
		strings.Contains(first, "non-bool"), strings.Contains(first, "no matching overload"),
		strings.Contains(first, "not callable"), strings.Contains(first, "has no field"),
		strings.Contains(first, "does not support"), strings.Contains(first, "cannot slice"):
		kind = TypeMismatch
	case strings.Contains(first, "invalid number of arguments"), strings.Contains(first, "expected"):
		kind = Syntax
	}
	if strings.HasPrefix(msg, "expected bool, but got ") {
		msg = "the expression must be true or false for each row, but it gives " +
			strings.TrimPrefix(msg, "expected bool, but got ") + "; compare it with something (==, <, contains, …)"
	}
	if kind == TypeMismatch {
		if used := usedFields(schema, root); len(used) > 0 {
			msg += "\nfield types: " + strings.Join(used, ", ") +
				"; compare numbers with numbers (no quotes), text with \"quoted text\", true/false fields with true or false"
		}
	}
	return &QueryError{Kind: kind, Message: msg}
}

// usedFields describes the fields an expression reads, in schema order.
func usedFields(schema Schema, root ast.Node) []string {
	seen := map[string]bool{}
	var walk func(n ast.Node)
	walk = func(n ast.Node) {
		if id, ok := n.(*ast.IdentifierNode); ok {
			seen[id.Value] = true
		}
		for _, c := range children(n) {
			if c != nil {
				walk(c)
			}
		}
	}
	walk(root)
	var out []string
	for _, f := range schema {
		if seen[f.Name] {
			out = append(out, f.describe())
		}
	}
	return out
}
