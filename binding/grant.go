package binding

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/json/jsontext"
	jsonv2 "encoding/json/v2"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/automium/automium"
	"github.com/automium/automium/canonicaljson"
	"github.com/google/jsonschema-go/jsonschema"
)

// GrantRule names the canonical form of grants; it is the first member of the
// document whose digest is a grant's ID, so a grant ID can never be mistaken
// for another digest of the same fields. Version 2 grants a step's set of
// candidate calls and binds the plan's identity; version 1 granted one call
// chained to the previous grant.
const GrantRule = "action-grant-v2"

// PlanRule names the canonical form of plans; a plan's ID is the digest of its
// document under this rule.
const PlanRule = "action-plan-v1"

// ServerIdentity is who an MCP server says it is in initialize (or
// server/discover): its serverInfo name and version. A server can claim any
// identity, so a grant binds the identity together with the catalog digest, and
// the dispatcher routes to a server only through a transport its caller chose.
//
// An identity that binds is 1 to 128 printable ASCII characters in each part
// (U+0020 to U+007E): no NUL, no control character, no invisible or
// look-alike letter from another script, so two identities that differ are
// seen to differ by whoever reviews a plan.
type ServerIdentity struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

func (id ServerIdentity) String() string { return id.Name + "@" + id.Version }

// Call is one tool call as a planner or model decided it: the server it is for,
// the tool, and the arguments.
type Call struct {
	Server    ServerIdentity  `json:"server"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
}

// Candidate is one call a step allows, bound to its server: the server's
// identity and pinned tool-catalog-v2 digest, the tool's name as the catalog
// lists it, and arguments that validate against its closed input schema, in
// RFC 8785 canonical form.
type Candidate struct {
	Server        ServerIdentity  `json:"server"`
	CatalogDigest string          `json:"catalogDigest"`
	Tool          string          `json:"tool"`
	Arguments     json.RawMessage `json:"arguments"`
}

// Grant authorizes one step of one plan, once: exactly one of its candidate
// calls, whichever the model chooses, and only as granted. Every field but ID
// and Seal is bound; ID is the digest of them and Seal an HMAC of ID, so
// changing any field, or the order of the candidates, shows. A Grant is plain
// data: it can be stored, sent and logged as JSON, and its methods, which do
// not change it, may be called concurrently.
//
// # The action-grant-v2 rule
//
// The ID is "sha256:" and the lowercase hex SHA-256 of the RFC 8785 canonical
// JSON of
//
//	{"grant": "action-grant-v2", "planId", "step",
//	 "candidates": [{"server": {"name", "version"}, "catalogDigest", "tool",
//	                 "arguments": <the arguments as a JSON object>}, ...],
//	 "runId", "policyDigest", "host", "vmUuid", "issuedAt", "expiresAt"}
//
// with the candidates in the grant's order, "step" a JSON number, "arguments"
// the JSON object itself (not a string), and the two times written as RFC 3339
// UTC with "Z", with a fraction of a second only when it is not zero and then
// without trailing zeros (Go's time.RFC3339Nano; 2026-11-30T09:00:00Z,
// 2026-11-30T09:00:00.5Z). Every string is the field's exact bytes, which must
// be valid UTF-8: canonicaljson refuses anything else rather than repair it.
type Grant struct {
	ID string `json:"id"`
	// PlanID is the ID of the plan the step belongs to (see [Plan]): two plans
	// that share steps still have different grants, and a broker that has run
	// a step of one plan never accepts a step of another.
	PlanID string `json:"planId"`
	// Step is the step's position in its plan, from 0.
	Step int `json:"step"`
	// Candidates are the calls the step allows, 1 to MaxStepCandidates; the
	// model chooses one, and the step is consumed whichever it was.
	Candidates []Candidate `json:"candidates"`
	// RunID and PolicyDigest scope the grant to one run under one policy.
	RunID        string `json:"runId"`
	PolicyDigest string `json:"policyDigest"`
	// Host and VMUUID are the target the call may act on.
	Host   string `json:"host"`
	VMUUID string `json:"vmUuid"`
	// IssuedAt and ExpiresAt bound when the grant may be used.
	IssuedAt  time.Time `json:"issuedAt"`
	ExpiresAt time.Time `json:"expiresAt"`
	// Seal is set when the grant was issued with a key.
	Seal *Seal `json:"seal,omitempty"`
}

// Seal is an HMAC-SHA256 of a grant's ID under a key the issuer and the broker
// share, with the ID of the key that made it. A model that sees grants cannot
// forge or alter one without the key.
//
// MAC is "hmac-sha256:" and the 64 lowercase hex digits of
// HMAC-SHA256(secret, "action-grant-v2 seal" || 0x00 || keyId || 0x00 || grantId),
// the strings as their UTF-8 (here ASCII) bytes. The key ID is inside the MAC,
// so a seal cannot be relabelled as made by another key.
type Seal struct {
	KeyID string `json:"keyId"`
	MAC   string `json:"mac"`
}

// SealKey is an HMAC key. The caller passes the secret in as bytes; nothing in
// this package reads a key from the environment or a file. ID names the key so
// that a broker can hold the current and the previous key during a rotation.
type SealKey struct {
	ID     string
	Secret []byte
}

// MinSealKeyBytes is the shortest secret accepted: 256 bits, the size of the
// HMAC-SHA256 output.
const MinSealKeyBytes = 32

// keyIDPattern is the form of a key ID: short, ASCII, no separators a log or
// the seal's input could confuse.
var keyIDPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9._:-]{1,64}$`) })

func (k SealKey) check(at automium.Path) error {
	if !keyIDPattern().MatchString(k.ID) {
		return refuse(CodeInvalidGrant, at.Field("ID"), "a seal key needs an ID of 1 to 64 characters from A-Z a-z 0-9 . _ : -")
	}
	if len(k.Secret) < MinSealKeyBytes {
		return refuse(CodeInvalidGrant, at.Field("Secret"), "a seal key needs at least %d random bytes, got %d", MinSealKeyBytes, len(k.Secret))
	}
	return nil
}

// mac computes the seal of a grant ID.
func (k SealKey) mac(grantID string) string {
	h := hmac.New(sha256.New, k.Secret)
	h.Write(sealInput(k.ID, grantID))
	return "hmac-sha256:" + hex.EncodeToString(h.Sum(nil))
}

// sealInput is the message a seal authenticates; see [Seal].
func sealInput(keyID, grantID string) []byte {
	return []byte(GrantRule + " seal\x00" + keyID + "\x00" + grantID)
}

// PinnedServer is a server a plan may call: its identity and the catalog the
// plan was reviewed against, whose digest every candidate for it binds.
type PinnedServer struct {
	Identity ServerIdentity
	Catalog  Catalog
}

// Plan is what a trusted planner hands [IssuePlan]: the servers it may call,
// each pinned by identity and catalog, a scope, a validity window, and its
// steps in order, each a set of candidate calls.
//
// # The action-plan-v1 rule
//
// A plan's ID is "sha256:" and the lowercase hex SHA-256 of the RFC 8785
// canonical JSON of
//
//	{"plan": "action-plan-v1", "runId", "policyDigest", "host", "vmUuid",
//	 "issuedAt", "expiresAt", "steps": [[<candidate>, ...], ...]}
//
// where each candidate is written as in [Grant]'s rule, in the plan's order,
// and the times as there. Every grant of the plan carries this ID.
type Plan struct {
	// Servers are the servers the plan may call, each once.
	Servers      []PinnedServer
	RunID        string
	PolicyDigest string
	Host         string
	VMUUID       string
	IssuedAt     time.Time
	ExpiresAt    time.Time
	// Steps are the steps in the order they must run; each is the list of
	// calls the model may choose from at that step, 1 to MaxStepCandidates,
	// no two the same. A call's Server may be left empty when the plan has
	// one server.
	Steps [][]Call
}

// Bounds of a plan.
const (
	// MaxPlanCalls bounds the number of steps in one plan.
	MaxPlanCalls = 1000
	// MaxStepCandidates bounds the candidate calls of one step.
	MaxStepCandidates = 32
	// MaxGrantLifetime is the longest validity window IssuePlan grants and a
	// broker can be configured to accept; see [BrokerOptions.MaxLifetime].
	MaxGrantLifetime = 24 * time.Hour
)

// IssuePlan returns one grant per step of the plan, in order. When key is not
// nil every grant is sealed with it. It refuses a plan whose scope is
// malformed, a server or tool the plan did not pin, an input schema that is
// not closed, arguments outside that schema, and two equal candidates in one
// step: a grant that could not be honoured is never made.
func IssuePlan(p Plan, key *SealKey) ([]Grant, error) {
	if key != nil {
		if err := key.check(automium.PathOf("key")); err != nil {
			return nil, err
		}
	}
	if len(p.Steps) == 0 || len(p.Steps) > MaxPlanCalls {
		return nil, refuse(CodeInvalidGrant, automium.PathOf("steps"), "a plan has 1 to %d steps, got %d", MaxPlanCalls, len(p.Steps))
	}
	if p.ExpiresAt.Sub(p.IssuedAt) > MaxGrantLifetime {
		return nil, refuse(CodeInvalidGrant, automium.PathOf("expiresAt"), "a grant lives at most %v; this plan asks for %v", MaxGrantLifetime, p.ExpiresAt.Sub(p.IssuedAt))
	}
	vm, err := canonicalUUID(p.VMUUID)
	if err != nil {
		return nil, err
	}
	servers := make(map[ServerIdentity]pinned, len(p.Servers))
	for i, s := range p.Servers {
		at := automium.PathOf("servers").Index(i)
		if err := checkIdentity(s.Identity, at.Field("identity")); err != nil {
			return nil, err
		}
		if _, dup := servers[s.Identity]; dup {
			return nil, refuse(CodeInvalidGrant, at, "server %s is pinned twice", automium.ClientValue(s.Identity.String()))
		}
		digest, err := s.Catalog.DigestV2()
		if err != nil {
			return nil, err
		}
		servers[s.Identity] = pinned{digest: digest, schemas: s.Catalog.inputSchemas(), resolved: map[string]*jsonschema.Resolved{}}
	}
	steps := make([][]Candidate, len(p.Steps))
	for i, calls := range p.Steps {
		if len(calls) == 0 || len(calls) > MaxStepCandidates {
			return nil, refuse(CodeInvalidGrant, automium.PathOf("steps").Index(i), "a step has 1 to %d candidate calls, got %d", MaxStepCandidates, len(calls))
		}
		for j, c := range calls {
			at := automium.PathOf("steps").Index(i).Index(j)
			cand, err := candidate(c, p.Servers, servers, at)
			if err != nil {
				return nil, err
			}
			for k, other := range steps[i] {
				if other.Server == cand.Server && other.Tool == cand.Tool && string(other.Arguments) == string(cand.Arguments) {
					return nil, refuse(CodeInvalidGrant, at, "the step lists this call twice (as candidate %d too); each candidate must be distinct", k)
				}
			}
			steps[i] = append(steps[i], cand)
		}
	}
	scope := Grant{RunID: p.RunID, PolicyDigest: p.PolicyDigest, Host: p.Host, VMUUID: vm,
		IssuedAt: p.IssuedAt.UTC(), ExpiresAt: p.ExpiresAt.UTC()}
	planID, err := planID(scope, steps)
	if err != nil {
		return nil, err
	}
	grants := make([]Grant, len(steps))
	for i, cands := range steps {
		g := scope
		g.PlanID, g.Step, g.Candidates = planID, i, cands
		if err := g.checkFields(); err != nil {
			return nil, err
		}
		if g.ID, err = g.ComputeID(); err != nil {
			return nil, err
		}
		if key != nil {
			g.Seal = &Seal{KeyID: key.ID, MAC: key.mac(g.ID)}
		}
		grants[i] = g
	}
	return grants, nil
}

type pinned struct {
	digest   string
	schemas  map[string]json.RawMessage      // by tool name
	resolved map[string]*jsonschema.Resolved // closed schemas resolved so far, by tool name
}

// candidate binds one call of a plan to its pinned server.
func candidate(c Call, list []PinnedServer, servers map[ServerIdentity]pinned, at automium.Path) (Candidate, error) {
	id := c.Server
	if id == (ServerIdentity{}) {
		if len(list) != 1 {
			return Candidate{}, refuse(CodeInvalidGrant, at.Field("server"), "the plan pins %d servers, so each call must name its server", len(list))
		}
		id = list[0].Identity
	}
	pin, ok := servers[id]
	if !ok {
		return Candidate{}, refuse(CodeServerUnknown, at.Field("server"), "the call names server %s, which the plan does not pin", automium.ClientValue(id.String()))
	}
	if !toolNamePattern().MatchString(c.Tool) {
		return Candidate{}, refuse(CodeCallAltered, at.Field("tool"), "a tool name that binds is 1 to 128 characters from A-Z a-z 0-9 _ - . (MCP's tool name rule), got %s", automium.ClientValue(c.Tool))
	}
	schema, ok := pin.schemas[c.Tool]
	if !ok {
		return Candidate{}, refuse(CodeCallAltered, at.Field("tool"), "the pinned catalog of %s has no tool %s with an input schema", automium.ClientValue(id.String()), automium.ClientValue(c.Tool))
	}
	resolved := pin.resolved[c.Tool]
	if resolved == nil {
		var err error
		if resolved, err = compileClosedSchema(schema, at.Field("tool")); err != nil {
			return Candidate{}, err
		}
		pin.resolved[c.Tool] = resolved
	}
	args, err := canonicalArguments(resolved, c.Arguments, at.Field("arguments"))
	if err != nil {
		return Candidate{}, err
	}
	return Candidate{Server: id, CatalogDigest: pin.digest, Tool: c.Tool, Arguments: args}, nil
}

// toolNamePattern is MCP's tool name rule (2025-11-25): what a tool name that
// can be bound looks like. Anything else (a NUL, a space, a look-alike letter)
// is refused rather than bound.
var toolNamePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`) })

// checkIdentity refuses a server identity that is not printable ASCII, or
// that starts or ends with a space a reviewer would not see.
func checkIdentity(id ServerIdentity, at automium.Path) error {
	for _, part := range []string{id.Name, id.Version} {
		if part == "" || len(part) > 128 || strings.TrimSpace(part) != part || strings.IndexFunc(part, func(r rune) bool { return r < 0x20 || r > 0x7e }) >= 0 {
			return refuse(CodeInvalidGrant, at, "a server identity that binds has a name and a version of 1 to 128 printable ASCII characters, not starting or ending with a space, got %s", automium.ClientValue(id.String()))
		}
	}
	return nil
}

// CheckIdentity reports whether id can be bound (see [ServerIdentity]); the
// dispatcher refuses to connect a server whose identity cannot.
func CheckIdentity(id ServerIdentity) error { return checkIdentity(id, automium.PathOf("serverInfo")) }

// checkFields checks the fields a grant must have to be meaningful.
func (g Grant) checkFields() error {
	switch {
	case g.RunID == "":
		return refuse(CodeInvalidGrant, automium.PathOf("runId"), "a grant needs the run ID it is for")
	case !IsDigest(g.PolicyDigest):
		return refuse(CodeInvalidGrant, automium.PathOf("policyDigest"), "want the policy digest, of the form sha256:<64 lowercase hex>")
	case g.Host == "" || len(g.Host) > 253 || strings.ContainsAny(g.Host, " \t\r\n/"):
		return refuse(CodeInvalidGrant, automium.PathOf("host"), "want a host name of 1 to 253 characters")
	case g.Step < 0 || g.Step >= MaxPlanCalls:
		return refuse(CodeInvalidGrant, automium.PathOf("step"), "a step is 0 to %d", MaxPlanCalls-1)
	case len(g.Candidates) == 0 || len(g.Candidates) > MaxStepCandidates:
		return refuse(CodeInvalidGrant, automium.PathOf("candidates"), "a step has 1 to %d candidate calls", MaxStepCandidates)
	case g.IssuedAt.IsZero() || !g.ExpiresAt.After(g.IssuedAt):
		return refuse(CodeInvalidGrant, automium.PathOf("expiresAt"), "a grant needs an issue time and an expiry after it")
	case g.IssuedAt.UTC().Year() < 1 || g.ExpiresAt.UTC().Year() > 9999:
		return refuse(CodeInvalidGrant, automium.PathOf("expiresAt"), "grant times are within the years 1 to 9999, which RFC 3339 can write")
	case !IsDigest(g.PlanID):
		return refuse(CodeInvalidGrant, automium.PathOf("planId"), "want the plan's ID, of the form sha256:<64 lowercase hex>")
	}
	for i, c := range g.Candidates {
		if err := checkIdentity(c.Server, automium.PathOf("candidates").Index(i).Field("server")); err != nil {
			return err
		}
		if !IsDigest(c.CatalogDigest) {
			return refuse(CodeInvalidGrant, automium.PathOf("candidates").Index(i).Field("catalogDigest"), "want a digest of the form sha256:<64 lowercase hex>")
		}
	}
	if _, err := canonicalUUID(g.VMUUID); err != nil {
		return err
	}
	return nil
}

// uuidPattern is compiled on first use, as digestPattern is.
var uuidPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
})

// canonicalUUID returns the lowercase form of an RFC 9562 UUID, so that one VM
// has one spelling in a grant.
func canonicalUUID(s string) (string, error) {
	if !uuidPattern().MatchString(s) {
		return "", refuse(CodeInvalidGrant, automium.PathOf("vmUuid"), "want the VM's UUID as 8-4-4-4-12 hex digits, got %s", automium.ClientValue(s))
	}
	return strings.ToLower(s), nil
}

// ComputeID returns the digest of the grant's bound fields: what its ID must be.
// Issuers set ID to it; [Grant.Verify] compares the two.
func (g Grant) ComputeID() (string, error) {
	cands, err := candidatesDoc(g.Candidates)
	if err != nil {
		return "", err
	}
	canonical, err := marshalCanonical(map[string]any{
		"grant":        GrantRule,
		"planId":       g.PlanID,
		"step":         g.Step,
		"candidates":   cands,
		"runId":        g.RunID,
		"policyDigest": g.PolicyDigest,
		"host":         g.Host,
		"vmUuid":       g.VMUUID,
		"issuedAt":     g.IssuedAt.UTC().Format(time.RFC3339Nano),
		"expiresAt":    g.ExpiresAt.UTC().Format(time.RFC3339Nano),
	})
	if err != nil {
		return "", refuse(CodeGrantAltered, automium.PathOf("id"), "the grant has no canonical form: %s", shorten(err.Error()))
	}
	return digestOf(canonical), nil
}

// planID returns the action-plan-v1 digest of a plan's scope and steps.
func planID(scope Grant, steps [][]Candidate) (string, error) {
	docs := make([]any, len(steps))
	for i, s := range steps {
		d, err := candidatesDoc(s)
		if err != nil {
			return "", err
		}
		docs[i] = d
	}
	canonical, err := marshalCanonical(map[string]any{
		"plan":         PlanRule,
		"runId":        scope.RunID,
		"policyDigest": scope.PolicyDigest,
		"host":         scope.Host,
		"vmUuid":       scope.VMUUID,
		"issuedAt":     scope.IssuedAt.UTC().Format(time.RFC3339Nano),
		"expiresAt":    scope.ExpiresAt.UTC().Format(time.RFC3339Nano),
		"steps":        docs,
	})
	if err != nil {
		return "", refuse(CodeInvalidGrant, automium.PathOf("plan"), "the plan has no canonical form: %s", shorten(err.Error()))
	}
	return digestOf(canonical), nil
}

// candidatesDoc is the candidates as the grant and plan documents write them;
// the arguments must be I-JSON objects.
func candidatesDoc(cands []Candidate) ([]any, error) {
	out := make([]any, len(cands))
	for i, c := range cands {
		if len(c.Arguments) == 0 {
			return nil, refuse(CodeGrantAltered, automium.PathOf("candidates").Index(i).Field("arguments"), "a candidate carries its arguments, at least {}")
		}
		args, err := canonicaljson.Canonicalize(c.Arguments)
		if err != nil || args[0] != '{' {
			return nil, refuse(CodeGrantAltered, automium.PathOf("candidates").Index(i).Field("arguments"), "the granted arguments are not an I-JSON object")
		}
		out[i] = map[string]any{
			"server":        map[string]any{"name": c.Server.Name, "version": c.Server.Version},
			"catalogDigest": c.CatalogDigest,
			"tool":          c.Tool,
			"arguments":     jsontext.Value(args),
		}
	}
	return out, nil
}

// ParseGrant reads a grant from JSON, strictly: the input must be I-JSON (no
// duplicate names, valid UTF-8), member names match exactly and no two differ
// only in case, and no member is unknown. A grant that travelled through a
// model's hands is best read with it: encoding/json would match "RUNID" to
// RunID and keep the last of two duplicates. ParseGrant does not verify the
// grant; a [Broker] does.
func ParseGrant(data []byte) (Grant, error) {
	if _, err := canonicaljson.Canonicalize(data); err != nil {
		return Grant{}, refuse(CodeInvalidGrant, automium.PathOf("grant"), "want an I-JSON object: %v", err)
	}
	if a, b, ok := caseVariantNames(data); ok {
		return Grant{}, refuse(CodeInvalidGrant, automium.PathOf("grant"), "member names %s and %s differ only in case", automium.ClientValue(a), automium.ClientValue(b))
	}
	var g Grant
	if err := jsonv2.Unmarshal(data, &g, jsonv2.RejectUnknownMembers(true)); err != nil {
		return Grant{}, refuse(CodeInvalidGrant, automium.PathOf("grant"), "not a grant: %s", shorten(err.Error()))
	}
	return g, nil
}

// marshalCanonical returns the RFC 8785 form of a document built here from
// maps, strings, numbers and canonical JSON values. It marshals with
// encoding/json/v2, which refuses a string that is not valid UTF-8 where
// encoding/json would write U+FFFD, so two grants that differ only in invalid
// bytes never share an ID.
func marshalCanonical(doc map[string]any) ([]byte, error) {
	data, err := jsonv2.Marshal(doc)
	if err != nil {
		return nil, err
	}
	return canonicaljson.Canonicalize(data)
}

// Verify checks that g is intact: its ID is the digest of its fields and, when
// keys are given, it carries a seal made by one of them. It is what a [Broker]
// checks first; a receiver of grants may call it on its own.
func (g Grant) Verify(keys ...SealKey) error {
	id, err := g.ComputeID()
	if err != nil {
		return err
	}
	if !hmac.Equal([]byte(id), []byte(g.ID)) {
		return refuse(CodeGrantAltered, automium.PathOf("id"), "the grant's fields do not hash to its ID %s; a field was changed after issue", quoteDigest(g.ID))
	}
	if len(keys) == 0 {
		return nil
	}
	if g.Seal == nil {
		return refuse(CodeGrantUnsealed, automium.PathOf("seal"), "the grant is not sealed and this broker accepts only sealed grants")
	}
	for _, k := range keys {
		if k.ID == g.Seal.KeyID {
			if !hmac.Equal([]byte(k.mac(g.ID)), []byte(g.Seal.MAC)) {
				return refuse(CodeGrantUnsealed, automium.PathOf("seal").Field("mac"), "the seal does not verify under key %s; the grant was forged or altered", automium.ClientValue(k.ID))
			}
			return nil
		}
	}
	return refuse(CodeGrantUnsealed, automium.PathOf("seal").Field("keyId"), "the grant is sealed with key %s, which this broker does not hold", automium.ClientValue(g.Seal.KeyID))
}
