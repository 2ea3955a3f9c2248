package automium

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestContextRule holds every capability to the one rule the package doc states:
// a nil context is an invalid_argument *Error, never a panic; a done context is
// an *Error with code canceled or deadline_exceeded that errors.Is matches with
// the context's own error.
func TestContextRule(t *testing.T) {
	calls := map[string]func(context.Context) error{
		"ListApps":            func(ctx context.Context) error { _, err := ListApps(ctx, ListAppsInput{}); return err },
		"ListFixtures":        func(ctx context.Context) error { _, err := ListFixtures(ctx, ListFixturesInput{}); return err },
		"CompileJourney":      func(ctx context.Context) error { _, err := CompileJourney(ctx, validJourney()); return err },
		"CreateRunSubmission": func(ctx context.Context) error { _, err := CreateRunSubmission(ctx, validRunSubmission()); return err },
		"GetReplaySummary":    func(ctx context.Context) error { _, err := GetReplaySummary(ctx, validReplayInput()); return err },
		"GetArtifactManifest": func(ctx context.Context) error { _, err := GetArtifactManifest(ctx, validManifestInput()); return err },
		"ComparePlanners":     func(ctx context.Context) error { _, err := ComparePlanners(ctx, validCompareInput()); return err },
		"CompareObservedTrials": func(ctx context.Context) error {
			_, err := CompareObservedTrials(ctx, validObservedInput())
			return err
		},
	}
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancelExpired := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancelExpired()
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			if err := call(context.Background()); err != nil {
				t.Fatalf("with a live context: %v", err)
			}
			for _, tt := range []struct {
				ctx      context.Context
				code     Code
				sentinel error
			}{
				{nil, CodeInvalidArgument, nil},
				{canceled, CodeCanceled, context.Canceled},
				{expired, CodeDeadlineExceeded, context.DeadlineExceeded},
			} {
				err := call(tt.ctx)
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("ctx %v: got %v, want *Error", tt.ctx, err)
				}
				if diff := cmp.Diff(tt.code, e.Code); diff != "" {
					t.Errorf("ctx %v: code (-want +got):\n%s", tt.ctx, diff)
				}
				if tt.sentinel != nil && !errors.Is(err, tt.sentinel) {
					t.Errorf("ctx %v: errors.Is(err, %v) is false", tt.ctx, tt.sentinel)
				}
			}
		})
	}
}
