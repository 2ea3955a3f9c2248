package binding

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/automium/automium"
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
	// PlanID, when set, is the only plan whose grants the broker accepts.
	// When empty, the plan of the first step the broker authorizes is the
	// run's plan from then on, and grants of any other plan are refused.
	PlanID string
	// Keys are the seal keys the broker accepts, each with a distinct ID. When
	// any is given, every grant must carry a seal by one of them; give two
	// during a key rotation (the new key and the one grants still in flight
	// were sealed with). When none is given, grants are checked for integrity
	// (ID against fields) only, which is enough only when grants never pass
	// through a model's hands.
	Keys []SealKey
	// Now is the broker's clock. It is required: the package reads no clock.
	Now func() time.Time
	// Skew is how far in the future a grant's IssuedAt may be and still be
	// accepted, to tolerate an issuer whose clock runs ahead. It never extends
	// an expiry: ExpiresAt is a hard bound on the broker's clock, so an issuer
	// that expects skew gives grants a longer life instead. At most MaxSkew.
	Skew time.Duration
	// MaxLifetime is the longest validity window (ExpiresAt - IssuedAt) of a
	// grant the broker accepts; a longer-lived grant is refused with
	// [CodeLifetimeExceeded], however it was issued. Zero means
	// DefaultMaxLifetime; at most MaxGrantLifetime.
	MaxLifetime time.Duration
	// Steps keeps which steps were consumed. Nil means a new in-memory store
	// ([NewMemoryStepStore]), which lasts as long as the broker: a broker
	// started again with a new one would accept every unexpired grant of the
	// run once more. A runtime that restarts gives every broker of a run the
	// same persistent store, such as binding/boltstore's.
	Steps StepStore
}

// DefaultMaxLifetime is the longest grant a broker accepts unless configured
// otherwise: 15 minutes. A grant is a capability that passes through a
// model's hands; its lifetime bounds how long a leaked grant is worth
// anything, how long an old seal key must be kept after a rotation, and, with
// the default in-memory StepStore, how long a grant could be replayed to a
// restarted broker. A plan of UI actions runs in minutes; a planner issues a
// longer plan as several.
const DefaultMaxLifetime = 15 * time.Minute

// MaxSkew bounds [BrokerOptions.Skew].
const MaxSkew = 5 * time.Minute

// Position is where a run is in its plan: the plan it follows ("" before its
// first step is consumed) and the step that comes next. Steps before Next are
// consumed.
type Position struct {
	PlanID string
	Next   int
}

// StepStore holds a broker's one-shot state: for each run, its [Position].
// It is the only state a broker keeps about grants, so a store that survives
// a restart makes consumed grants stay consumed. Implementations must be safe
// for concurrent use, and Advance must be atomic (a compare-and-swap), since
// brokers in several processes may share one store.
type StepStore interface {
	// Position returns where the run is; a run never seen is at step 0 of
	// no plan.
	Position(runID string) (Position, error)
	// Advance moves the run from `from` to step from.Next+1 of planID, only if
	// the run is still at `from`, and reports whether it did. A step is
	// consumed exactly when Advance returns true.
	Advance(runID string, from Position, planID string) (bool, error)
}

// NewMemoryStepStore returns a StepStore in memory: it lasts as long as the
// value, and is what a broker uses when BrokerOptions.Steps is nil.
func NewMemoryStepStore() StepStore { return &memoryStepStore{runs: map[string]Position{}} }

type memoryStepStore struct {
	mu   sync.Mutex
	runs map[string]Position
}

func (m *memoryStepStore) Position(runID string) (Position, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.runs[runID], nil
}

func (m *memoryStepStore) Advance(runID string, from Position, planID string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.runs[runID] != from {
		return false, nil
	}
	m.runs[runID] = Position{PlanID: planID, Next: from.Next + 1}
	return true, nil
}

// Broker authorizes calls against grants for one run, one step at a time, in
// plan order. A Broker is safe for concurrent use: authorizations are
// serialized, and the step store's compare-and-swap settles races between
// brokers, so two attempts to use one step see one success and one
// [CodeGrantConsumed].
//
// A refused call changes nothing: the step stays unused and the plan does not
// advance, since nothing reached the server. An authorized call consumes its
// step before it is dispatched, so the step is gone whether the call then
// succeeds or fails, whichever candidate was chosen, and a failed call is
// never retried under the same grant.
type Broker struct {
	opts BrokerOptions

	mu sync.Mutex
	// schemas caches resolved input schemas by their JSON text, since a
	// plan calls the same few tools many times and resolving a schema costs
	// far more than validating against it. At most maxCachedSchemas entries.
	schemas map[string]*jsonschema.Resolved
}

// maxCachedSchemas bounds the broker's schema cache; past it the cache starts
// over, so a server with many tools costs time, never memory.
const maxCachedSchemas = 64

// NewBroker returns a broker for the given scope. It refuses a malformed scope,
// a short key, two keys with one ID, a lifetime or skew out of range, or a
// missing clock.
func NewBroker(opts BrokerOptions) (*Broker, error) {
	if opts.Now == nil {
		return nil, refuse(CodeInvalidGrant, automium.PathOf("Now"), "a broker needs a clock")
	}
	if opts.RunID == "" || !IsDigest(opts.PolicyDigest) || opts.Host == "" {
		return nil, refuse(CodeInvalidGrant, automium.PathOf("BrokerOptions"), "a broker needs a run ID, a policy digest (sha256:<64 hex>) and a host")
	}
	if opts.PlanID != "" && !IsDigest(opts.PlanID) {
		return nil, refuse(CodeInvalidGrant, automium.PathOf("PlanID"), "a plan ID is a digest, sha256:<64 lowercase hex>")
	}
	vm, err := canonicalUUID(opts.VMUUID)
	if err != nil {
		return nil, err
	}
	opts.VMUUID = vm
	if opts.Skew < 0 || opts.Skew > MaxSkew {
		return nil, refuse(CodeInvalidGrant, automium.PathOf("Skew"), "the allowed clock skew is 0 to %v", MaxSkew)
	}
	if opts.MaxLifetime == 0 {
		opts.MaxLifetime = DefaultMaxLifetime
	}
	if opts.MaxLifetime < 0 || opts.MaxLifetime > MaxGrantLifetime {
		return nil, refuse(CodeInvalidGrant, automium.PathOf("MaxLifetime"), "the longest grant lifetime is 0 (the default, %v) up to %v", DefaultMaxLifetime, MaxGrantLifetime)
	}
	seen := map[string]bool{}
	for i, k := range opts.Keys {
		if err := k.check(automium.PathOf("Keys").Index(i)); err != nil {
			return nil, err
		}
		if seen[k.ID] {
			return nil, refuse(CodeInvalidGrant, automium.PathOf("Keys").Index(i), "two keys have the ID %s; a seal names its key by ID, so only one of them could ever verify", automium.ClientValue(k.ID))
		}
		seen[k.ID] = true
	}
	opts.Keys = append([]SealKey(nil), opts.Keys...)
	if opts.Steps == nil {
		opts.Steps = NewMemoryStepStore()
	}
	return &Broker{opts: opts, schemas: map[string]*jsonschema.Resolved{}}, nil
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

// Authorized is what the broker authorized: the step, the index of the chosen
// candidate in the grant, and the candidate itself. Send Candidate.Tool with
// Candidate.Arguments, the granted canonical bytes, to Candidate.Server.
type Authorized struct {
	Step      int
	Index     int
	Candidate Candidate
}

// Authorize checks one call against one grant and, when every check passes,
// consumes the grant's step and returns the chosen candidate. The checks run
// in this order, and the first that fails is the error:
//
//  1. the grant is intact and, when the broker holds keys, sealed
//     ([CodeGrantAltered], [CodeGrantUnsealed]), and well formed
//     ([CodeInvalidGrant]);
//  2. its step was not used before ([CodeGrantConsumed]);
//  3. it is for this run and policy ([CodeCrossRun]), this run's plan
//     ([CodeOtherPlan]) and this host and VM ([CodeWrongTarget]);
//  4. its lifetime is within the broker's maximum ([CodeLifetimeExceeded])
//     and the broker's clock is within its validity ([CodeGrantNotYetValid],
//     [CodeGrantStale]);
//  5. it is the next step of the plan ([CodeOutOfOrder]);
//  6. the call is exactly one of the candidates: the live server is a
//     candidate's server ([CodeServerSubstituted]) with its pinned catalog
//     ([CodeContractDrift]), the tool is that candidate's
//     ([CodeCallAltered]) and the arguments are its arguments
//     ([CodeArgumentsAltered]), which validate against the live tool's
//     closed input schema ([CodeSchemaNotClosed],
//     [CodeArgumentsOutsideSchema]);
//  7. the step store records the step as consumed ([CodeStateUnavailable]
//     when it cannot; [CodeGrantConsumed] when another broker was first).
//
// Every refusal is an *automium.Error with one of these codes, and none of
// them consumes anything.
func (b *Broker) Authorize(g Grant, c LiveCall) (Authorized, error) {
	if err := g.Verify(b.opts.Keys...); err != nil {
		return Authorized{}, err
	}
	if err := g.checkFields(); err != nil {
		return Authorized{}, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	pos, err := b.opts.Steps.Position(b.opts.RunID)
	if err != nil {
		return Authorized{}, refuse(CodeStateUnavailable, automium.PathOf("steps"), "the broker cannot read which steps were used (%s); nothing was dispatched", storeReason(err))
	}
	if pos.PlanID == g.PlanID && g.Step < pos.Next {
		return Authorized{}, refuse(CodeGrantConsumed, automium.PathOf("step"), "step %d of plan %s was already used; a step is one-shot, whichever candidate was chosen and whether its call succeeded or failed",
			g.Step, quoteDigest(g.PlanID))
	}
	if g.RunID != b.opts.RunID {
		return Authorized{}, refuse(CodeCrossRun, automium.PathOf("runId"), "the grant is for run %s, not this run %s", automium.ClientValue(g.RunID), automium.ClientValue(b.opts.RunID))
	}
	if g.PolicyDigest != b.opts.PolicyDigest {
		return Authorized{}, refuse(CodeCrossRun, automium.PathOf("policyDigest"), "the grant is under policy %s, not this run's policy %s", quoteDigest(g.PolicyDigest), b.opts.PolicyDigest)
	}
	if plan := b.plan(pos); plan != "" && g.PlanID != plan {
		return Authorized{}, refuse(CodeOtherPlan, automium.PathOf("planId"), "the grant is a step of plan %s, but this run follows plan %s; plans are not interchangeable, even where their steps agree",
			quoteDigest(g.PlanID), plan)
	}
	if g.Host != b.opts.Host {
		return Authorized{}, refuse(CodeWrongTarget, automium.PathOf("host"), "the grant is for host %s, not %s", automium.ClientValue(g.Host), automium.ClientValue(b.opts.Host))
	}
	if g.VMUUID != b.opts.VMUUID {
		return Authorized{}, refuse(CodeWrongTarget, automium.PathOf("vmUuid"), "the grant is for VM %s, not %s", automium.ClientValue(g.VMUUID), b.opts.VMUUID)
	}
	if life := g.ExpiresAt.Sub(g.IssuedAt); life > b.opts.MaxLifetime {
		return Authorized{}, refuse(CodeLifetimeExceeded, automium.PathOf("expiresAt"), "the grant is valid for %v, longer than this broker's maximum %v; issue shorter-lived grants", life, b.opts.MaxLifetime)
	}
	now := b.opts.Now()
	if now.Add(b.opts.Skew).Before(g.IssuedAt) {
		return Authorized{}, refuse(CodeGrantNotYetValid, automium.PathOf("issuedAt"), "the grant was issued at %s, after the broker's time %s plus the allowed skew %v",
			g.IssuedAt.UTC().Format(time.RFC3339Nano), now.UTC().Format(time.RFC3339Nano), b.opts.Skew)
	}
	if !now.Before(g.ExpiresAt) {
		return Authorized{}, refuse(CodeGrantStale, automium.PathOf("expiresAt"), "the grant expired at %s; the broker's time is %s",
			g.ExpiresAt.UTC().Format(time.RFC3339Nano), now.UTC().Format(time.RFC3339Nano))
	}
	if g.Step != pos.Next {
		return Authorized{}, refuse(CodeOutOfOrder, automium.PathOf("step"), "the grant is step %d of its plan, but the next step allowed is %d; steps run in plan order, none skipped",
			g.Step, pos.Next)
	}
	index, err := choose(g, c)
	if err != nil {
		return Authorized{}, err
	}
	chosen := g.Candidates[index]
	schema, err := b.schema(c.InputSchema)
	if err != nil {
		return Authorized{}, err
	}
	granted, err := canonicalArguments(schema, chosen.Arguments, automium.PathOf("arguments"))
	if err != nil {
		return Authorized{}, err
	}
	ok, err := b.opts.Steps.Advance(b.opts.RunID, pos, g.PlanID)
	if err != nil {
		return Authorized{}, refuse(CodeStateUnavailable, automium.PathOf("steps"), "the broker could not record step %d as used (%s); nothing was dispatched, and the step may or may not be usable again",
			g.Step, storeReason(err))
	}
	if !ok {
		return Authorized{}, refuse(CodeGrantConsumed, automium.PathOf("step"), "step %d of plan %s was used by another broker of this run first", g.Step, quoteDigest(g.PlanID))
	}
	chosen.Arguments = granted
	return Authorized{Step: g.Step, Index: index, Candidate: chosen}, nil
}

// storeReason is a step store's error as a message argument: a coded
// *automium.Error (binding/boltstore's, which say what was found and what to
// do) whole, since its message was made by the one renderer and is bounded;
// any other error cut, as a value the broker does not know the size of.
func storeReason(err error) any {
	var aerr *automium.Error
	if errors.As(err, &aerr) {
		return aerr.Message
	}
	return automium.ClientValue(err.Error())
}

// plan is the plan this run follows, if it is fixed yet.
func (b *Broker) plan(pos Position) string {
	if b.opts.PlanID != "" {
		return b.opts.PlanID
	}
	return pos.PlanID
}

// choose returns the index of the candidate the call is, exactly: the same
// server, with its pinned catalog, the same tool and the same canonical
// arguments. When none is, the error names the first thing no candidate
// matched.
func choose(g Grant, c LiveCall) (int, error) {
	var sameServer, sameCatalog, sameTool []int
	for i, cand := range g.Candidates {
		if cand.Server == c.Server {
			sameServer = append(sameServer, i)
			if cand.CatalogDigest == c.CatalogDigest {
				sameCatalog = append(sameCatalog, i)
				if cand.Tool == c.Tool {
					sameTool = append(sameTool, i)
				}
			}
		}
	}
	switch {
	case len(sameServer) == 0:
		return 0, refuse(CodeServerSubstituted, automium.PathOf("server"), "the call is for server %s, but no candidate of the grant is; the grant allows %s",
			automium.ClientValue(c.Server.String()), serversOf(g))
	case len(sameCatalog) == 0:
		return 0, refuse(CodeContractDrift, automium.PathOf("catalogDigest"), "the live server's catalog digest %s is not the pinned %s; its tools, resources, prompts or protocol version changed",
			quoteDigest(c.CatalogDigest), g.Candidates[sameServer[0]].CatalogDigest)
	case len(sameTool) == 0:
		return 0, refuse(CodeCallAltered, automium.PathOf("tool"), "the call is to tool %s, which no candidate of the grant on this server names", automium.ClientValue(c.Tool))
	}
	called, err := canonicalize(c.Arguments)
	if err != nil {
		return 0, refuse(CodeArgumentsAltered, automium.PathOf("arguments"), "the call's arguments are not I-JSON, so they are not the granted ones")
	}
	for _, i := range sameTool {
		granted, err := canonicalize(g.Candidates[i].Arguments)
		if err == nil && bytes.Equal(granted, called) {
			return i, nil
		}
	}
	return 0, refuse(CodeArgumentsAltered, automium.PathOf("arguments"), "the call's arguments are not those of any candidate of the grant; a granted call cannot be changed")
}

// serversOf lists a grant's distinct candidate servers for a message: at most
// three by name, each a client value the renderer quotes, then "and others".
func serversOf(g Grant) echo.Message {
	var names []any
	for _, c := range g.Candidates {
		v := automium.ClientValue(c.Server.String())
		if slices.Contains(names, any(v)) {
			continue
		}
		if len(names) == 3 {
			return echo.Msg("%s, %s, %s and others", names...)
		}
		names = append(names, v)
	}
	switch len(names) {
	case 1:
		return echo.Msg("%s", names...)
	case 2:
		return echo.Msg("%s, %s", names...)
	}
	return echo.Msg("%s, %s, %s", names...)
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
	s, err := compileClosedSchema(raw, automium.PathOf("inputSchema"))
	if err != nil {
		return nil, err
	}
	if len(b.schemas) >= maxCachedSchemas {
		clear(b.schemas)
	}
	b.schemas[key] = s
	return s, nil
}

// quoteDigest is a message argument that shows a digest whole (its form is
// fixed and short) and anything else as a client value, cut.
func quoteDigest(s string) any {
	if IsDigest(s) {
		return s
	}
	return automium.ClientValue(s)
}
