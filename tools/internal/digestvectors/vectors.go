// Package digestvectors builds testdata/digests/vectors.json: inputs, the exact
// bytes each digest of the module hashes, and the digests, from the code as
// built, so that another language can reproduce every rule of docs/digests.md.
// go generate ./... writes the file (generate_register.go) and the root
// package's TestDigestVectors compares it and checks every vector from its own
// bytes; .ci/run checks it again with an independent RFC 8785 implementation
// in JavaScript. Nothing here is part of the server.
package digestvectors

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/automium/automium"
	"github.com/automium/automium/binding"
	"github.com/automium/automium/canonicaljson"
	"github.com/automium/automium/internal/gen"
)

// GeneratedFiles lists the file this package generates.
func GeneratedFiles(fs.FS) (outs []gen.Output, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, ok := r.(failure)
			if !ok {
				panic(r)
			}
			err = f
		}
	}()
	return []gen.Output{gen.File(File, encode(build()))}, nil
}

// failure is a vector that could not be built: a change of the code broke one
// of its inputs, which the message names.
type failure struct{ error }

func fail(args ...any)                 { panic(failure{fmt.Errorf("%s", fmt.Sprint(args...))}) }
func failf(format string, args ...any) { panic(failure{fmt.Errorf(format, args...)}) }

// File is where the vectors are kept, relative to the module root.
const File = "testdata/digests/vectors.json"

// DigestVectors is the file's shape. Every "canonical" is a string holding the
// exact bytes that are hashed; every digest is "sha256:" and lowercase hex.
type DigestVectors struct {
	Comment   string            `json:"comment"`
	Canonical []CanonicalVector `json:"canonical"`
	Refused   []RefusedVector   `json:"refused"`
	Journeys  []JourneyVector   `json:"journeys"`
	Manifests []ManifestVector  `json:"manifests"`
	Runs      []RunVector       `json:"runs"`
	Catalogs  []CatalogVector   `json:"catalogs"`
	Policies  []PolicyVector    `json:"policies"`
	Grants    []GrantVector     `json:"grants"`
}

// CanonicalVector: RFC 8785 of JSON text, and the SHA-256 of the result.
type CanonicalVector struct {
	Name      string `json:"name"`
	JSON      string `json:"json"`
	Canonical string `json:"canonical"`
	Digest    string `json:"digest"`
}

// RefusedVector: bytes with no canonical form (base64, since some are not
// UTF-8). A conforming implementation refuses them; the JavaScript check
// skips them, since JSON.parse repairs or accepts some.
type RefusedVector struct {
	Name   string `json:"name"`
	Base64 string `json:"base64"`
	Why    string `json:"why"`
}

// JourneyVector: a journey as compile_journey takes it, and its compiled graph
// as the answer carries it; the digest hashes the graph with "digest":"".
type JourneyVector struct {
	Name      string                       `json:"name"`
	Input     automium.CompileJourneyInput `json:"input"`
	Journey   json.RawMessage              `json:"journey"`
	Canonical string                       `json:"canonical"`
}

// ManifestVector: a manifest request and its answer; the digest hashes the
// answer with "digest":"".
type ManifestVector struct {
	Name      string                            `json:"name"`
	Input     automium.GetArtifactManifestInput `json:"input"`
	Manifest  json.RawMessage                   `json:"manifest"`
	Canonical string                            `json:"canonical"`
}

// RunVector: a submission and its answer; the run ID is "run-" and the first 20
// hex digits of the SHA-256 of the canonical object of the answer's members
// RunIDMembers.
type RunVector struct {
	Name      string                            `json:"name"`
	Input     automium.CreateRunSubmissionInput `json:"input"`
	Run       json.RawMessage                   `json:"run"`
	Members   []string                          `json:"members"`
	Canonical string                            `json:"canonical"`
}

// CatalogVector: a catalog document under one rule (tool-catalog-v1,
// binding.Catalog.Canonical, or tool-catalog-v2, binding.Catalog.CanonicalV2)
// and its digest. The document is canonical JSON; how it is built from the
// list answers is binding's rule (docs/binding.md). A tool-catalog-v2 vector
// also carries the list items it is built from, so that another
// implementation rebuilds the document from them.
type CatalogVector struct {
	Name      string        `json:"name"`
	Rule      string        `json:"rule"`
	Lists     *CatalogLists `json:"lists,omitempty"`
	Canonical string        `json:"canonical"`
	Digest    string        `json:"digest"`
}

// CatalogLists are a catalog's list items, as a server sent them.
type CatalogLists struct {
	ProtocolVersion   string            `json:"protocolVersion"`
	Tools             []json.RawMessage `json:"tools"`
	Resources         []json.RawMessage `json:"resources"`
	ResourceTemplates []json.RawMessage `json:"resourceTemplates"`
	Prompts           []json.RawMessage `json:"prompts"`
}

// catalogV2Vector builds the tool-catalog-v2 vector of c.
func catalogV2Vector(name string, c binding.Catalog) CatalogVector {
	canonical, err := c.CanonicalV2()
	if err != nil {
		fail(err)
	}
	digest, err := c.DigestV2()
	if err != nil {
		fail(err)
	}
	orEmpty := func(l []json.RawMessage) []json.RawMessage {
		if l == nil {
			return []json.RawMessage{}
		}
		return l
	}
	return CatalogVector{Name: name, Rule: binding.CatalogRuleV2, Canonical: string(canonical), Digest: digest,
		Lists: &CatalogLists{ProtocolVersion: c.ProtocolVersion, Tools: orEmpty(c.Tools), Resources: orEmpty(c.Resources),
			ResourceTemplates: orEmpty(c.ResourceTemplates), Prompts: orEmpty(c.Prompts)}}
}

// PolicyVector: binding.Digest of a JSON value, the policy digest rule.
type PolicyVector struct {
	Name   string          `json:"name"`
	Value  json.RawMessage `json:"value"`
	Digest string          `json:"digest"`
}

// GrantVector: the grants IssuePlan made for one plan, as they are sent, and
// the seal key (its secret in hex). Each grant's ID is the digest of the grant
// without "id" and "seal" and with "grant": "action-grant-v2"; the plan ID is
// the digest of the plan document rebuilt from the grants; the seal is an
// HMAC-SHA256 of "action-grant-v2 seal" 0x00 keyId 0x00 grantId
// (docs/binding.md, "The rules, for another implementation").
type GrantVector struct {
	Name      string            `json:"name"`
	KeyID     string            `json:"keyId"`
	SecretHex string            `json:"secretHex"`
	Grants    []json.RawMessage `json:"grants"`
}

// runIDMembers are the members of a run submission's answer its ID hashes.
var runIDMembers = []string{"schemaVersion", "corpusVersion", "journeyId", "journeyDigest", "appId", "fixtureId", "planner", "environmentProfileId"}

func sha(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// canonicalOf canonicalizes v's encoding/json form with one member replaced.
func canonicalOf(v any, member string, value any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		fail(err)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		fail(err)
	}
	if member != "" {
		raw, _ := json.Marshal(value)
		obj[member] = raw
	}
	data, _ = json.Marshal(obj)
	c, err := canonicaljson.Canonicalize(data)
	if err != nil {
		fail(err)
	}
	return c
}

func build() DigestVectors {
	ctx := context.Background()
	v := DigestVectors{Comment: "Digest test vectors; rules in docs/digests.md. Written by go generate ./... (tools/internal/digestvectors) and checked by Go (TestDigestVectors) and by testdata/digests/check.mjs (an independent RFC 8785 implementation)."}

	for _, c := range []struct{ name, json string }{
		{"RFC 8785 section 3.2.2", `{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001], "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/", "literals": [null, true, false]}`},
		{"RFC 8785 section 3.2.3 sorting by UTF-16 code units", `{"\u20ac": "Euro Sign", "\r": "Carriage Return", "\ufb33": "Hebrew Letter Dalet With Dagesh", "1": "One", "\ud83d\ude00": "Emoji: Grinning Face", "\u0080": "Control", "\u00f6": "Latin Small Letter O With Diaeresis"}`},
		{"HTML characters, U+2028, DEL and controls are not escaped beyond JSON's minimum", `"<script>&amp;</script>\u2028\u2029\u007f\u0000\u001f\b\t\n\f\r"`},
		{"numbers: zero, minus zero, exponents, the 2^53 edge and beyond", `[0, -0, -0.0, 1E2, 100.000, 1e-7, 1e21, 1e-6, 9007199254740991, 9007199254740992, 9007199254740993, 12345678901234567890, 5e-324, 1.7976931348623157e308, 0.1, -1.5e-10]`},
		{"nested objects sort at every level; arrays keep their order", `{"b":[{"z":1,"a":2},3,"x"],"a":{"d":{},"c":[]}}`},
		{"member names that differ only after a non-BMP character", `{"a\ud83d\ude00":1,"a\uffff":2,"a":3,"":4}`},
		{"escaped and literal spellings of one string", `["\u00e9", "é", "\/", "/", "\u0041"]`},
	} {
		canonical, err := canonicaljson.Canonicalize([]byte(c.json))
		if err != nil {
			failf("%s: %v", c.name, err)
		}
		v.Canonical = append(v.Canonical, CanonicalVector{Name: c.name, JSON: c.json, Canonical: string(canonical), Digest: sha(canonical)})
	}

	for _, r := range []struct{ name, in, why string }{
		{"duplicate member name", `{"a":1,"a":2}`, "duplicate member name"},
		{"duplicate member name spelled two ways", `{"a":1,"\u0061":2}`, "duplicate member name"},
		{"lone high surrogate escape", `"\ud800"`, "lone surrogate"},
		{"lone low surrogate escape", `"\udc00"`, "lone surrogate"},
		{"invalid UTF-8 byte", "\"run-A\xff\"", "invalid UTF-8"},
		{"UTF-8 of a surrogate", "\"\xed\xa0\x80\"", "invalid UTF-8"},
		{"number beyond a double", `1e400`, "number out of range"},
		{"nesting deeper than 128", strings.Repeat("[", 129) + strings.Repeat("]", 129), "nesting deeper than 128"},
		{"trailing bytes", `{}x`, "not one JSON value"},
	} {
		v.Refused = append(v.Refused, RefusedVector{Name: r.name, Base64: base64.StdEncoding.EncodeToString([]byte(r.in)), Why: r.why})
	}

	ref, _ := automium.ReferenceJourney("storefront-search-add-to-cart")
	own := ref
	own.ID = "vector-journey"
	own.Goal = "Find a <kettle> & add it: “€5”, 😀, é, end"
	own.Steps = append([]automium.Step(nil), ref.Steps...)
	// U+2028 and a decomposed e\u0301 are in the text typed, not the goal:
	// a goal is one line, in NFC. Canonicalization normalizes neither.
	own.Steps[1].Value = `kettle "pro" \ 1/2` + "\u2028e\u0301 vs é"
	for _, j := range []struct {
		name string
		in   automium.CompileJourneyInput
	}{
		{"reference journey storefront-search-add-to-cart", ref},
		{"a journey of one's own with HTML, quotes, non-BMP and U+2028 in its text", own},
		{"the README's storefront-kettle-to-cart", readmeJourney},
	} {
		res, err := automium.CompileJourney(ctx, j.in)
		if err := errors.Join(err, res.Err()); err != nil {
			failf("%s: %v", j.name, err)
		}
		answer, _ := json.Marshal(res.Journey)
		v.Journeys = append(v.Journeys, JourneyVector{Name: j.name, Input: j.in, Journey: answer, Canonical: string(canonicalOf(res.Journey, "digest", ""))})
	}

	size := int64(52311)
	for _, m := range []struct {
		name string
		in   automium.GetArtifactManifestInput
	}{
		{"manifest with sizes, digests and a completeness check", automium.GetArtifactManifestInput{
			RunID: "run-0123456789abcdef0123", Root: "artifacts/storefront/guest-catalog",
			Entries: []automium.ArtifactEntry{
				{Kind: "trace", Path: "attempt-1/trace.zip", Size: &size, SHA256: strings.Repeat("ab", 32)},
				{Kind: "screenshot", Path: "attempt-1/failure.png"},
				{Kind: "report", Path: "report/index.html", MediaType: "text/html"},
			},
			Replay: &automium.ReplayOutcome{Verdict: "failed", RetryCount: 1},
		}},
		{"manifest with non-ASCII paths", automium.GetArtifactManifestInput{
			RunID: "run-0123456789abcdef0123", Root: "artefacts/café",
			Entries: []automium.ArtifactEntry{{Kind: "screenshot", Path: "étape-1/écran.png"}},
		}},
	} {
		res, err := automium.GetArtifactManifest(ctx, m.in)
		if err != nil {
			failf("%s: %v", m.name, err)
		}
		answer, _ := json.Marshal(res)
		v.Manifests = append(v.Manifests, ManifestVector{Name: m.name, Input: m.in, Manifest: answer, Canonical: string(canonicalOf(res, "digest", ""))})
	}

	planner := automium.PlannerRef{ID: "baseline", Vendor: "openai", Model: "gpt-4.1-mini"}
	for _, r := range []struct {
		name string
		in   automium.CreateRunSubmissionInput
	}{
		{"reference journey by ID", automium.CreateRunSubmissionInput{JourneyID: ref.ID, AppID: ref.AppID, FixtureID: ref.FixtureID, Planner: planner, EnvironmentProfileID: "desktop-1440-en-us"}},
		{"a journey of one's own, sent whole", automium.CreateRunSubmissionInput{Journey: &own, AppID: own.AppID, FixtureID: own.FixtureID,
			Planner: automium.PlannerRef{ID: "my-planner", Vendor: "anthropic", Model: "claude-sonnet-4@20250514"}, EnvironmentProfileID: "mobile-390-en-gb"}},
	} {
		res, err := automium.CreateRunSubmission(ctx, r.in)
		if err != nil {
			failf("%s: %v", r.name, err)
		}
		answer, _ := json.Marshal(res)
		var all map[string]json.RawMessage
		_ = json.Unmarshal(answer, &all)
		picked := map[string]json.RawMessage{}
		for _, m := range runIDMembers {
			picked[m] = all[m]
		}
		data, _ := json.Marshal(picked)
		canonical, err := canonicaljson.Canonicalize(data)
		if err != nil {
			fail(err)
		}
		v.Runs = append(v.Runs, RunVector{Name: r.name, Input: r.in, Run: answer, Members: runIDMembers, Canonical: string(canonical)})
	}

	catalog := binding.Catalog{
		ProtocolVersion: "2025-11-25",
		Tools: []json.RawMessage{
			json.RawMessage(`{"name":"write_file","description":"Write <text> & more","inputSchema":{"type":"object","properties":{"path":{"type":"string"},"text":{"type":"string"}},"required":["path","text"],"additionalProperties":false}}`),
			json.RawMessage(`{"name":"read_file","inputSchema":{"type":"object","properties":{"path":{"type":"string","maxLength":4096}},"required":["path"],"additionalProperties":false},"annotations":{"readOnlyHint":true}}`),
		},
	}
	canonical, err := catalog.Canonical()
	if err != nil {
		fail(err)
	}
	digest, err := catalog.Digest()
	if err != nil {
		fail(err)
	}
	v.Catalogs = append(v.Catalogs, CatalogVector{Name: "two tools, protocol 2025-11-25", Rule: binding.CatalogRule, Canonical: string(canonical), Digest: digest})
	// The digest the grants below pin.
	v.Catalogs = append(v.Catalogs, catalogV2Vector("two tools, protocol 2025-11-25", catalog))
	v.Catalogs = append(v.Catalogs, catalogV2Vector("every list, _meta, icons, annotations, a template, defaults and empty members", binding.Catalog{
		ProtocolVersion: "2025-11-25",
		Tools: []json.RawMessage{
			json.RawMessage(`{"name":"\ufb33","title":"","inputSchema":{"type":"object","properties":{},"additionalProperties":false},"outputSchema":null,"_meta":{"z":1.50,"a":"<&>"},"icons":[{"src":"ui://i.png","sizes":["16x16"]}],"annotations":{"readOnlyHint":true,"destructiveHint":null,"x-note":"kept"}}`),
			json.RawMessage(`{"name":"\ud83d\ude00","description":"emoji sorts first","_meta":{},"icons":[],"execution":{"taskSupport":"optional"}}`),
		},
		Resources: []json.RawMessage{
			json.RawMessage(`{"uri":"ui://screen","name":"screen","mimeType":"image/png","size":4096,"annotations":{"audience":["assistant"],"priority":0.5}}`),
		},
		ResourceTemplates: []json.RawMessage{
			json.RawMessage(`{"uriTemplate":"ui://oracle/{key}","name":"oracle","description":null,"_meta":{"k":[1,2]}}`),
			json.RawMessage(`{"uriTemplate":"ui://item/{id}","mimeType":"text/plain"}`),
		},
		Prompts: []json.RawMessage{
			json.RawMessage(`{"name":"describe","arguments":[{"name":"z","x-hint":"kept"},{"name":"a","required":true,"title":""}],"_meta":{"p":true}}`),
			json.RawMessage(`{"name":"bare","arguments":null}`),
		},
	}))

	for _, p := range []struct{ name, value string }{
		{"a policy document", `{"allow":[{"server":"files@1.2.0","tools":["read_file"]}],"deny":["write_file"],"note":"<b>no writes</b> – “strict”","maxCalls":25,"ratio":0.5}`},
	} {
		var value any
		if err := json.Unmarshal([]byte(p.value), &value); err != nil {
			fail(err)
		}
		d, err := binding.Digest(value)
		if err != nil {
			fail(err)
		}
		v.Policies = append(v.Policies, PolicyVector{Name: p.name, Value: json.RawMessage(p.value), Digest: d})
	}
	secret := []byte("digest-vectors-secret-0123456789")
	key := binding.SealKey{ID: "2026-12", Secret: secret}
	files := binding.ServerIdentity{Name: "files", Version: "1.2.0"}
	issued := time.Date(2026, 11, 30, 9, 0, 0, 250_000_000, time.UTC)
	grants, err := binding.IssuePlan(binding.Plan{
		Servers: []binding.PinnedServer{{Identity: files, Catalog: catalog}},
		RunID:   "run-0123456789abcdef0123", PolicyDigest: v.Policies[0].Digest,
		Host: "vm-host-7.lab.internal", VMUUID: "5C0F5B2E-8A43-4C1B-9A55-2F6E1D7C9B10",
		IssuedAt: issued, ExpiresAt: issued.Add(10 * time.Minute),
		Steps: [][]binding.Call{
			{
				{Tool: "read_file", Arguments: json.RawMessage(`{ "path": "notes/\u00e9t\u00e9.txt" }`)},
				{Tool: "write_file", Arguments: json.RawMessage(`{"text":"<b>1.0</b> & 😀","path":"out/a.txt"}`)},
			},
			{{Tool: "read_file", Arguments: json.RawMessage(`{"path":"out/a.txt"}`)}},
		},
	}, &key)
	if err != nil {
		fail(err)
	}
	gv := GrantVector{Name: "a sealed two-step plan, two candidates in its first step", KeyID: key.ID, SecretHex: hex.EncodeToString(secret)}
	for _, g := range grants {
		b, err := json.Marshal(g)
		if err != nil {
			fail(err)
		}
		gv.Grants = append(gv.Grants, b)
	}
	v.Grants = append(v.Grants, gv)
	return v
}

// readmeJourney is the journey the README compiles in its walk-through; its
// digest there is this vector's.
var readmeJourney = automium.CompileJourneyInput{
	ID: "storefront-kettle-to-cart", AppID: "storefront", FixtureID: "storefront-guest-catalog",
	Goal: "Search the storefront for an electric kettle and add it to the cart",
	Steps: []automium.Step{
		{Intent: "navigate", Value: "/"},
		{Intent: "fill", Target: &automium.Target{Role: "searchbox", Name: "Search products"}, Value: "electric kettle"},
		{Intent: "press_key", Value: "Enter"},
		{Intent: "click", Target: &automium.Target{Role: "link", Name: "Electric kettle"}},
		{Intent: "click", Target: &automium.Target{Role: "button", Name: "Add to cart"}},
	},
	Assertions: []automium.Assertion{{Kind: "text_visible", Value: "Added to cart"}},
	Recovery:   automium.Recovery{MaxRetries: 1, Strategies: []automium.RecoveryStrategy{"retry_step"}},
}

func encode(v DigestVectors) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		fail(err)
	}
	return buf.Bytes()
}
