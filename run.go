package automium

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/automium/automium/internal/echo"
	"github.com/automium/automium/internal/limit"
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
	ID     string `json:"id" jsonschema:"e.g. baseline" validate:"required,notblank,max_id_length"`
	Vendor string `json:"vendor" jsonschema:"e.g. openai" validate:"required,notblank,max_id_length"`
	Model  string `json:"model" jsonschema:"e.g. gpt-4.1-mini" validate:"required,notblank,max_id_length"`
}

// problems records what is wrong with p at its path in the input ("planner",
// "planners[2]"), so run submissions and comparisons report malformed planners
// the same way. Missing parts are all named at once, because a caller fixing one
// at a time would need three round trips. It reports whether p had a problem.
func (p PlannerRef) problems(ps *problems, at Path) bool {
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
		case utf8.RuneCountInString(part.value) > limit.MaxIDLength:
			ps.add(at.dot(part.name), CodeLimitExceeded, nil, "is too long; the limit is %d characters", limit.MaxIDLength)
		case !utf8.ValidString(part.value):
			ps.add(at.dot(part.name), CodeMalformedPlanner, nil, "%s is not valid UTF-8; send text encoded as UTF-8", echo.Value(part.value))
		default:
			// The parts are hashed into the run ID, so they follow the
			// one-line rule of every text a person reads (see lineProblem).
			msg, bad := lineProblem(part.value)
			if !bad {
				continue
			}
			ps.addProblem(newProblem(CodeMalformedPlanner, at.dot(part.name), nil, msg))
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

var _ = registerPattern("automium_run_id", `^run-[0-9a-f]{20}$`, echo.Msg("a run ID from %s: run- followed by 20 lowercase hex digits", echo.Name("CreateRunSubmission")))

// CreateRunSubmissionInput asks for a modeled run of one journey on one fixture,
// planner and environment profile.
//
// The journey is bound by content, and the server keeps no state: either
// journeyId names a reference journey of the fixture, or journey carries your
// journey itself, the same object [CompileJourney] takes, and it is compiled
// here. journeyDigest is an optional cross-check against the digest computed
// here; it never stands in for the journey, so a digest the server did not
// compute never yields a run.
type CreateRunSubmissionInput struct {
	JourneyID            string               `json:"journeyId,omitempty" jsonschema:"reference journey ID. With journey, leave it out or give journey.id" validate:"omitempty,max_id_length,automium_slug"`
	Journey              *CompileJourneyInput `json:"journey,omitempty" jsonschema:"your own journey, as CompileJourney takes it; it is compiled here and the run is bound to its digest. Leave it out to run a reference journey" validate:"omitempty"`
	JourneyDigest        string               `json:"journeyDigest,omitempty" jsonschema:"the digest CompileJourney returned. It must equal the digest computed here" validate:"omitempty,automium_digest"`
	AppID                string               `json:"appId,omitempty" jsonschema:"app ID (see ListApps); with journey, defaults to journey.appId" validate:"omitempty,automium_app"`
	FixtureID            string               `json:"fixtureId,omitempty" jsonschema:"see ListFixtures; with journey, defaults to journey.fixtureId" validate:"omitempty,automium_fixture"`
	Planner              PlannerRef           `json:"planner" jsonschema:"planner" validate:"required"`
	EnvironmentProfileID string               `json:"environmentProfileId" jsonschema:"a profile of the fixture" validate:"required,automium_profile"`
}

var _ = registerPattern("automium_digest", `^sha256:[0-9a-f]{64}$`, echo.Msg("a digest as the journey compiler returns it: sha256: followed by 64 lowercase hex digits"))

// CreateRunSubmissionResult is a modeled run submission. Its RunID is a hash of the
// canonical input, so submitting the same input again yields the same submission.
type CreateRunSubmissionResult struct {
	SchemaVersion        string     `json:"schemaVersion" jsonschema:"run submission format version"`
	CorpusVersion        string     `json:"corpusVersion" jsonschema:"owned corpus version the submission was checked against"`
	RunID                string     `json:"runId" jsonschema:"modeled run ID: run- and the first 20 hex digits of the SHA-256 of the RFC 8785 form of this result's schemaVersion, corpusVersion, journeyId, journeyDigest, appId, fixtureId, planner and environmentProfileId (docs/digests.md); the same submission always gets the same ID"`
	JourneyID            string     `json:"journeyId" jsonschema:"journey ID"`
	JourneyDigest        string     `json:"journeyDigest" jsonschema:"digest of the compiled journey the run is bound to, computed by this server"`
	ReferenceJourney     bool       `json:"referenceJourney" jsonschema:"whether journeyId names a checked-in reference journey of the fixture"`
	AppID                string     `json:"appId" jsonschema:"app ID"`
	FixtureID            string     `json:"fixtureId" jsonschema:"fixture ID"`
	Planner              PlannerRef `json:"planner" jsonschema:"planner reference"`
	EnvironmentProfileID string     `json:"environmentProfileId" jsonschema:"environment profile ID"`
	Status               string     `json:"status" jsonschema:"initial status; always modeled in v1, meaning nothing was queued or executed"`
	ArtifactManifestRef  string     `json:"artifactManifestRef" jsonschema:"artifact-manifest://<runId>: the reference GetReplaySummary expects"`
	ReplayStreamRef      string     `json:"replayStreamRef" jsonschema:"replay-stream://<runId>: names the run's replay-event-v1 stream"`
	Modeled              bool       `json:"modeled" jsonschema:"always true: this is a model of a submission, not a submitted run"`
	Notice               string     `json:"notice" jsonschema:"one-line statement that nothing was enqueued, leased, executed or written"`
}

// CreateRunSubmission models submitting a journey run. It checks that the app is
// authorized, the fixture belongs to the app, the environment profile is one of
// the fixture's, the planner reference has an id, vendor and model, and the
// journey is bound to its content:
//
//   - a reference journey (journeyId alone) must belong to the same app and
//     fixture;
//   - a journey of your own (journey) is compiled here exactly as
//     [CompileJourney] compiles it; each of its problems is reported under
//     journey, it must be of the submission's app and fixture, and journeyId,
//     if given, must be its ID;
//   - a journeyDigest, if given, must equal the digest computed here;
//   - a journeyId that names no reference journey, without journey, is refused
//     (invalid_argument): v1 keeps no state, so a digest alone cannot say which
//     journey it is of, and a run never names a journey nothing compiled.
//
// Every problem is reported at once. The run ID is "run-" followed by the first
// 20 hex digits of the sha256 of the RFC 8785 canonical JSON of the submission:
// the members schemaVersion, corpusVersion, journeyId, journeyDigest, appId,
// fixtureId, planner and environmentProfileId of the result (docs/digests.md).
// Repeating a submission is idempotent, and any change to one of them, the
// journey's content included, gives another run. Nothing is enqueued, leased,
// executed or written.
func CreateRunSubmission(ctx context.Context, in CreateRunSubmissionInput) (CreateRunSubmissionResult, error) {
	if err := checkContext(ctx); err != nil {
		return CreateRunSubmissionResult{}, err
	}
	journey, err := runSubmissionProblems(ctx, &in)
	if err != nil {
		return CreateRunSubmissionResult{}, err
	}
	_, reference := owned().journeyByID[journey.ID]
	if reference {
		// A journey of your own with a reference journey's ID compiles only
		// when it is that reference journey (CompileJourney refuses any other
		// body), so the flag means the same whichever way it was sent.
		refDigest, _, err := referenceDigest(journey.ID)
		reference = err == nil && refDigest == journey.Digest
	}
	runID, err := runIDOf(journey.ID, journey.Digest, in)
	if err != nil {
		return CreateRunSubmissionResult{}, err
	}
	return CreateRunSubmissionResult{
		SchemaVersion:        RunSubmissionVersion,
		CorpusVersion:        CorpusVersion,
		RunID:                runID,
		JourneyID:            journey.ID,
		JourneyDigest:        journey.Digest,
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

// runIDLength is how many hex digits of the submission's digest a run ID keeps:
// 80 bits, so a collision needs about 2^40 submissions.
const runIDLength = 20

// runIDOf derives the run ID from the canonical submission. The members are
// named as in the result, so a verifier rebuilds the ID from the answer alone:
// pick these eight members, canonicalize them (RFC 8785), hash with SHA-256.
func runIDOf(journeyID, journeyDigest string, in CreateRunSubmissionInput) (string, error) {
	digest, err := digestOf(struct {
		SchemaVersion        string     `json:"schemaVersion"`
		CorpusVersion        string     `json:"corpusVersion"`
		JourneyID            string     `json:"journeyId"`
		JourneyDigest        string     `json:"journeyDigest"`
		AppID                string     `json:"appId"`
		FixtureID            string     `json:"fixtureId"`
		Planner              PlannerRef `json:"planner"`
		EnvironmentProfileID string     `json:"environmentProfileId"`
	}{RunSubmissionVersion, CorpusVersion, journeyID, journeyDigest, in.AppID, in.FixtureID, in.Planner, in.EnvironmentProfileID})
	if err != nil {
		return "", internalError("computing a run ID")
	}
	return "run-" + strings.TrimPrefix(digest, digestPrefix)[:runIDLength], nil
}

// boundJourney is the journey a submission binds: its ID and the digest the
// server computed for it.
type boundJourney struct {
	ID, Digest string
}

// runSubmissionProblems returns the journey the submission binds, or every
// problem with in. Where the corpus knows better than the generic rules, the
// field is checked by the corpus instead, once: an unknown fixture of a known app
// lists the app's fixtures, an unknown profile of a known fixture the fixture's
// profiles, and any planner problem is malformed_planner naming every missing
// part. The journey of your own is checked by CompileJourney
// alone, once, with its size checked before anything walks it. The appId and
// fixtureId a journey supplies are written into in.
func runSubmissionProblems(ctx context.Context, in *CreateRunSubmissionInput) (boundJourney, error) {
	// The validator never sees the journey: CompileJourney checks it, bounds
	// first, and its problems are reported under journey.
	outer := *in
	outer.Journey = nil
	ps := newProblems(outer)
	// Where the corpus knows better than the generic rules, the field is
	// checked here instead of by them, once.
	appAt, fixtureAt, plannerAt, profileAt := field("appId"), field("fixtureId"), field("planner"), field("environmentProfileId")
	except := []Path{fixtureAt, plannerAt, profileAt}
	// A journey carries its app and fixture: left out, they are the
	// journey's, and what is wrong with them is the journey's problem, which
	// CompileJourney reports under journey (see journeyBinding); given, they
	// must agree with it.
	appDefaulted := in.Journey != nil && in.AppID == ""
	fixtureDefaulted := in.Journey != nil && in.FixtureID == ""
	if appDefaulted {
		in.AppID, outer.AppID = in.Journey.AppID, in.Journey.AppID
		except = append(except, appAt)
	}
	if fixtureDefaulted {
		in.FixtureID, outer.FixtureID = in.Journey.FixtureID, in.Journey.FixtureID
	}
	ps.validate(outer, except...)
	if appDefaulted && isExternal(in.AppID) {
		// The journey may be of a team's own app (CompileJourney takes it);
		// a modeled run needs the corpus's fixture and its profiles.
		ps.add(field("journey").dot("appId"), CodeInvalidAppID, customTags["automium_app"].values(),
			"%s is outside the corpus; a modeled run needs a corpus app, whose fixtures list the environment profiles it is modeled on. For your own app, export the journey (%s), run it, and compare the reports (%s)", echo.Value(in.AppID), echo.Name("ExportPlaywrightSpec"), echo.Name("CompareReports"))
	}
	app := owned().appByID[in.AppID]
	// Without journey and journeyId, journey's problem says what to send
	// (either), and appId and fixtureId are not blamed for it: over MCP, a
	// journey of the wrong type reaches here as none.
	if in.Journey == nil && in.JourneyID != "" && in.AppID == "" {
		ps.add(appAt, CodeInvalidArgument, customTags["automium_app"].values(),
			"is required with journeyId: use an authorized benchmark app ID, one of the allowed values (or send journey, whose appId is then the submission's)")
	}
	var fixture *Fixture
	switch {
	case fixtureDefaulted:
		if f := owned().fixtureByID[in.FixtureID]; f != nil && app != nil && f.AppID == app.ID {
			fixture = f
		}
	case in.Journey == nil && in.FixtureID == "" && in.JourneyID == "":
		// journey's problem says what to send, as for appId above.
	case in.Journey == nil && in.FixtureID == "":
		var allowed []string
		if app != nil {
			allowed = appFixtureIDs(app.ID)
		}
		ps.add(fixtureAt, CodeInvalidArgument, allowed,
			"is required with journeyId: use a fixture ID of the app, one of the allowed values (or send journey, whose fixtureId is then the submission's)")
	default:
		fixture = ps.fixtureOfApp(fixtureAt, reflect.TypeOf(outer), app, in.FixtureID)
	}
	in.Planner.problems(ps, plannerAt)
	switch {
	case fixture != nil && in.EnvironmentProfileID != "" && !slices.Contains(fixture.EnvironmentProfileIDs, in.EnvironmentProfileID):
		ps.add(profileAt, CodeInvalidEnvironmentProfile, fixture.EnvironmentProfileIDs,
			"%s is not an environment profile of fixture %s; use one of the allowed values", echo.Value(in.EnvironmentProfileID), fixture.ID)
	default:
		ps.checkField(profileAt, reflect.TypeOf(outer), "environmentProfileId", in.EnvironmentProfileID)
	}
	bound, err := journeyBinding(ctx, ps, *in, app, fixture)
	if err != nil {
		return boundJourney{}, err
	}
	if err := ps.err(); err != nil {
		return boundJourney{}, err
	}
	return bound, nil
}

// journeyBinding finds the journey in binds and its digest, recording in ps
// every problem with journeyId, journey and journeyDigest. The error is for what
// ends the call at once: a journey over a bound, or ctx done.
func journeyBinding(ctx context.Context, ps *problems, in CreateRunSubmissionInput, app *App, fixture *Fixture) (boundJourney, error) {
	idAt, journeyAt, digestAt := field("journeyId"), field("journey"), field("journeyDigest")
	var bound boundJourney
	switch {
	case in.Journey != nil:
		res, err := CompileJourney(ctx, *in.Journey)
		if err != nil {
			return boundJourney{}, underJourney(err)
		}
		if !res.Valid {
			for _, p := range res.Errors {
				ps.addProblem(p.under(journeyAt))
			}
			return boundJourney{}, nil
		}
		bound = boundJourney{ID: res.Journey.ID, Digest: res.Journey.Digest}
		if in.JourneyID != "" && !ps.has(idAt) && in.JourneyID != bound.ID {
			ps.add(idAt, CodeInvalidArgument, nil,
				"%s is not the ID of the journey you sent (%s); leave journeyId out, or make it journey.id", echo.Value(in.JourneyID), echo.Value(bound.ID))
		}
		if app != nil && in.Journey.AppID != app.ID {
			ps.add(journeyAt.dot("appId"), CodeFixtureAppMismatch, []string{app.ID},
				"the journey is of app %s and the submission of app %s; submit it with its own app and fixture", echo.Value(in.Journey.AppID), echo.Value(app.ID))
		}
		if fixture != nil && in.Journey.FixtureID != fixture.ID {
			ps.add(journeyAt.dot("fixtureId"), CodeFixtureAppMismatch, []string{fixture.ID},
				"the journey is of fixture %s and the submission of fixture %s; submit it with its own app and fixture", echo.Value(in.Journey.FixtureID), echo.Value(fixture.ID))
		}
	case ps.has(idAt):
		return boundJourney{}, nil
	case in.JourneyID == "":
		ps.add(journeyAt, CodeInvalidArgument, nil,
			"give either journeyId, the ID of a reference journey of the fixture, with appId and fixtureId, or journey, your own journey as automium_compile_journey takes it")
		return boundJourney{}, nil
	default:
		ref, isRef := owned().journeyByID[in.JourneyID]
		if !isRef {
			ps.add(idAt, CodeInvalidArgument, nil,
				"%s is not a reference journey; send your journey itself as journey (the object automium_compile_journey takes), or use a reference journey of the fixture", echo.Value(in.JourneyID))
			return boundJourney{}, nil
		}
		if app != nil && fixture != nil && (ref.AppID != app.ID || ref.FixtureID != fixture.ID) {
			ps.add(idAt, CodeFixtureAppMismatch, fixture.ReferenceJourneyIDs,
				"reference journey %s runs on app %s with fixture %s, not app %s with fixture %s; submit it with its own app and fixture, or use a journey of fixture %s",
				echo.Value(ref.ID), echo.Value(ref.AppID), echo.Value(ref.FixtureID), echo.Value(app.ID), echo.Value(fixture.ID), echo.Value(fixture.ID))
		}
		digest, _, err := referenceDigest(ref.ID)
		if err != nil {
			return boundJourney{}, err
		}
		bound = boundJourney{ID: ref.ID, Digest: digest}
	}
	if in.JourneyDigest != "" && !ps.has(digestAt) && in.JourneyDigest != bound.Digest {
		ps.add(digestAt, CodeInvalidArgument, nil,
			"%s is not the digest of journey %s, which is %s; leave journeyDigest out, or send the digest automium_compile_journey returned for this journey", echo.Value(in.JourneyDigest), echo.Value(bound.ID), bound.Digest)
	}
	return bound, nil
}

// underJourney places the problems of an error from CompileJourney under the
// journey member, where the submission carries it.
func underJourney(err error) error {
	e, ok := errors.AsType[*Error](err)
	if !ok {
		return err
	}
	problems := e.Problems()
	for i, p := range problems {
		problems[i] = p.under(field("journey"))
	}
	return Join(problems...)
}
