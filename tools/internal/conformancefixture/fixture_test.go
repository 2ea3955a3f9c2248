package conformancefixture

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNewRefusesShortKey(t *testing.T) {
	if _, err := New(Options{StateKey: make([]byte, minStateKeyBytes-1)}); err == nil {
		t.Fatal("New accepted a state key shorter than the minimum")
	}
	if _, err := New(Options{StateKey: make([]byte, minStateKeyBytes)}); err != nil {
		t.Fatalf("New: %v", err)
	}
}

// TestRequestState checks that only a state this server signed, for this tool,
// is accepted, which is what the tampered-state scenario relies on.
func TestRequestState(t *testing.T) {
	f := &fixture{key: bytes.Repeat([]byte{7}, minStateKeyBytes)}
	other := &fixture{key: bytes.Repeat([]byte{8}, minStateKeyBytes)}
	good := f.signState("multi_round", 2)
	flipped := []byte(good)
	flipped[len(flipped)-1] ^= 1
	tests := []struct {
		name, tool, state string
		wantRound         int
		wantOK            bool
	}{
		{"signed", "multi_round", good, 2, true},
		{"another tool", "request_state", good, 0, false},
		{"another key", "multi_round", other.signState("multi_round", 2), 0, false},
		{"altered signature", "multi_round", string(flipped), 0, false},
		{"empty", "multi_round", "", 0, false},
		{"no signature", "multi_round", "bXVsdGlfcm91bmQvMg", 0, false},
		{"too long", "multi_round", good + string(bytes.Repeat([]byte{'A'}, 300)), 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			round, err := f.verifyState(tt.tool, tt.state)
			if diff := cmp.Diff(struct {
				Round int
				OK    bool
			}{tt.wantRound, tt.wantOK}, struct {
				Round int
				OK    bool
			}{round, err == nil}); diff != "" {
				t.Errorf("verifyState (-want +got):\n%s (err %v)", diff, err)
			}
		})
	}
}
