package automium

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// messageMakers are the functions and methods that make a message from a
// format and its arguments: the root package's, the MCP adapter's, the
// binding packages' (refuse) and the renderer's own. Their formats are this module's words and their client
// values are echo.Value, which only the renderer writes.
var messageMakers = []string{"newError", "newProblem", "NewProblem", "add", "problem", "Msg", "bad", "msg", "refuse"}

// preformatters are the calls that turn a value into text before a message is
// made: passing their result to a message maker would format a client value
// outside the renderer.
var preformatters = map[string][]string{
	"fmt":     {"Sprint", "Sprintf", "Sprintln", "Errorf"},
	"strconv": {"Quote", "QuoteToASCII"},
	"echo":    {"Quote"},
}

// quoteAllowed are the files that may call echo.Quote themselves: the
// renderer's own, and Path, which renders a name the input type does not know.
// The transports (mcpserver/transport/stdio, mcpserver/transport/http.go) are another change's and
// are listed so that this scan can be tightened when they move to echo.Msg.
var quoteAllowed = []string{"path.go", "mcpserver/transport/http.go"}

// TestMessagesAreRenderedOnce is a vet-like check of the rule "one renderer
// writes every message": in the root package, the MCP adapter and the
// binding packages (whose refusals quote what a model or a server sent), no
// message maker gets a format that is not a literal, or an argument formatted
// before it (fmt.Sprintf, strconv.Quote, echo.Quote), and nothing but the
// allowed files calls echo.Quote. TestHostileValuesGetBoundedAnswers in
// mcpserver checks the same rule from outside, with a huge value in every
// field.
func TestMessagesAreRenderedOnce(t *testing.T) {
	var files []string
	for _, glob := range []string{"*.go", "contract/*.go", "mcpserver/*.go", "binding/*.go", "binding/dispatch/*.go"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if pkg, fn := callee(call); pkg == "echo" && fn == "Quote" && !slices.Contains(quoteAllowed, filepath.ToSlash(name)) {
				t.Errorf("%s: echo.Quote outside the renderer; pass the value as echo.Value to a message maker", fset.Position(call.Pos()))
			}
			_, fn := callee(call)
			if !slices.Contains(messageMakers, fn) {
				return true
			}
			format := formatArg(call)
			if format < 0 {
				return true
			}
			if !isLiteral(call.Args[format]) {
				t.Errorf("%s: %s's format is not a literal: a message's words are this module's", fset.Position(call.Pos()), fn)
			}
			for _, a := range call.Args[format+1:] {
				if inner, ok := a.(*ast.CallExpr); ok {
					if pkg, fn := callee(inner); slices.Contains(preformatters[pkg], fn) {
						t.Errorf("%s: %s.%s formats an argument before the renderer does", fset.Position(inner.Pos()), pkg, fn)
					}
				}
			}
			return true
		})
	}
}

// callee names what a call calls: ("fmt", "Sprintf"), ("", "newError"), or
// ("", "add") for a method.
func callee(call *ast.CallExpr) (pkg, fn string) {
	switch f := call.Fun.(type) {
	case *ast.Ident:
		return "", f.Name
	case *ast.SelectorExpr:
		if id, ok := f.X.(*ast.Ident); ok {
			return id.Name, f.Sel.Name
		}
		return "", f.Sel.Name
	}
	return "", ""
}

// formatArg is the index of the first string-literal-or-concatenation
// argument that holds a verb, the format of a message maker, or -1.
func formatArg(call *ast.CallExpr) int {
	for i, a := range call.Args {
		if s, ok := literal(a); ok {
			if strings.Contains(s, "%") {
				return i
			}
			return -1
		}
	}
	return -1
}

func isLiteral(e ast.Expr) bool {
	_, ok := literal(e)
	return ok
}

// literal is the text of a string literal, a concatenation of them, or of one
// with a named constant (whose text is this module's, so "" stands for it).
func literal(e ast.Expr) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(e.Value)
		return s, err == nil
	case *ast.BinaryExpr:
		l, okL := literal(e.X)
		r, okR := literal(e.Y)
		if e.Op == token.ADD && (okL || okR) && (okL || isConst(e.X)) && (okR || isConst(e.Y)) {
			return l + r, true
		}
	case *ast.ParenExpr:
		return literal(e.X)
	}
	return "", false
}

// isConst reports whether e names a constant of this module by the
// convention its constants follow: an identifier that is not a local
// variable's short name. It is a syntactic check, so it accepts the names
// the root package and the adapter use for their fixed texts.
func isConst(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && slices.Contains([]string{"fix", "example", "format"}, id.Name)
}

// TestFieldDescriptionsWrittenOnce: a field's description is written once, in
// its jsonschema tag, which the schemas advertise and go doc prints with the
// field; a doc comment beside such a tag may only add what the tag does not
// say (a comment that repeats the tag is what go doc showed twice).
func TestFieldDescriptionsWrittenOnce(t *testing.T) {
	var files []string
	for _, glob := range []string{"*.go", "contract/*.go"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	norm := func(s string) string {
		return strings.ToLower(strings.TrimSuffix(strings.Join(strings.Fields(s), " "), "."))
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			st, ok := n.(*ast.StructType)
			if !ok {
				return true
			}
			for _, fld := range st.Fields.List {
				if fld.Doc == nil || fld.Tag == nil {
					continue
				}
				tag, err := strconv.Unquote(fld.Tag.Value)
				if err != nil {
					t.Fatalf("%s: %v", fset.Position(fld.Pos()), err)
				}
				if desc, ok := reflect.StructTag(tag).Lookup("jsonschema"); ok && norm(fld.Doc.Text()) == norm(desc) {
					t.Errorf("%s: the doc comment repeats the jsonschema tag %q; drop the comment", fset.Position(fld.Pos()), desc)
				}
			}
			return true
		})
	}
}
