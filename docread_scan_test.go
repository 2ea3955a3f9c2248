package automium

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// wholeDocumentDecoders are the calls that decode a whole document before
// anything is counted: a general decoder builds the tree of whatever it is
// given, which is how 8 MiB of empty Playwright tests once cost 700 MiB.
var wholeDocumentDecoders = map[string][]string{
	"json": {"Unmarshal", "UnmarshalRead", "UnmarshalDecode", "NewDecoder"},
	"xml":  {"Unmarshal", "NewDecoder", "NewTokenDecoder"},
}

// decoderAllowed are the calls outside the bounded reader that may decode
// with them, each on data that is not a document a client passed inside a
// value: file -> the enclosing functions allowed.
var decoderAllowed = map[string][]string{
	// The bounded reader itself: token by token, under the document bounds.
	"docread.go": {"newXMLDoc"},
	// A Go client reads an *Error of this package back from its own JSON.
	"automium.go": {"UnmarshalJSON"},
	// go generate reads this module's own generated files.
	"generate.go": {"*"},
	// Embedded, precomputed figures of this module.
	"mcpserver/resources.go": {"*"}, "mcpserver/catalog.go": {"*"},
	// One JSON-RPC id string the envelope's token reader already bounded.
	"mcpserver/transport/internal/envelope/envelope.go": {"idOf"},
	// A server's input schema, already canonicalised and bounded by binding's
	// own token reader before it is decoded.
	"binding/schema.go": {"*"},
	// A prompt's arguments, which projectPrompt already read through
	// binding's bounded item reader, matched back by name.
	"binding/catalogv2.go": {"withRest"},
}

// TestNoWholeDocumentDecoders is a vet-like check of the rule "whole-document
// decoders never see client data": outside the bounded reader (docread.go)
// and the allowed calls above, no non-test file of the root package, contract, the MCP
// adapter, its envelope and stdio transport or the binding packages calls
// json.Unmarshal, json.NewDecoder, xml.Unmarshal, xml.NewDecoder or the like.
// A document a client passes inside a value goes through jsonDoc or xmlDoc,
// which count before they keep anything.
func TestNoWholeDocumentDecoders(t *testing.T) {
	var files []string
	for _, glob := range []string{"*.go", "contract/*.go", "mcpserver/*.go", "mcpserver/transport/internal/envelope/*.go", "mcpserver/transport/stdio/*.go", "binding/*.go", "binding/dispatch/*.go"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			ast.Inspect(fn, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				pkg, ok := sel.X.(*ast.Ident)
				if !ok {
					return true
				}
				for _, bad := range wholeDocumentDecoders[pkg.Name] {
					if sel.Sel.Name != bad {
						continue
					}
					checked++
					allowed := decoderAllowed[filepath.ToSlash(name)]
					if !containsString(allowed, "*") && !containsString(allowed, fn.Name.Name) {
						t.Errorf("%s: %s calls %s.%s; read a client's document with the bounded reader (docread.go) instead", fset.Position(sel.Pos()), fn.Name.Name, pkg.Name, bad)
					}
				}
				return true
			})
		}
	}
	if checked == 0 {
		t.Fatal("no decoder call found at all; the scan is looking in the wrong place")
	}
}
