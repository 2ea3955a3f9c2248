package binding_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/automium/automium/canonicaljson"
)

// FuzzCanonicalArguments feeds arbitrary argument bytes to a broker holding a
// grant: it must never panic, and it authorizes only arguments whose canonical
// form is exactly the granted one, sending the granted bytes.
func FuzzCanonicalArguments(f *testing.F) {
	for _, s := range []string{
		`{"target":"button:Sign in"}`, ` { "target" : "button:Sign in" } `, `{"target":"button:Sign\u0020in"}`,
		`{"target":"button:Sign in","target":"x"}`, `{"target":"button:Sign in","count":1}`, `{"target":"\ud800"}`,
		`[]`, `null`, `{"target":1e400}`, "{\"target\":\"button:Sign in\"}\x00",
	} {
		f.Add([]byte(s))
	}
	g := issue(f, plan(f), nil)[0]
	granted := live(f, g)
	f.Fuzz(func(t *testing.T, args []byte) {
		b := brokerAt(t, issuedAt)
		call := granted
		call.Arguments = json.RawMessage(args)
		auth, err := b.Authorize(g, call)
		granted := g.Candidates[0].Arguments
		canonical, cerr := canonicaljson.Canonicalize(args)
		same := cerr == nil && bytes.Equal(canonical, granted)
		if (err == nil) != same {
			t.Fatalf("Authorize(%q) error = %v, but canonical form %q equal to granted %q is %v", args, err, canonical, granted, same)
		}
		if err == nil && !bytes.Equal(auth.Candidate.Arguments, granted) {
			t.Fatalf("sent %q, want the granted %q", auth.Candidate.Arguments, granted)
		}
	})
}
