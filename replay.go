package automium

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/automium/automium/internal/closedset"
	"github.com/automium/automium/internal/echo"
)

// Verdict is how a run ended, modelled on Playwright's test outcomes. A run is
// flaky when an attempt failed and a retry then passed; passed means the first
// attempt passed.
type Verdict string

// The verdicts; [Verdicts] lists them.
const (
	VerdictPassed  Verdict = "passed"
	VerdictFailed  Verdict = "failed"
	VerdictFlaky   Verdict = "flaky"
	VerdictError   Verdict = "error"
	VerdictSkipped Verdict = "skipped"
)

var verdicts = []string{string(VerdictError), string(VerdictFailed), string(VerdictFlaky), string(VerdictPassed), string(VerdictSkipped)}

// Verdicts returns every verdict, sorted.
func Verdicts() []Verdict { return closedset.Sorted[Verdict](verdicts) }

var _ = registerTag("automium_verdict", CodeInvalidArgument, "a replay verdict", func() []string { return verdicts })

// GetReplaySummaryInput is what a caller knows about a finished run.
type GetReplaySummaryInput struct {
	RunID               string  `json:"runId" jsonschema:"run ID from CreateRunSubmission" validate:"required,automium_run_id"`
	Verdict             Verdict `json:"verdict" jsonschema:"Playwright's verdict" validate:"required,automium_verdict"`
	RetryCount          int     `json:"retryCount,omitempty" jsonschema:"retries after the first attempt, 0 to 10; flaky needs at least 1, passed and skipped need 0" validate:"min=0,max_retry_count"`
	ArtifactManifestRef string  `json:"artifactManifestRef" jsonschema:"artifact-manifest://<runId>" validate:"required,max=256"`
}

// GetReplaySummaryResult is a contract-shaped replay summary: what a replay of the
// run consists of and which artifacts triage needs.
type GetReplaySummaryResult struct {
	SchemaVersion               string         `json:"schemaVersion" jsonschema:"replay summary format version"`
	RunID                       string         `json:"runId" jsonschema:"run ID"`
	Verdict                     Verdict        `json:"verdict" jsonschema:"run verdict"`
	RetryCount                  int            `json:"retryCount" jsonschema:"retries after the first attempt"`
	Attempts                    int            `json:"attempts" jsonschema:"attempts the run made: retryCount + 1, or 0 when skipped"`
	ArtifactManifestRef         string         `json:"artifactManifestRef" jsonschema:"artifact manifest reference of the run"`
	ReplayStreamRef             string         `json:"replayStreamRef" jsonschema:"replay-stream://<runId>: the run's event stream"`
	ReplayEventVersion          string         `json:"replayEventVersion" jsonschema:"contract the replay stream's events follow"`
	RequiredReplayArtifactKinds []ArtifactKind `json:"requiredReplayArtifactKinds" jsonschema:"artifact kinds a complete replay of this run must include, sorted"`
	Modeled                     bool           `json:"modeled" jsonschema:"always true: the summary was derived from the input; no replay file or artifact was read"`
	Notice                      string         `json:"notice" jsonschema:"one-line statement that nothing was read, fetched or executed"`
}

// GetReplaySummary builds the replay summary of a run from its verdict and retry
// count. It reads no replay file, fetches no artifact and needs no persistence.
//
// The verdict and retries must agree the way they do in Playwright: flaky means a
// retry passed after a failure, so it needs retryCount >= 1; passed means the first
// attempt passed, and skipped runs are never retried, so both need retryCount 0.
// artifactManifestRef must be artifact-manifest://<runId> for the same run; a
// reference to another run is an invalid_argument error, never silently accepted.
//
// requiredReplayArtifactKinds follows one rule, cumulative and sorted:
//
//   - skipped: report only, since nothing ran;
//   - any other verdict: replay_events and report;
//   - failed, flaky and error add what triage of a failure needs: trace,
//     screenshot, console_log, network_har, semantic_snapshot and dom_snapshot;
//   - retryCount > 0 adds trace and video, as Playwright records them on retries.
func GetReplaySummary(ctx context.Context, in GetReplaySummaryInput) (GetReplaySummaryResult, error) {
	if err := checkContext(ctx); err != nil {
		return GetReplaySummaryResult{}, err
	}
	if err := replaySummaryProblems(in); err != nil {
		return GetReplaySummaryResult{}, err
	}
	attempts := in.RetryCount + 1
	if in.Verdict == VerdictSkipped {
		attempts = 0
	}
	return GetReplaySummaryResult{
		SchemaVersion:               ReplaySummaryVersion,
		RunID:                       in.RunID,
		Verdict:                     in.Verdict,
		RetryCount:                  in.RetryCount,
		Attempts:                    attempts,
		ArtifactManifestRef:         in.ArtifactManifestRef,
		ReplayStreamRef:             ReplayStreamRefScheme + in.RunID,
		ReplayEventVersion:          ReplayEventVersion,
		RequiredReplayArtifactKinds: requiredReplayArtifactKinds(in.Verdict, in.RetryCount),
		Modeled:                     true,
		Notice:                      ModeledNotice,
	}, nil
}

// RequiredReplayArtifactKinds returns, sorted, the artifact kinds a run with this
// verdict and retry count must record: the rule documented on [GetReplaySummary].
// An unknown verdict gets the kinds of a passed run; [GetReplaySummary] is where
// a verdict is checked.
func RequiredReplayArtifactKinds(verdict Verdict, retryCount int) []ArtifactKind {
	return requiredReplayArtifactKinds(verdict, retryCount)
}

// requiredReplayArtifactKinds applies the rule documented on [GetReplaySummary].
func requiredReplayArtifactKinds(verdict Verdict, retries int) []ArtifactKind {
	if verdict == VerdictSkipped {
		return []ArtifactKind{ArtifactReport}
	}
	kinds := []ArtifactKind{ArtifactReplayEvents, ArtifactReport}
	switch verdict {
	case VerdictFailed, VerdictFlaky, VerdictError:
		kinds = append(kinds, "console_log", "dom_snapshot", "network_har", "screenshot", "semantic_snapshot", "trace")
	}
	if retries > 0 {
		kinds = append(kinds, "trace", "video")
	}
	slices.Sort(kinds)
	return slices.Compact(kinds)
}

// replaySummaryProblems returns every problem with in.
func replaySummaryProblems(in GetReplaySummaryInput) error {
	ps := newProblems(in)
	refAt := field("artifactManifestRef")
	ps.validate(in, refAt)
	verdictRetryProblems(ps, field("verdict"), field("retryCount"), in.Verdict, in.RetryCount)
	// manifestRefProblem says more about artifactManifestRef than the generic
	// rules, but only a valid run ID says what the reference should be.
	if ps.has(field("runId")) {
		ps.checkField(refAt, reflect.TypeOf(in), "artifactManifestRef", in.ArtifactManifestRef)
		return ps.err()
	}
	ps.addError(refAt, manifestRefProblem(in.ArtifactManifestRef, in.RunID))
	return ps.err()
}

// verdictRetryProblems records where a verdict and a retry count disagree, the
// way they do in Playwright: flaky means a retry passed after a failure, passed
// means the first attempt did, and skipped runs are never retried.
func verdictRetryProblems(ps *problems, verdictAt, retriesAt Path, verdict Verdict, retries int) {
	if ps.has(verdictAt) || ps.has(retriesAt) {
		return
	}
	switch {
	case verdict == VerdictFlaky && retries == 0:
		ps.add(retriesAt, CodeInvalidArgument, nil, "a flaky run passed on a retry after failing, so retryCount must be at least 1; use verdict passed if the first attempt passed")
	case verdict == VerdictPassed && retries > 0:
		ps.add(retriesAt, CodeInvalidArgument, nil, "a run that passed only after %d retries is flaky; use verdict flaky, or retryCount 0 if the first attempt passed", retries)
	case verdict == VerdictSkipped && retries > 0:
		ps.add(retriesAt, CodeInvalidArgument, nil, "a skipped run is never retried; use retryCount 0")
	}
}

// maxRefLength bounds references such as artifactManifestRef; the validate tag
// repeats it, and a test keeps the two equal.
const maxRefLength = 256

// manifestRefProblem checks that ref is the artifact manifest reference of
// runID, a valid run ID, or returns nil.
func manifestRefProblem(ref, runID string) *Error {
	want := ArtifactManifestRefScheme + runID
	switch {
	case ref == want:
		return nil
	case ref == "":
		return newError(CodeInvalidArgument, Path{}, nil, "is required; use %s", want)
	case len(ref) > maxRefLength && utf8.RuneCountInString(ref) > maxRefLength:
		return newError(CodeLimitExceeded, Path{}, nil, "is too long; the limit is %d characters", maxRefLength)
	case !strings.HasPrefix(ref, ArtifactManifestRefScheme):
		return newError(CodeInvalidArgument, Path{}, nil, "%s is not an artifact manifest reference; use %s, as a run submission returns it", echo.Value(ref), want)
	}
	return newError(CodeInvalidArgument, Path{}, nil, "%s names run %s, not %q; use %s, the manifest of the same run",
		echo.Value(ref), echo.Value(strings.TrimPrefix(ref, ArtifactManifestRefScheme)), runID, want)
}
