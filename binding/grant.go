package binding

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/automium/automium/canonicaljson"
	"github.com/automium/automium/internal/echo"
)

// GrantRule names the canonical form of grants; it is the first field of the
// document whose digest is a grant's ID, so a grant ID can never be mistaken for
// another digest of the same fields.
const GrantRule = "action-grant-v1"

// ServerIdentity is who an MCP server says it is in initialize (or
// server/discover): its serverInfo name and version. A server can claim any
// identity, so a grant binds the identity together with the catalog digest, and
// the dispatcher routes to a server only through a transport its caller chose.
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

// Grant authorizes exactly one tool call, once. Every field but ID and Seal is
// bound; ID is the digest of them and Seal an HMAC of ID, so changing any field
// shows. A Grant is plain data: it can be stored, sent and logged as JSON, and
// its methods, which do not change it, may be called concurrently.
//
// The ID is "sha256:" and the hex SHA-256 of the RFC 8785 canonical JSON of
// {"grant": "action-grant-v1", and every field below but "id" and "seal"}, the
// times written as RFC 3339 UTC with nanoseconds only when not zero (the form of
// Go's time.RFC3339Nano).
type Grant struct {
	ID string `json:"id"`
	// Server and CatalogDigest pin the server: its identity and its
	// tool-catalog-v1 digest for the negotiated protocol version.
	Server        ServerIdentity `json:"server"`
	CatalogDigest string         `json:"catalogDigest"`
	// Tool and Arguments are the call: the tool's name as the catalog lists it,
	// and arguments that validate against its closed input schema, in RFC 8785
	// canonical form.
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	// Step is the call's position in its plan, from 0; Previous is the ID of the
	// grant of the step before, empty for step 0. The chain makes a plan's order
	// part of every grant: a grant cannot be moved into another plan or another
	// position.
	Step     int    `json:"step"`
	Previous string `json:"previous"`
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
// share: "hmac-sha256:" and 64 hex digits, with the ID of the key that made it.
// A model that sees grants cannot forge or alter one without the key.
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

func (k SealKey) check(field string) error {
	if k.ID == "" || len(k.ID) > 64 || strings.ContainsAny(k.ID, " \t\r\n") {
		return refuse(CodeInvalidGrant, field+".ID", "a seal key needs an ID of 1 to 64 characters without spaces")
	}
	if len(k.Secret) < MinSealKeyBytes {
		return refuse(CodeInvalidGrant, field+".Secret", "a seal key needs at least %d random bytes, got %d", MinSealKeyBytes, len(k.Secret))
	}
	return nil
}

// mac computes the seal of a grant ID. The key ID is inside the MAC, so a seal
// cannot be relabelled as made by another key.
func (k SealKey) mac(grantID string) string {
	h := hmac.New(sha256.New, k.Secret)
	h.Write([]byte(GrantRule + " seal\x00" + k.ID + "\x00" + grantID))
	return "hmac-sha256:" + hex.EncodeToString(h.Sum(nil))
}

// Plan is what a trusted planner hands [IssuePlan]: one server pinned by its
// identity and catalog, a scope, a validity window, and the calls in order.
type Plan struct {
	Server ServerIdentity
	// Catalog is the pinned catalog: its digest is bound into every grant, and
	// each call's arguments are checked against its tool's input schema there.
	Catalog      Catalog
	RunID        string
	PolicyDigest string
	Host         string
	VMUUID       string
	IssuedAt     time.Time
	ExpiresAt    time.Time
	// Calls are the calls in the order they must run. A plan is for one
	// server: a call's Server is either empty or the plan's Server.
	Calls []Call
}

// MaxPlanCalls bounds the number of calls in one plan.
const MaxPlanCalls = 1000

// IssuePlan returns one grant per call of the plan, chained in order. When key
// is not nil every grant is sealed with it. It refuses a plan whose scope is
// malformed, a tool the pinned catalog does not list or whose input schema is not
// closed, and arguments outside that schema: a grant that could not be honoured is
// never made.
func IssuePlan(p Plan, key *SealKey) ([]Grant, error) {
	if key != nil {
		if err := key.check("key"); err != nil {
			return nil, err
		}
	}
	digest, err := p.Catalog.Digest()
	if err != nil {
		return nil, err
	}
	if len(p.Calls) == 0 || len(p.Calls) > MaxPlanCalls {
		return nil, refuse(CodeInvalidGrant, "calls", "a plan has 1 to %d calls, got %d", MaxPlanCalls, len(p.Calls))
	}
	vm, err := canonicalUUID(p.VMUUID)
	if err != nil {
		return nil, err
	}
	grants := make([]Grant, 0, len(p.Calls))
	previous := ""
	for i, c := range p.Calls {
		field := fmt.Sprintf("calls[%d]", i)
		if c.Server != (ServerIdentity{}) && c.Server != p.Server {
			return nil, refuse(CodeServerSubstituted, field+".server", "the call names server %s, but the plan is for %s; a plan binds one server",
				echo.Quote(c.Server.String()), echo.Quote(p.Server.String()))
		}
		schema, ok := p.Catalog.InputSchema(c.Tool)
		if !ok {
			return nil, refuse(CodeCallAltered, field+".tool", "the pinned catalog has no tool %s with an input schema", echo.Quote(c.Tool))
		}
		resolved, err := compileClosedSchema(schema, field+".tool")
		if err != nil {
			return nil, err
		}
		args, err := canonicalArguments(resolved, c.Arguments, field+".arguments")
		if err != nil {
			return nil, err
		}
		g := Grant{
			Server: p.Server, CatalogDigest: digest, Tool: c.Tool, Arguments: args,
			Step: i, Previous: previous, RunID: p.RunID, PolicyDigest: p.PolicyDigest,
			Host: p.Host, VMUUID: vm, IssuedAt: p.IssuedAt.UTC(), ExpiresAt: p.ExpiresAt.UTC(),
		}
		if err := g.checkFields(); err != nil {
			return nil, err
		}
		if g.ID, err = g.ComputeID(); err != nil {
			return nil, err
		}
		if key != nil {
			g.Seal = &Seal{KeyID: key.ID, MAC: key.mac(g.ID)}
		}
		grants = append(grants, g)
		previous = g.ID
	}
	return grants, nil
}

// checkFields checks the fields a grant must have to be meaningful.
func (g Grant) checkFields() error {
	switch {
	case g.Server.Name == "" || g.Server.Version == "":
		return refuse(CodeInvalidGrant, "server", "the server identity needs a name and a version")
	case !IsDigest(g.CatalogDigest):
		return refuse(CodeInvalidGrant, "catalogDigest", "want a digest of the form sha256:<64 lowercase hex>")
	case g.RunID == "":
		return refuse(CodeInvalidGrant, "runId", "a grant needs the run ID it is for")
	case !IsDigest(g.PolicyDigest):
		return refuse(CodeInvalidGrant, "policyDigest", "want the policy digest, of the form sha256:<64 lowercase hex>")
	case g.Host == "" || len(g.Host) > 253 || strings.ContainsAny(g.Host, " \t\r\n/"):
		return refuse(CodeInvalidGrant, "host", "want a host name of 1 to 253 characters")
	case g.Step < 0 || (g.Step == 0) != (g.Previous == ""):
		return refuse(CodeInvalidGrant, "step", "step 0 has no previous grant and every later step has one")
	case g.IssuedAt.IsZero() || !g.ExpiresAt.After(g.IssuedAt):
		return refuse(CodeInvalidGrant, "expiresAt", "a grant needs an issue time and an expiry after it")
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
		return "", refuse(CodeInvalidGrant, "vmUuid", "want the VM's UUID as 8-4-4-4-12 hex digits, got %s", echo.Quote(s))
	}
	return strings.ToLower(s), nil
}

// ComputeID returns the digest of the grant's bound fields: what its ID must be.
// Issuers set ID to it; [Grant.Verify] compares the two.
func (g Grant) ComputeID() (string, error) {
	canonical, err := g.canonical()
	if err != nil {
		return "", err
	}
	return digestOf(canonical), nil
}

func (g Grant) canonical() ([]byte, error) {
	if len(g.Arguments) == 0 {
		return nil, refuse(CodeGrantAltered, "arguments", "a grant carries its arguments, at least {}")
	}
	if _, err := canonicaljson.Canonicalize(g.Arguments); err != nil {
		return nil, refuse(CodeGrantAltered, "arguments", "the granted arguments are not I-JSON: %v", err)
	}
	return canonicaljson.Marshal(map[string]any{
		"grant":         GrantRule,
		"server":        g.Server,
		"catalogDigest": g.CatalogDigest,
		"tool":          g.Tool,
		"arguments":     g.Arguments,
		"step":          g.Step,
		"previous":      g.Previous,
		"runId":         g.RunID,
		"policyDigest":  g.PolicyDigest,
		"host":          g.Host,
		"vmUuid":        g.VMUUID,
		"issuedAt":      g.IssuedAt.UTC().Format(time.RFC3339Nano),
		"expiresAt":     g.ExpiresAt.UTC().Format(time.RFC3339Nano),
	})
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
		return refuse(CodeGrantAltered, "id", "the grant's fields do not hash to its ID %s; a field was changed after issue", quoteDigest(g.ID))
	}
	if len(keys) == 0 {
		return nil
	}
	if g.Seal == nil {
		return refuse(CodeGrantUnsealed, "seal", "the grant is not sealed and this broker accepts only sealed grants")
	}
	for _, k := range keys {
		if k.ID == g.Seal.KeyID {
			if !hmac.Equal([]byte(k.mac(g.ID)), []byte(g.Seal.MAC)) {
				return refuse(CodeGrantUnsealed, "seal.mac", "the seal does not verify under key %s; the grant was forged or altered", echo.Quote(k.ID))
			}
			return nil
		}
	}
	return refuse(CodeGrantUnsealed, "seal.keyId", "the grant is sealed with key %s, which this broker does not hold", echo.Quote(g.Seal.KeyID))
}
