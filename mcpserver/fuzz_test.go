package mcpserver

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/automium/automium"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// FuzzDecodeArguments feeds arbitrary bytes to the argument walker of the richest
// input type. It must never panic; it must fail only with a coded invalid_argument
// or limit_exceeded error of bounded size; it must refuse what encoding/json
// calls malformed, and nothing else as malformed; whatever it accepts, encoding/json must read the
// same way when it accepts it too; and what it accepts must survive a round trip.
func FuzzDecodeArguments(f *testing.F) {
	f.Add([]byte(referenceJourneyJSON(f)))
	for _, seed := range []string{
		``, `null`, `{}`, `[]`, `"x"`, `7`, `{"steps":[{"intent":"click","target":{"role":5}}]}`,
		`{"recovery":{"maxRetries":1e2}}`, `{"recovery":{"maxRetries":-9223372036854775809}}`,
		`{"Id":"x"}`, `{"id":"x","id":"y"}`, `{"steps":null,"assertions":[null]}`, `{"goal":"\ud800"}`,
		`{"id":"a"} {"id":"b"}`, `{"recovery":{"strategies":[1,2]}}`,
		// Escaped names, duplicates across spellings, case variants.
		`{"st\u0065ps":[{},{},{}]}`, `{"appId":"kanban","app\u0049d":"banking"}`, `{"goal":"a","g\u006fal":5}`,
		`{"Steps":[{}],"STEPS":[]}`, `{"steps":[{"Intent":"click"}]}`,
		// Arrays under unknown names, deep nesting.
		`{"junk":[{},{},[[[]]],{"a":[1,2,3]}]}`, `{"junk":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}`,
		// Numbers JSON Schema calls integers, and ones it does not.
		`{"recovery":{"maxRetries":2.0}}`, `{"recovery":{"maxRetries":3e0}}`, `{"recovery":{"maxRetries":1.5}}`,
		`{"recovery":{"maxRetries":1e400}}`, `{"recovery":{"maxRetries":-0}}`, `{"recovery":{"maxRetries":0.3e1}}`,
		`{"recovery":{"maxRetries":123456789012345678901234567890}}`,
		// Strings at and over their bounds, escaped and invalid.
		`{"goal":"` + strings.Repeat(`\u00e9`, 2001) + `"}`, "{\"goal\":\"\xff\xfe\"}", `{"goal":"\ud83d\ude00\udc00"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := decodeArguments[automium.CompileJourneyInput](json.RawMessage(data))
		trimmed := bytes.TrimSpace(data)
		valid := len(trimmed) == 0 || json.Valid(trimmed)
		if err != nil {
			e, ok := err.(*automium.Error)
			if !ok {
				t.Fatalf("error %v is %T, want *automium.Error", err, err)
			}
			if e.Code != automium.CodeInvalidArgument && e.Code != automium.CodeLimitExceeded {
				t.Fatalf("code %s, want invalid_argument or limit_exceeded", e.Code)
			}
			if body, _ := json.Marshal(e); len(body) > 32<<10 {
				t.Fatalf("error of %d bytes for %d bytes of input", len(body), len(data))
			}
			// Malformed JSON is refused; it is called malformed unless the walk
			// stopped before the flaw, at too deep a nesting or too many problems.
			if e.Message == notJSON().Message && valid {
				t.Fatalf("walker says %q is not JSON; encoding/json reads it", data)
			}
			return
		}
		if !valid {
			t.Fatalf("walker accepted malformed JSON %q", data)
		}
		var strict automium.CompileJourneyInput
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		dec.DisallowUnknownFields()
		if len(trimmed) > 0 && dec.Decode(&strict) == nil {
			if diff := cmp.Diff(strict, in); diff != "" {
				t.Fatalf("%q read differently (-encoding/json +walker):\n%s", data, diff)
			}
		}
		// Go writes a nil slice as null, which no input value may be; the
		// round trip starts from empty ones.
		if in.Steps == nil {
			in.Steps = []automium.Step{}
		}
		if in.Assertions == nil {
			in.Assertions = []automium.Assertion{}
		}
		again, err := json.Marshal(in)
		if err != nil {
			t.Fatalf("decoded value does not marshal: %v", err)
		}
		back, err := decodeArguments[automium.CompileJourneyInput](again)
		if err != nil {
			t.Fatalf("walker refuses its own output %s: %v", again, err)
		}
		// Strategies are omitted when empty, so an empty list comes back absent.
		if diff := cmp.Diff(in, back, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("round trip (-first +second):\n%s", diff)
		}
	})
}
