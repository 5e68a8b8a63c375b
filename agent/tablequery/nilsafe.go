package tablequery

import "github.com/expr-lang/expr/ast"

// nilSafe is the expr patch that gives compiled expressions the package's missing-value rules.
// expr walks the tree bottom-up and calls Visit on every node before the type check, so the
// rewritten tree is checked like the original and errors still point into the original text.
//
//   - a text field x becomes text__(x): nil reads as "";
//   - any_text becomes anytext__(every text field);
//   - x == nil and x != nil become empty(x) and has(x);
//   - a comparison that reads number, int or bool fields a, b becomes has(a) && has(b) && (…);
//   - a bool field used as a condition (operand of and/or/not, a ternary's condition, the whole
//     expression) becomes (x == true), which is false for nil instead of failing.
type nilSafe struct {
	types    map[string]string
	text     []string // text fields, for any_text
	rootBool string   // the whole expression is this bool field
}

var comparisons = map[string]bool{
	"==": true, "!=": true, "<": true, "<=": true, ">": true, ">=": true,
	"in": true, "contains": true, "startsWith": true, "endsWith": true, "matches": true,
}

var logical = map[string]bool{"and": true, "or": true, "&&": true, "||": true}

func (p *nilSafe) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.IdentifierNode:
		switch {
		case n.Value == AnyText:
			args := make([]ast.Node, len(p.text))
			for i, f := range p.text {
				args[i] = &ast.IdentifierNode{Value: f}
			}
			ast.Patch(node, call(fnAnyText, args...))
		case p.types[n.Value] == TypeString:
			ast.Patch(node, call(fnText, &ast.IdentifierNode{Value: n.Value}))
		case n.Value == p.rootBool:
			ast.Patch(node, p.condition(&ast.IdentifierNode{Value: n.Value}))
		}
	case *ast.UnaryNode:
		if n.Operator == "not" || n.Operator == "!" {
			n.Node = p.condition(n.Node)
		}
	case *ast.ConditionalNode:
		n.Cond = p.condition(n.Cond)
	case *ast.BinaryNode:
		switch {
		case logical[n.Operator]:
			n.Left, n.Right = p.condition(n.Left), p.condition(n.Right)
		case n.Operator == "==" || n.Operator == "!=":
			if f, ok := p.nilTest(n); ok {
				fn := fnEmpty
				if n.Operator == "!=" {
					fn = fnHas
				}
				ast.Patch(node, call(fn, &ast.IdentifierNode{Value: f}))
				return
			}
			p.guard(node, n)
		case comparisons[n.Operator]:
			p.guard(node, n)
		}
	}
}

// condition makes a bool field used as a condition an explicit comparison with true.
func (p *nilSafe) condition(n ast.Node) ast.Node {
	if id, ok := n.(*ast.IdentifierNode); ok && p.types[id.Value] == TypeBool {
		eq := &ast.BinaryNode{Operator: "==", Left: id, Right: &ast.BoolNode{Value: true}}
		eq.SetLocation(id.Location())
		return eq
	}
	return n
}

// nilTest reports the field of a comparison of a field with nil.
func (p *nilSafe) nilTest(n *ast.BinaryNode) (string, bool) {
	field, other := n.Left, n.Right
	if _, ok := field.(*ast.NilNode); ok {
		field, other = other, field
	}
	if _, ok := other.(*ast.NilNode); !ok {
		return "", false
	}
	if c, ok := field.(*ast.CallNode); ok && isCall(c, fnText) && len(c.Arguments) == 1 {
		field = c.Arguments[0]
	}
	if id, ok := field.(*ast.IdentifierNode); ok {
		if _, known := p.types[id.Value]; known {
			return id.Value, true
		}
	}
	return "", false
}

// guard prefixes a comparison with has() tests for the nullable fields it reads.
func (p *nilSafe) guard(node *ast.Node, n *ast.BinaryNode) {
	var fields []string
	p.nullable(n.Left, &fields)
	p.nullable(n.Right, &fields)
	if len(fields) == 0 {
		return
	}
	var guarded ast.Node = n
	for i := len(fields) - 1; i >= 0; i-- {
		guarded = &ast.BinaryNode{Operator: "&&", Left: call(fnHas, &ast.IdentifierNode{Value: fields[i]}), Right: guarded}
	}
	ast.Patch(node, guarded)
}

// nullable collects the number, int and bool fields a sub-expression reads, except inside
// calls that accept nil (has, empty) and on the left of ??, which handles nil itself.
func (p *nilSafe) nullable(n ast.Node, out *[]string) {
	switch n := n.(type) {
	case nil:
		return
	case *ast.IdentifierNode:
		if t := p.types[n.Value]; t == TypeNumber || t == TypeInt || t == TypeBool {
			for _, f := range *out {
				if f == n.Value {
					return
				}
			}
			*out = append(*out, n.Value)
		}
		return
	case *ast.CallNode:
		if isCall(n, fnHas) || isCall(n, fnEmpty) || isCall(n, fnText) || isCall(n, fnAnyText) {
			return
		}
	case *ast.BinaryNode:
		if n.Operator == "??" {
			p.nullable(n.Right, out)
			return
		}
	}
	for _, c := range children(n) {
		p.nullable(c, out)
	}
}

func call(name string, args ...ast.Node) *ast.CallNode {
	return &ast.CallNode{Callee: &ast.IdentifierNode{Value: name}, Arguments: args}
}

func isCall(c *ast.CallNode, name string) bool {
	id, ok := c.Callee.(*ast.IdentifierNode)
	return ok && id.Value == name
}
