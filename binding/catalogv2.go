package binding

import (
	"encoding/json"
	"slices"

	"github.com/automium/automium"
)

// CatalogRuleV2 names the rule binding pins: tool-catalog-v2. It covers
// everything tool-catalog-v1 does and, in addition, resource templates and
// every member of every item that v1 leaves out ("_meta", "icons", resource
// annotations, tool annotations beyond the four hints, and any member a later
// protocol adds), so that nothing a server advertises can change without
// changing the digest. [IssuePlan], the [Broker]'s grants and the dispatcher
// in binding/dispatch all use it; tool-catalog-v1 ([Catalog.Digest]) stays
// what Automium's own server advertises.
const CatalogRuleV2 = "tool-catalog-v2"

// CatalogRulesV2 states the tool-catalog-v2 rule, as [CatalogRules] states
// v1: one sentence group a rule, the words docs/binding.md repeats (a test
// holds the document to them) and TestCatalogRulesV2Hold holds the code to.
// It returns a new slice on every call.
func CatalogRulesV2() []string {
	return []string{
		`The digest is "sha256:" followed by the lowercase hex SHA-256 of the RFC 8785 form of the document {"catalog": "tool-catalog-v2", "protocolVersion", "tools", "resources", "resourceTemplates", "prompts"}. The four lists are always present: [] when the server has none or does not announce the capability. RFC 8785 and the I-JSON and case-folding rules for every list item are tool-catalog-v1's.`,
		`tools, resources and prompts are every item of every page of tools/list, resources/list and prompts/list, each read as tool-catalog-v1 reads it (the same members, the same defaults, the same refusals), and then every other member of the item is added whole, as its RFC 8785 form, unless it is null, "", {} or []: those are the same as an absent member. So "_meta", "icons", "execution" and any member a later protocol adds are part of the digest. The one member left out is a resource's "size", which follows the body, not the contract.`,
		`The same holds one level down: a tool's "annotations" keep every member besides "title" and the four hints, and a prompt argument every member besides "name", "title", "description" and "required", under the same rule.`,
		`resourceTemplates: every resource template of every resources/templates/list page, read as a resource is, with "uriTemplate", a non-empty string, in place of "uri". Templates are sorted by uriTemplate, and two templates with one uriTemplate make the catalog invalid.`,
		`A member of an item whose value breaks tool-catalog-v1's type rules makes the catalog invalid, as in v1.`,
	}
}

// DigestV2 returns the catalog's tool-catalog-v2 digest: the digest a plan pins.
func (c Catalog) DigestV2() (string, error) {
	canonical, err := c.CanonicalV2()
	if err != nil {
		return "", err
	}
	return digestOf(canonical), nil
}

// CanonicalV2 returns the canonical tool-catalog-v2 document whose SHA-256 is
// [Catalog.DigestV2].
func (c Catalog) CanonicalV2() ([]byte, error) {
	if c.ProtocolVersion == "" {
		return nil, refuse(CodeInvalidCatalog, automium.PathOf("protocolVersion"), "the protocol version is missing; it is part of the digest")
	}
	tools, err := project(c.Tools, automium.PathOf("tools"), "name", withRest(projectTool, "name"))
	if err != nil {
		return nil, err
	}
	resources, err := project(c.Resources, automium.PathOf("resources"), "uri", withRest(projectResource, "uri", "size"))
	if err != nil {
		return nil, err
	}
	templates, err := project(c.ResourceTemplates, automium.PathOf("resourceTemplates"), "uriTemplate", withRest(projectResource, "uriTemplate"))
	if err != nil {
		return nil, err
	}
	prompts, err := project(c.Prompts, automium.PathOf("prompts"), "name", withRest(projectPrompt, "name"))
	if err != nil {
		return nil, err
	}
	doc := map[string]any{
		"catalog":           CatalogRuleV2,
		"protocolVersion":   c.ProtocolVersion,
		"tools":             tools,
		"resources":         resources,
		"resourceTemplates": templates,
		"prompts":           prompts,
	}
	return appendCanonical(nil, doc), nil
}

// withRest extends a v1 projection with every member of the item v1 left out
// (the projection's own members and skip excepted), and does the same for the
// nested objects v1 projects: a tool's annotations and a prompt's arguments.
func withRest(fn func(fields, automium.Path) (map[string]any, error), skip ...string) func(fields, automium.Path) (map[string]any, error) {
	return func(f fields, at automium.Path) (map[string]any, error) {
		out, err := fn(f, at)
		if err != nil {
			return nil, err
		}
		if a, ok := out["annotations"].(map[string]any); ok && f["annotations"] != nil && string(f["annotations"]) != "null" {
			ann, err := readItem(f["annotations"], at.Field("annotations"))
			if err != nil {
				return nil, err
			}
			keepRest(a, ann, "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
		}
		if args, ok := out["arguments"].([]map[string]any); ok && len(args) > 0 {
			// project sorted the arguments by name; match them back by name.
			var raws []json.RawMessage
			_ = json.Unmarshal(f["arguments"], &raws) // projectPrompt read it already
			byName := map[string]fields{}
			for i, raw := range raws {
				af, err := readItem(raw, at.Field("arguments").Index(i))
				if err != nil {
					return nil, err
				}
				n, _ := af.str("name", automium.Path{})
				byName[n] = af
			}
			for _, a := range args {
				keepRest(a, byName[a["name"].(string)])
			}
		}
		keepRest(out, f, skip...)
		return out, nil
	}
}

// keepRest adds to out every member of f that out does not have and skip does
// not name, whole, unless it is null, "", {} or [] (the same as absent).
func keepRest(out map[string]any, f fields, skip ...string) {
	for name, raw := range f {
		if _, done := out[name]; done || slices.Contains(skip, name) {
			continue
		}
		switch string(raw) {
		case "null", `""`, "{}", "[]":
			continue
		}
		out[name] = json.RawMessage(raw)
	}
}
