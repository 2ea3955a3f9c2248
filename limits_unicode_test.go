package automium

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/automium/automium/internal/closedset"
	"github.com/automium/automium/internal/limit"
)

// TestLengthLimitsCountCharacters checks that length limits count characters, as
// the schemas' maxLength does, so that a value the schema allows is never refused
// for its bytes: "é" is one character and two bytes.
func TestLengthLimitsCountCharacters(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		call  func(n int) error
		limit int
		field string
	}{
		{"planner id", func(n int) error {
			in := validRunSubmission()
			in.Planner.ID = strings.Repeat("é", n)
			_, err := CreateRunSubmission(ctx, in)
			return err
		}, limit.MaxIDLength, "planner.id"},
		{"artifact root", func(n int) error {
			in := validManifestInput()
			// Segments of 99 two-byte characters: a file system stores a
			// segment of at most 255 bytes, so one of 512 characters is
			// refused for that reason before the length limit is reached.
			var b strings.Builder
			for i := range n {
				if (i+1)%100 == 0 {
					b.WriteByte('/')
				} else {
					b.WriteString("é")
				}
			}
			in.Root = b.String()
			_, err := GetArtifactManifest(ctx, in)
			return err
		}, limit.MaxPathLength, "root"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.call(tt.limit); err != nil {
				t.Errorf("%d two-byte characters: %v, want accepted", tt.limit, err)
			}
			var e *Error
			if err := tt.call(tt.limit + 1); !errors.As(err, &e) || e.Code != CodeLimitExceeded || e.Field != tt.field {
				t.Errorf("%d two-byte characters: %v, want limit_exceeded at %s", tt.limit+1, err, tt.field)
			}
		})
	}
}

// TestMissingClosedSetFieldNamesAllowedValues checks that a missing field whose
// values come from a closed set says which values it takes.
func TestMissingClosedSetFieldNamesAllowedValues(t *testing.T) {
	in := validJourney()
	in.AppID = ""
	in.Steps[1].Intent = ""
	res, err := CompileJourney(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, e := range res.Errors {
		got[e.Field] = e.Allowed
	}
	for field, want := range map[string][]string{"appId": owned().appIDs, "steps[1].intent": closedset.Strings(Intents())} {
		if len(got[field]) == 0 || strings.Join(got[field], ",") != strings.Join(want, ",") {
			t.Errorf("%s: allowed = %v, want %v", field, got[field], want)
		}
	}
}
