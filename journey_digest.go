package automium

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"unicode/utf8"

	"github.com/automium/automium/canonicaljson"
)

// journeyDigest returns the digest of g, exactly digestOf(g) (g.Digest is
// hashed as it is; compile leaves it ""), without going through reflection.
//
// Why it exists: a compiled journey is the one large value the root hashes on
// every call of a tool (a 200-step compile is about 90 KB of JSON), and
// digestOf spent 2 to 2.5 ms of such a call encoding it with encoding/json and
// then re-reading it to sort its members: about a quarter of the server's CPU
// on the call (perf, December 2), and most of what it spends beyond a go-sdk
// server that replays the same answer. Here the members are written in their
// canonical order directly, from the struct fields.
//
// TestJourneyDigestMatchesMarshal holds it to digestOf over every reference
// journey and every shape of node, edge and recovery, and the digest vectors
// hold both to JavaScript's canonicalize; a field added to the graph types
// without a line here fails the first (it checks every field is covered).
func journeyDigest(g *CompiledJourney) (string, error) {
	w := canonicalWriter{out: make([]byte, 0, canonicalSize(g))}
	w.journey(g)
	if w.err != nil {
		return "", w.err
	}
	sum := sha256.Sum256(w.out)
	return digestPrefix + hex.EncodeToString(sum[:]), nil
}

// canonicalSize is the length of g's canonical form when no string in it
// needs an escape, so that it is written into one buffer.
func canonicalSize(g *CompiledJourney) int {
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

// canonicalWriter appends RFC 8785 JSON; err is the first value that has no
// canonical form (a string that is not UTF-8, an integer beyond 2^53), as
// canonicaljson.Marshal refuses it.
type canonicalWriter struct {
	out []byte
	err error
}

// Each writer below lists its members sorted by name (they are ASCII, so
// UTF-16 order is byte order), with encoding/json's omitempty rules.

func (w *canonicalWriter) journey(g *CompiledJourney) {
	w.out = append(w.out, `{"appId":`...)
	w.string(g.AppID)
	w.member("corpusVersion", g.CorpusVersion)
	w.member("digest", g.Digest)
	w.out = append(w.out, `,"edges":`...)
	if g.Edges == nil {
		w.out = append(w.out, "null"...)
	} else {
		w.out = append(w.out, '[')
		for i := range g.Edges {
			if i > 0 {
				w.out = append(w.out, ',')
			}
			w.edge(&g.Edges[i])
		}
		w.out = append(w.out, ']')
	}
	w.member("entry", g.Entry)
	w.member("fixtureId", g.FixtureID)
	w.member("goal", g.Goal)
	w.member("graphVersion", g.GraphVersion)
	w.member("id", g.ID)
	w.member("intentVocabularyVersion", g.IntentVocabularyVersion)
	w.out = append(w.out, `,"maxRetries":`...)
	w.int(g.MaxRetries)
	w.out = append(w.out, `,"nodes":`...)
	if g.Nodes == nil {
		w.out = append(w.out, "null"...)
	} else {
		w.out = append(w.out, '[')
		for i := range g.Nodes {
			if i > 0 {
				w.out = append(w.out, ',')
			}
			w.node(&g.Nodes[i])
		}
		w.out = append(w.out, ']')
	}
	w.out = append(w.out, '}')
}

func (w *canonicalWriter) node(n *GraphNode) {
	w.out = append(w.out, '{')
	comma := false
	if n.Assertion != "" {
		w.open(&comma, "assertion")
		w.string(string(n.Assertion))
	}
	if n.Destination != nil {
		w.open(&comma, "destination")
		w.target(n.Destination)
	}
	w.open(&comma, "id")
	w.string(n.ID)
	if n.Intent != "" {
		w.open(&comma, "intent")
		w.string(string(n.Intent))
	}
	w.open(&comma, "kind")
	w.string(string(n.Kind))
	if n.Source != "" {
		w.open(&comma, "source")
		w.string(n.Source)
	}
	if len(n.Strategies) > 0 {
		w.open(&comma, "strategies")
		w.out = append(w.out, '[')
		for i, s := range n.Strategies {
			if i > 0 {
				w.out = append(w.out, ',')
			}
			w.string(string(s))
		}
		w.out = append(w.out, ']')
	}
	if n.Target != nil {
		w.open(&comma, "target")
		w.target(n.Target)
	}
	if n.Value != "" {
		w.open(&comma, "value")
		w.string(n.Value)
	}
	w.out = append(w.out, '}')
}

func (w *canonicalWriter) edge(e *GraphEdge) {
	w.out = append(w.out, `{"from":`...)
	w.string(e.From)
	if e.MaxAttempts != 0 {
		w.out = append(w.out, `,"maxAttempts":`...)
		w.int(e.MaxAttempts)
	}
	w.member("on", string(e.On))
	w.member("to", e.To)
	w.out = append(w.out, '}')
}

func (w *canonicalWriter) target(t *Target) {
	w.out = append(w.out, `{"name":`...)
	w.string(t.Name)
	w.member("role", string(t.Role))
	w.out = append(w.out, '}')
}

// open starts a member, after a comma unless it is the object's first.
func (w *canonicalWriter) open(comma *bool, name string) {
	if *comma {
		w.out = append(w.out, ',')
	}
	*comma = true
	w.out = append(w.out, '"')
	w.out = append(w.out, name...)
	w.out = append(w.out, '"', ':')
}

// member writes a string member that is not the object's first.
func (w *canonicalWriter) member(name, value string) {
	w.out = append(w.out, ',', '"')
	w.out = append(w.out, name...)
	w.out = append(w.out, '"', ':')
	w.string(value)
}

func (w *canonicalWriter) string(s string) {
	if !utf8.ValidString(s) && w.err == nil {
		w.err = errors.New("a string of the journey is not valid UTF-8")
	}
	w.out = canonicaljson.AppendString(w.out, s)
}

// int writes n as ECMAScript writes it: its digits, since every integer the
// graph holds is far below 2^53 (checked, as canonicaljson.Marshal checks it).
func (w *canonicalWriter) int(n int) {
	const exact = 1 << 53
	if (n > exact || n < -exact) && w.err == nil {
		w.err = errors.New("an integer of the journey is beyond 2^53")
	}
	w.out = strconv.AppendInt(w.out, int64(n), 10)
}
