package automium

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/automium/automium/internal/limit"
	"github.com/google/go-cmp/cmp"
)

// errorShape is the part of an *Error a test pins: the code and the field are the
// contract, the message is prose and only checked for a hint.
type errorShape struct {
	Code  Code
	Field string
}

// shapeOf returns the code and field of err, failing the test if err is not an
// *Error.
func shapeOf(t *testing.T, err error) errorShape {
	t.Helper()
	if err == nil {
		t.Fatal("got nil error, want an *Error")
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("got %T (%v), want *Error", err, err)
	}
	return errorShape{Code: e.Code, Field: e.Field}
}

func validRunSubmission() CreateRunSubmissionInput {
	return CreateRunSubmissionInput{
		JourneyID:            "storefront-search-add-to-cart",
		AppID:                "storefront",
		FixtureID:            "storefront-guest-catalog",
		Planner:              PlannerRef{ID: "baseline", Vendor: "openai", Model: "gpt-4.1-mini"},
		EnvironmentProfileID: "desktop-1440-en-us",
	}
}

func TestCreateRunSubmission(t *testing.T) {
	in := validRunSubmission()
	got, err := CreateRunSubmission(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^run-[0-9a-f]{20}$`).MatchString(got.RunID) {
		t.Errorf("RunID = %q, want run- and 20 hex digits", got.RunID)
	}
	ref, _ := ReferenceJourney(in.JourneyID)
	compiled, err := CompileJourney(context.Background(), ref)
	if err != nil || !compiled.Valid {
		t.Fatalf("compiling the reference journey: %v %+v", err, compiled.Errors)
	}
	want := CreateRunSubmissionResult{
		SchemaVersion:        RunSubmissionVersion,
		CorpusVersion:        CorpusVersion,
		RunID:                got.RunID,
		JourneyID:            in.JourneyID,
		JourneyDigest:        compiled.Journey.Digest,
		ReferenceJourney:     true,
		AppID:                in.AppID,
		FixtureID:            in.FixtureID,
		Planner:              in.Planner,
		EnvironmentProfileID: in.EnvironmentProfileID,
		Status:               RunStatusModeled,
		ArtifactManifestRef:  "artifact-manifest://" + got.RunID,
		ReplayStreamRef:      "replay-stream://" + got.RunID,
		Modeled:              true,
		Notice:               ModeledNotice,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CreateRunSubmission (-want +got):\n%s", diff)
	}
}

// ownJourney returns a journey of the caller's own and the digest
// CompileJourney gives it, as a client would compile it before a run.
func ownJourney(t *testing.T, id, goal string) (CompileJourneyInput, string) {
	t.Helper()
	j := validJourney()
	j.ID, j.Goal = id, goal
	res, err := CompileJourney(context.Background(), j)
	if err != nil || !res.Valid {
		t.Fatalf("compiling %s: %v %+v", id, err, res.Errors)
	}
	return j, res.Journey.Digest
}

// flipHex changes the last hex digit of a digest.
func flipHex(digest string) string {
	last := digest[len(digest)-1]
	next := byte('0')
	if last == '0' {
		next = '1'
	}
	return digest[:len(digest)-1] + string(next)
}

// TestCreateRunSubmissionBindsTheJourney checks that a run is bound to content
// the server compiled itself: a reference journey by its ID, or a journey of the
// caller's own sent whole. A digest is only ever a cross-check, so no digest the
// server did not compute yields a run (issue finding: a never-compiled
// journeyId with sha256:000…0, or a real digest with one digit changed, got a
// run).
func TestCreateRunSubmissionBindsTheJourney(t *testing.T) {
	ctx := context.Background()
	own, ownDigest := ownJourney(t, "my-own-journey", "Find a kettle")
	_, otherDigest := ownJourney(t, "my-own-journey", "Find a teapot")
	refRun, err := CreateRunSubmission(ctx, validRunSubmission())
	if err != nil {
		t.Fatal(err)
	}
	zero := "sha256:" + strings.Repeat("0", 64)
	withJourney := func(j CompileJourneyInput) func(*CreateRunSubmissionInput) {
		return func(in *CreateRunSubmissionInput) { in.JourneyID, in.Journey = "", &j }
	}
	ownRun, err := CreateRunSubmission(ctx, func() CreateRunSubmissionInput { in := validRunSubmission(); withJourney(own)(&in); return in }())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		change  func(*CreateRunSubmissionInput)
		wantErr *errorShape
		check   func(*testing.T, CreateRunSubmissionResult)
	}{
		{"a journey ID nothing compiled is refused", func(in *CreateRunSubmissionInput) { in.JourneyID = "never-compiled-xyz" },
			&errorShape{CodeInvalidArgument, "journeyId"}, nil},
		{"a journey ID nothing compiled, with an all-zero digest", func(in *CreateRunSubmissionInput) { in.JourneyID, in.JourneyDigest = "never-compiled-xyz", zero },
			&errorShape{CodeInvalidArgument, "journeyId"}, nil},
		{"a compiled journey's ID and digest without the journey", func(in *CreateRunSubmissionInput) { in.JourneyID, in.JourneyDigest = own.ID, ownDigest },
			&errorShape{CodeInvalidArgument, "journeyId"}, nil},
		{"a compiled journey's digest with one digit changed", func(in *CreateRunSubmissionInput) { in.JourneyID, in.JourneyDigest = own.ID, flipHex(ownDigest) },
			&errorShape{CodeInvalidArgument, "journeyId"}, nil},
		{"neither journeyId nor journey", func(in *CreateRunSubmissionInput) { in.JourneyID = "" },
			&errorShape{CodeInvalidArgument, "journey"}, nil},
		{"own journey sent whole", withJourney(own), nil,
			func(t *testing.T, got CreateRunSubmissionResult) {
				if got.ReferenceJourney || got.JourneyDigest != ownDigest || got.JourneyID != own.ID {
					t.Errorf("got referenceJourney %v, journey %s %s; want false, %s %s", got.ReferenceJourney, got.JourneyID, got.JourneyDigest, own.ID, ownDigest)
				}
			}},
		{"own journey with its digest and ID as cross-checks", func(in *CreateRunSubmissionInput) {
			withJourney(own)(in)
			in.JourneyID, in.JourneyDigest = own.ID, ownDigest
		}, nil, func(t *testing.T, got CreateRunSubmissionResult) {
			if got.RunID != ownRun.RunID {
				t.Errorf("run ID %s, want %s as without the cross-checks", got.RunID, ownRun.RunID)
			}
		}},
		{"own journey with another journey's digest", func(in *CreateRunSubmissionInput) { withJourney(own)(in); in.JourneyDigest = otherDigest },
			&errorShape{CodeInvalidArgument, "journeyDigest"}, nil},
		{"own journey with its digest in upper-case hex", func(in *CreateRunSubmissionInput) {
			withJourney(own)(in)
			in.JourneyDigest = "sha256:" + strings.ToUpper(strings.TrimPrefix(ownDigest, "sha256:"))
		}, &errorShape{CodeInvalidArgument, "journeyDigest"}, nil},
		{"own journey with its digest padded", func(in *CreateRunSubmissionInput) { withJourney(own)(in); in.JourneyDigest = " " + ownDigest + "\n" },
			&errorShape{CodeInvalidArgument, "journeyDigest"}, nil},
		{"own journey with its digest in another algorithm's name", func(in *CreateRunSubmissionInput) {
			withJourney(own)(in)
			in.JourneyDigest = "SHA256:" + strings.TrimPrefix(ownDigest, "sha256:")
		}, &errorShape{CodeInvalidArgument, "journeyDigest"}, nil},
		{"own journey under another journeyId", func(in *CreateRunSubmissionInput) {
			withJourney(own)(in)
			in.JourneyID = "storefront-search-add-to-cart"
		},
			&errorShape{CodeInvalidArgument, "journeyId"}, nil},
		{"own journey, journeyId a Unicode-compatible variant of its ID", func(in *CreateRunSubmissionInput) {
			withJourney(own)(in)
			in.JourneyID = "my\u2011own\u2011journey" // non-breaking hyphens
		}, &errorShape{CodeInvalidArgument, "journeyId"}, nil},
		{"own journey whose ID is a ligature variant", func(in *CreateRunSubmissionInput) {
			j := own
			j.ID = "my-own-journey-\ufb01" // ﬁ, which NFKC makes fi
			withJourney(j)(in)
		}, &errorShape{CodeInvalidArgument, "journey.id"}, nil},
		{"own journey that does not compile", func(in *CreateRunSubmissionInput) {
			j := own
			j.Steps = append([]Step{{Intent: "teleport"}}, own.Steps[1:]...)
			withJourney(j)(in)
		}, &errorShape{CodeUnsupportedIntent, "journey.steps[0].intent"}, nil},
		{"own journey over a bound", func(in *CreateRunSubmissionInput) {
			j := own
			j.Steps = make([]Step, limit.MaxSteps+1)
			withJourney(j)(in)
		}, &errorShape{CodeLimitExceeded, "journey.steps"}, nil},
		{"own journey with a retry count at the 64-bit edge", func(in *CreateRunSubmissionInput) {
			j := own
			j.Recovery.MaxRetries = 1<<63 - 1
			withJourney(j)(in)
		}, &errorShape{CodeLimitExceeded, "journey.recovery.maxRetries"}, nil},
		{"own journey with a retry count at the negative 64-bit edge", func(in *CreateRunSubmissionInput) {
			j := own
			j.Recovery.MaxRetries = -1 << 63
			withJourney(j)(in)
		}, &errorShape{CodeInvalidArgument, "journey.recovery.maxRetries"}, nil},
		{"own journey with invalid UTF-8", func(in *CreateRunSubmissionInput) {
			j := own
			j.Goal = "Find a kettle\xff"
			withJourney(j)(in)
		}, &errorShape{CodeInvalidArgument, "journey.goal"}, nil},
		{"own journey of another fixture than the submission", func(in *CreateRunSubmissionInput) {
			withJourney(own)(in)
			in.FixtureID, in.EnvironmentProfileID = "storefront-returning-shopper", owned().fixtureByID["storefront-returning-shopper"].EnvironmentProfileIDs[0]
		}, &errorShape{CodeFixtureAppMismatch, "journey.fixtureId"}, nil},
		{"own journey reusing a reference journey's ID with another body", func(in *CreateRunSubmissionInput) {
			j := own
			j.ID = "storefront-search-add-to-cart"
			withJourney(j)(in)
		}, &errorShape{CodeInvalidArgument, "journey.id"}, nil},
		{"a reference journey sent whole is the reference journey", func(in *CreateRunSubmissionInput) {
			ref, _ := ReferenceJourney(in.JourneyID)
			withJourney(ref)(in)
		}, nil, func(t *testing.T, got CreateRunSubmissionResult) {
			if got.RunID != refRun.RunID || !got.ReferenceJourney {
				t.Errorf("run %s, reference %v; want %s, true as by its ID", got.RunID, got.ReferenceJourney, refRun.RunID)
			}
		}},
		{"reference journey with its own digest", func(in *CreateRunSubmissionInput) { in.JourneyDigest = refRun.JourneyDigest }, nil,
			func(t *testing.T, got CreateRunSubmissionResult) {
				if got.RunID != refRun.RunID {
					t.Errorf("run ID %s, want %s as without the digest", got.RunID, refRun.RunID)
				}
			}},
		{"reference journey with another digest", func(in *CreateRunSubmissionInput) { in.JourneyDigest = ownDigest },
			&errorShape{CodeInvalidArgument, "journeyDigest"}, nil},
		{"reference journey with its digest changed by one digit", func(in *CreateRunSubmissionInput) { in.JourneyDigest = flipHex(refRun.JourneyDigest) },
			&errorShape{CodeInvalidArgument, "journeyDigest"}, nil},
		{"reference journey ID in upper case", func(in *CreateRunSubmissionInput) { in.JourneyID = strings.ToUpper(in.JourneyID) },
			&errorShape{CodeInvalidArgument, "journeyId"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := validRunSubmission()
			tt.change(&in)
			got, err := CreateRunSubmission(ctx, in)
			if tt.wantErr != nil {
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("got %+v, %v; want *Error", got, err)
				}
				if diff := cmp.Diff(*tt.wantErr, errorShape{e.Code, e.Field}); diff != "" {
					t.Errorf("error (-want +got):\n%s\n%v", diff, err)
				}
				if len(err.Error()) > 4096 {
					t.Errorf("error is %d bytes, want a bounded message", len(err.Error()))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, got)
		})
	}
}

// TestRunIDCoversTheJourneyID: the run ID hashes the journey ID as well as the
// digest, so two journey IDs never share a run even with one digest (today a
// digest covers its journey's ID, but the run ID does not rely on it).
func TestRunIDCoversTheJourneyID(t *testing.T) {
	in := validRunSubmission()
	digest := "sha256:" + strings.Repeat("ab", 32)
	a, errA := runIDOf("journey-a", digest, in)
	b, errB := runIDOf("journey-b", digest, in)
	if errA != nil || errB != nil || a == b {
		t.Errorf("run IDs %s and %s (%v, %v), want two runs", a, b, errA, errB)
	}
}

func TestCreateRunSubmissionIdempotent(t *testing.T) {
	ctx := context.Background()
	first, err := CreateRunSubmission(ctx, validRunSubmission())
	if err != nil {
		t.Fatal(err)
	}
	firstJSON, _ := json.Marshal(first)
	again, _ := CreateRunSubmission(ctx, validRunSubmission())
	againJSON, _ := json.Marshal(again)
	if string(firstJSON) != string(againJSON) {
		t.Errorf("same submission gave different output:\n%s\n%s", firstJSON, againJSON)
	}
	// Every input field takes part in the ID, and so does the journey's content.
	own, _ := ownJourney(t, "storefront-own-journey", "Find a kettle")
	teapot, _ := ownJourney(t, "storefront-own-journey", "Find a teapot")
	changes := map[string]func(*CreateRunSubmissionInput){
		"journey":        func(in *CreateRunSubmissionInput) { in.JourneyID, in.Journey = "", &own },
		"journey's goal": func(in *CreateRunSubmissionInput) { in.JourneyID, in.Journey = "", &teapot },
		"journeyId": func(in *CreateRunSubmissionInput) {
			in.FixtureID, in.JourneyID = "storefront-returning-shopper", "storefront-checkout-saved-address"
		},
		"fixtureId": func(in *CreateRunSubmissionInput) {
			in.FixtureID = "storefront-returning-shopper"
			in.JourneyID = "storefront-remove-cart-item"
		},
		"planner.id":           func(in *CreateRunSubmissionInput) { in.Planner.ID = "other" },
		"planner.vendor":       func(in *CreateRunSubmissionInput) { in.Planner.Vendor = "anthropic" },
		"planner.model":        func(in *CreateRunSubmissionInput) { in.Planner.Model = "gpt-4.1" },
		"environmentProfileId": func(in *CreateRunSubmissionInput) { in.EnvironmentProfileID = "mobile-390-en-gb" },
	}
	seen := map[string]string{first.RunID: "original"}
	for name, change := range changes {
		in := validRunSubmission()
		change(&in)
		got, err := CreateRunSubmission(ctx, in)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if prev, dup := seen[got.RunID]; dup {
			t.Errorf("changing %s gave the run ID of %s", name, prev)
		}
		seen[got.RunID] = name
	}
}

func TestCreateRunSubmissionValidation(t *testing.T) {
	tests := []struct {
		name   string
		change func(*CreateRunSubmissionInput)
		want   errorShape
		hint   string // a fragment the message must contain
	}{
		{"missing journey", func(in *CreateRunSubmissionInput) { in.JourneyID = "" }, errorShape{CodeInvalidArgument, "journey"}, "journeyId"},
		{"journey not a slug", func(in *CreateRunSubmissionInput) { in.JourneyID = "My Journey" }, errorShape{CodeInvalidArgument, "journeyId"}, "lowercase"},
		{"journey too long", func(in *CreateRunSubmissionInput) { in.JourneyID = strings.Repeat("j", 129) }, errorShape{CodeLimitExceeded, "journeyId"}, "128"},
		{"missing app", func(in *CreateRunSubmissionInput) { in.AppID = "" }, errorShape{CodeInvalidArgument, "appId"}, "required"},
		{"unauthorized app", func(in *CreateRunSubmissionInput) { in.AppID = "gmail" }, errorShape{CodeInvalidAppID, "appId"}, "gmail"},
		{"missing fixture", func(in *CreateRunSubmissionInput) { in.FixtureID = "" }, errorShape{CodeInvalidArgument, "fixtureId"}, "required"},
		{"unknown fixture", func(in *CreateRunSubmissionInput) { in.FixtureID = "storefront-nope" }, errorShape{CodeInvalidFixtureID, "fixtureId"}, `not a fixture of app "storefront"`},
		{"fixture of another app", func(in *CreateRunSubmissionInput) { in.FixtureID = "helpdesk-agent-queue" }, errorShape{CodeFixtureAppMismatch, "fixtureId"}, `belongs to app "helpdesk"`},
		{"missing planner", func(in *CreateRunSubmissionInput) { in.Planner = PlannerRef{} }, errorShape{CodeMalformedPlanner, "planner"}, "missing id, vendor and model"},
		{"planner missing vendor and model", func(in *CreateRunSubmissionInput) { in.Planner = PlannerRef{ID: "x"} }, errorShape{CodeMalformedPlanner, "planner"}, "missing vendor and model"},
		{"planner missing id", func(in *CreateRunSubmissionInput) { in.Planner.ID = "" }, errorShape{CodeMalformedPlanner, "planner.id"}, "missing id"},
		{"planner missing model", func(in *CreateRunSubmissionInput) { in.Planner.Model = "" }, errorShape{CodeMalformedPlanner, "planner.model"}, "missing model"},
		{"planner blank vendor", func(in *CreateRunSubmissionInput) { in.Planner.Vendor = "   " }, errorShape{CodeMalformedPlanner, "planner.vendor"}, "missing vendor"},
		{"planner model too long", func(in *CreateRunSubmissionInput) { in.Planner.Model = strings.Repeat("m", 129) }, errorShape{CodeLimitExceeded, "planner.model"}, "128"},
		{"planner control character", func(in *CreateRunSubmissionInput) { in.Planner.ID = "a\x00b" }, errorShape{CodeMalformedPlanner, "planner.id"}, "control"},
		{"planner padded", func(in *CreateRunSubmissionInput) { in.Planner.Vendor = " openai" }, errorShape{CodeMalformedPlanner, "planner.vendor"}, "spaces"},
		{"missing profile", func(in *CreateRunSubmissionInput) { in.EnvironmentProfileID = "" }, errorShape{CodeInvalidArgument, "environmentProfileId"}, "required"},
		{"unknown profile", func(in *CreateRunSubmissionInput) { in.EnvironmentProfileID = "desktop-800" }, errorShape{CodeInvalidEnvironmentProfile, "environmentProfileId"}, "storefront-guest-catalog"},
		{"profile of another fixture", func(in *CreateRunSubmissionInput) { in.EnvironmentProfileID = "desktop-1920-ja-jp-dark" }, errorShape{CodeInvalidEnvironmentProfile, "environmentProfileId"}, "storefront-guest-catalog"},
		{"reference journey of another fixture", func(in *CreateRunSubmissionInput) { in.JourneyID = "storefront-remove-cart-item" }, errorShape{CodeFixtureAppMismatch, "journeyId"}, "storefront-returning-shopper"},
		{"reference journey of another app", func(in *CreateRunSubmissionInput) { in.JourneyID = "kanban-archive-card" }, errorShape{CodeFixtureAppMismatch, "journeyId"}, `app "kanban"`},
		{"first problem in field order", func(in *CreateRunSubmissionInput) { in.AppID = "gmail"; in.Planner = PlannerRef{} }, errorShape{CodeInvalidAppID, "appId"}, ""},
		{"fixture mismatch before profile", func(in *CreateRunSubmissionInput) {
			in.FixtureID = "helpdesk-agent-queue"
			in.EnvironmentProfileID = "nope"
		}, errorShape{CodeFixtureAppMismatch, "fixtureId"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := validRunSubmission()
			tt.change(&in)
			_, err := CreateRunSubmission(context.Background(), in)
			if diff := cmp.Diff(tt.want, shapeOf(t, err)); diff != "" {
				t.Errorf("error (-want +got):\n%s\n%v", diff, err)
			}
			if !strings.Contains(err.Error(), tt.hint) {
				t.Errorf("message %q lacks %q", err.Error(), tt.hint)
			}
		})
	}
}

// The allowed values narrow to what fits the rest of the input, so the fix-it list
// is one a caller can pick from directly.
func TestCreateRunSubmissionAllowedValues(t *testing.T) {
	in := validRunSubmission()
	in.EnvironmentProfileID = "desktop-1920-ja-jp-dark"
	_, err := CreateRunSubmission(context.Background(), in)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v, want *Error", err)
	}
	want := owned().fixtureByID[in.FixtureID].EnvironmentProfileIDs
	if diff := cmp.Diff(want, e.Allowed); diff != "" {
		t.Errorf("allowed profiles (-want +got):\n%s", diff)
	}

	in = validRunSubmission()
	in.FixtureID = "helpdesk-agent-queue"
	_, err = CreateRunSubmission(context.Background(), in)
	if !errors.As(err, &e) {
		t.Fatalf("got %v, want *Error", err)
	}
	if diff := cmp.Diff(appFixtureIDs("storefront"), e.Allowed); diff != "" {
		t.Errorf("allowed fixtures (-want +got):\n%s", diff)
	}
}

func TestPlannerRefProblem(t *testing.T) {
	tests := []struct {
		p    PlannerRef
		want *errorShape
		msg  string
	}{
		{PlannerRef{ID: "a", Vendor: "b", Model: "c"}, nil, ""},
		{PlannerRef{ID: "a", Vendor: "b", Model: "claude-sonnet-4@20250514"}, nil, ""},
		{PlannerRef{}, &errorShape{CodeMalformedPlanner, "planners[2]"}, "planner is missing id, vendor and model"},
		{PlannerRef{ID: "a"}, &errorShape{CodeMalformedPlanner, "planners[2]"}, "planner is missing vendor and model"},
		{PlannerRef{Vendor: "b"}, &errorShape{CodeMalformedPlanner, "planners[2]"}, "planner is missing id and model"},
		{PlannerRef{ID: "a", Vendor: "b"}, &errorShape{CodeMalformedPlanner, "planners[2].model"}, "planner is missing model"},
		{PlannerRef{ID: "a", Vendor: "b", Model: "c\nd"}, &errorShape{CodeMalformedPlanner, "planners[2].model"}, "control"},
		// The parts are hashed into the run ID: two references that read
		// alike must not be two runs, whatever invisible character differs.
		{PlannerRef{ID: "a", Vendor: "b", Model: "gpt-4.1-mini\u200b"}, &errorShape{CodeMalformedPlanner, "planners[2].model"}, "U+200B"},
		{PlannerRef{ID: "a", Vendor: "b", Model: "gpt-4.1\u00admini"}, &errorShape{CodeMalformedPlanner, "planners[2].model"}, "U+00AD"},
		{PlannerRef{ID: "a\u202e", Vendor: "b", Model: "c"}, &errorShape{CodeMalformedPlanner, "planners[2].id"}, "U+202E"},
		{PlannerRef{ID: "a", Vendor: "\ufeffopenai", Model: "c"}, &errorShape{CodeMalformedPlanner, "planners[2].vendor"}, "U+FEFF"},
		{PlannerRef{ID: "a", Vendor: "b", Model: "gpt  4"}, &errorShape{CodeMalformedPlanner, "planners[2].model"}, "run of white space"},
		{PlannerRef{ID: "a", Vendor: "b", Model: "gpt\u3000 4"}, &errorShape{CodeMalformedPlanner, "planners[2].model"}, "run of white space"},
		{PlannerRef{ID: "a", Vendor: "b", Model: "c\u2029"}, &errorShape{CodeMalformedPlanner, "planners[2].model"}, "U+2029"},
		{PlannerRef{ID: "a", Vendor: "b", Model: "\u00a0c"}, &errorShape{CodeMalformedPlanner, "planners[2].model"}, "leading or trailing"},
		{PlannerRef{ID: "a", Vendor: "b", Model: "gpt 4.1 mini"}, nil, ""},
		{PlannerRef{ID: "a", Vendor: "b", Model: "mode\u0301le"}, &errorShape{CodeMalformedPlanner, "planners[2].model"}, "NFC"},
		{PlannerRef{ID: "a", Vendor: "b", Model: "mod\u00e8le"}, nil, ""},
	}
	for _, tt := range tests {
		ps := &problems{}
		tt.p.problems(ps, field("planners").at(2))
		var got *Problem
		if len(ps.found) > 0 {
			got = &ps.found[0]
		}
		if tt.want == nil {
			if got != nil {
				t.Errorf("%+v: got %v, want no problem", tt.p, got)
			}
			continue
		}
		if got == nil {
			t.Errorf("%+v: got no problem, want %v", tt.p, *tt.want)
			continue
		}
		if diff := cmp.Diff(*tt.want, errorShape{got.Code, got.Field}); diff != "" {
			t.Errorf("%+v (-want +got):\n%s", tt.p, diff)
		}
		if !strings.Contains(got.Message, tt.msg) {
			t.Errorf("%+v: message %q lacks %q", tt.p, got.Message, tt.msg)
		}
	}
}

func TestRunSubmissionCanceledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := CreateRunSubmission(ctx, validRunSubmission()); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

// TestCreateRunSubmissionJourneyDefaults: with journey, journeyId, appId and
// fixtureId default to the journey's and, when given, must agree with it;
// without journey, appId and fixtureId are required. Every problem comes back
// at once, and a problem of the journey's own app or fixture is reported
// once, under journey, not again under the defaulted field.
func TestCreateRunSubmissionJourneyDefaults(t *testing.T) {
	ctx := context.Background()
	own, ownDigest := ownJourney(t, "my-own-journey", "Find a kettle")
	full := validRunSubmission()
	full.JourneyID, full.Journey = own.ID, &own
	want, err := CreateRunSubmission(ctx, full)
	if err != nil {
		t.Fatal(err)
	}
	bare := func(change func(*CreateRunSubmissionInput)) CreateRunSubmissionInput {
		j := own
		in := CreateRunSubmissionInput{Journey: &j, Planner: full.Planner, EnvironmentProfileID: full.EnvironmentProfileID}
		if change != nil {
			change(&in)
		}
		return in
	}
	tests := []struct {
		name  string
		in    CreateRunSubmissionInput
		wants []errorShape // nil: the run of full
	}{
		{"journey alone: its IDs are the submission's", bare(nil), nil},
		{"journey with agreeing IDs", bare(func(in *CreateRunSubmissionInput) {
			in.JourneyID, in.AppID, in.FixtureID = own.ID, own.AppID, own.FixtureID
		}), nil},
		{"journey with another app", bare(func(in *CreateRunSubmissionInput) { in.AppID = "kanban" }),
			[]errorShape{{CodeFixtureAppMismatch, "journey.appId"}}},
		{"journey with another fixture of its app", bare(func(in *CreateRunSubmissionInput) { in.FixtureID = "storefront-returning-shopper" }),
			[]errorShape{{CodeFixtureAppMismatch, "journey.fixtureId"}}},
		{"journey with another journeyId", bare(func(in *CreateRunSubmissionInput) { in.JourneyID = "storefront-search-add-to-cart" }),
			[]errorShape{{CodeInvalidArgument, "journeyId"}}},
		{"journey of an unknown app: one problem, under journey", bare(func(in *CreateRunSubmissionInput) { in.Journey.AppID = "nope" }),
			[]errorShape{{CodeInvalidAppID, "journey.appId"}}},
		{"journeyId without appId and fixtureId", CreateRunSubmissionInput{JourneyID: validRunSubmission().JourneyID, Planner: full.Planner, EnvironmentProfileID: full.EnvironmentProfileID},
			[]errorShape{{CodeInvalidArgument, "appId"}, {CodeInvalidArgument, "fixtureId"}}},
		// Over MCP, a journey of the wrong type arrives as none: its shape
		// problem is the one to fix, not appId and fixtureId "required with
		// journeyId", which the client never sent.
		{"neither journeyId nor journey: one problem, under journey", CreateRunSubmissionInput{Planner: full.Planner, EnvironmentProfileID: full.EnvironmentProfileID},
			[]errorShape{{CodeInvalidArgument, "journey"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CreateRunSubmission(ctx, tt.in)
			if tt.wants == nil {
				if err != nil {
					t.Fatalf("error %v", err)
				}
				if got.RunID != want.RunID || got.JourneyDigest != ownDigest || got.AppID != own.AppID || got.FixtureID != own.FixtureID {
					t.Errorf("got run %s of %s/%s %s; want %s of %s/%s %s", got.RunID, got.AppID, got.FixtureID, got.JourneyDigest, want.RunID, own.AppID, own.FixtureID, ownDigest)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v, want problems %v", err, tt.wants)
			}
			var shapes []errorShape
			for _, p := range e.Problems() {
				shapes = append(shapes, errorShape{p.Code, p.Field})
			}
			if diff := cmp.Diff(tt.wants, shapes); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}
