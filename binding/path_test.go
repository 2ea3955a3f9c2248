package binding_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/automium/automium"
	"github.com/automium/automium/binding"
	"github.com/google/go-cmp/cmp"
)

// TestRefusalsCarryPaths: binding reports where a problem is as the root's
// Path, built from its parts (names and indices), the same value a caller
// would build; Field is its rendering. A path built from a string such as
// "steps[0][1].tool" would be one member name with brackets in it and would
// differ here both as a value and as text (it renders quoted).
func TestRefusalsCarryPaths(t *testing.T) {
	key := binding.SealKey{ID: "k1", Secret: testSecret}
	tests := []struct {
		name string
		err  func() error
		want automium.Path
	}{
		{"prompt argument name not a string", func() error {
			_, err := binding.Catalog{ProtocolVersion: "v", Prompts: []json.RawMessage{
				json.RawMessage(`{"name":"p","arguments":[{"name":"a"},{"name":7}]}`)}}.Digest()
			return err
		}, automium.PathOf("prompts").Index(0).Field("arguments").Index(1).Field("name")},
		{"tool hint not a boolean", func() error {
			_, err := binding.Catalog{ProtocolVersion: "v", Tools: []json.RawMessage{
				json.RawMessage(`{"name":"a"}`), json.RawMessage(`{"name":"b","annotations":{"openWorldHint":1}}`)}}.Digest()
			return err
		}, automium.PathOf("tools").Index(1).Field("annotations").Field("openWorldHint")},
		{"case-variant members in a resource", func() error {
			_, err := binding.Catalog{ProtocolVersion: "v", Resources: []json.RawMessage{
				json.RawMessage(`{"uri":"x://a","URI":"x://b"}`)}}.Digest()
			return err
		}, automium.PathOf("resources").Index(0)},
		{"second candidate names a tool the catalog lacks", func() error {
			p := plan(t)
			p.Steps[0] = append(p.Steps[0], binding.Call{Tool: "drag", Arguments: json.RawMessage(`{}`)})
			_, err := binding.IssuePlan(p, nil)
			return err
		}, automium.PathOf("steps").Index(0).Index(1).Field("tool")},
		{"arguments outside the schema", func() error {
			p := plan(t)
			p.Steps[2][0].Arguments = json.RawMessage(`{"target":"x","count":9}`)
			_, err := binding.IssuePlan(p, nil)
			return err
		}, automium.PathOf("steps").Index(2).Index(0).Field("arguments")},
		{"short seal key", func() error {
			_, err := binding.IssuePlan(plan(t), &binding.SealKey{ID: "k", Secret: []byte("short")})
			return err
		}, automium.PathOf("key").Field("Secret")},
		{"second key with the first's ID", func() error {
			_, err := binding.NewBroker(binding.BrokerOptions{RunID: runID, PolicyDigest: policyDigest(t, "default"), Host: host, VMUUID: vmUUID,
				Keys: []binding.SealKey{key, key}, Now: func() time.Time { return issuedAt }})
			return err
		}, automium.PathOf("Keys").Index(1)},
		{"malformed key ID", func() error {
			_, err := binding.NewBroker(binding.BrokerOptions{RunID: runID, PolicyDigest: policyDigest(t, "default"), Host: host, VMUUID: vmUUID,
				Keys: []binding.SealKey{key, {ID: "k 2", Secret: testSecret}}, Now: func() time.Time { return issuedAt }})
			return err
		}, automium.PathOf("Keys").Index(1).Field("ID")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, ok := errors.AsType[*automium.Error](tt.err())
			if !ok {
				t.Fatalf("error is not an *automium.Error: %v", tt.err())
			}
			if diff := cmp.Diff(tt.want, e.Path(), cmp.Exporter(func(reflect.Type) bool { return true })); diff != "" {
				t.Errorf("path (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want.String(), e.Field); diff != "" {
				t.Errorf("field (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSubstitutionNamesTheGrantedServers: a call to a server no candidate
// names is refused with the grant's distinct servers, at most three by name,
// each quoted and cut as a client value; a server repeated among the
// candidates is not "others".
func TestSubstitutionNamesTheGrantedServers(t *testing.T) {
	long := strings.Repeat("s", 100)
	server := func(name string) binding.ServerIdentity { return binding.ServerIdentity{Name: name, Version: "1"} }
	tests := []struct {
		name    string
		servers []string // one candidate a server, in order
		want    string
	}{
		{"one", []string{"a"}, `"a@1"`},
		{"a repeated server", []string{"a", "b", "a"}, `"a@1", "b@1"`},
		{"three and a repeat", []string{"a", "b", "c", "b"}, `"a@1", "b@1", "c@1"`},
		{"four", []string{"a", "b", "c", "d"}, `"a@1", "b@1", "c@1" and others`},
		{"a long name, cut", []string{long}, `"` + long[:40] + `"… (102 bytes)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := plan(t)
			p.Steps = [][]binding.Call{nil}
			for i, s := range tt.servers {
				if !slices.ContainsFunc(p.Servers, func(ps binding.PinnedServer) bool { return ps.Identity == server(s) }) {
					p.Servers = append(p.Servers, binding.PinnedServer{Identity: server(s), Catalog: uiCatalog(false)})
				}
				p.Steps[0] = append(p.Steps[0], binding.Call{Server: server(s), Tool: "click", Arguments: json.RawMessage(fmt.Sprintf(`{"target":"button:%d"}`, i))})
			}
			g := issue(t, p, nil)[0]
			call := liveOn(t, g, 0)
			call.Server = server("intruder")
			_, err := brokerAt(t, issuedAt).Authorize(g, call)
			e, ok := errors.AsType[*automium.Error](err)
			if !ok || e.Code != binding.CodeServerSubstituted {
				t.Fatalf("error %v, want %s", err, binding.CodeServerSubstituted)
			}
			_, allows, _ := strings.Cut(e.Message, "the grant allows ")
			if diff := cmp.Diff(tt.want, allows); diff != "" {
				t.Errorf("servers named (-want +got):\n%s", diff)
			}
		})
	}
}
