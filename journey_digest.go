package automium

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json/jsontext"
	"errors"
	"hash"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/automium/automium/canonicaljson"
)

// A compiled journey is the one large value the root writes as JSON on every
// call of a tool: a 200-step compile is about 90 KB, written twice per call,
// once in RFC 8785 form for its digest and once as the answer. Through
// reflection that cost 2 to 2.5 ms (canonicaljson.Marshal, which encodes and
// then re-reads the JSON to sort its members) and 1 ms (encoding/json) of the
// call's 9 to 11 ms of server CPU: most of what the server spent beyond a
// go-sdk server that replays the same answer (perf and tools/automium-bench,
// December 2). Here both forms are written directly from the fields, by one
// table per type that lists its members in field order; the canonical form
// takes them in name order.
//
// TestJourneyJSONMatchesReflection holds both to the reflection encoders,
// byte for byte, over every reference journey and graphs that set every
// field with every kind of string; the digest vectors hold the digests to
// JavaScript's canonicalize. A field added to the graph types without its
// line here fails that test, which checks that its graphs set every field.

// journeyDigest returns the digest of g, exactly digestOf(g) (g.Digest is
// hashed as it is; compile leaves it "").
// The canonical form goes to the hash in chunks of digestChunk bytes, not
// into one buffer of the whole journey (90 KB at 200 steps) hashed at the end.
func journeyDigest(g *CompiledJourney) (string, error) {
	h := sha256.New()
	w := journeyWriter{canonical: true, out: make([]byte, 0, digestChunk+1<<10), sink: h}
	writeObject(&w, journeyMembers, g)
	if w.err != nil {
		return "", w.err
	}
	h.Write(w.out)
	return digestPrefix + hex.EncodeToString(h.Sum(nil)), nil
}

// digestChunk is how much of the canonical form is kept before it is hashed.
const digestChunk = 8 << 10

// appendResultJSON appends r as encoding/json writes it, for the MCP
// adapter's answer (internal/adapter.AppendJSON): without reflection for a
// valid result, whose journey is the large part. It reports false for an
// invalid one, which is small and goes through encoding/json.
func appendResultJSON(dst []byte, r *CompileJourneyResult) ([]byte, bool) {
	if !r.Valid || r.Journey == nil || len(r.Errors) > 0 || len(r.ExternalAppIDs) > 0 || len(r.NotChecked) > 0 {
		return dst, false
	}
	w := journeyWriter{out: slices.Grow(dst, 32+journeySize(r.Journey))}
	w.out = append(w.out, `{"valid":true,"journey":`...)
	writeObject(&w, journeyMembers, r.Journey)
	w.out = append(w.out, '}')
	return w.out, true
}

// journeySize is the length of g's JSON when no string in it needs an
// escape, so that it is written into one buffer.
func journeySize(g *CompiledJourney) int {
	target := func(t *Target) int {
		if t == nil {
			return 0
		}
		return 32 + len(t.Name) + len(t.Role)
	}
	n := 256 + len(g.AppID) + len(g.CorpusVersion) + len(g.Digest) + len(g.Entry) + len(g.FixtureID) + len(g.Goal) +
		len(g.GraphVersion) + len(g.ID) + len(g.IntentVocabularyVersion)
	for i := range g.Nodes {
		nd := &g.Nodes[i]
		n += 96 + len(nd.ID) + len(nd.Kind) + len(nd.Source) + len(nd.Intent) + len(nd.Value) + len(nd.Assertion) +
			target(nd.Target) + target(nd.Destination)
		for _, s := range nd.Strategies {
			n += 3 + len(s)
		}
	}
	for i := range g.Edges {
		n += 56 + len(g.Edges[i].From) + len(g.Edges[i].To) + len(g.Edges[i].On)
	}
	return n
}

// member is one JSON member of a T: its name, whether encoding/json's
// omitempty leaves it out (nil: never), and how its value is written.
type member[T any] struct {
	name  string
	empty func(*T) bool
	write func(*journeyWriter, *T)
}

// members lists a type's members in field order (encoding/json's) and in
// name order (RFC 8785's; the names are ASCII, so UTF-16 order is byte
// order).
type members[T any] struct{ fields, names []member[T] }

func newMembers[T any](fields ...member[T]) members[T] {
	names := slices.Clone(fields)
	slices.SortFunc(names, func(a, b member[T]) int { return strings.Compare(a.name, b.name) })
	return members[T]{fields: fields, names: names}
}

type (
	journeyMember = member[CompiledJourney]
	nodeMember    = member[GraphNode]
	edgeMember    = member[GraphEdge]
	targetMember  = member[Target]
)

var (
	journeyMembers = newMembers(
		journeyMember{"graphVersion", nil, func(w *journeyWriter, g *CompiledJourney) { w.string(g.GraphVersion) }},
		journeyMember{"intentVocabularyVersion", nil, func(w *journeyWriter, g *CompiledJourney) { w.string(g.IntentVocabularyVersion) }},
		journeyMember{"corpusVersion", nil, func(w *journeyWriter, g *CompiledJourney) { w.string(g.CorpusVersion) }},
		journeyMember{"id", nil, func(w *journeyWriter, g *CompiledJourney) { w.string(g.ID) }},
		journeyMember{"appId", nil, func(w *journeyWriter, g *CompiledJourney) { w.string(g.AppID) }},
		journeyMember{"fixtureId", nil, func(w *journeyWriter, g *CompiledJourney) { w.string(g.FixtureID) }},
		journeyMember{"goal", nil, func(w *journeyWriter, g *CompiledJourney) { w.string(g.Goal) }},
		journeyMember{"entry", nil, func(w *journeyWriter, g *CompiledJourney) { w.string(g.Entry) }},
		journeyMember{"nodes", nil, func(w *journeyWriter, g *CompiledJourney) {
			writeList(w, g.Nodes, func(n *GraphNode) { writeObject(w, nodeMembers, n) })
		}},
		journeyMember{"edges", nil, func(w *journeyWriter, g *CompiledJourney) {
			writeList(w, g.Edges, func(e *GraphEdge) { writeObject(w, edgeMembers, e) })
		}},
		journeyMember{"maxRetries", nil, func(w *journeyWriter, g *CompiledJourney) { w.int(g.MaxRetries) }},
		journeyMember{"digest", nil, func(w *journeyWriter, g *CompiledJourney) { w.string(g.Digest) }},
	)
	nodeMembers = newMembers(
		nodeMember{"id", nil, func(w *journeyWriter, n *GraphNode) { w.string(n.ID) }},
		nodeMember{"kind", nil, func(w *journeyWriter, n *GraphNode) { w.string(string(n.Kind)) }},
		nodeMember{"source", func(n *GraphNode) bool { return n.Source == "" }, func(w *journeyWriter, n *GraphNode) { w.string(n.Source) }},
		nodeMember{"intent", func(n *GraphNode) bool { return n.Intent == "" }, func(w *journeyWriter, n *GraphNode) { w.string(string(n.Intent)) }},
		nodeMember{"target", func(n *GraphNode) bool { return n.Target == nil }, func(w *journeyWriter, n *GraphNode) { writeObject(w, targetMembers, n.Target) }},
		nodeMember{"destination", func(n *GraphNode) bool { return n.Destination == nil }, func(w *journeyWriter, n *GraphNode) { writeObject(w, targetMembers, n.Destination) }},
		nodeMember{"value", func(n *GraphNode) bool { return n.Value == "" }, func(w *journeyWriter, n *GraphNode) { w.string(n.Value) }},
		nodeMember{"assertion", func(n *GraphNode) bool { return n.Assertion == "" }, func(w *journeyWriter, n *GraphNode) { w.string(string(n.Assertion)) }},
		nodeMember{"strategies", func(n *GraphNode) bool { return len(n.Strategies) == 0 }, func(w *journeyWriter, n *GraphNode) {
			writeList(w, n.Strategies, func(s *RecoveryStrategy) { w.string(string(*s)) })
		}},
	)
	edgeMembers = newMembers(
		edgeMember{"from", nil, func(w *journeyWriter, e *GraphEdge) { w.string(e.From) }},
		edgeMember{"to", nil, func(w *journeyWriter, e *GraphEdge) { w.string(e.To) }},
		edgeMember{"on", nil, func(w *journeyWriter, e *GraphEdge) { w.string(string(e.On)) }},
		edgeMember{"maxAttempts", func(e *GraphEdge) bool { return e.MaxAttempts == 0 }, func(w *journeyWriter, e *GraphEdge) { w.int(e.MaxAttempts) }},
	)
	targetMembers = newMembers(
		targetMember{"role", nil, func(w *journeyWriter, t *Target) { w.string(string(t.Role)) }},
		targetMember{"name", nil, func(w *journeyWriter, t *Target) { w.string(t.Name) }},
	)
)

// journeyWriter appends one of the two JSON forms of a journey. err is the
// first value the canonical form has no form for (a string that is not
// UTF-8, an integer beyond 2^53), as canonicaljson.Marshal refuses it.
type journeyWriter struct {
	canonical bool
	out       []byte
	err       error
	// sink, when set, takes out whenever a list element leaves it longer
	// than digestChunk.
	sink hash.Hash
}

// writeObject writes v with the members of ms in the form's order.
func writeObject[T any](w *journeyWriter, ms members[T], v *T) {
	list := ms.fields
	if w.canonical {
		list = ms.names
	}
	w.out = append(w.out, '{')
	first := true
	for i := range list {
		m := &list[i]
		if m.empty != nil && m.empty(v) {
			continue
		}
		if !first {
			w.out = append(w.out, ',')
		}
		first = false
		w.out = append(w.out, '"')
		w.out = append(w.out, m.name...)
		w.out = append(w.out, '"', ':')
		m.write(w, v)
	}
	w.out = append(w.out, '}')
}

// writeList writes a list, or null for a nil one, as encoding/json does.
func writeList[E any](w *journeyWriter, list []E, write func(*E)) {
	if list == nil {
		w.out = append(w.out, "null"...)
		return
	}
	w.out = append(w.out, '[')
	for i := range list {
		if i > 0 {
			w.out = append(w.out, ',')
		}
		write(&list[i])
		if w.sink != nil && len(w.out) >= digestChunk {
			w.sink.Write(w.out)
			w.out = w.out[:0]
		}
	}
	w.out = append(w.out, ']')
}

func (w *journeyWriter) string(s string) {
	if !w.canonical {
		w.out = appendHTMLSafeString(w.out, s)
		return
	}
	if !utf8.ValidString(s) && w.err == nil {
		w.err = errors.New("a string of the journey is not valid UTF-8")
	}
	w.out = canonicaljson.AppendString(w.out, s)
}

// int writes n as both forms write it: its digits. The canonical form has
// none for an integer beyond 2^53 (every integer of a graph is far below).
func (w *journeyWriter) int(n int) {
	const exact = 1 << 53
	if w.canonical && (n > exact || n < -exact) && w.err == nil {
		w.err = errors.New("an integer of the journey is beyond 2^53")
	}
	w.out = strconv.AppendInt(w.out, int64(n), 10)
}

// float writes f as encoding/json does (ES6 number formatting). encoding/json
// has no form for NaN or an infinity, nor has either form here.
func (w *journeyWriter) float(f float64) {
	if (math.IsNaN(f) || math.IsInf(f, 0)) && w.err == nil {
		w.err = errors.New("a number is NaN or infinite")
	}
	w.out = jsontext.AppendFloat(w.out, f, 64)
}

// appendHTMLSafeString appends s as encoding/json writes a string by default:
// '"', '\\', \b, \f, \n, \r and \t escaped, every other control character, '<',
// '>', '&', U+2028 and U+2029 as \u00xx or \u20xx, and each byte that is not
// part of valid UTF-8 as U+FFFD, written as itself.
func appendHTMLSafeString(out []byte, s string) []byte {
	const hex = "0123456789abcdef"
	out = append(out, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			out = append(out, s[start:i]...)
			switch c {
			case '"', '\\':
				out = append(out, '\\', c)
			case '\b':
				out = append(out, '\\', 'b')
			case '\f':
				out = append(out, '\\', 'f')
			case '\n':
				out = append(out, '\\', 'n')
			case '\r':
				out = append(out, '\\', 'r')
			case '\t':
				out = append(out, '\\', 't')
			default:
				out = append(out, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			out = append(out, s[start:i]...)
			out = append(out, "\ufffd"...)
		case r == '\u2028' || r == '\u2029':
			out = append(out, s[start:i]...)
			out = append(out, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	out = append(out, s[start:]...)
	return append(out, '"')
}
