package automium

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/automium/automium/internal/closedset"
	"github.com/automium/automium/internal/limit"
	"github.com/google/go-cmp/cmp"
)

// validJourney is a small journey every case below starts from, so each case
// changes exactly one thing and fails exactly one rule.
func validJourney() CompileJourneyInput {
	return CompileJourneyInput{
		ID:        "storefront-kettle",
		AppID:     "storefront",
		FixtureID: "storefront-guest-catalog",
		Goal:      "Find a kettle and add it to the cart",
		Steps: []Step{
			{Intent: "navigate", Value: "/"},
			{Intent: "fill", Target: &Target{Role: "searchbox", Name: "Search products"}, Value: "kettle"},
			{Intent: "press_key", Value: "Enter"},
			{Intent: "click", Target: &Target{Role: "button", Name: "Add to cart"}},
		},
		Assertions: []Assertion{{Kind: "text_visible", Value: "Added to cart"}},
		Recovery:   Recovery{MaxRetries: 1, Strategies: []RecoveryStrategy{"retry_step"}},
	}
}

// fixtureOfOtherApp finds a fixture that does not belong to app, for mismatch cases.
func fixtureOfOtherApp(t *testing.T, app string) string {
	t.Helper()
	for _, id := range owned().fixtureIDs {
		if owned().fixtureByID[id].AppID != app {
			return id
		}
	}
	t.Skip("corpus has a single app")
	return ""
}

// fileUploadFixture finds a fixture whose app can upload files and which has files.
func fileUploadFixture(t *testing.T) *Fixture {
	t.Helper()
	for _, id := range owned().fixtureIDs {
		f := owned().fixtureByID[id]
		if len(f.FileRefs) > 0 && slices.Contains(owned().appByID[f.AppID].Capabilities, "file-upload") {
			return f
		}
	}
	t.Skip("corpus has no fixture with files")
	return nil
}

type problem struct {
	Code  Code
	Field string
}

func problemsOf(res CompileJourneyResult) []problem {
	var out []problem
	for _, e := range res.Errors {
		out = append(out, problem{e.Code, e.Field})
	}
	return out
}

// errorProblems lists the problems an *Error reports: its Problems, or itself.
func errorProblems(t *testing.T, err error) []problem {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v, want *Error", err)
	}
	if len(e.Problems()) == 0 {
		return []problem{{e.Code, e.Field}}
	}
	var out []problem
	for _, p := range e.Problems() {
		out = append(out, problem{p.Code, p.Field})
	}
	return out
}

// compileProblems compiles in and returns its problems, checking the one
// error-channel rule: bounds (limit_exceeded) are an error, everything else is
// the domain's answer, valid: false.
func compileProblems(t *testing.T, in CompileJourneyInput) []problem {
	t.Helper()
	res, err := CompileJourney(context.Background(), in)
	if err != nil {
		if res.Valid || res.Journey != nil || res.Errors != nil {
			t.Fatalf("CompileJourney returned both a result and %v", err)
		}
		got := errorProblems(t, err)
		for _, p := range got {
			if p.Code != CodeLimitExceeded {
				t.Errorf("CompileJourney error lists %v; only bounds are errors", p)
			}
		}
		return got
	}
	if res.Valid || res.Journey != nil {
		t.Fatalf("CompileJourney accepted an invalid journey")
	}
	for _, e := range res.Errors {
		if e.Code == CodeLimitExceeded {
			t.Errorf("problem %s is a bound, which must be an error, not valid: false", e.Field)
		}
		if e.Message == "" || strings.Contains(e.Message, "Key: '") {
			t.Errorf("problem %s has no plain-English message: %q", e.Field, e.Message)
		}
		if !slices.IsSorted(e.Allowed) {
			t.Errorf("problem %s: allowed values not sorted: %v", e.Field, e.Allowed)
		}
	}
	return problemsOf(res)
}

func TestCompileJourneyValidation(t *testing.T) {
	target := &Target{Role: "button", Name: "Go"}
	step := func(s Step) func(*testing.T, *CompileJourneyInput) {
		return func(_ *testing.T, in *CompileJourneyInput) { in.Steps = append(in.Steps, s) }
	}
	tests := []struct {
		name   string
		mutate func(*testing.T, *CompileJourneyInput)
		want   []problem
	}{
		{"missing id", func(t *testing.T, in *CompileJourneyInput) { in.ID = "" }, []problem{{CodeInvalidArgument, "id"}}},
		{"id not a slug", func(t *testing.T, in *CompileJourneyInput) { in.ID = "Bad ID" }, []problem{{CodeInvalidArgument, "id"}}},
		{"id too long", func(t *testing.T, in *CompileJourneyInput) { in.ID = strings.Repeat("a", limit.MaxIDLength+1) }, []problem{{CodeLimitExceeded, "id"}}},
		{"missing appId", func(t *testing.T, in *CompileJourneyInput) { in.AppID = "" }, []problem{{CodeInvalidArgument, "appId"}}},
		{"unknown appId", func(t *testing.T, in *CompileJourneyInput) { in.AppID = "gmail" }, []problem{{CodeInvalidAppID, "appId"}}},
		{"missing fixtureId", func(t *testing.T, in *CompileJourneyInput) { in.FixtureID = "" }, []problem{{CodeInvalidArgument, "fixtureId"}}},
		{"unknown fixtureId", func(t *testing.T, in *CompileJourneyInput) { in.FixtureID = "nope" }, []problem{{CodeInvalidFixtureID, "fixtureId"}}},
		{"fixture of another app", func(t *testing.T, in *CompileJourneyInput) { in.FixtureID = fixtureOfOtherApp(t, in.AppID) }, []problem{{CodeFixtureAppMismatch, "fixtureId"}}},
		{"missing goal", func(t *testing.T, in *CompileJourneyInput) { in.Goal = "" }, []problem{{CodeInvalidArgument, "goal"}}},
		{"blank goal", func(_ *testing.T, in *CompileJourneyInput) { in.Goal = " \t " }, []problem{{CodeInvalidArgument, "goal"}}},
		{"goal too long", func(t *testing.T, in *CompileJourneyInput) { in.Goal = strings.Repeat("g", limit.MaxTextLength+1) }, []problem{{CodeLimitExceeded, "goal"}}},
		{"no steps", func(t *testing.T, in *CompileJourneyInput) { in.Steps = nil }, []problem{{CodeInvalidArgument, "steps"}}},
		{"missing intent", step(Step{}), []problem{{CodeInvalidArgument, "steps[4].intent"}}},
		{"unknown intent", step(Step{Intent: "execute_js", Value: "alert(1)"}), []problem{{CodeUnsupportedIntent, "steps[4].intent"}}},
		{"missing target", step(Step{Intent: "click"}), []problem{{CodeInvalidArgument, "steps[4].target"}}},
		{"forbidden target", step(Step{Intent: "go_back", Target: target}), []problem{{CodeInvalidArgument, "steps[4].target"}}},
		{"missing value", step(Step{Intent: "fill", Target: &Target{Role: "textbox", Name: "Email"}}), []problem{{CodeInvalidArgument, "steps[4].value"}}},
		{"select_option on a button", step(Step{Intent: "select_option", Target: target, Value: "Express"}), []problem{{CodeInvalidArgument, "steps[4].target.role"}}},
		{"set_checked on a textbox", step(Step{Intent: "set_checked", Target: &Target{Role: "textbox", Name: "Email"}, Value: "true"}), []problem{{CodeInvalidArgument, "steps[4].target.role"}}},
		{"fill on a button", step(Step{Intent: "fill", Target: target, Value: "x"}), []problem{{CodeInvalidArgument, "steps[4].target.role"}}},
		{"forbidden value", step(Step{Intent: "click", Target: target, Value: "x"}), []problem{{CodeInvalidArgument, "steps[4].value"}}},
		{"forbidden destination", step(Step{Intent: "click", Target: target, Destination: target}), []problem{{CodeInvalidArgument, "steps[4].destination"}}},
		{"target role unknown", step(Step{Intent: "click", Target: &Target{Role: "div", Name: "x"}}), []problem{{CodeInvalidArgument, "steps[4].target.role"}}},
		{"target name blank", step(Step{Intent: "click", Target: &Target{Role: "button", Name: "  "}}), []problem{{CodeInvalidArgument, "steps[4].target.name"}}},
		{"target name missing", step(Step{Intent: "click", Target: &Target{Role: "button"}}), []problem{{CodeInvalidArgument, "steps[4].target.name"}}},
		{"value too long", step(Step{Intent: "fill", Target: target, Value: strings.Repeat("v", limit.MaxTextLength+1)}), []problem{{CodeLimitExceeded, "steps[4].value"}}},
		{"navigate absolute URL", step(Step{Intent: "navigate", Value: "https://evil.example/"}), []problem{{CodeInvalidArgument, "steps[4].value"}}},
		{"navigate other host", step(Step{Intent: "navigate", Value: "//evil.example/x"}), []problem{{CodeInvalidArgument, "steps[4].value"}}},
		{"navigate javascript scheme", step(Step{Intent: "navigate", Value: "javascript:alert(1)"}), []problem{{CodeInvalidArgument, "steps[4].value"}}},
		{"navigate not relative", step(Step{Intent: "navigate", Value: "cart"}), []problem{{CodeInvalidArgument, "steps[4].value"}}},
		{"navigate backslash", step(Step{Intent: "navigate", Value: `/\evil.example`}), []problem{{CodeInvalidArgument, "steps[4].value"}}},
		{"navigate control char", step(Step{Intent: "navigate", Value: "/cart\n"}), []problem{{CodeInvalidArgument, "steps[4].value"}}},
		{"set_checked not boolean", step(Step{Intent: "set_checked", Target: &Target{Role: "checkbox", Name: "Agree"}, Value: "yes"}), []problem{{CodeInvalidArgument, "steps[4].value"}}},
		{"scroll direction unknown", step(Step{Intent: "scroll", Value: "sideways"}), []problem{{CodeInvalidArgument, "steps[4].value"}}},
		{"press_key unknown key", step(Step{Intent: "press_key", Value: "Hyper+Q"}), []problem{{CodeInvalidArgument, "steps[4].value"}}},
		{"handle_dialog unknown action", func(t *testing.T, in *CompileJourneyInput) {
			in.Steps = append(in.Steps, Step{Intent: "handle_dialog", Value: "ignore"})
		}, []problem{{CodeInvalidArgument, "steps[4].value"}}},
		{"upload_file without capability", step(Step{Intent: "upload_file", Target: target, Value: "fixture-file://storefront/x.png"}), []problem{{CodeUnsupportedIntent, "steps[4].intent"}}},
		{"upload_file path", func(t *testing.T, in *CompileJourneyInput) {
			f := fileUploadFixture(t)
			in.AppID, in.FixtureID = f.AppID, f.ID
			in.Steps = []Step{{Intent: "upload_file", Target: target, Value: "/etc/passwd"}}
		}, []problem{{CodeInvalidArgument, "steps[0].value"}}},
		{"upload_file ref of another fixture", func(t *testing.T, in *CompileJourneyInput) {
			f := fileUploadFixture(t)
			in.AppID, in.FixtureID = f.AppID, f.ID
			in.Steps = []Step{{Intent: "upload_file", Target: target, Value: "fixture-file://elsewhere/x.pdf"}}
		}, []problem{{CodeInvalidArgument, "steps[0].value"}}},
		{"finish not last", func(t *testing.T, in *CompileJourneyInput) {
			in.Steps = append([]Step{{Intent: "finish"}}, in.Steps...)
		}, []problem{{CodeInvalidArgument, "steps[0].intent"}}},
		{"no assertions", func(t *testing.T, in *CompileJourneyInput) { in.Assertions = nil }, []problem{{CodeInvalidArgument, "assertions"}}},
		{"assertion kind unknown", func(t *testing.T, in *CompileJourneyInput) { in.Assertions[0].Kind = "looks_right" }, []problem{{CodeInvalidArgument, "assertions[0].kind"}}},
		{"assertion missing target", func(t *testing.T, in *CompileJourneyInput) { in.Assertions[0] = Assertion{Kind: "element_visible"} }, []problem{{CodeInvalidArgument, "assertions[0].target"}}},
		{"assertion missing value", func(t *testing.T, in *CompileJourneyInput) { in.Assertions[0] = Assertion{Kind: "text_visible"} }, []problem{{CodeInvalidArgument, "assertions[0].value"}}},
		{"assertion url absolute", func(t *testing.T, in *CompileJourneyInput) {
			in.Assertions[0] = Assertion{Kind: "url_matches", Value: "https://evil.example/"}
		}, []problem{{CodeInvalidArgument, "assertions[0].value"}}},
		{"strategies without retries", func(t *testing.T, in *CompileJourneyInput) {
			in.Recovery = Recovery{Strategies: []RecoveryStrategy{"retry_step"}}
		}, []problem{{CodeInvalidArgument, "recovery.strategies"}}},
		{"recovery retries above cap", func(t *testing.T, in *CompileJourneyInput) { in.Recovery.MaxRetries = limit.MaxRecoveryRetries + 1 }, []problem{{CodeLimitExceeded, "recovery.maxRetries"}}},
		{"recovery retries negative", func(t *testing.T, in *CompileJourneyInput) { in.Recovery.MaxRetries = -1 }, []problem{{CodeInvalidArgument, "recovery.maxRetries"}}},
		{"recovery no strategies", func(t *testing.T, in *CompileJourneyInput) { in.Recovery = Recovery{MaxRetries: 1} }, []problem{{CodeInvalidArgument, "recovery.strategies"}}},
		{"recovery unknown strategy", func(t *testing.T, in *CompileJourneyInput) { in.Recovery.Strategies = []RecoveryStrategy{"pray"} }, []problem{{CodeInvalidArgument, "recovery.strategies[0]"}}},
		{"recovery duplicate strategy", func(t *testing.T, in *CompileJourneyInput) {
			in.Recovery.Strategies = []RecoveryStrategy{"replan", "replan"}
		}, []problem{{CodeInvalidArgument, "recovery.strategies"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := validJourney()
			tt.mutate(t, &in)
			if diff := cmp.Diff(tt.want, compileProblems(t, in)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCompileJourneyReportsAllProblems checks that one pass finds every problem and
// reports them in the order a reader meets the fields.
func TestCompileJourneyReportsAllProblems(t *testing.T) {
	in := CompileJourneyInput{
		ID:    "Bad ID",
		AppID: "storefront",
		Steps: []Step{
			{Intent: "teleport"},
			{Intent: "navigate", Value: "https://evil.example"},
			{Intent: "finish"},
			{Intent: "click"},
		},
		Recovery: Recovery{MaxRetries: 2, Strategies: []RecoveryStrategy{"pray"}},
	}
	res, err := CompileJourney(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	want := []problem{
		{CodeInvalidArgument, "id"},
		{CodeInvalidArgument, "fixtureId"},
		{CodeInvalidArgument, "goal"},
		{CodeUnsupportedIntent, "steps[0].intent"},
		{CodeInvalidArgument, "steps[1].value"},
		{CodeInvalidArgument, "steps[2].intent"},
		{CodeInvalidArgument, "steps[3].target"},
		{CodeInvalidArgument, "assertions"},
		{CodeInvalidArgument, "recovery.strategies[0]"},
	}
	if diff := cmp.Diff(want, problemsOf(res)); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	var intentErr Problem
	for _, e := range res.Errors {
		if e.Field == "steps[0].intent" {
			intentErr = e
		}
	}
	if diff := cmp.Diff(closedset.Strings(Intents()), intentErr.Allowed); diff != "" {
		t.Errorf("unsupported intent must list the vocabulary (-want +got):\n%s", diff)
	}
}

// TestCompileJourneyReportsAllBounds checks that every bound an input breaks is
// reported in one error, in field order, and none of its other problems.
func TestCompileJourneyReportsAllBounds(t *testing.T) {
	in := validJourney()
	in.ID = "Bad ID" + strings.Repeat("x", limit.MaxIDLength)
	in.Goal = strings.Repeat("g", limit.MaxTextLength+1)
	in.Steps[1].Value = strings.Repeat("v", limit.MaxTextLength+1)
	in.Recovery.MaxRetries = 9
	want := []problem{
		{CodeLimitExceeded, "id"},
		{CodeLimitExceeded, "goal"},
		{CodeLimitExceeded, "steps[1].value"},
		{CodeLimitExceeded, "recovery.maxRetries"},
	}
	if diff := cmp.Diff(want, compileProblems(t, in)); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

func TestCompileJourneyLimits(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*testing.T, *CompileJourneyInput)
		field  string
	}{
		{"100k steps", func(t *testing.T, in *CompileJourneyInput) { in.Steps = make([]Step, 100_000) }, "steps"},
		{"steps one over", func(t *testing.T, in *CompileJourneyInput) { in.Steps = make([]Step, limit.MaxSteps+1) }, "steps"},
		{"assertions one over", func(t *testing.T, in *CompileJourneyInput) { in.Assertions = make([]Assertion, limit.MaxAssertions+1) }, "assertions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := validJourney()
			tt.mutate(t, &in)
			_, err := CompileJourney(context.Background(), in)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("CompileJourney error = %v, want *Error", err)
			}
			if diff := cmp.Diff(problem{CodeLimitExceeded, tt.field}, problem{e.Code, e.Field}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestCompileJourneyAtLimitsCompiles(t *testing.T) {
	in := validJourney()
	for len(in.Steps) < limit.MaxSteps {
		in.Steps = append(in.Steps, Step{Intent: "click", Target: &Target{Role: "button", Name: "Next"}})
	}
	for len(in.Assertions) < limit.MaxAssertions {
		in.Assertions = append(in.Assertions, Assertion{Kind: "text_visible", Value: "Done"})
	}
	in.Recovery = Recovery{MaxRetries: limit.MaxRecoveryRetries, Strategies: asStrategies(recoveryStrategies)}
	res, err := CompileJourney(context.Background(), in)
	if err != nil || !res.Valid {
		t.Fatalf("CompileJourney at the limits: valid=%v err=%v problems=%v", res.Valid, err, res.Errors)
	}
	if got, want := len(res.Journey.Nodes), 2*limit.MaxSteps+limit.MaxAssertions+2; got != want {
		t.Errorf("nodes = %d, want %d", got, want)
	}
}

// TestCompileGraphShape pins the graph of a two-step journey with and without
// retries, so the edge semantics documented on compile cannot drift.
func TestCompileGraphShape(t *testing.T) {
	in := validJourney()
	in.Steps = in.Steps[:2]
	tests := []struct {
		name       string
		maxRetries int
		want       []GraphEdge
	}{
		{"no retries, no strategies", 0, []GraphEdge{
			{From: "step-1", To: "step-2", On: EdgeSuccess},
			{From: "step-1", To: "fail", On: EdgeFailure},
			{From: "step-2", To: "assert-1", On: EdgeSuccess},
			{From: "step-2", To: "fail", On: EdgeFailure},
			{From: "assert-1", To: "pass", On: EdgeSuccess},
			{From: "assert-1", To: "fail", On: EdgeFailure},
		}},
		{"two retries", 2, []GraphEdge{
			{From: "step-1", To: "step-2", On: EdgeSuccess},
			{From: "step-1", To: "recover-1", On: EdgeFailure},
			{From: "recover-1", To: "step-1", On: EdgeRetry, MaxAttempts: 2},
			{From: "recover-1", To: "fail", On: EdgeFailure},
			{From: "step-2", To: "assert-1", On: EdgeSuccess},
			{From: "step-2", To: "recover-2", On: EdgeFailure},
			{From: "recover-2", To: "step-2", On: EdgeRetry, MaxAttempts: 2},
			{From: "recover-2", To: "fail", On: EdgeFailure},
			{From: "assert-1", To: "pass", On: EdgeSuccess},
			{From: "assert-1", To: "fail", On: EdgeFailure},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in.Recovery = Recovery{MaxRetries: tt.maxRetries}
			if tt.maxRetries > 0 {
				in.Recovery.Strategies = []RecoveryStrategy{"retry_step"}
			}
			res, err := CompileJourney(context.Background(), in)
			if err != nil || !res.Valid {
				t.Fatalf("CompileJourney: valid=%v err=%v %v", res.Valid, err, res.Errors)
			}
			g := res.Journey
			if diff := cmp.Diff(tt.want, g.Edges); diff != "" {
				t.Errorf("edges (-want +got):\n%s", diff)
			}
			if g.Entry != "step-1" || g.GraphVersion != JourneyGraphVersion || !strings.HasPrefix(g.Digest, "sha256:") {
				t.Errorf("header = entry %q version %q digest %q", g.Entry, g.GraphVersion, g.Digest)
			}
			kinds := map[NodeKind]int{}
			for _, n := range g.Nodes {
				kinds[n.Kind]++
			}
			wantKinds := map[NodeKind]int{NodeStep: 2, NodeAssertion: 1, NodePass: 1, NodeFail: 1}
			if tt.maxRetries > 0 {
				wantKinds[NodeRecovery] = 2
			}
			if diff := cmp.Diff(wantKinds, kinds); diff != "" {
				t.Errorf("node kinds (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCompileJourneyDeterministic(t *testing.T) {
	ctx := context.Background()
	encode := func(in CompileJourneyInput) []byte {
		res, err := CompileJourney(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	first := encode(validJourney())
	for range 20 {
		if got := encode(validJourney()); !bytes.Equal(first, got) {
			t.Fatalf("compilation is not deterministic:\n%s\n%s", first, got)
		}
	}
	changed := validJourney()
	changed.Goal += "."
	a, _ := CompileJourney(ctx, validJourney())
	b, _ := CompileJourney(ctx, changed)
	if a.Journey.Digest == b.Journey.Digest {
		t.Error("digest does not change when the goal does")
	}
}

func TestVocabularyIsFrozen(t *testing.T) {
	want := []string{
		"click", "drag_drop", "extract", "fill", "finish", "go_back", "handle_dialog", "hover",
		"navigate", "press_key", "scroll", "select_option", "set_checked", "switch_tab",
		"upload_file", "wait_for",
	}
	if diff := cmp.Diff(want, closedset.Strings(Intents())); diff != "" {
		t.Errorf("planner-intent-v1 changed (-want +got); a change needs a new vocabulary version:\n%s", diff)
	}
	for _, in := range Vocabulary() {
		if in.Description == "" || in.Target == "" || in.Value == "" || in.Destination == "" {
			t.Errorf("intent %s does not declare what it needs: %+v", in.Name, in)
		}
		if in.Value != Forbidden && in.ValueHint == "" {
			t.Errorf("intent %s takes a value but gives no hint", in.Name)
		}
		if in.Capability != "" && !slices.Contains(capabilityNames, string(in.Capability)) {
			t.Errorf("intent %s needs unknown capability %q", in.Name, in.Capability)
		}
	}
}

func TestRouteProblem(t *testing.T) {
	tests := []struct {
		route string
		ok    bool
	}{
		{"/", true},
		{"/cart", true},
		{"/search?q=kettle&page=2#results", true},
		{"/a/b%20c", true},
		{"https://example.com/", false},
		{"HTTP://example.com", false},
		{"//example.com", false},
		{"mailto:a@b.c", false},
		{"data:text/html,hi", false},
		{"cart", false},
		{"", false},
		{"/a b", false},
		{"/a\\b", false},
		{"/a\x00", false},
	}
	for _, tt := range tests {
		if _, bad := routeProblem(tt.route); !bad != tt.ok {
			t.Errorf("routeProblem(%q) ok = %v, want %v", tt.route, !bad, tt.ok)
		}
	}
}

// TestHasScheme holds the hand-written scheme check to the RFC 3986 grammar it
// replaced, ^[A-Za-z][A-Za-z0-9+.-]*:, on every string of up to three characters
// from an alphabet that covers each branch.
func TestHasScheme(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)
	alphabet := []string{"", "a", "Z", "@", "[", "`", "{", "0", "+", ".", "-", ":", "/", "_", "\xff"}
	for _, a := range alphabet {
		for _, b := range alphabet {
			for _, c := range alphabet {
				for _, d := range []string{"", ":", "//x"} {
					v := a + b + c + d
					if got, want := hasScheme(v), re.MatchString(v); got != want {
						t.Errorf("hasScheme(%q) = %v, want %v", v, got, want)
					}
				}
			}
		}
	}
}

func TestValidKey(t *testing.T) {
	for _, k := range []string{"Enter", "a", "Z", "7", "Control+A", "Shift+Tab", "Control+Shift+K", "F5", "F12"} {
		if !validKey(k) {
			t.Errorf("validKey(%q) = false", k)
		}
	}
	for _, k := range []string{"", "+", "Enter+", "Hyper+A", "F13", "F05", "ab", "Control+", "é"} {
		if validKey(k) {
			t.Errorf("validKey(%q) = true", k)
		}
	}
}

func TestErrorsAs(t *testing.T) {
	_, err := ListFixtures(context.Background(), ListFixturesInput{AppID: "nope"})
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("errors.As(%v) failed", err)
	}
	if e.Code != CodeInvalidAppID || e.Field != "appId" || !strings.HasPrefix(err.Error(), "automium: invalid_app_id: appId: ") || !strings.Contains(err.Error(), "(allowed: admin-console, ") {
		t.Errorf("got %+v / %q", e, err)
	}
}

func TestCanceledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := CompileJourney(ctx, validJourney()); !errors.Is(err, context.Canceled) {
		t.Errorf("CompileJourney with canceled ctx: err = %v", err)
	}
}

// FuzzCompileJourney feeds arbitrary JSON through the same decoding an adapter does
// and into the compiler. It must never panic, and whatever it accepts must be
// reproducible, free of absolute routes, and digested as canonicaljson.Marshal
// digests it.
func FuzzCompileJourney(f *testing.F) {
	seed, _ := json.Marshal(validJourney())
	f.Add(seed)
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"steps":[{"intent":"navigate","value":"//x"}],"recovery":{"maxRetries":-5}}`))
	f.Add([]byte(`{"id":"a","appId":"storefront","fixtureId":"storefront-guest-catalog","goal":"g","steps":[{"intent":"finish"}],"assertions":[{"kind":"url_matches","value":"/"}],"recovery":{"strategies":["replan"]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var in CompileJourneyInput
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if dec.Decode(&in) != nil {
			return
		}
		res, err := CompileJourney(context.Background(), in)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Code != CodeLimitExceeded {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if res.Valid != (res.Journey != nil) || res.Valid == (len(res.Errors) > 0) {
			t.Fatalf("inconsistent result: valid=%v journey=%v errors=%d", res.Valid, res.Journey != nil, len(res.Errors))
		}
		if !res.Valid {
			return
		}
		for _, n := range res.Journey.Nodes {
			if _, bad := routeProblem(n.Value); n.Intent == "navigate" && bad {
				t.Fatalf("accepted navigate to %q", n.Value)
			}
		}
		again, _ := CompileJourney(context.Background(), in)
		if again.Journey.Digest != res.Journey.Digest {
			t.Fatal("digest differs between two compilations")
		}
		// The hand-written canonical form (journeyDigest) is the general one.
		g := *res.Journey
		g.Digest = ""
		if want, err := digestOf(g); err != nil || want != res.Journey.Digest {
			t.Fatalf("digest %s; canonicaljson.Marshal gives %s, %v", res.Journey.Digest, want, err)
		}
	})
}

// TestJourneySchemaAdvertisesLimits keeps the literal bounds in validate tags equal
// to the exported constants that documentation and callers rely on.
func TestJourneySchemaAdvertisesLimits(t *testing.T) {
	raw, err := jsonSchema(reflect.TypeFor[CompileJourneyInput]())
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Properties map[string]struct {
			MaxItems  *int `json:"maxItems"`
			MaxLength *int `json:"maxLength"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	got := map[string]int{
		"steps":      *s.Properties["steps"].MaxItems,
		"assertions": *s.Properties["assertions"].MaxItems,
		"id":         *s.Properties["id"].MaxLength,
		"goal":       *s.Properties["goal"].MaxLength,
	}
	want := map[string]int{"steps": limit.MaxSteps, "assertions": limit.MaxAssertions, "id": limit.MaxIDLength, "goal": limit.MaxTextLength}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("schema bounds differ from the constants (-want +got):\n%s", diff)
	}
}

// TestCompileJourneyReferenceIDs checks that a reference journey compiles under
// its own ID, and that no other journey may take that ID.
func TestCompileJourneyReferenceIDs(t *testing.T) {
	for _, id := range ReferenceJourneyIDs() {
		ref, _ := ReferenceJourney(id)
		if res, err := CompileJourney(context.Background(), ref); err != nil || !res.Valid {
			t.Errorf("reference journey %s: %v %+v", id, err, res.Errors)
		}
	}
	in := validJourney()
	for _, id := range ReferenceJourneyIDs() {
		if ref, _ := ReferenceJourney(id); ref.AppID != in.AppID {
			in.ID = id
			break
		}
	}
	if diff := cmp.Diff([]problem{{CodeInvalidArgument, "id"}}, compileProblems(t, in)); diff != "" {
		t.Errorf("another app's reference journey ID (-want +got):\n%s", diff)
	}
}

// TestCompileJourneyWithoutRecovery checks that a journey may leave recovery out,
// or set maxRetries 0 without strategies: a failed step then fails the journey.
func TestCompileJourneyWithoutRecovery(t *testing.T) {
	for _, r := range []Recovery{{}, {MaxRetries: 0}} {
		in := validJourney()
		in.Recovery = r
		res, err := CompileJourney(context.Background(), in)
		if err != nil || !res.Valid {
			t.Fatalf("recovery %+v: %v %+v", r, err, res.Errors)
		}
		for _, n := range res.Journey.Nodes {
			if n.Kind == NodeRecovery {
				t.Errorf("recovery %+v compiled a recovery node %s", r, n.ID)
			}
		}
	}
}

// TestJourneyTextIsOneVisibleLine: a goal and an accessible name are one line
// of text a person reads, and both are hashed into the journey's digest and the
// run ID. Two journeys that read alike must not get two digests, so text a
// reader cannot see is refused, not repaired: controls (NUL, tab, newline),
// format characters (bidi overrides, zero-width spaces and joiners, soft
// hyphens, byte order marks), line and paragraph separators, white space at
// either end, and runs of white space (an accessible name collapses them, so
// "Add  to cart" and "Add to cart " name the element "Add to cart" names).
func TestJourneyTextIsOneVisibleLine(t *testing.T) {
	goal := func(s string) func(*CompileJourneyInput) { return func(in *CompileJourneyInput) { in.Goal = s } }
	name := func(s string) func(*CompileJourneyInput) {
		return func(in *CompileJourneyInput) { in.Steps[3].Target = &Target{Role: "button", Name: s} }
	}
	assertName := func(s string) func(*CompileJourneyInput) {
		return func(in *CompileJourneyInput) {
			in.Assertions = append(in.Assertions, Assertion{Kind: "element_visible", Target: &Target{Role: "button", Name: s}})
		}
	}
	const g = "Find a kettle and add it to the cart"
	tests := []struct {
		name  string
		edit  func(*CompileJourneyInput)
		field string // "" when the journey is valid
	}{
		{"plain goal", goal(g), ""},
		{"goal with NBSP inside", goal("Find a\u00a0kettle"), ""},
		{"goal with an emoji", goal("Find a kettle \U0001F375"), ""},
		{"goal with accents", goal("Trouver une bouilloire \u00e0 th\u00e9"), ""},
		{"goal with NUL", goal(g + "\x00"), "goal"},
		{"goal with a newline", goal("Find a kettle\nand add it"), "goal"},
		{"goal with a tab", goal("Find\ta kettle"), "goal"},
		{"goal with DEL", goal(g + "\x7f"), "goal"},
		{"goal with a C1 control", goal(g + "\u0085"), "goal"},
		{"goal with a bidi override", goal(g + "\u202e"), "goal"},
		{"goal with a bidi isolate", goal("\u2066" + g), "goal"},
		{"goal with a zero-width space", goal("Find a\u200b kettle"), "goal"},
		{"goal with a soft hyphen", goal("Find a ket\u00adtle"), "goal"},
		{"goal with a byte order mark", goal("\ufeff" + g), "goal"},
		{"goal with a line separator", goal(g + "\u2028"), "goal"},
		{"goal with a trailing space", goal(g + " "), "goal"},
		{"goal with a leading ideographic space", goal("\u3000" + g), "goal"},
		{"goal with two spaces", goal("Find a  kettle"), "goal"},
		// Canonically equivalent text is one text (Unicode's definition);
		// only NFC, where a precomposed character exists, has one spelling.
		{"goal in NFD", goal("Find a café kettle"), "goal"},
		{"goal in NFC", goal("Find a café kettle"), ""},
		{"goal with a mark no character precomposes", goal("Find x́"), ""},
		{"name in NFD", name("Café"), "steps[3].target.name"},
		{"name with a singleton (Ohm sign)", name("100 Ω"), "steps[3].target.name"},
		{"plain name", name("Add to cart"), ""},
		{"name with a trailing space", name("Add to cart "), "steps[3].target.name"},
		{"name with a leading NBSP", name("\u00a0Add to cart"), "steps[3].target.name"},
		{"name with two spaces", name("Add  to cart"), "steps[3].target.name"},
		{"name with a zero-width joiner", name("Add to cart\u200d"), "steps[3].target.name"},
		{"name with a tab", name("Add\tto cart"), "steps[3].target.name"},
		{"assertion target name with a bidi mark", assertName("Cart\u200f"), "assertions[1].target.name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := validJourney()
			tt.edit(&in)
			res, err := CompileJourney(context.Background(), in)
			if err != nil {
				t.Fatalf("CompileJourney: %v", err)
			}
			var got []string
			for _, p := range res.Errors {
				got = append(got, p.Field)
			}
			var want []string
			if tt.field != "" {
				want = []string{tt.field}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("problem fields (-want +got):\n%s\n%v", diff, res.Errors)
			}
		})
	}
}

// asStrategies types the recovery strategies, in the order given.
func asStrategies(values []string) []RecoveryStrategy {
	out := make([]RecoveryStrategy, len(values))
	for i, v := range values {
		out[i] = RecoveryStrategy(v)
	}
	return out
}
