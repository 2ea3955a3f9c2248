package automium

import (
	"bytes"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestFieldDocs keeps the Go doc comment of every exported struct field equal to
// its jsonschema tag, which is what MCP clients read as the field's description:
// go doc readers and pkg.go.dev see the same words, written once, in the tag.
// With -update it writes the comments. A field with a doc comment of its own and
// no tag is left alone.
func TestFieldDocs(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var stale []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		out, missing := fieldDocs(t, name, src)
		if len(missing) == 0 {
			continue
		}
		if *update {
			if err := os.WriteFile(name, out, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		stale = append(stale, missing...)
	}
	if len(stale) > 0 {
		t.Errorf("%d exported fields have a doc comment that is not their jsonschema tag; run go test -run TestFieldDocs -update . to write them:\n%s", len(stale), strings.Join(stale, "\n"))
	}
}

// fieldDocs returns src with every exported field's doc comment set to its
// jsonschema tag, and the fields it changed.
func fieldDocs(t *testing.T, name string, src []byte) ([]byte, []string) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	type edit struct {
		from, to int // byte offsets of the old comment (to == from: insert)
		text     string
	}
	var edits []edit
	var changed []string
	ast.Inspect(f, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok || !ts.Name.IsExported() {
			return true
		}
		st, ok := ts.Type.(*ast.StructType)
		if !ok {
			return true
		}
		for _, field := range st.Fields.List {
			if field.Tag == nil || len(field.Names) != 1 || !field.Names[0].IsExported() {
				continue
			}
			tag, err := strconv.Unquote(field.Tag.Value)
			if err != nil {
				t.Fatal(err)
			}
			desc, ok := reflect.StructTag(tag).Lookup("jsonschema")
			if !ok || desc == "" {
				continue
			}
			want := docLines(desc)
			start := fset.Position(field.Pos()).Offset
			indent := start - bytes.LastIndexByte(src[:start], '\n') - 1
			text := ""
			for _, l := range want {
				text += "// " + l + "\n" + strings.Repeat("\t", indent)
			}
			if field.Doc == nil {
				edits = append(edits, edit{start, start, text})
				changed = append(changed, name+": "+ts.Name.Name+"."+field.Names[0].Name)
				continue
			}
			var have []string
			for _, c := range field.Doc.List {
				have = append(have, strings.TrimPrefix(strings.TrimPrefix(c.Text, "//"), " "))
			}
			if !slices.Equal(have, want) {
				edits = append(edits, edit{fset.Position(field.Doc.Pos()).Offset, start, text})
				changed = append(changed, name+": "+ts.Name.Name+"."+field.Names[0].Name)
			}
		}
		return true
	})
	var b bytes.Buffer
	last := 0
	for _, e := range edits {
		b.Write(src[last:e.from])
		b.WriteString(e.text)
		last = e.to
	}
	b.Write(src[last:])
	out, err := format.Source(b.Bytes())
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out, changed
}

// docLines wraps a description into comment lines of at most 80 characters,
// starting with a capital letter and ending with a full stop, as Go doc
// comments do.
func docLines(desc string) []string {
	desc = strings.ToUpper(desc[:1]) + desc[1:]
	if !strings.HasSuffix(desc, ".") {
		desc += "."
	}
	var lines []string
	line := ""
	for _, w := range strings.Fields(desc) {
		if line != "" && len(line)+1+len(w) > 80 {
			lines = append(lines, line)
			line = w
			continue
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(lines, line)
}
