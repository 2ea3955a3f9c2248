package binding

import (
	"bytes"
	"encoding/json"
	"sync"
	"time"

	"github.com/automium/automium/internal/echo"
	"github.com/google/jsonschema-go/jsonschema"
)

// BrokerOptions scopes a [Broker] to one run under one policy on one target.
// The broker's side knows these facts from its own configuration, never from a
// grant or a model.
type BrokerOptions struct {
	RunID        string
	PolicyDigest string
	Host         string
	VMUUID       string
	// Keys are the seal keys the broker accepts. When any is given, every grant
	// must carry a seal by one of them; give two during a key rotation (the new
	// key and the one grants still in flight were sealed with). When none is
	// given, grants are checked for integrity (ID against fields) only, which
	// is enough only when grants never pass through a model's hands.
	Keys []SealKey
	// Now is the broker's clock. It is required: the package reads no clock.
	Now func() time.Time
	// Skew is how far in the future a grant's IssuedAt may be and still be
	// accepted, to tolerate an issuer whose clock runs ahead. It never extends
	// an expiry: ExpiresAt is a hard bound on the broker's clock, so an issuer
	// that expects skew gives grants a longer life instead. At most MaxSkew.
	Skew time.Duration
}

// MaxSkew bounds [BrokerOptions.Skew].
const MaxSkew = 5 * time.Minute

// Broker authorizes calls against grants for one run, one at a time, in plan
// order. It keeps which grant comes next and which grants are consumed. A Broker
// is safe for concurrent use: authorizations are serialized, so two concurrent
// attempts to use one grant see one success and one [CodeGrantConsumed].
//
// A refused call changes nothing: the grant stays unused and the plan does not
// advance, since nothing reached the server. An authorized call consumes its
// grant before it is dispatched, so the grant is gone whether the call then
// succeeds or fails, and a failed call is never retried under the same grant.
type Broker struct {
	opts BrokerOptions

	mu       sync.Mutex
	next     int             // the step the next grant must have
	last     string          // the ID of the last consumed grant, its Previous
	consumed map[string]bool // IDs of consumed grants
	// schemas caches resolved input schemas by their JSON text, since a
	// plan calls the same few tools many times and resolving a schema costs
	// far more than validating against it. At most maxCachedSchemas entries.
	schemas map[string]*jsonschema.Resolved
}

// maxCachedSchemas bounds the broker's schema cache; past it the cache starts
// over, so a server with many tools costs time, never memory.
const maxCachedSchemas = 64

// NewBroker returns a broker for the given scope. It refuses a malformed scope,
// a short key or a missing clock.
func NewBroker(opts BrokerOptions) (*Broker, error) {
	if opts.Now == nil {
		return nil, refuse(CodeInvalidGrant, "Now", "a broker needs a clock")
	}
	if opts.RunID == "" || !IsDigest(opts.PolicyDigest) || opts.Host == "" {
		return nil, refuse(CodeInvalidGrant, "BrokerOptions", "a broker needs a run ID, a policy digest (sha256:<64 hex>) and a host")
	}
	vm, err := canonicalUUID(opts.VMUUID)
	if err != nil {
		return nil, err
	}
	opts.VMUUID = vm
	if opts.Skew < 0 || opts.Skew > MaxSkew {
		return nil, refuse(CodeInvalidGrant, "Skew", "the allowed clock skew is 0 to %v", MaxSkew)
	}
	for _, k := range opts.Keys {
		if err := k.check("Keys"); err != nil {
			return nil, err
		}
	}
	opts.Keys = append([]SealKey(nil), opts.Keys...)
	return &Broker{opts: opts, consumed: map[string]bool{}, schemas: map[string]*jsonschema.Resolved{}}, nil
}

// LiveCall is a call about to be dispatched, with what the dispatcher observed
// of the live server: the identity it reported after initialize, the digest of
// the catalog it listed, and the input schema its listing gives the tool.
type LiveCall struct {
	Server        ServerIdentity
	CatalogDigest string
	InputSchema   json.RawMessage
	Tool          string
	Arguments     json.RawMessage
}

// Authorize checks one call against one grant and, when every check passes,
// consumes the grant and returns the arguments to send: the granted canonical
// form. The checks run in this order, and the first that fails is the error:
//
//  1. the grant is intact and, when the broker holds keys, sealed
//     ([CodeGrantAltered], [CodeGrantUnsealed]);
//  2. it was not used before ([CodeGrantConsumed]);
//  3. it is for this run and policy ([CodeCrossRun]) and this host and VM
//     ([CodeWrongTarget]);
//  4. the broker's clock is within its validity ([CodeGrantNotYetValid],
//     [CodeGrantStale]);
//  5. it is the next step of the plan ([CodeOutOfOrder]);
//  6. the live server is the granted one ([CodeServerSubstituted]) with the
//     pinned catalog ([CodeContractDrift]);
//  7. the call is the granted tool ([CodeCallAltered]) with the granted
//     arguments ([CodeArgumentsAltered]), which validate against the live
//     tool's closed input schema ([CodeArgumentsOutsideSchema]).
//
// Every refusal is an *automium.Error with one of these codes.
func (b *Broker) Authorize(g Grant, c LiveCall) (json.RawMessage, error) {
	if err := g.Verify(b.opts.Keys...); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.consumed[g.ID] {
		return nil, refuse(CodeGrantConsumed, "id", "grant %s (step %d) was already used; a grant is one-shot, whether its call succeeded or failed", quoteDigest(g.ID), g.Step)
	}
	if g.RunID != b.opts.RunID {
		return nil, refuse(CodeCrossRun, "runId", "the grant is for run %s, not this run %s", echo.Quote(g.RunID), echo.Quote(b.opts.RunID))
	}
	if g.PolicyDigest != b.opts.PolicyDigest {
		return nil, refuse(CodeCrossRun, "policyDigest", "the grant is under policy %s, not this run's policy %s", quoteDigest(g.PolicyDigest), b.opts.PolicyDigest)
	}
	if g.Host != b.opts.Host {
		return nil, refuse(CodeWrongTarget, "host", "the grant is for host %s, not %s", echo.Quote(g.Host), echo.Quote(b.opts.Host))
	}
	if g.VMUUID != b.opts.VMUUID {
		return nil, refuse(CodeWrongTarget, "vmUuid", "the grant is for VM %s, not %s", echo.Quote(g.VMUUID), b.opts.VMUUID)
	}
	now := b.opts.Now()
	if now.Add(b.opts.Skew).Before(g.IssuedAt) {
		return nil, refuse(CodeGrantNotYetValid, "issuedAt", "the grant was issued at %s, after the broker's time %s plus the allowed skew %v",
			g.IssuedAt.Format(time.RFC3339Nano), now.UTC().Format(time.RFC3339Nano), b.opts.Skew)
	}
	if !now.Before(g.ExpiresAt) {
		return nil, refuse(CodeGrantStale, "expiresAt", "the grant expired at %s; the broker's time is %s",
			g.ExpiresAt.Format(time.RFC3339Nano), now.UTC().Format(time.RFC3339Nano))
	}
	if g.Step != b.next || g.Previous != b.last {
		return nil, refuse(CodeOutOfOrder, "step", "the grant is step %d of its plan, but the next call allowed is step %d after grant %s; calls run in plan order, none skipped",
			g.Step, b.next, quoteDigest(b.last))
	}
	if c.Server != g.Server {
		return nil, refuse(CodeServerSubstituted, "server", "the call is for server %s, but the grant is for server %s",
			echo.Quote(c.Server.String()), echo.Quote(g.Server.String()))
	}
	if c.CatalogDigest != g.CatalogDigest {
		return nil, refuse(CodeContractDrift, "catalogDigest", "the live server's catalog digest %s is not the pinned %s; its tools, resources, prompts or protocol version changed",
			quoteDigest(c.CatalogDigest), g.CatalogDigest)
	}
	if c.Tool != g.Tool {
		return nil, refuse(CodeCallAltered, "tool", "the call is to tool %s, but the grant is for tool %s", echo.Quote(c.Tool), echo.Quote(g.Tool))
	}
	granted, err := canonicaljsonOf(g.Arguments)
	if err != nil {
		return nil, err
	}
	if got, err := canonicaljsonOf(c.Arguments); err != nil || !bytes.Equal(got, granted) {
		return nil, refuse(CodeArgumentsAltered, "arguments", "the call's arguments are not the granted ones; a granted call cannot be changed")
	}
	schema, err := b.schema(c.InputSchema)
	if err != nil {
		return nil, refuse(CodeArgumentsOutsideSchema, "inputSchema", "the live tool's input schema cannot check the arguments: %v", err)
	}
	if _, err := canonicalArguments(schema, granted, "arguments"); err != nil {
		return nil, err
	}
	b.consumed[g.ID] = true
	b.next++
	b.last = g.ID
	return granted, nil
}

// schema returns the resolved closed schema, from the cache when it is there.
// b.mu is held.
func (b *Broker) schema(raw json.RawMessage) (*jsonschema.Resolved, error) {
	// Keyed by the bytes as the dispatcher listed them: the same listing gives
	// the same bytes, and different bytes at worst resolve once more.
	key := string(raw)
	if s, ok := b.schemas[key]; ok {
		return s, nil
	}
	s, err := compileClosedSchema(raw, "inputSchema")
	if err != nil {
		return nil, err
	}
	if len(b.schemas) >= maxCachedSchemas {
		clear(b.schemas)
	}
	b.schemas[key] = s
	return s, nil
}

// canonicaljsonOf returns the canonical form of granted or called arguments.
func canonicaljsonOf(args json.RawMessage) ([]byte, error) {
	c, err := canonicalize(args)
	if err != nil {
		return nil, refuse(CodeArgumentsOutsideSchema, "arguments", "the arguments are not I-JSON: %v", err)
	}
	return c, nil
}

// quoteDigest shows a digest whole, and anything else cut.
func quoteDigest(s string) string {
	if IsDigest(s) {
		return s
	}
	return echo.Quote(s)
}
