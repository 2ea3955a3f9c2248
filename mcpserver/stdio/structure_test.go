package stdio

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTopLevelID holds the lexer that replaces decoding a valid call's members
// to what that decode finds: the top-level "id" only, the last one, objects and
// arrays marked by their first byte, and no answer for escaped names.
func TestTopLevelID(t *testing.T) {
	tests := []struct {
		line  string
		raw   string
		has   bool
		plain bool
	}{
		{`{"jsonrpc":"2.0","id":7,"method":"ping"}`, `7`, true, true},
		{`{"jsonrpc":"2.0","method":"ping","id":"a\"b"}`, `"a\"b"`, true, true},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, ``, false, true},
		{`{"params":{"id":1,"x":[{"id":2}]},"method":"m"}`, ``, false, true},
		{`{"id":1,"id":2}`, `2`, true, true},
		{`{ "id" : null }`, `null`, true, true},
		{`{"id":{"a":1}}`, `{`, true, true},
		{`{"id":[1]}`, `[`, true, true},
		{`{"i\u0064":1.5,"method":"ping"}`, ``, false, false},
		{`{"method":"x","params":{"i\u0064":1}}`, ``, false, true},
	}
	for _, tt := range tests {
		scan := scanLine([]byte(tt.line), DefaultMaxValues, DefaultMaxDepth)
		raw := string(scan.id)
		if !scan.plain {
			raw = "" // the caller decodes the members instead
		}
		if diff := cmp.Diff([]any{tt.raw, tt.has, tt.plain}, []any{raw, scan.hasID && scan.plain, scan.plain}); diff != "" {
			t.Errorf("scanLine(%s) id (-want +got):\n%s", tt.line, diff)
		}
	}
}

// TestDecodeLineEscapedID: an id under an escaped name is still checked, through
// the members' decode.
func TestDecodeLineEscapedID(t *testing.T) {
	_, rejections := decodeLine([]byte(`{"jsonrpc":"2.0","i\u0064":1.5,"method":"ping"}`), DefaultMaxValues, DefaultMaxDepth)
	if len(rejections) != 1 || rejections[0].code != -32600 || string(rejections[0].id) != "1.5" {
		t.Errorf("decodeLine of an escaped fractional id = %+v, want one -32600 with id 1.5", rejections)
	}
}
