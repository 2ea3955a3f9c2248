package automium

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// extJourney is validJourney of a team's own app, with what the corpus
// would refuse for storefront: an upload (storefront lacks file-upload) of a
// file no corpus fixture lists.
func extJourney() CompileJourneyInput {
	in := validJourney()
	in.ID, in.AppID, in.FixtureID = "acme-upload", "ext:acme-notes", "ext:default"
	in.Steps = append([]Step{{Intent: IntentUploadFile, Target: &Target{Role: "button", Name: "Attach"}, Value: "fixture-file://acme/notes.txt"}}, in.Steps...)
	return in
}

// TestExternalAppNames holds the grammar of ext: IDs where a journey names
// its app and fixture: the corpus's form after a lowercase prefix, never a
// corpus ID, and every other spelling refused with the code of the field.
func TestExternalAppNames(t *testing.T) {
	tests := []struct {
		name, app, fixture string
		want               []problem
		message            string // a part of the first problem's message
	}{
		{name: "ok", app: "ext:acme-notes", fixture: "ext:default"},
		{name: "digits", app: "ext:a1", fixture: "ext:0"},
		{name: "upper prefix", app: "EXT:acme", fixture: "ext:default", want: []problem{{CodeInvalidAppID, "appId"}}, message: "lowercase"},
		{name: "title prefix", app: "Ext:acme", fixture: "ext:default", want: []problem{{CodeInvalidAppID, "appId"}}, message: "lowercase"},
		{name: "empty name", app: "ext:", fixture: "ext:default", want: []problem{{CodeInvalidAppID, "appId"}}, message: "no name"},
		{name: "corpus name", app: "ext:storefront", fixture: "ext:default", want: []problem{{CodeInvalidAppID, "appId"}}, message: "the corpus's storefront"},
		{name: "upper name", app: "ext:Acme", fixture: "ext:default", want: []problem{{CodeInvalidAppID, "appId"}}},
		{name: "underscore", app: "ext:acme_notes", fixture: "ext:default", want: []problem{{CodeInvalidAppID, "appId"}}},
		{name: "dot", app: "ext:acme.notes", fixture: "ext:default", want: []problem{{CodeInvalidAppID, "appId"}}},
		{name: "dot dot", app: "ext:..", fixture: "ext:default", want: []problem{{CodeInvalidAppID, "appId"}}},
		{name: "slash", app: "ext:a/b", fixture: "ext:default", want: []problem{{CodeInvalidAppID, "appId"}}},
		{name: "colon", app: "ext:a:b", fixture: "ext:default", want: []problem{{CodeInvalidAppID, "appId"}}},
		{name: "double hyphen", app: "ext:a--b", fixture: "ext:default", want: []problem{{CodeInvalidAppID, "appId"}}},
		{name: "edge hyphen", app: "ext:-a", fixture: "ext:default", want: []problem{{CodeInvalidAppID, "appId"}}},
		{name: "space", app: "ext: a", fixture: "ext:default", want: []problem{{CodeInvalidAppID, "appId"}}},
		{name: "fullwidth", app: "ext:ａcme", fixture: "ext:default", want: []problem{{CodeInvalidAppID, "appId"}}},
		{name: "kelvin", app: "ext:\u212a", fixture: "ext:default", want: []problem{{CodeInvalidAppID, "appId"}}},
		{name: "corpus typo", app: "storefrnt", fixture: "ext:default", want: []problem{{CodeInvalidAppID, "appId"}}, message: "ext:acme-notes"},
		{name: "fixture upper prefix", app: "ext:acme", fixture: "EXT:default", want: []problem{{CodeInvalidFixtureID, "fixtureId"}}, message: "lowercase"},
		{name: "fixture corpus name", app: "ext:acme", fixture: "ext:storefront-guest-catalog", want: []problem{{CodeInvalidFixtureID, "fixtureId"}}},
		{name: "ext app, corpus fixture", app: "ext:acme", fixture: "storefront-guest-catalog", want: []problem{{CodeFixtureAppMismatch, "fixtureId"}}, message: "ext:default"},
		{name: "corpus app, ext fixture", app: "storefront", fixture: "ext:default", want: []problem{{CodeFixtureAppMismatch, "fixtureId"}}, message: "outside the corpus"},
		{name: "too long", app: "ext:" + strings.Repeat("a", 125), fixture: "ext:default", want: []problem{{CodeLimitExceeded, "appId"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := validJourney()
			in.Steps = in.Steps[:1] // navigate: no capability, so only the names are judged
			in.ID, in.AppID, in.FixtureID = "acme-home", tt.app, tt.fixture
			res, err := CompileJourney(context.Background(), in)
			var got []problem
			var first string
			switch {
			case err != nil:
				got = errorProblems(t, err)
				first = err.Error()
			case !res.Valid:
				got = problemsOf(res)
				first = res.Errors[0].Message
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("problems (-want +got):\n%s", diff)
			}
			if !strings.Contains(first, tt.message) {
				t.Errorf("message %q does not say %q", first, tt.message)
			}
		})
	}
}

// TestExternalJourneyCompilesAndExports: a journey of a team's own app
// compiles and exports, and both answers say the app is outside the corpus
// and which corpus checks did not apply.
func TestExternalJourneyCompilesAndExports(t *testing.T) {
	ctx := context.Background()
	in := extJourney()
	res, err := CompileJourney(ctx, in)
	if err != nil || !res.Valid {
		t.Fatalf("CompileJourney: %v %+v", err, res.Errors)
	}
	notChecked := []string{NotCheckedCapabilities, NotCheckedFixtureFiles, NotCheckedFixtureOfApp}
	if diff := cmp.Diff([]string{"ext:acme-notes"}, res.ExternalAppIDs); diff != "" {
		t.Errorf("externalAppIds (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(notChecked, res.NotChecked); diff != "" {
		t.Errorf("notChecked (-want +got):\n%s", diff)
	}
	if res.Journey.AppID != "ext:acme-notes" || res.Journey.FixtureID != "ext:default" {
		t.Errorf("journey app %q fixture %q", res.Journey.AppID, res.Journey.FixtureID)
	}
	// The same journey under a corpus app meets the corpus's checks.
	corpus := in
	corpus.AppID, corpus.FixtureID = "storefront", "storefront-guest-catalog"
	if r, err := CompileJourney(ctx, corpus); err != nil || r.Valid || r.ExternalAppIDs != nil || r.NotChecked != nil {
		t.Errorf("corpus app: %v, valid %v, external %v; want the capability refused and nothing external", err, r.Valid, r.ExternalAppIDs)
	}
	spec, err := ExportPlaywrightSpec(ctx, ExportPlaywrightSpecInput{Journey: &in})
	if err != nil {
		t.Fatal(err)
	}
	if spec.Mapping.AppID != "ext:acme-notes" || spec.Mapping.FixtureID != "ext:default" || spec.ReferenceJourney {
		t.Errorf("mapping %+v, reference %v", spec.Mapping, spec.ReferenceJourney)
	}
	if diff := cmp.Diff(notChecked, spec.NotChecked); diff != "" || len(spec.ExternalAppIDs) != 1 {
		t.Errorf("export: external %v, notChecked (-want +got):\n%s", spec.ExternalAppIDs, diff)
	}
	// A reference journey's ID stays the reference journey's.
	ref := in
	ref.ID = ReferenceJourneyIDs()[0]
	if r, err := CompileJourney(ctx, ref); err != nil || r.Valid || r.Errors[0].Field != "id" {
		t.Errorf("a reference journey's ID under ext: %v %+v; want refused at id", err, r)
	}
}

// TestExternalAppWhereTheCorpusIsNeeded: what models or lists the corpus
// refuses an ext: app, saying why and where to go instead.
func TestExternalAppWhereTheCorpusIsNeeded(t *testing.T) {
	ctx := context.Background()
	in := validCompareInput()
	in.AppIDs = []string{cmpApp, "ext:acme-notes"}
	_, err := ComparePlanners(ctx, in)
	checkCompareError(t, err, errShape{CodeInvalidAppID, "appIds[1]"}, owned().appIDs)
	if !strings.Contains(err.Error(), "reference journeys") {
		t.Errorf("ComparePlanners: %v; want it to say a modeled comparison models reference journeys", err)
	}

	j := extJourney()
	_, err = CreateRunSubmission(ctx, CreateRunSubmissionInput{Journey: &j, Planner: PlannerRef{ID: "p", Vendor: "v", Model: "m"}, EnvironmentProfileID: owned().profileIDs[0]})
	if diff := cmp.Diff([]problem{{CodeInvalidAppID, "journey.appId"}}, errorProblems(t, err)); diff != "" {
		t.Errorf("run of an ext journey (-want +got):\n%s\n%v", diff, err)
	}
	_, err = CreateRunSubmission(ctx, CreateRunSubmissionInput{JourneyID: ReferenceJourneyIDs()[0], AppID: "ext:acme-notes", FixtureID: "ext:default",
		Planner: PlannerRef{ID: "p", Vendor: "v", Model: "m"}, EnvironmentProfileID: owned().profileIDs[0]})
	if got := errorProblems(t, err); len(got) == 0 || got[0] != (problem{CodeInvalidAppID, "appId"}) || !strings.Contains(err.Error(), "outside the corpus") {
		t.Errorf("run with appId ext: %v", err)
	}
	if _, err := ListFixtures(ctx, ListFixturesInput{AppID: "ext:acme-notes"}); err == nil {
		t.Error("ListFixtures listed an app outside the corpus")
	}
}

// TestExternalAppObserved: trials of a team's own app compare, and the
// report says which apps are outside the corpus.
func TestExternalAppObserved(t *testing.T) {
	ext := func(p, j string, rep int) Trial {
		tr := cmpTrial(p, j, rep)
		tr.AppID, tr.FixtureID = "ext:acme-notes", "ext:default"
		return tr
	}
	in := validObservedInput()
	in.Trials = append(in.Trials, ext("a", "acme-search", 1), ext("b", "acme-search", 1))
	r, err := CompareObservedTrials(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	want := struct{ Apps, External, NotChecked []string }{[]string{"ext:acme-notes", cmpApp}, []string{"ext:acme-notes"}, []string{NotCheckedFixtureOfApp}}
	if diff := cmp.Diff(want, struct{ Apps, External, NotChecked []string }{r.AppIDs, r.ExternalAppIDs, r.NotChecked}); diff != "" {
		t.Errorf("apps (-want +got):\n%s", diff)
	}
	corpusOnly, err := CompareObservedTrials(context.Background(), validObservedInput())
	if err != nil || corpusOnly.ExternalAppIDs != nil || corpusOnly.NotChecked != nil {
		t.Errorf("corpus trials: %v, external %v", err, corpusOnly.ExternalAppIDs)
	}

	for _, tt := range []struct {
		name string
		edit func(*Trial)
		want errShape
	}{
		{"typo", func(tr *Trial) { tr.AppID = "storefrnt" }, errShape{CodeInvalidAppID, "trials[2].appId"}},
		{"corpus fixture", func(tr *Trial) { tr.FixtureID = cmpFixture }, errShape{CodeFixtureAppMismatch, "trials[2].fixtureId"}},
		{"reference journey", func(tr *Trial) { tr.JourneyID = ReferenceJourneyIDs()[0] }, errShape{CodeFixtureAppMismatch, "trials[2].journeyId"}},
		{"one journey two apps", func(tr *Trial) { tr.JourneyID = "j1" }, errShape{CodeInvalidArgument, "trials[2].journeyId"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bad := validObservedInput()
			tr := ext("a", "acme-search", 2)
			tt.edit(&tr)
			bad.Trials = append(bad.Trials, tr)
			_, err := CompareObservedTrials(context.Background(), bad)
			var e *Error
			if !errors.As(err, &e) || (errShape{e.Code, e.Field}) != tt.want {
				t.Errorf("got %v, want %+v", err, tt.want)
			}
		})
	}
}

// TestPlannerCaseVariants: planner IDs that differ only in case or
// character form are refused on every path, at the caller's place; letters
// that only look alike, or that Unicode keeps apart, stay two planners.
func TestPlannerCaseVariants(t *testing.T) {
	tests := []struct {
		name, a, b string
		refused    bool
	}{
		{"title", "baseline", "Baseline", true},
		{"upper", "baseline", "BASELINE", true},
		{"fullwidth", "baseline", "ｂａｓｅｌｉｎｅ", true},
		{"long s", "base", "baſe", true},
		{"sharp s", "strasse", "STRAßE", true},
		{"ligature", "fine", "ﬁne", true},
		{"dotless i", "pilot", "pılot", false},
		{"dotted capital I", "pilot", "PİLOT", false},
		{"cyrillic a", "alpha", "аlpha", false},
		{"digits", "gpt-4", "gpt-5", false},
	}
	ctx := context.Background()
	ref := func(id string) PlannerRef { return PlannerRef{ID: id, Vendor: "v", Model: "m"} }
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The planner list of an observed comparison.
			in := CompareObservedTrialsInput{CorpusVersion: CorpusVersion, Planners: []PlannerRef{ref(tt.a), ref(tt.b)},
				Trials: []Trial{cmpTrial(tt.a, "j1", 1), cmpTrial(tt.b, "j1", 1)}}
			_, err := CompareObservedTrials(ctx, in)
			if !tt.refused {
				if err != nil {
					t.Fatalf("two planners refused: %v", err)
				}
				return
			}
			checkCompareError(t, err, errShape{CodeInvalidArgument, "planners[1].id"}, nil)

			// A trial filed under a case variant of the one planner.
			in.Planners = in.Planners[:1]
			_, err = CompareObservedTrials(ctx, in)
			checkCompareError(t, err, errShape{CodeInvalidArgument, "trials[1].plannerId"}, []string{tt.a})
			if !strings.Contains(err.Error(), "only in case") {
				t.Errorf("trial: %v; want it to name the planner it differs from", err)
			}

			// The planners of a modeled comparison and their assumed rates.
			mp := validCompareInput()
			mp.Planners = []PlannerRef{ref(tt.a), ref(tt.b)}
			_, err = ComparePlanners(ctx, mp)
			checkCompareError(t, err, errShape{CodeInvalidArgument, "planners[1].id"}, nil)
			mp.Planners = mp.Planners[:1]
			mp.AssumedPassRates = []AssumedPassRate{{PlannerID: tt.b, FirstAttemptPassPercent: 50}}
			_, err = ComparePlanners(ctx, mp)
			var e *Error
			if !errors.As(err, &e) || !strings.Contains(err.Error(), "only in case") {
				t.Fatalf("assumed rate: %v", err)
			}
			if diff := cmp.Diff([]problem{{CodeInvalidArgument, "assumedPassRates"}, {CodeInvalidArgument, "assumedPassRates[0].plannerId"}}, errorProblems(t, err)); diff != "" {
				t.Errorf("assumed rate (-want +got):\n%s", diff)
			}

			// The planners of a comparison of reports.
			_, err = CompareReports(ctx, CompareReportsInput{CorpusVersion: CorpusVersion, Planners: []PlannerRef{ref(tt.a), ref(tt.b)},
				Reports: []ReportContent{{Format: FormatPlaywrightJSON, Content: "{}"}}, Mapping: ReportMapping{Planner: ReportSource{From: FromProject}, Journey: ReportSource{From: FromTag, Name: "journey"}}})
			checkCompareError(t, err, errShape{CodeInvalidArgument, "planners[1].id"}, nil)
		})
	}
	// The Kelvin sign is not in NFC (it is K), so the one-line rule refuses
	// it before any fold.
	_, err := CompareObservedTrials(ctx, CompareObservedTrialsInput{CorpusVersion: CorpusVersion, Planners: []PlannerRef{ref("k"), ref("\u212a")},
		Trials: []Trial{cmpTrial("k", "j1", 1), cmpTrial("\u212a", "j1", 1)}})
	if got := errorProblems(t, err); len(got) == 0 || got[0] != (problem{CodeMalformedPlanner, "planners[1].id"}) {
		t.Errorf("Kelvin sign: %v", err)
	}
}

// TestMatchedRoundsAccounting: with matched rounds, a journey both planners
// ran in no common repetition is unmatched, neither A's alone nor B's.
func TestMatchedRoundsAccounting(t *testing.T) {
	trials := []Trial{
		pairedTrial("a", "both", 1, true), pairedTrial("b", "both", 1, false),
		pairedTrial("a", "apart", 1, true), pairedTrial("a", "apart", 2, true), pairedTrial("b", "apart", 3, false),
		pairedTrial("a", "a-only", 1, true),
		pairedTrial("b", "b-only", 1, true),
	}
	in := CompareObservedTrialsInput{CorpusVersion: CorpusVersion, Trials: trials, MatchedRounds: true,
		Planners: []PlannerRef{{ID: "a", Vendor: "v", Model: "m"}, {ID: "b", Vendor: "v", Model: "m"}}}
	r, err := CompareObservedTrials(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	pc := r.Pairs[0]
	got := [4]int{pc.SharedJourneys, pc.JourneysOnlyA, pc.JourneysOnlyB, pc.JourneysUnmatched}
	if want := [4]int{1, 1, 1, 1}; got != want || len(pc.Journeys) != 1 || pc.Journeys[0].JourneyID != "both" {
		t.Errorf("shared, only A, only B, unmatched = %v, rows %+v; want %v and the row of both", got, pc.Journeys, want)
	}
	if a := r.Planners[0].Journeys; pc.SharedJourneys+pc.JourneysOnlyA+pc.JourneysUnmatched != a {
		t.Errorf("A ran %d journeys; shared + only A + unmatched = %d", a, pc.SharedJourneys+pc.JourneysOnlyA+pc.JourneysUnmatched)
	}
	// Without matched rounds the same journey is shared.
	in.MatchedRounds = false
	r, err = CompareObservedTrials(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if pc := r.Pairs[0]; pc.SharedJourneys != 2 || pc.JourneysUnmatched != 0 {
		t.Errorf("journeys pairing: shared %d, unmatched %d; want 2 and 0", pc.SharedJourneys, pc.JourneysUnmatched)
	}
}

// TestExternalAppReports: a real Playwright report of a team's own journeys
// compares under the ext: app its mapping names, and a planner listed in
// another case than the report's project is refused at the test's place.
func TestExternalAppReports(t *testing.T) {
	report := string(realPlaywrightReport(t))
	for _, id := range []string{"storefront-search-add-to-cart", "storefront-remove-cart-item", "storefront-checkout-saved-address"} {
		report = strings.ReplaceAll(report, id, strings.Replace(id, "storefront-", "acme-", 1))
	}
	m := byProjectAndTag
	m.AppID, m.FixtureID = "ext:acme-notes", "ext:default"
	in := CompareReportsInput{CorpusVersion: CorpusVersion, Planners: pwPlanners, Mapping: m,
		Reports: []ReportContent{{Format: FormatPlaywrightJSON, Content: report}}}
	got, err := CompareReports(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	c := got.Comparison
	if diff := cmp.Diff([]string{"ext:acme-notes"}, c.AppIDs); diff != "" || len(c.ExternalAppIDs) != 1 || len(c.NotChecked) != 1 || c.Modeled {
		t.Errorf("apps %v, external %v, notChecked %v, modeled %v", c.AppIDs, c.ExternalAppIDs, c.NotChecked, c.Modeled)
	}
	if got.Import.TrialCount != 15 || len(c.Pairs) != 1 || c.Pairs[0].SharedJourneys != 2 {
		t.Errorf("trials %d, pairs %+v; want 15 trials and 2 shared journeys", got.Import.TrialCount, c.Pairs)
	}

	// A mapping across the border, and a misspelled corpus app.
	for _, tt := range []struct {
		app, fixture string
		want         errShape
	}{
		{"ext:acme-notes", cmpFixture, errShape{CodeFixtureAppMismatch, "mapping.fixtureId"}},
		{cmpApp, "ext:default", errShape{CodeFixtureAppMismatch, "mapping.fixtureId"}},
		{"storefrnt", cmpFixture, errShape{CodeInvalidAppID, "mapping.appId"}},
		{"Ext:acme", "ext:default", errShape{CodeInvalidAppID, "mapping.appId"}},
		// An external app without a fixture (optional in a mapping) was a
		// nil dereference; it is the pair's problem, told at the fixture.
		{"ext:acme-notes", "", errShape{CodeInvalidArgument, "mapping.fixtureId"}},
		{"EXT:x", "", errShape{CodeInvalidAppID, "mapping.appId"}},
	} {
		bad := in
		bad.Mapping.AppID, bad.Mapping.FixtureID = tt.app, tt.fixture
		_, err := CompareReports(context.Background(), bad)
		var e *Error
		if !errors.As(err, &e) || (errShape{e.Code, e.Field}) != tt.want {
			t.Errorf("mapping %s/%s: %v; want %+v", tt.app, tt.fixture, err, tt.want)
		}
	}

	// The report's project is challenger; the caller listed Challenger.
	in.Planners = []PlannerRef{pwPlanners[0], {ID: "Challenger", Vendor: "anthropic", Model: "claude-sonnet-4"}}
	_, err = CompareReports(context.Background(), in)
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeInvalidArgument || !strings.HasPrefix(e.Field, "reports[0].content") || !strings.Contains(e.Message, "only in case") {
		t.Errorf("case-variant planner: %v; want a problem at the test's place in the report naming Challenger", err)
	}
}

// TestPlannerFoldBound: the case hint is looked for in the first
// maxFoldLookups unknown planner IDs of a call only, so a flood of unknown
// non-ASCII IDs costs a bounded number of folds.
func TestPlannerFoldBound(t *testing.T) {
	in := validObservedInput()
	for r := 1; r <= maxFoldLookups+6; r++ {
		tr := cmpTrial("Ａ", "j1", r)
		in.Trials = append(in.Trials, tr)
	}
	_, err := CompareObservedTrials(context.Background(), in)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatal(err)
	}
	hinted := 0
	for _, p := range e.Problems() {
		if strings.Contains(p.Message, "only in case") {
			hinted++
		}
	}
	if len(e.Problems()) != maxFoldLookups+6 || hinted != maxFoldLookups {
		t.Errorf("%d problems, %d with the hint; want %d and %d", len(e.Problems()), hinted, maxFoldLookups+6, maxFoldLookups)
	}
}
