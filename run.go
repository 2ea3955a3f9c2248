package automium

import (
	"context"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/automium/automium/internal/echo"
)

// PlannerRef identifies the planner backend a run or a comparison is about. All
// three parts are required: the ID alone cannot tell two configurations of one
// model apart, and the vendor and model alone cannot tell two adapters apart.
//
// The parts are free text (model names such as "gpt-4.1-mini" or
// "claude-sonnet-4@20250514" follow no common pattern), bounded in length and
// free of control characters. A PlannerRef is a plain value, safe to copy and to
// share between goroutines.
type PlannerRef struct {
	// Planner adapter ID chosen by the caller, e.g. baseline-planner.
	ID string `json:"id" jsonschema:"planner adapter ID chosen by the caller, e.g. baseline-planner" validate:"required,notblank,max=128"`
	// Planner vendor, e.g. openai or anthropic.
	Vendor string `json:"vendor" jsonschema:"planner vendor, e.g. openai or anthropic" validate:"required,notblank,max=128"`
	// Model name as the vendor spells it, e.g. gpt-4.1-mini.
	Model string `json:"model" jsonschema:"model name as the vendor spells it, e.g. gpt-4.1-mini" validate:"required,notblank,max=128"`
}

// problems records what is wrong with p at its path in the input ("planner",
// "planners[2]"), so run submissions and comparisons report malformed planners
// the same way. Missing parts are all named at once, because a caller fixing one
// at a time would need three round trips. It reports whether p had a problem.
func (p PlannerRef) problems(ps *problems, at jsonPath) bool {
	parts := []struct{ name, value string }{{"id", p.ID}, {"vendor", p.Vendor}, {"model", p.Model}}
	var missing []string
	for _, part := range parts {
		if strings.TrimSpace(part.value) == "" {
			missing = append(missing, part.name)
		}
	}
	const example = `a planner reference needs id, vendor and model, e.g. {"id":"baseline","vendor":"openai","model":"gpt-4.1-mini"}`
	switch len(missing) {
	case 0:
	case 1:
		ps.add(at.dot(missing[0]), CodeMalformedPlanner, nil, "planner is missing %s; %s", missing[0], example)
		return true
	default:
		list := strings.Join(missing[:len(missing)-1], ", ") + " and " + missing[len(missing)-1]
		ps.add(at, CodeMalformedPlanner, nil, "planner is missing %s; %s", list, example)
		return true
	}
	found := false
	for _, part := range parts {
		switch {
		case utf8.RuneCountInString(part.value) > MaxIDLength:
			ps.add(at.dot(part.name), CodeLimitExceeded, nil, "is too long; the limit is %d characters", MaxIDLength)
		case !utf8.ValidString(part.value):
			ps.add(at.dot(part.name), CodeMalformedPlanner, nil, "%s is not valid UTF-8; send text encoded as UTF-8", echo.Quote(part.value))
		case strings.IndexFunc(part.value, unicode.IsControl) >= 0:
			ps.add(at.dot(part.name), CodeMalformedPlanner, nil, "%s contains control characters; use plain text", echo.Quote(part.value))
		case strings.TrimSpace(part.value) != part.value:
			ps.add(at.dot(part.name), CodeMalformedPlanner, nil, "%s has leading or trailing spaces; remove them", echo.Quote(part.value))
		default:
			continue
		}
		found = true
	}
	return found
}

// RunStatusModeled is the only status a v1 run submission can have. It says the
// submission was modeled: it was not queued, leased, started or finished, so no
// status that implies work (queued, running, passed) is ever reported.
const RunStatusModeled = "modeled"

// Reference schemes of a modeled run. Both are derived from the run ID alone, so
// anyone holding a run ID can rebuild them, and they name no storage location:
// v1 stores nothing.
const (
	// ArtifactManifestRefScheme prefixes a run ID to name its artifact manifest,
	// as in artifact-manifest://run-0123456789abcdef0123.
	ArtifactManifestRefScheme = "artifact-manifest://"
	// ReplayStreamRefScheme prefixes a run ID to name its replay-event-v1 stream,
	// as in replay-stream://run-0123456789abcdef0123.
	ReplayStreamRefScheme = "replay-stream://"
)

var _ = registerPattern("automium_run_id", `^run-[0-9a-f]{20}$`, "a run ID from CreateRunSubmission: run- followed by 20 lowercase hex digits")

// CreateRunSubmissionInput asks for a modeled run of one journey on one fixture,
// planner and environment profile.
//
// The journey is bound by content, not only by name: journeyId names either a
// reference journey of the fixture, or a journey the caller compiled, in which
// case journeyDigest must be the digest [CompileJourney] returned for it. The
// run ID hashes that digest, so two different journeys under one ID never share
// a run.
type CreateRunSubmissionInput struct {
	// ID of the journey to run: a reference journey of the fixture, or a journey you
	// compiled (then also send journeyDigest).
	JourneyID string `json:"journeyId" jsonschema:"ID of the journey to run: a reference journey of the fixture, or a journey you compiled (then also send journeyDigest)" validate:"required,max=128,automium_slug"`
	// The digest the journey compiler returned for a journey you compiled (sha256: and
	// 64 hex digits); optional for a reference journey, where it must match.
	JourneyDigest string `json:"journeyDigest,omitempty" jsonschema:"the digest the journey compiler returned for a journey you compiled (sha256: and 64 hex digits); optional for a reference journey, where it must match" validate:"omitempty,automium_digest"`
	// An authorized benchmark app ID (see ListApps).
	AppID string `json:"appId" jsonschema:"an authorized benchmark app ID (see ListApps)" validate:"required,automium_app"`
	// A fixture ID of that app (see ListFixtures).
	FixtureID string `json:"fixtureId" jsonschema:"a fixture ID of that app (see ListFixtures)" validate:"required,automium_fixture"`
	// The planner backend to run with: id, vendor and model, all required.
	Planner PlannerRef `json:"planner" jsonschema:"the planner backend to run with: id, vendor and model, all required" validate:"required"`
	// One of the fixture's environment profile IDs.
	EnvironmentProfileID string `json:"environmentProfileId" jsonschema:"one of the fixture's environment profile IDs" validate:"required,automium_profile"`
}

var _ = registerPattern("automium_digest", `^sha256:[0-9a-f]{64}$`, "a digest as the journey compiler returns it: sha256: followed by 64 lowercase hex digits")

// CreateRunSubmissionResult is a modeled run submission. Its RunID is a hash of the
// canonical input, so submitting the same input again yields the same submission.
type CreateRunSubmissionResult struct {
	// Run submission format version.
	SchemaVersion string `json:"schemaVersion" jsonschema:"run submission format version"`
	// Owned corpus version the submission was checked against.
	CorpusVersion string `json:"corpusVersion" jsonschema:"owned corpus version the submission was checked against"`
	// Modeled run ID: run- and 20 hex digits of the sha256 of the canonical
	// submission; the same submission always gets the same ID.
	RunID string `json:"runId" jsonschema:"modeled run ID: run- and 20 hex digits of the sha256 of the canonical submission; the same submission always gets the same ID"`
	// Journey ID.
	JourneyID string `json:"journeyId" jsonschema:"journey ID"`
	// Digest of the compiled journey the run is bound to.
	JourneyDigest string `json:"journeyDigest" jsonschema:"digest of the compiled journey the run is bound to"`
	// Whether journeyId names a checked-in reference journey of the fixture.
	ReferenceJourney bool `json:"referenceJourney" jsonschema:"whether journeyId names a checked-in reference journey of the fixture"`
	// App ID.
	AppID string `json:"appId" jsonschema:"app ID"`
	// Fixture ID.
	FixtureID string `json:"fixtureId" jsonschema:"fixture ID"`
	// Planner reference.
	Planner PlannerRef `json:"planner" jsonschema:"planner reference"`
	// Environment profile ID.
	EnvironmentProfileID string `json:"environmentProfileId" jsonschema:"environment profile ID"`
	// Initial status; always modeled in v1, meaning nothing was queued or executed.
	Status string `json:"status" jsonschema:"initial status; always modeled in v1, meaning nothing was queued or executed"`
	// Artifact-manifest://<runId>: the reference GetReplaySummary expects.
	ArtifactManifestRef string `json:"artifactManifestRef" jsonschema:"artifact-manifest://<runId>: the reference GetReplaySummary expects"`
	// Replay-stream://<runId>: names the run's replay-event-v1 stream.
	ReplayStreamRef string `json:"replayStreamRef" jsonschema:"replay-stream://<runId>: names the run's replay-event-v1 stream"`
	// Always true: this is a model of a submission, not a submitted run.
	Modeled bool `json:"modeled" jsonschema:"always true: this is a model of a submission, not a submitted run"`
	// One-line statement that nothing was enqueued, leased, executed or written.
	Notice string `json:"notice" jsonschema:"one-line statement that nothing was enqueued, leased, executed or written"`
}

// CreateRunSubmission models submitting a journey run. It checks that the app is
// authorized, the fixture belongs to the app, the environment profile is one of
// the fixture's, the planner reference has an id, vendor and model, and the
// journey is bound to what was compiled:
//
//   - a reference journey must belong to the same app and fixture, and a
//     journeyDigest sent with it must be the reference journey's own digest;
//   - any other journey ID needs the journeyDigest [CompileJourney] returned for
//     it, since v1 persists nothing and the digest is what says which journey
//     the run is of. An ID with neither is refused (invalid_argument), so a run
//     never names a journey nothing compiled.
//
// Every problem is reported at once. The run ID is "run-" followed by the first
// 20 hex digits of the sha256 of the submission format version, the journey
// digest, the corpus version, the app, fixture and environment profile, and the
// planner, so repeating a submission is idempotent and a different journey under
// the same ID gets a different run. Nothing is enqueued, leased, executed or
// written.
func CreateRunSubmission(ctx context.Context, in CreateRunSubmissionInput) (CreateRunSubmissionResult, error) {
	if err := checkContext(ctx); err != nil {
		return CreateRunSubmissionResult{}, err
	}
	digest, err := runSubmissionProblems(in)
	if err != nil {
		return CreateRunSubmissionResult{}, err
	}
	_, reference := owned().journeyByID[in.JourneyID]
	runID := "run-" + strings.TrimPrefix(digestOf(struct {
		Version              string     `json:"version"`
		JourneyDigest        string     `json:"journeyDigest"`
		CorpusVersion        string     `json:"corpusVersion"`
		AppID                string     `json:"appId"`
		FixtureID            string     `json:"fixtureId"`
		EnvironmentProfileID string     `json:"environmentProfileId"`
		Planner              PlannerRef `json:"planner"`
	}{RunSubmissionVersion, digest, CorpusVersion, in.AppID, in.FixtureID, in.EnvironmentProfileID, in.Planner}), "sha256:")[:20]
	return CreateRunSubmissionResult{
		SchemaVersion:        RunSubmissionVersion,
		CorpusVersion:        CorpusVersion,
		RunID:                runID,
		JourneyID:            in.JourneyID,
		JourneyDigest:        digest,
		ReferenceJourney:     reference,
		AppID:                in.AppID,
		FixtureID:            in.FixtureID,
		Planner:              in.Planner,
		EnvironmentProfileID: in.EnvironmentProfileID,
		Status:               RunStatusModeled,
		ArtifactManifestRef:  ArtifactManifestRefScheme + runID,
		ReplayStreamRef:      ReplayStreamRefScheme + runID,
		Modeled:              true,
		Notice:               ModeledNotice,
	}, nil
}

// runSubmissionProblems returns the digest of the journey the submission binds,
// or every problem with in. The validator's findings are sharpened where the
// corpus knows better: an unknown fixture lists the app's fixtures, an unknown
// profile the fixture's profiles, and any planner problem becomes
// malformed_planner naming every missing part.
func runSubmissionProblems(in CreateRunSubmissionInput) (string, error) {
	ps := newProblems(in)
	ps.validate(in)
	app := owned().appByID[in.AppID]
	fixture := owned().fixtureByID[in.FixtureID]
	if p := ps.first(field("fixtureId")); p != nil && p.Code == CodeInvalidFixtureID && app != nil {
		ps.replace(field("fixtureId"), unknownFixtureOfApp("fixtureId", app.ID, in.FixtureID))
	}
	if p := fixtureAppMismatch(app, fixture); p != nil {
		ps.addError(field("fixtureId"), p)
		fixture = nil
	}
	if in.Planner.problems(&problems{}, field("planner")) {
		ps.drop(field("planner"))
		in.Planner.problems(ps, field("planner"))
	}
	profile := field("environmentProfileId")
	if p := ps.first(profile); fixture != nil && (p == nil || p.Code == CodeInvalidEnvironmentProfile) &&
		!slices.Contains(fixture.EnvironmentProfileIDs, in.EnvironmentProfileID) {
		ps.replace(profile, newError(CodeInvalidEnvironmentProfile, "", fixture.EnvironmentProfileIDs,
			"%s is not an environment profile of fixture %s; use one of the allowed values", echo.Quote(in.EnvironmentProfileID), echo.Quote(fixture.ID)))
	}
	digest := in.JourneyDigest
	if !ps.has(field("journeyId")) && !ps.has(field("journeyDigest")) {
		journey, digestAt := field("journeyId"), field("journeyDigest")
		ref, isRef := owned().journeyByID[in.JourneyID]
		refDigest, _ := referenceDigest(in.JourneyID)
		switch {
		case isRef && app != nil && fixture != nil && (ref.AppID != app.ID || ref.FixtureID != fixture.ID):
			ps.add(journey, CodeFixtureAppMismatch, fixture.ReferenceJourneyIDs,
				"reference journey %s runs on app %s with fixture %s, not app %s with fixture %s; submit it with its own app and fixture, or use a journey of fixture %s",
				echo.Quote(ref.ID), echo.Quote(ref.AppID), echo.Quote(ref.FixtureID), echo.Quote(app.ID), echo.Quote(fixture.ID), echo.Quote(fixture.ID))
		case isRef && digest != "" && digest != refDigest:
			ps.add(digestAt, CodeInvalidArgument, nil,
				"%s is not the digest of reference journey %s (%s); leave journeyDigest out to run the reference journey, or give your own journey its own ID", echo.Quote(digest), echo.Quote(ref.ID), refDigest)
		case isRef:
			digest = refDigest
		case digest == "":
			ps.add(journey, CodeInvalidArgument, nil,
				"%s is not a reference journey; compile it first and send the digest the compiler returned as journeyDigest, or use a reference journey of the fixture", echo.Quote(in.JourneyID))
		}
	}
	if err := ps.err(); err != nil {
		return "", err
	}
	return digest, nil
}
