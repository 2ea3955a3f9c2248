package mcpserver

import (
	"encoding/json"
	"testing"

	"github.com/automium/automium"
)

// FuzzDecodeArguments feeds arbitrary bytes to the strict decoder of the richest
// input type. It must never panic, must fail only with a coded invalid_argument or
// limit_exceeded error, and whenever its shape check passes, encoding/json must
// agree (the shape check mirrors encoding/json, so a disagreement is a bug there).
func FuzzDecodeArguments(f *testing.F) {
	f.Add([]byte(referenceJourneyJSON(f)))
	for _, seed := range []string{
		``, `null`, `{}`, `[]`, `"x"`, `7`, `{"steps":[{"intent":"click","target":{"role":5}}]}`,
		`{"recovery":{"maxRetries":1e2}}`, `{"recovery":{"maxRetries":-9223372036854775809}}`,
		`{"Id":"x"}`, `{"id":"x","id":"y"}`, `{"steps":null,"assertions":[null]}`, `{"goal":"\ud800"}`,
		`{"id":"a"} {"id":"b"}`, `{"recovery":{"strategies":[1,2]}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := decodeArguments[automium.CompileJourneyInput](json.RawMessage(data))
		if err != nil {
			e, ok := err.(*automium.Error)
			if !ok {
				t.Fatalf("error %v is %T, want *automium.Error", err, err)
			}
			if e.Code != automium.CodeInvalidArgument && e.Code != automium.CodeLimitExceeded {
				t.Fatalf("code %s, want invalid_argument or limit_exceeded", e.Code)
			}
			if e.Message == "the arguments do not match the tool's input schema; check them against it" {
				t.Fatalf("shape check passed but encoding/json rejected %q", data)
			}
			return
		}
		if _, err := json.Marshal(in); err != nil {
			t.Fatalf("decoded value does not marshal: %v", err)
		}
	})
}
