// Package binding binds an action to the one MCP server, tool and arguments
// authorized for it, and checks that binding at dispatch time, before anything
// reaches the server. It implements SYS-REQ-032: a synthetic UI action is
// dispatched only through the exact MCP server, tool and arguments authorized for
// the current run and VM.
//
// Binding only a tool name and its arguments is not enough: when an agent is
// connected to several MCP servers, an identically named tool on another server,
// or the same server after its tools changed, would receive the action. So an
// action is bound to four things at once:
//
//   - the server: its identity (name and version, as it reports them in
//     initialize) and the [Catalog] digest of everything it advertises
//     (tool-catalog-v2, [Catalog.DigestV2]: tools with their annotations and
//     _meta, resources, resource templates and prompts);
//   - the call: the tool's name and arguments that validate against the tool's
//     closed input schema, in RFC 8785 canonical form;
//   - the plan: the plan's ID (action-plan-v1, the digest of all its steps)
//     and the step's position in it;
//   - the scope: the run ID and policy digest, the host and VM UUID, and an
//     expiry.
//
// A step may offer the model a choice: a [Grant] is one step, and carries one
// or more candidate calls, each bound to its own server. The model chooses
// one; the broker authorizes exactly that candidate and consumes the step,
// whichever candidate it was and whether its call then succeeds or fails.
//
// A Grant's ID is the digest of its fields, so it is deterministic; [IssuePlan]
// makes the grants of a plan and can seal each with an HMAC key the caller
// passes in as bytes. A [Broker] authorizes one call against one grant with an
// injected clock and refuses, each with its own [Code], server substitution,
// contract drift, a choice that is not exactly one of the candidates, altered
// or out-of-schema arguments, reordered, skipped or repeated steps, a step of
// another plan, a wrong host or VM, an expired or too long-lived grant, and a
// grant of another run or policy. Its one-shot state is a [StepStore], in
// memory unless the caller gives a persistent one (binding/boltstore keeps it
// in a file). The package binding/dispatch connects to MCP servers with the
// go-sdk client and calls tools only through a Broker, reading each server's
// catalog again before every call and refusing the call when it changed or
// cannot be read.
//
// Everything here is pure: beyond the standard library it depends only on this
// module's root package (codes, paths) and its message renderer, canonicaljson,
// the case-folding rule the envelope door also uses (internal/jsonname) and
// jsonschema-go (which the root package already uses); it reads no clock, key,
// file or environment variable, and opens no connection. Keys and time are
// always passed in.
//
// # Canonical forms
//
// Catalog digests, plan IDs, grant IDs and argument comparison all use one
// encoding, the JSON Canonicalization Scheme of RFC 8785 (package
// canonicaljson), and one digest form, "sha256:" followed by 64 lowercase hex
// digits. Two implementations in two languages that follow the rules
// documented on [Catalog], [Plan], [Grant] and [Seal] compute the same digests;
// docs/binding.md gathers them. Bytes from outside (list answers, schemas,
// arguments, grants) are read strictly, with encoding/json/v2 and jsontext
// after canonicaljson: invalid UTF-8, duplicate names and names that differ
// only in case are refused, never repaired.
//
// # Closed schemas
//
// A schema binds arguments only if it is closed by an allow-list: every
// keyword at every depth is one of a few, every object names its properties
// and sets additionalProperties to false, every array has items, every value
// has one type (or an enum or const). The rule, keyword by keyword, is in
// docs/binding.md; anything outside it is [CodeSchemaNotClosed].
package binding

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/json/jsontext"
	jsonv2 "encoding/json/v2"
	"fmt"
	"regexp"
	"slices"
	"sync"

	"github.com/automium/automium"
	"github.com/automium/automium/canonicaljson"
)

// Codes of the errors this package returns. They are [automium.Code] values, so
// a caller handles a refused call like any other Automium error: by its code.
// Each way of bending a grant has its own code, so an audit log says which check
// stopped a call. Where the problem is, is the error's [automium.Path] (such as
// steps[0][1].tool of a plan, or tools[3].annotations of a list answer), built
// from names and indices, never parsed from text; its message is rendered by
// the root's one renderer, which quotes every value a model or a server sent
// cut to a short prefix.
const (
	// CodeServerSubstituted: the call went to a server whose identity is not the
	// granted one, such as another server exposing a tool of the same name.
	CodeServerSubstituted automium.Code = "server_substituted"
	// CodeServerUnknown: the call names a server the dispatcher is not connected
	// to; a model cannot add a server.
	CodeServerUnknown automium.Code = "server_unknown"
	// CodeServerAmbiguous: two connected servers report the same identity, so a
	// call could not be routed to exactly one of them.
	CodeServerAmbiguous automium.Code = "server_ambiguous"
	// CodeContractDrift: the live server's catalog digest is not the pinned one.
	CodeContractDrift automium.Code = "contract_drift"
	// CodeCallAltered: the call names a tool no candidate of the grant names.
	CodeCallAltered automium.Code = "call_altered"
	// CodeArgumentsAltered: the call's arguments, in canonical form, are not
	// the arguments of any candidate of the grant for that server and tool.
	CodeArgumentsAltered automium.Code = "arguments_altered"
	// CodeArgumentsOutsideSchema: the arguments are not JSON, or do not validate
	// against the tool's closed input schema.
	CodeArgumentsOutsideSchema automium.Code = "arguments_outside_schema"
	// CodeSchemaNotClosed: the tool's input schema is not closed by the
	// allow-list (see "Closed schemas" above), so no argument set can be
	// bound to it.
	CodeSchemaNotClosed automium.Code = "schema_not_closed"
	// CodeOutOfOrder: the grant is not the next step of the plan; a step was
	// reordered or one was skipped.
	CodeOutOfOrder automium.Code = "call_out_of_order"
	// CodeGrantConsumed: the grant's step was already used. A step is
	// one-shot: it is consumed when the broker authorizes one of its
	// candidates, whichever, whether the call then succeeds or fails, and is
	// never retried.
	CodeGrantConsumed automium.Code = "grant_consumed"
	// CodeWrongTarget: the grant is for another host or VM.
	CodeWrongTarget automium.Code = "wrong_target"
	// CodeGrantStale: the broker's clock is at or past the grant's expiry.
	CodeGrantStale automium.Code = "grant_stale"
	// CodeGrantNotYetValid: the grant was issued later than the broker's clock
	// plus its allowed skew.
	CodeGrantNotYetValid automium.Code = "grant_not_yet_valid"
	// CodeCrossRun: the grant belongs to another run or another policy.
	CodeCrossRun automium.Code = "cross_run"
	// CodeGrantAltered: a grant field was changed after issue; its ID is not the
	// digest of its fields.
	CodeGrantAltered automium.Code = "grant_altered"
	// CodeGrantUnsealed: the broker requires seals and the grant has none, or
	// one made with a key the broker does not hold, or one that does not verify.
	CodeGrantUnsealed automium.Code = "grant_unsealed"
	// CodeCatalogStale: the server announced a catalog change (list_changed)
	// and no re-read has succeeded since; every dispatch to it is refused until
	// one does. Nothing was sent.
	CodeCatalogStale automium.Code = "catalog_stale"
	// CodeNotDispatched: the call was not sent, for a reason of the caller's
	// (such as a context that had ended before it could be); the grant is
	// unused.
	CodeNotDispatched automium.Code = "not_dispatched"
	// CodeCallFailed: the call was authorized and handed to the session, which
	// failed; it may have reached the server, so its step is consumed and never
	// retried. It is the only code of a call that may have been sent.
	CodeCallFailed automium.Code = "call_failed"
	// CodeOtherPlan: the grant is a step of another plan than the one this
	// run follows (the one pinned in the broker's options, or the plan of the
	// first step the broker authorized).
	CodeOtherPlan automium.Code = "other_plan"
	// CodeLifetimeExceeded: the grant's validity window is longer than the
	// broker accepts (BrokerOptions.MaxLifetime).
	CodeLifetimeExceeded automium.Code = "lifetime_exceeded"
	// CodeStateUnavailable: the broker's step store could not be read or
	// written; nothing was dispatched.
	CodeStateUnavailable automium.Code = "state_unavailable"
	// CodeInvalidCatalog: a list answer cannot be read under tool-catalog-v1
	// or tool-catalog-v2.
	CodeInvalidCatalog automium.Code = "invalid_catalog"
	// CodeInvalidGrant: a plan, grant or broker setting is malformed.
	CodeInvalidGrant automium.Code = "invalid_grant"
)

// refuse builds the error for a refused or malformed input, at the path of
// the field it is about, through the root's one renderer: the format is this
// package's words, and every client value among args is an
// [automium.ClientValue] (or an echo.Message whose values are), so no refusal
// quotes more than a bounded prefix of what a model or a server sent.
func refuse(code automium.Code, at automium.Path, format string, args ...any) *automium.Error {
	return automium.NewProblem(code, at, nil, format, args...).Err()
}

// Digest returns "sha256:" and the lowercase hex SHA-256 of v's RFC 8785
// canonical JSON. It is the digest form of every digest in this package, and the
// recommended way to compute a policy digest: the digest of the policy document
// the run executes under (see [Grant.PolicyDigest]).
//
// v is encoded as encoding/json encodes it (field names, tags, omitempty), but
// a string that is not valid UTF-8 is an error rather than U+FFFD: two
// policies that differ only in invalid bytes never share a digest.
func Digest(v any) (string, error) {
	data, err := jsonv2.Marshal(v, json.DefaultOptionsV1(), jsontext.AllowInvalidUTF8(false))
	if err != nil {
		return "", fmt.Errorf("binding: digest: %s", shorten(err.Error()))
	}
	canonical, err := canonicaljson.Canonicalize(data)
	if err != nil {
		return "", err
	}
	return digestOf(canonical), nil
}

func digestOf(canonical []byte) string {
	sum := sha256.Sum256(canonical)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// digestPattern is the one digest form: algorithm, colon, 64 lowercase hex. It
// is compiled on first use, not at package initialisation, which every start
// of a program that imports the package pays.
var digestPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^sha256:[0-9a-f]{64}$`) })

// IsDigest reports whether s has the digest form "sha256:<64 lowercase hex>".
func IsDigest(s string) bool { return digestPattern().MatchString(s) }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, canonicaljson.CompareUTF16)
	return keys
}

// canonicalize is canonicaljson.Canonicalize, named once for the package.
var canonicalize = canonicaljson.Canonicalize
