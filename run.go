package automium

import (
	"context"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
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
	ID     string `json:"id" jsonschema:"planner adapter ID chosen by the caller, e.g. baseline-planner" validate:"required,notblank,max=128"`
	Vendor string `json:"vendor" jsonschema:"planner vendor, e.g. openai or anthropic" validate:"required,notblank,max=128"`
	Model  string `json:"model" jsonschema:"model name as the vendor spells it, e.g. gpt-4.1-mini" validate:"required,notblank,max=128"`
}

// problem reports what is wrong with p, or nil. field is the JSON path of the
// planner in its input ("planner", "planners[2]"), so run submissions and
// comparisons report malformed planners the same way. Missing parts are all named
// at once, because a caller fixing one at a time would need three round trips.
func (p PlannerRef) problem(field string) *Error {
	parts := []struct{ name, value string }{{"id", p.ID}, {"vendor", p.Vendor}, {"model", p.Model}}
	var missing []string
	for _, part := range parts {
		if strings.TrimSpace(part.value) == "" {
			missing = append(missing, part.name)
		}
	}
	switch len(missing) {
	case 0:
	case 1:
		return newError(CodeMalformedPlanner, field+"."+missing[0], nil,
			"planner is missing %s; a planner reference needs id, vendor and model, e.g. {\"id\":\"baseline\",\"vendor\":\"openai\",\"model\":\"gpt-4.1-mini\"}", missing[0])
	default:
		list := strings.Join(missing[:len(missing)-1], ", ") + " and " + missing[len(missing)-1]
		return newError(CodeMalformedPlanner, field, nil,
			"planner is missing %s; a planner reference needs id, vendor and model, e.g. {\"id\":\"baseline\",\"vendor\":\"openai\",\"model\":\"gpt-4.1-mini\"}", list)
	}
	for _, part := range parts {
		switch {
		case utf8.RuneCountInString(part.value) > MaxIDLength:
			return newError(CodeLimitExceeded, field+"."+part.name, nil, "is too long; the limit is %d characters", MaxIDLength)
		case strings.IndexFunc(part.value, unicode.IsControl) >= 0:
			return newError(CodeMalformedPlanner, field+"."+part.name, nil, "%q contains control characters; use plain text", part.value)
		case strings.TrimSpace(part.value) != part.value:
			return newError(CodeMalformedPlanner, field+"."+part.name, nil, "%q has leading or trailing spaces; remove them", part.value)
		}
	}
	return nil
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

var _ = registerPattern("automium_run_id", `^run-[0-9a-f]{20}$`, "a run ID from automium_create_run_submission: run- followed by 20 lowercase hex digits")

// CreateRunSubmissionInput asks for a modeled run of one journey on one fixture,
// planner and environment profile.
type CreateRunSubmissionInput struct {
	JourneyID            string     `json:"journeyId" jsonschema:"ID of the journey to run: a reference journey of the fixture or one you compiled with automium_compile_journey" validate:"required,max=128,automium_slug"`
	AppID                string     `json:"appId" jsonschema:"an authorized benchmark app ID (see automium_list_apps)" validate:"required,automium_app"`
	FixtureID            string     `json:"fixtureId" jsonschema:"a fixture ID of that app (see automium_list_fixtures)" validate:"required,automium_fixture"`
	Planner              PlannerRef `json:"planner" jsonschema:"the planner backend to run with: id, vendor and model, all required" validate:"required"`
	EnvironmentProfileID string     `json:"environmentProfileId" jsonschema:"one of the fixture's environment profile IDs" validate:"required,automium_profile"`
}

// CreateRunSubmissionResult is a modeled run submission. Its RunID is a hash of the
// canonical input, so submitting the same input again yields the same submission.
type CreateRunSubmissionResult struct {
	SchemaVersion        string     `json:"schemaVersion" jsonschema:"run submission format version"`
	CorpusVersion        string     `json:"corpusVersion" jsonschema:"owned corpus version the submission was checked against"`
	RunID                string     `json:"runId" jsonschema:"modeled run ID: run- and 20 hex digits of the sha256 of the canonical submission; the same submission always gets the same ID"`
	JourneyID            string     `json:"journeyId" jsonschema:"journey ID"`
	ReferenceJourney     bool       `json:"referenceJourney" jsonschema:"whether journeyId names a checked-in reference journey of the fixture"`
	AppID                string     `json:"appId" jsonschema:"app ID"`
	FixtureID            string     `json:"fixtureId" jsonschema:"fixture ID"`
	Planner              PlannerRef `json:"planner" jsonschema:"planner reference"`
	EnvironmentProfileID string     `json:"environmentProfileId" jsonschema:"environment profile ID"`
	Status               string     `json:"status" jsonschema:"initial status; always modeled in v1, meaning nothing was queued or executed"`
	ArtifactManifestRef  string     `json:"artifactManifestRef" jsonschema:"artifact-manifest://<runId>: the reference automium_get_replay_summary expects"`
	ReplayStreamRef      string     `json:"replayStreamRef" jsonschema:"replay-stream://<runId>: names the run's replay-event-v1 stream"`
	Modeled              bool       `json:"modeled" jsonschema:"always true: this is a model of a submission, not a submitted run"`
	Notice               string     `json:"notice" jsonschema:"one-line statement that nothing was enqueued, leased, executed or written"`
}

// CreateRunSubmission models submitting a journey run. It checks that the app is
// authorized, the fixture belongs to the app, the environment profile is one of the
// fixture's, and the planner reference has an id, vendor and model.
//
// journeyId may name a checked-in reference journey, which must then belong to the
// same app and fixture. Any other well-formed journey ID is accepted as one the
// caller compiled itself: v1 persists nothing, so there is no registry to look it up
// in, and the submission does not claim the journey exists.
//
// The run ID is "run-" followed by the first 20 hex digits of the sha256 of the
// canonical JSON of the input and the submission format version, so repeating a
// submission is idempotent. Nothing is enqueued, leased, executed or written.
func CreateRunSubmission(ctx context.Context, in CreateRunSubmissionInput) (CreateRunSubmissionResult, error) {
	if err := ctx.Err(); err != nil {
		return CreateRunSubmissionResult{}, err
	}
	if err := runSubmissionProblem(in); err != nil {
		return CreateRunSubmissionResult{}, err
	}
	_, reference := owned.journeyByID[in.JourneyID]
	runID := "run-" + strings.TrimPrefix(digestOf(struct {
		Version string                   `json:"version"`
		Input   CreateRunSubmissionInput `json:"input"`
	}{RunSubmissionVersion, in}), "sha256:")[:20]
	return CreateRunSubmissionResult{
		SchemaVersion:        RunSubmissionVersion,
		CorpusVersion:        CorpusVersion,
		RunID:                runID,
		JourneyID:            in.JourneyID,
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

// runSubmissionProblem returns the first problem with in, in field order. The
// validator's findings are sharpened where the corpus knows better: an unknown
// fixture lists the app's fixtures, an unknown profile the fixture's profiles, and
// any planner problem becomes malformed_planner naming every missing part.
func runSubmissionProblem(in CreateRunSubmissionInput) *Error {
	problems := validateStruct(in)
	app := owned.appByID[in.AppID]
	fixture := owned.fixtureByID[in.FixtureID]
	checks := []func() *Error{
		func() *Error { return problemAt(problems, "journeyId") },
		func() *Error { return problemAt(problems, "appId") },
		func() *Error {
			if p := problemAt(problems, "fixtureId"); p != nil {
				if p.Code == CodeInvalidFixtureID && app != nil {
					return unknownFixtureOfApp("fixtureId", app.ID, in.FixtureID)
				}
				return p
			}
			return fixtureAppMismatch(app, fixture)
		},
		func() *Error {
			if p := in.Planner.problem("planner"); p != nil {
				return p
			}
			return problemAt(problems, "planner")
		},
		func() *Error {
			p := problemAt(problems, "environmentProfileId")
			if p != nil && (p.Code != CodeInvalidEnvironmentProfile || fixture == nil) {
				return p
			}
			if p != nil || !slices.Contains(fixture.EnvironmentProfileIDs, in.EnvironmentProfileID) {
				return newError(CodeInvalidEnvironmentProfile, "environmentProfileId", fixture.EnvironmentProfileIDs,
					"%q is not an environment profile of fixture %q; use one of the allowed values", in.EnvironmentProfileID, fixture.ID)
			}
			return nil
		},
		func() *Error {
			j, ok := owned.journeyByID[in.JourneyID]
			if !ok || j.AppID == app.ID && j.FixtureID == fixture.ID {
				return nil
			}
			return newError(CodeFixtureAppMismatch, "journeyId", fixture.ReferenceJourneyIDs,
				"reference journey %q runs on app %q with fixture %q, not app %q with fixture %q; submit it with its own app and fixture, or use a journey of fixture %q",
				j.ID, j.AppID, j.FixtureID, app.ID, fixture.ID, fixture.ID)
		},
	}
	for _, check := range checks {
		if p := check(); p != nil {
			return p
		}
	}
	return nil
}

// problemAt returns the first of problems at field or below it ("planner" matches
// "planner.vendor" but not "plannerX"), so a function can report the validator's
// findings interleaved with its own checks in field order.
func problemAt(problems []*Error, field string) *Error {
	for _, p := range problems {
		if p.Field == field || strings.HasPrefix(p.Field, field+".") {
			return p
		}
	}
	return nil
}
