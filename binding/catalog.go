package binding

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/json/jsontext"
	jsonv2 "encoding/json/v2"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/automium/automium"
	"github.com/automium/automium/canonicaljson"
	"github.com/automium/automium/internal/jsonname"
)

// CatalogRule names the serialization rule of catalog digests. A client pins a
// server's contract by pinning its digest under this rule.
const CatalogRule = "tool-catalog-v1"

// Catalog is what an MCP server advertises, as its list answers carry it: the
// items of every page of tools/list ("tools"), resources/list ("resources") and
// prompts/list ("prompts"), each item the raw JSON object the server sent, and the
// protocol version negotiated for the session. It is pure data: it can be filled
// from any server's answers, by any client.
//
// # The tool-catalog-v1 rule
//
// The digest is "sha256:" and the lowercase hex SHA-256 of the RFC 8785
// canonical JSON of this document:
//
//	{"catalog": "tool-catalog-v1",
//	 "protocolVersion": <the negotiated protocol version>,
//	 "tools": [{"name", "title"?, "description"?, "inputSchema"?, "outputSchema"?,
//	            "annotations": {"title"?, "readOnlyHint", "destructiveHint",
//	                            "idempotentHint", "openWorldHint"}}, ...],
//	 "resources": [{"uri", "name"?, "title"?, "description"?, "mimeType"?}, ...],
//	 "prompts": [{"name", "title"?, "description"?,
//	              "arguments": [{"name", "title"?, "description"?, "required"}, ...]}, ...]}
//
// with the normalizations [CatalogRules] states, each chosen so that the digest
// depends on what the catalog means and not on how an SDK happens to serialize
// it, and a catalog that could be read two ways has no digest at all. Those
// sentences are the rule's one statement: docs/binding.md and Automium's
// contract resource carry them word for word.
//
// The protocol version is part of the digest, because what a catalog means
// depends on the protocol it is served under: a session that negotiates another
// version has another digest, and a pinned digest holds only for the version it
// was computed with.
//
// A Catalog is a plain value; its methods do not change it and may be called
// concurrently.
type Catalog struct {
	ProtocolVersion string
	Tools           []json.RawMessage
	Resources       []json.RawMessage
	Prompts         []json.RawMessage
	// ResourceTemplates are the items of every resources/templates/list
	// page. tool-catalog-v1 leaves them out; tool-catalog-v2
	// ([Catalog.DigestV2]), the rule binding pins, covers them.
	ResourceTemplates []json.RawMessage
}

// CatalogRules states the tool-catalog-v1 rule, one sentence group a rule, in
// the words docs/binding.md and Automium's contract resource
// (automium://contracts/tool-catalog-v1) repeat: enough for a program in
// another language to compute the same digest from a server's list answers.
// go generate ./... writes docs/binding.md's list from it, and
// TestCatalogRulesHold holds each rule to the code. It returns a new slice on
// every call.
func CatalogRules() []string {
	return []string{
		`The digest is "sha256:" followed by the lowercase hex SHA-256 of the RFC 8785 (JSON Canonicalization Scheme) form of the document {"catalog": "tool-catalog-v1", "protocolVersion", "tools", "resources", "prompts"}. The three lists are always present: [] when the server has none or does not announce the capability.`,
		`RFC 8785: object members sorted by name as sequences of UTF-16 code units, no whitespace, numbers in ECMAScript shortest form (4.50 is 4.5, 1E30 is 1e+30), strings with only the quotation mark, the backslash and U+0000..U+001F escaped: \" and \\, \b \t \n \f \r, and \u00 with two lowercase hex digits for the other controls.`,
		`Every list item, as the server sent it, must be an I-JSON object: valid UTF-8, no lone surrogate escapes, no duplicate member names, numbers within the range of a double, nesting at most ` + strconv.Itoa(canonicaljson.MaxDepth) + ` deep. No object anywhere in an item may have two member names that are equal under Unicode simple case folding ("inputSchema" and "INPUTSCHEMA", "k" and U+212A KELVIN SIGN): a case-insensitive reader could take another member than the digest. An item that breaks this makes the catalog invalid: it has no digest.`,
		`tools: every tool of every tools/list page, as {"name", "title"?, "description"?, "inputSchema"?, "outputSchema"?, "annotations": {"title"?, "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}}, its name a non-empty string. "inputSchema" and "outputSchema" are kept whole, as JSON values, when present and not null: "inputSchema": null is the same as no inputSchema, and such a tool cannot be granted. "annotations" is always written; absent or null, it is {}, and otherwise must be an object. The four hints are always written with their effective value, absent or null taking MCP's defaults: readOnlyHint false, destructiveHint true, idempotentHint false, openWorldHint true.`,
		`resources: every resource of every resources/list page, as {"uri", "name"?, "title"?, "description"?, "mimeType"?}, its uri a non-empty string. Sizes are left out: they follow the bodies, which are not part of the contract. Resource templates (resources/templates/list) are not part of the catalog.`,
		`prompts: every prompt of every prompts/list page, as {"name", "title"?, "description"?, "arguments": [{"name", "title"?, "description"?, "required"}, ...]}, its name a non-empty string. "arguments" is always written as an array: absent, null and [] are all []; any other value ({} included) makes the catalog invalid. Each argument is an object with a non-empty name; its "required" is always written, false when absent or null.`,
		`An optional string member that is absent, null or "" is left out; a string member that holds anything but a string or null makes the catalog invalid, as does a hint or "required" that is not a boolean or null. "_meta", "icons", "size" and every other member are left out.`,
		`Tools and prompts are sorted by name, resources by uri, and each prompt's arguments by name, comparing the names as sequences of UTF-16 code units, the order RFC 8785 uses for member names (so U+1F600, a surrogate pair, sorts before U+FB33). Two tools or two prompts with one name, two resources with one uri, or two arguments of one prompt with one name make the catalog invalid: a call could not say which one it means.`,
		`The protocol version is part of the digest, so one catalog has one digest per protocol version; a client pins the digest of the version it negotiates.`,
	}
}

// Digest returns the catalog's tool-catalog-v1 digest.
func (c Catalog) Digest() (string, error) {
	canonical, err := c.Canonical()
	if err != nil {
		return "", err
	}
	return digestOf(canonical), nil
}

// Digests returns the digest the catalog's lists would have under each of the
// given protocol versions, keyed by version. It reads the lists once, so it is
// the way for a server to compute its digest for every version it speaks.
func (c Catalog) Digests(protocolVersions ...string) (map[string]string, error) {
	lists, err := c.canonicalLists()
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(protocolVersions))
	for _, v := range protocolVersions {
		d, err := lists.digest(v)
		if err != nil {
			return nil, err
		}
		out[v] = d
	}
	return out, nil
}

// Canonical returns the canonical tool-catalog-v1 document whose SHA-256 is the
// digest; it is what to compare when two digests differ.
func (c Catalog) Canonical() ([]byte, error) {
	lists, err := c.canonicalLists()
	if err != nil {
		return nil, err
	}
	return lists.document(c.ProtocolVersion)
}

// catalogLists are the canonical JSON arrays of a catalog's three lists.
type catalogLists struct{ tools, resources, prompts []byte }

func (c Catalog) canonicalLists() (catalogLists, error) {
	var l catalogLists
	tools, err := project(c.Tools, automium.PathOf("tools"), "name", projectTool)
	if err != nil {
		return l, err
	}
	resources, err := project(c.Resources, automium.PathOf("resources"), "uri", projectResource)
	if err != nil {
		return l, err
	}
	prompts, err := project(c.Prompts, automium.PathOf("prompts"), "name", projectPrompt)
	if err != nil {
		return l, err
	}
	l.tools = appendCanonical(nil, tools)
	l.resources = appendCanonical(nil, resources)
	l.prompts = appendCanonical(nil, prompts)
	return l, nil
}

// appendCanonical writes a projection in RFC 8785 form. Its JSON values are
// already canonical (they are parts of an item readItem canonicalized), so
// nothing is parsed again; TestCatalogCanonical holds the result to
// canonicaljson's own output.
func appendCanonical(dst []byte, v any) []byte {
	switch v := v.(type) {
	case string:
		return canonicaljson.AppendString(dst, v)
	case bool:
		return strconv.AppendBool(dst, v)
	case json.RawMessage:
		return append(dst, v...)
	case []map[string]any:
		dst = append(dst, '[')
		for i, m := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendCanonical(dst, m)
		}
		return append(dst, ']')
	case map[string]any:
		dst = append(dst, '{')
		for i, k := range sortedKeys(v) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = canonicaljson.AppendString(dst, k)
			dst = append(dst, ':')
			dst = appendCanonical(dst, v[k])
		}
		return append(dst, '}')
	default:
		panic(fmt.Sprintf("binding: appendCanonical(%T)", v))
	}
}

// document assembles the canonical document from canonical parts. The members
// are written in RFC 8785 order (catalog < prompts < protocolVersion <
// resources < tools), so the result is canonical without parsing the lists
// again; TestCatalogCanonical holds it to canonicaljson's own output.
func (l catalogLists) document(protocolVersion string) ([]byte, error) {
	var doc bytes.Buffer
	doc.Grow(len(l.tools) + len(l.resources) + len(l.prompts) + 100)
	if err := l.writeDocument(&doc, protocolVersion); err != nil {
		return nil, err
	}
	return doc.Bytes(), nil
}

// digest hashes the document without building it: a server computes one per
// protocol version at start.
func (l catalogLists) digest(protocolVersion string) (string, error) {
	h := sha256.New()
	if err := l.writeDocument(h, protocolVersion); err != nil {
		return "", err
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

func (l catalogLists) writeDocument(w io.Writer, protocolVersion string) error {
	if protocolVersion == "" {
		return refuse(CodeInvalidCatalog, automium.PathOf("protocolVersion"), "the protocol version is missing; it is part of the digest")
	}
	for _, part := range [][]byte{
		canonicaljson.AppendString([]byte(`{"catalog":`), CatalogRule), []byte(`,"prompts":`), l.prompts,
		canonicaljson.AppendString([]byte(`,"protocolVersion":`), protocolVersion),
		[]byte(`,"resources":`), l.resources, []byte(`,"tools":`), l.tools, []byte(`}`),
	} {
		w.Write(part) // bytes.Buffer and hash.Hash never fail
	}
	return nil
}

// Tool returns the canonical JSON of the named tool, as the digest reads it.
// An item the digest would refuse (not I-JSON, duplicate or case-variant
// member names) is never returned.
func (c Catalog) Tool(name string) (json.RawMessage, bool) {
	for i, raw := range c.Tools {
		f, err := readItem(raw, automium.PathOf("tools").Index(i))
		if err != nil {
			continue
		}
		if n, err := f.str("name", automium.Path{}); err == nil && n == name {
			canonical, _ := canonicaljson.Canonicalize(raw) // readItem parsed it: it has a canonical form
			return canonical, true
		}
	}
	return nil, false
}

// InputSchema returns the input schema of the named tool, exactly as the
// digest pins it: the "inputSchema" member read by the same strict parse, in
// canonical form. A null or absent schema is no schema.
func (c Catalog) InputSchema(name string) (json.RawMessage, bool) {
	schema, ok := c.inputSchemas()[name]
	return schema, ok
}

// InputSchemas maps each tool's name to its input schema, as InputSchema
// returns it, reading every tool once: a caller that looks up many tools of
// one catalog (the dispatcher, once per digest) pays the reading once.
func (c Catalog) InputSchemas() map[string]json.RawMessage { return c.inputSchemas() }

// inputSchemas maps each tool's name to its input schema, as InputSchema
// returns it, reading every item once. The first of two tools with one name
// wins; such a catalog has no digest anyway.
func (c Catalog) inputSchemas() map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(c.Tools))
	for i, raw := range c.Tools {
		f, err := readItem(raw, automium.PathOf("tools").Index(i))
		if err != nil {
			continue
		}
		name, err := f.str("name", automium.Path{})
		if _, seen := out[name]; err != nil || seen {
			continue
		}
		if schema, ok := f["inputSchema"]; ok && string(schema) != "null" {
			out[name] = json.RawMessage(schema)
		}
	}
	return out
}

// fields is one list item, read strictly: canonicaljson refuses duplicate keys,
// invalid UTF-8 and lone surrogates, and readItem refuses member names that
// differ only in case, at any depth, before a case-insensitive decoder (Go's
// encoding/json, which go-sdk uses) could read another member than the digest.
type fields map[string]json.RawMessage

func readItem(raw json.RawMessage, at automium.Path) (fields, error) {
	members, err := canonicaljson.Members(raw)
	if err != nil {
		return nil, refuse(CodeInvalidCatalog, at, "want an I-JSON object: %v", err)
	}
	if a, b, ok := caseVariantNames(raw); ok {
		return nil, refuse(CodeInvalidCatalog, at, "member names %s and %s differ only in case; a case-insensitive reader could take either", automium.ClientValue(a), automium.ClientValue(b))
	}
	f := make(fields, len(members))
	for _, m := range members {
		f[m.Name] = m.Value
	}
	return f, nil
}

// caseVariantNames returns two member names of one object, anywhere in data,
// that are equal under Unicode simple case folding (strings.EqualFold), such as
// "inputSchema" and "INPUTSCHEMA" or "k" and "\u212a" (KELVIN SIGN). data is
// I-JSON.
func caseVariantNames(data []byte) (string, string, bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	var stack []map[string]string // per open object: folded name -> name
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			return "", "", false
		}
		switch tok.Kind() {
		case '{':
			stack = append(stack, map[string]string{})
		case '}':
			stack = stack[:len(stack)-1]
		case '"':
			// A string directly inside an object, where a name is due, is a name.
			if kind, n := dec.StackIndex(dec.StackDepth()); kind == '{' && n%2 == 1 && len(stack) > 0 {
				name := tok.String()
				key := jsonname.Fold(name)
				top := stack[len(stack)-1]
				if other, dup := top[key]; dup {
					return other, name, true
				}
				top[key] = name
			}
		}
	}
}

// str returns an optional string field; absent, null and "" all give "".
func (f fields) str(key string, at automium.Path) (string, error) {
	raw, ok := f[key]
	if !ok || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := jsonv2.Unmarshal(raw, &s); err != nil {
		return "", refuse(CodeInvalidCatalog, at.Field(key), "want a string")
	}
	return s, nil
}

// boolean returns a boolean field, or def when it is absent or null.
func (f fields) boolean(key string, at automium.Path, def bool) (bool, error) {
	raw, ok := f[key]
	if !ok || string(raw) == "null" {
		return def, nil
	}
	var b bool
	if err := jsonv2.Unmarshal(raw, &b); err != nil {
		return false, refuse(CodeInvalidCatalog, at.Field(key), "want true or false")
	}
	return b, nil
}

// putStr adds a string field to a projection when it is not empty.
func putStr(out map[string]any, f fields, key string, at automium.Path) error {
	s, err := f.str(key, at)
	if s != "" {
		out[key] = s
	}
	return err
}

// project reads every item of a list, projects it, and sorts the projections by
// their key field, refusing duplicates.
func project(items []json.RawMessage, list automium.Path, key string, fn func(fields, automium.Path) (map[string]any, error)) ([]map[string]any, error) {
	out := make([]map[string]any, 0, len(items))
	for i, raw := range items {
		at := list.Index(i)
		f, err := readItem(raw, at)
		if err != nil {
			return nil, err
		}
		id, err := f.str(key, at)
		if err != nil {
			return nil, err
		}
		if id == "" {
			return nil, refuse(CodeInvalidCatalog, at.Field(key), "every item needs a non-empty %s", key)
		}
		p, err := fn(f, at)
		if err != nil {
			return nil, err
		}
		p[key] = id
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b map[string]any) int { return canonicaljson.CompareUTF16(a[key].(string), b[key].(string)) })
	for i := 1; i < len(out); i++ {
		if out[i][key] == out[i-1][key] {
			return nil, refuse(CodeInvalidCatalog, list, "two items have %s %s; a call could not say which one it means", key, automium.ClientValue(out[i][key].(string)))
		}
	}
	return out, nil
}

func projectTool(f fields, at automium.Path) (map[string]any, error) {
	out := map[string]any{}
	for _, k := range []string{"title", "description"} {
		if err := putStr(out, f, k, at); err != nil {
			return nil, err
		}
	}
	for _, k := range []string{"inputSchema", "outputSchema"} {
		if raw, ok := f[k]; ok && string(raw) != "null" {
			out[k] = raw
		}
	}
	ann := fields{}
	if raw, ok := f["annotations"]; ok && string(raw) != "null" {
		var err error
		if ann, err = readItem(raw, at.Field("annotations")); err != nil {
			return nil, err
		}
	}
	a := map[string]any{}
	if err := putStr(a, ann, "title", at.Field("annotations")); err != nil {
		return nil, err
	}
	for _, h := range []struct {
		key string
		def bool
	}{{"readOnlyHint", false}, {"destructiveHint", true}, {"idempotentHint", false}, {"openWorldHint", true}} {
		b, err := ann.boolean(h.key, at.Field("annotations"), h.def)
		if err != nil {
			return nil, err
		}
		a[h.key] = b
	}
	out["annotations"] = a
	return out, nil
}

func projectResource(f fields, at automium.Path) (map[string]any, error) {
	out := map[string]any{}
	for _, k := range []string{"name", "title", "description", "mimeType"} {
		if err := putStr(out, f, k, at); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func projectPrompt(f fields, at automium.Path) (map[string]any, error) {
	out := map[string]any{}
	for _, k := range []string{"title", "description"} {
		if err := putStr(out, f, k, at); err != nil {
			return nil, err
		}
	}
	var args []json.RawMessage
	if raw, ok := f["arguments"]; ok && string(raw) != "null" {
		var values []jsontext.Value
		if err := jsonv2.Unmarshal(raw, &values); err != nil {
			return nil, refuse(CodeInvalidCatalog, at.Field("arguments"), "want an array (an empty one is [], never {})")
		}
		for _, v := range values {
			args = append(args, json.RawMessage(v))
		}
	}
	projected, err := project(args, at.Field("arguments"), "name", func(a fields, arg automium.Path) (map[string]any, error) {
		p := map[string]any{}
		for _, k := range []string{"title", "description"} {
			if err := putStr(p, a, k, arg); err != nil {
				return nil, err
			}
		}
		req, err := a.boolean("required", arg, false)
		p["required"] = req
		return p, err
	})
	if err != nil {
		return nil, err
	}
	out["arguments"] = projected
	return out, nil
}
