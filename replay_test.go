package automium

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/automium/automium/internal/closedset"
	"github.com/automium/automium/internal/limit"
	"github.com/google/go-cmp/cmp"
)

func validReplayInput() GetReplaySummaryInput {
	return GetReplaySummaryInput{
		RunID:               testRunID,
		Verdict:             VerdictFailed,
		RetryCount:          2,
		ArtifactManifestRef: "artifact-manifest://" + testRunID,
	}
}

func TestGetReplaySummary(t *testing.T) {
	got, err := GetReplaySummary(context.Background(), validReplayInput())
	if err != nil {
		t.Fatal(err)
	}
	want := GetReplaySummaryResult{
		SchemaVersion:       ReplaySummaryVersion,
		RunID:               testRunID,
		Verdict:             VerdictFailed,
		RetryCount:          2,
		Attempts:            3,
		ArtifactManifestRef: "artifact-manifest://" + testRunID,
		ReplayStreamRef:     "replay-stream://" + testRunID,
		ReplayEventVersion:  ReplayEventVersion,
		RequiredReplayArtifactKinds: []ArtifactKind{
			"console_log", "dom_snapshot", "network_har", "replay_events", "report",
			"screenshot", "semantic_snapshot", "trace", "video",
		},
		Modeled: true,
		Notice:  ModeledNotice,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GetReplaySummary (-want +got):\n%s", diff)
	}
}

func TestRequiredReplayArtifactKinds(t *testing.T) {
	failure := []string{"console_log", "dom_snapshot", "network_har", "replay_events", "report", "screenshot", "semantic_snapshot", "trace"}
	tests := []struct {
		verdict      Verdict
		retries      int
		wantAttempts int
		want         []string
	}{
		{VerdictPassed, 0, 1, []string{"replay_events", "report"}},
		{VerdictSkipped, 0, 0, []string{"report"}},
		{VerdictFailed, 0, 1, failure},
		{VerdictError, 0, 1, failure},
		{VerdictFailed, 1, 2, append(slices.Clone(failure), "video")},
		{VerdictError, 10, 11, append(slices.Clone(failure), "video")},
		{VerdictFlaky, 1, 2, append(slices.Clone(failure), "video")},
	}
	for _, tt := range tests {
		in := validReplayInput()
		in.Verdict, in.RetryCount = tt.verdict, tt.retries
		got, err := GetReplaySummary(context.Background(), in)
		if err != nil {
			t.Errorf("%s/%d: %v", tt.verdict, tt.retries, err)
			continue
		}
		if diff := cmp.Diff(tt.want, closedset.Strings(got.RequiredReplayArtifactKinds)); diff != "" {
			t.Errorf("%s/%d: kinds (-want +got):\n%s", tt.verdict, tt.retries, diff)
		}
		if got.Attempts != tt.wantAttempts {
			t.Errorf("%s/%d: attempts = %d, want %d", tt.verdict, tt.retries, got.Attempts, tt.wantAttempts)
		}
		for _, k := range got.RequiredReplayArtifactKinds {
			if artifactKindByName[k] == nil {
				t.Errorf("%s/%d: %q is not an artifact kind", tt.verdict, tt.retries, k)
			}
		}
	}
}

func TestGetReplaySummaryValidation(t *testing.T) {
	tests := []struct {
		name   string
		change func(*GetReplaySummaryInput)
		want   errorShape
		hint   string
	}{
		{"missing run", func(in *GetReplaySummaryInput) { in.RunID = "" }, errorShape{CodeInvalidArgument, "runId"}, "required"},
		{"malformed run", func(in *GetReplaySummaryInput) { in.RunID = "run-1" }, errorShape{CodeInvalidArgument, "runId"}, "20 lowercase hex"},
		{"missing verdict", func(in *GetReplaySummaryInput) { in.Verdict = "" }, errorShape{CodeInvalidArgument, "verdict"}, "required"},
		{"unknown verdict", func(in *GetReplaySummaryInput) { in.Verdict = "timedOut" }, errorShape{CodeInvalidArgument, "verdict"}, "replay verdict"},
		{"negative retries", func(in *GetReplaySummaryInput) { in.RetryCount = -1 }, errorShape{CodeInvalidArgument, "retryCount"}, "minimum"},
		{"too many retries", func(in *GetReplaySummaryInput) { in.RetryCount = limit.MaxRetryCount + 1 }, errorShape{CodeLimitExceeded, "retryCount"}, "10"},
		{"flaky without retry", func(in *GetReplaySummaryInput) { in.Verdict, in.RetryCount = VerdictFlaky, 0 }, errorShape{CodeInvalidArgument, "retryCount"}, "at least 1"},
		{"passed after retries", func(in *GetReplaySummaryInput) { in.Verdict = VerdictPassed }, errorShape{CodeInvalidArgument, "retryCount"}, "flaky"},
		{"skipped with retries", func(in *GetReplaySummaryInput) { in.Verdict = VerdictSkipped }, errorShape{CodeInvalidArgument, "retryCount"}, "never retried"},
		{"missing manifest ref", func(in *GetReplaySummaryInput) { in.ArtifactManifestRef = "" }, errorShape{CodeInvalidArgument, "artifactManifestRef"}, "artifact-manifest://" + testRunID},
		{"manifest ref too long", func(in *GetReplaySummaryInput) { in.ArtifactManifestRef += strings.Repeat("x", 256) }, errorShape{CodeLimitExceeded, "artifactManifestRef"}, "256"},
		{"manifest ref not a manifest", func(in *GetReplaySummaryInput) { in.ArtifactManifestRef = "replay-stream://" + testRunID }, errorShape{CodeInvalidArgument, "artifactManifestRef"}, "not an artifact manifest reference"},
		{"manifest ref is a path", func(in *GetReplaySummaryInput) { in.ArtifactManifestRef = "/tmp/manifest.json" }, errorShape{CodeInvalidArgument, "artifactManifestRef"}, "not an artifact manifest reference"},
		{"manifest of another run", func(in *GetReplaySummaryInput) {
			in.ArtifactManifestRef = "artifact-manifest://run-ffffffffffffffffffff"
		}, errorShape{CodeInvalidArgument, "artifactManifestRef"}, `names run "run-ffffffffffffffffffff", not "` + testRunID + `"`},
		{"first problem in field order", func(in *GetReplaySummaryInput) {
			in.Verdict = "nope"
			in.ArtifactManifestRef = "x"
		}, errorShape{CodeInvalidArgument, "verdict"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := validReplayInput()
			tt.change(&in)
			_, err := GetReplaySummary(context.Background(), in)
			if diff := cmp.Diff(tt.want, shapeOf(t, err)); diff != "" {
				t.Errorf("error (-want +got):\n%s\n%v", diff, err)
			}
			if !strings.Contains(err.Error(), tt.hint) {
				t.Errorf("message %q lacks %q", err.Error(), tt.hint)
			}
		})
	}
}

// A run submission's references feed straight into the replay summary and the
// artifact manifest.
func TestRunReplayArtifactRoundTrip(t *testing.T) {
	ctx := context.Background()
	run, err := CreateRunSubmission(ctx, validRunSubmission())
	if err != nil {
		t.Fatal(err)
	}
	summary, err := GetReplaySummary(ctx, GetReplaySummaryInput{RunID: run.RunID, Verdict: VerdictPassed, ArtifactManifestRef: run.ArtifactManifestRef})
	if err != nil {
		t.Fatal(err)
	}
	if summary.ReplayStreamRef != run.ReplayStreamRef {
		t.Errorf("replay stream ref %q, want the submission's %q", summary.ReplayStreamRef, run.ReplayStreamRef)
	}
	var entries []ArtifactEntry
	for _, k := range summary.RequiredReplayArtifactKinds {
		entries = append(entries, ArtifactEntry{Kind: k, Path: string(k) + ".out"})
	}
	manifest, err := GetArtifactManifest(ctx, GetArtifactManifestInput{RunID: run.RunID, Root: owned().fixtureByID[run.FixtureID].ArtifactRoot, Entries: entries})
	if err != nil {
		t.Fatal(err)
	}
	if manifest.ArtifactManifestRef != run.ArtifactManifestRef {
		t.Errorf("manifest ref %q, want the submission's %q", manifest.ArtifactManifestRef, run.ArtifactManifestRef)
	}
}

// Every fixture's artifact root is a valid manifest root.
func TestFixtureArtifactRootsAreManifestRoots(t *testing.T) {
	for _, f := range owned().Fixtures {
		if msg, bad := artifactPathProblem(f.ArtifactRoot); bad {
			t.Errorf("fixture %s: artifactRoot %s", f.ID, msg)
		}
	}
}

// The verdicts the validate tag knows are the typed constants, sorted.
func TestVerdictTag(t *testing.T) {
	if got, _ := tagValues("automium_verdict"); !slices.Equal(got, closedset.Strings(Verdicts())) || len(got) != 5 {
		t.Errorf("verdicts = %v, want %v", got, Verdicts())
	}
}
