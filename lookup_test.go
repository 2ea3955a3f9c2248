package automium_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/automium/automium"
	"github.com/google/go-cmp/cmp"
)

func TestFixtureOfApp(t *testing.T) {
	tests := []struct {
		name, app, fixture string
		wantCode           automium.Code
		wantField          string
	}{
		{"a fixture of the app", "storefront", "storefront-guest-catalog", "", ""},
		{"unknown app", "nope", "storefront-guest-catalog", automium.CodeInvalidAppID, "appId"},
		{"unknown fixture", "storefront", "nope", automium.CodeInvalidFixtureID, "fixtureId"},
		{"fixture of another app", "kanban", "storefront-guest-catalog", automium.CodeFixtureAppMismatch, "fixtureId"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := automium.FixtureOfApp(tt.app, tt.fixture)
			if tt.wantCode == "" {
				if err != nil || f.ID != tt.fixture || f.AppID != tt.app {
					t.Fatalf("FixtureOfApp = %+v, %v", f, err)
				}
				return
			}
			var e *automium.Error
			if !errors.As(err, &e) {
				t.Fatalf("FixtureOfApp error = %v, want *Error", err)
			}
			if diff := cmp.Diff([2]string{string(tt.wantCode), tt.wantField}, [2]string{string(e.Code), e.Field}); diff != "" {
				t.Errorf("code, field (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReferenceJourneyIDs(t *testing.T) {
	ids := automium.ReferenceJourneyIDs()
	if len(ids) == 0 || !slices.IsSorted(ids) {
		t.Fatalf("ReferenceJourneyIDs = %v, want a sorted, non-empty list", ids)
	}
	for _, id := range ids {
		if _, ok := automium.ReferenceJourney(id); !ok {
			t.Errorf("ReferenceJourney(%q) not found", id)
		}
	}
}

func TestRequiredReplayArtifactKinds(t *testing.T) {
	if diff := cmp.Diff([]automium.ArtifactKind{"replay_events", "report", "trace", "video"}, automium.RequiredReplayArtifactKinds(automium.VerdictPassed, 1)); diff != "" {
		t.Errorf("passed after a retry (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]automium.ArtifactKind{"report"}, automium.RequiredReplayArtifactKinds(automium.VerdictSkipped, 0)); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
}
