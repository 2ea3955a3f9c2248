package automium

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/automium/automium/internal/closedset"
	"github.com/automium/automium/internal/limit"
	"github.com/automium/automium/internal/testsupport"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// The corpus is the benchmark's fixed workload, so its minimums come from the
// design card rather than from whatever the data happens to hold today.
const (
	minApps                = 6
	minFixturesPerApp      = 2
	minProfiles            = 3
	minJourneysPerFixture  = 1
	minReferenceSteps      = 4
	maxReferenceSteps      = 10
	maxReferenceAssertions = 3
)

var (
	kebabIDRE      = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	accountRefRE   = regexp.MustCompile(`^account://[a-z0-9-]+/[a-z0-9-]+$`)
	seedRefRE      = regexp.MustCompile(`^seed://[a-z0-9-]+/[a-z0-9-]+@v[0-9]+$`)
	fileRefRE      = regexp.MustCompile(`^fixture-file://[a-z0-9-]+(/[a-z0-9][a-z0-9._-]*)+$`)
	artifactRootRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*)*$`)
	localeRE       = regexp.MustCompile(`^[a-z]{2}-[A-Z]{2}$`)
	timezoneRE     = regexp.MustCompile(`^[A-Z][A-Za-z]+/[A-Z][A-Za-z_]+$`)
)

// refApp returns the app segment of a scheme://app/rest reference, so a test can
// check that a fixture only references its own app's seeds, accounts and files.
func refApp(ref, scheme string) string {
	app, _, _ := strings.Cut(strings.TrimPrefix(ref, scheme), "/")
	return app
}

func TestCorpusMinimums(t *testing.T) {
	fixturesPerApp := map[string]int{}
	for _, f := range owned().Fixtures {
		fixturesPerApp[f.AppID]++
	}
	journeysPerFixture := map[string]int{}
	for _, j := range owned().ReferenceJourneys {
		journeysPerFixture[j.FixtureID]++
	}
	if got := len(owned().Apps); got < minApps {
		t.Errorf("corpus has %d apps, want at least %d", got, minApps)
	}
	if got := len(owned().Profiles); got < minProfiles {
		t.Errorf("corpus has %d environment profiles, want at least %d", got, minProfiles)
	}
	for _, a := range owned().Apps {
		if got := fixturesPerApp[a.ID]; got < minFixturesPerApp {
			t.Errorf("app %q has %d fixtures, want at least %d", a.ID, got, minFixturesPerApp)
		}
	}
	for _, f := range owned().Fixtures {
		if got := journeysPerFixture[f.ID]; got < minJourneysPerFixture {
			t.Errorf("fixture %q has %d reference journeys, want at least %d", f.ID, got, minJourneysPerFixture)
		}
	}
}

// TestCorpusCoverage makes sure the benchmark exercises the whole closed sets: a
// capability, intent or assertion kind no reference journey uses is one the planner
// comparison never measures.
func TestCorpusCoverage(t *testing.T) {
	capabilities := map[string]bool{}
	hosting := map[string]bool{}
	for _, a := range owned().Apps {
		hosting[string(a.HostingType)] = true
		for _, c := range a.Capabilities {
			capabilities[string(c)] = true
		}
	}
	intents := map[string]bool{}
	assertions := map[string]bool{}
	for _, j := range owned().ReferenceJourneys {
		for _, s := range j.Steps {
			intents[string(s.Intent)] = true
		}
		for _, a := range j.Assertions {
			assertions[string(a.Kind)] = true
		}
	}
	tests := []struct {
		name      string
		want, got []string
	}{
		{"app capabilities", slices.Sorted(slices.Values(capabilityNames)), slices.Sorted(maps.Keys(capabilities))},
		{"hosting types", slices.Sorted(slices.Values(hostingTypeNames)), slices.Sorted(maps.Keys(hosting))},
		{"step intents", closedset.Strings(Intents()), slices.Sorted(maps.Keys(intents))},
		{"assertion kinds", assertionKinds, slices.Sorted(maps.Keys(assertions))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.got); diff != "" {
				t.Errorf("corpus coverage mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCorpusIDsUnique(t *testing.T) {
	ids := func(n int, id func(int) string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = id(i)
		}
		return out
	}
	// Artifact roots are not IDs, but two fixtures sharing one would mix their runs.
	tests := []struct {
		kind string
		slug bool
		ids  []string
	}{
		{"app", true, ids(len(owned().Apps), func(i int) string { return owned().Apps[i].ID })},
		{"fixture", true, ids(len(owned().Fixtures), func(i int) string { return owned().Fixtures[i].ID })},
		{"environment profile", true, ids(len(owned().Profiles), func(i int) string { return owned().Profiles[i].ID })},
		{"reference journey", true, ids(len(owned().ReferenceJourneys), func(i int) string { return owned().ReferenceJourneys[i].ID })},
		{"fixture artifact root", false, ids(len(owned().Fixtures), func(i int) string { return owned().Fixtures[i].ArtifactRoot })},
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			seen := map[string]bool{}
			for _, id := range tt.ids {
				if tt.slug && !kebabIDRE.MatchString(id) {
					t.Errorf("%s ID %q is not a lowercase kebab-case slug", tt.kind, id)
				}
				if seen[id] {
					t.Errorf("%s %q appears more than once", tt.kind, id)
				}
				seen[id] = true
			}
		})
	}
}

func TestCorpusAppsValid(t *testing.T) {
	for _, a := range owned().Apps {
		t.Run(a.ID, func(t *testing.T) {
			if problems := validateStruct(a); len(problems) > 0 {
				for _, p := range problems {
					t.Errorf("validate: %v (allowed %v)", p, p.Allowed)
				}
			}
			if a.DisplayName == "" || a.Rationale == "" {
				t.Errorf("app %q needs a displayName and a rationale", a.ID)
			}
			if !slices.IsSorted(a.Capabilities) {
				t.Errorf("capabilities %v are not sorted; keep them sorted so listings are stable to read", a.Capabilities)
			}
		})
	}
}

func TestCorpusFixturesResolve(t *testing.T) {
	for _, f := range owned().Fixtures {
		t.Run(f.ID, func(t *testing.T) {
			app, ok := owned().appByID[f.AppID]
			if !ok {
				t.Fatalf("appId %q is not an app of the corpus", f.AppID)
			}
			if !strings.HasPrefix(f.ID, app.ID+"-") {
				t.Errorf("fixture ID %q does not start with its app ID %q", f.ID, app.ID+"-")
			}
			if f.Description == "" {
				t.Error("description is empty")
			}
			if len(f.EnvironmentProfileIDs) == 0 {
				t.Error("environmentProfileIds is empty; certify the fixture for at least one profile")
			}
			for _, p := range f.EnvironmentProfileIDs {
				if _, ok := owned().profileByID[p]; !ok {
					t.Errorf("environment profile %q does not exist", p)
				}
			}
			if len(f.SeedRefs) == 0 {
				t.Error("seedRefs is empty; a fixture must say what data it seeds")
			}
			refs := []struct {
				field, scheme string
				re            *regexp.Regexp
				refs          []string
			}{
				{"environmentProfileIds", "", kebabIDRE, f.EnvironmentProfileIDs},
				{"seedRefs", "seed://", seedRefRE, f.SeedRefs},
				{"accountRefs", "account://", accountRefRE, f.AccountRefs},
				{"fileRefs", "fixture-file://", fileRefRE, f.FileRefs},
			}
			for _, r := range refs {
				if len(slices.Compact(slices.Sorted(slices.Values(r.refs)))) != len(r.refs) {
					t.Errorf("%s %v contains duplicates", r.field, r.refs)
				}
				for _, ref := range r.refs {
					if !r.re.MatchString(ref) {
						t.Errorf("%s entry %q does not match %s", r.field, ref, r.re)
					}
					if r.scheme != "" && refApp(ref, r.scheme) != app.ID {
						t.Errorf("%s entry %q references another app than %q", r.field, ref, app.ID)
					}
				}
			}
			if len(f.FileRefs) > 0 && !slices.Contains(app.Capabilities, "file-upload") {
				t.Errorf("fixture has fileRefs but app %q lacks the file-upload capability", app.ID)
			}
			root := f.ArtifactRoot
			if !artifactRootRE.MatchString(root) || path.Clean(root) != root || path.IsAbs(root) || strings.Contains(root, "..") {
				t.Errorf("artifactRoot %q is not a clean relative POSIX path", root)
			}
			if !strings.HasPrefix(root, "artifacts/"+app.ID+"/") {
				t.Errorf("artifactRoot %q is not under artifacts/%s/", root, app.ID)
			}
		})
	}
}

// TestCorpusJourneysResolve checks the journey side of the references, and that the
// loader derived each fixture's referenceJourneyIds from the journeys alone (the
// JSON must not list them, or the loader would duplicate them).
func TestCorpusJourneysResolve(t *testing.T) {
	uploads := map[string]map[string]bool{}
	want := map[string][]string{}
	for _, j := range owned().ReferenceJourneys {
		f, ok := owned().fixtureByID[j.FixtureID]
		if !ok {
			t.Errorf("journey %q: fixtureId %q does not exist", j.ID, j.FixtureID)
			continue
		}
		if f.AppID != j.AppID {
			t.Errorf("journey %q: appId %q, but fixture %q belongs to %q", j.ID, j.AppID, f.ID, f.AppID)
		}
		if !strings.HasPrefix(j.ID, j.AppID+"-") {
			t.Errorf("journey ID %q does not start with its app ID %q", j.ID, j.AppID+"-")
		}
		want[f.ID] = append(want[f.ID], j.ID)
		for _, s := range j.Steps {
			if s.Intent == "upload_file" {
				if uploads[f.ID] == nil {
					uploads[f.ID] = map[string]bool{}
				}
				uploads[f.ID][s.Value] = true
			}
		}
	}
	for _, f := range owned().Fixtures {
		if diff := cmp.Diff(want[f.ID], f.ReferenceJourneyIDs, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("fixture %q referenceJourneyIds mismatch (-want +got):\n%s", f.ID, diff)
		}
		for _, ref := range f.FileRefs {
			if !uploads[f.ID][ref] {
				t.Errorf("fixture %q lists fileRef %q that none of its reference journeys uploads", f.ID, ref)
			}
		}
	}
	used := map[string]bool{}
	for _, f := range owned().Fixtures {
		for _, p := range f.EnvironmentProfileIDs {
			used[p] = true
		}
	}
	for _, p := range owned().Profiles {
		if !used[p.ID] {
			t.Errorf("environment profile %q is not used by any fixture", p.ID)
		}
	}
}

func TestCorpusProfiles(t *testing.T) {
	schemes := map[string]bool{}
	for _, p := range owned().Profiles {
		schemes[p.ColorScheme] = true
		t.Run(p.ID, func(t *testing.T) {
			if p.DisplayName == "" {
				t.Error("displayName is empty")
			}
			if p.Viewport.Width <= 0 || p.Viewport.Height <= 0 || p.DeviceScaleFactor <= 0 {
				t.Errorf("viewport %+v at scale %v is not a real screen", p.Viewport, p.DeviceScaleFactor)
			}
			if !localeRE.MatchString(p.Locale) {
				t.Errorf("locale %q is not a language-REGION BCP 47 tag", p.Locale)
			}
			if !timezoneRE.MatchString(p.TimezoneID) {
				t.Errorf("timezoneId %q is not an IANA Area/Location zone", p.TimezoneID)
			}
			if p.ColorScheme != "light" && p.ColorScheme != "dark" {
				t.Errorf("colorScheme %q is neither light nor dark", p.ColorScheme)
			}
		})
	}
	if !schemes["dark"] || !schemes["light"] {
		t.Errorf("profiles cover color schemes %v; want both light and dark", schemes)
	}
}

// TestReferenceJourneysCompile is the promise the planner comparison relies on:
// every reference journey compiles, and to the same digest every time.
func TestReferenceJourneysCompile(t *testing.T) {
	ctx := context.Background()
	for _, j := range owned().ReferenceJourneys {
		t.Run(j.ID, func(t *testing.T) {
			t.Parallel()
			first, err := CompileJourney(ctx, j.clone())
			if err != nil {
				t.Fatalf("CompileJourney: %v", err)
			}
			if !first.Valid || len(first.Errors) > 0 || first.Journey == nil {
				for _, e := range first.Errors {
					t.Errorf("problem: %v (allowed %v)", &e, e.Allowed)
				}
				t.Fatalf("CompileJourney: valid=%v, want a valid journey", first.Valid)
			}
			second, err := CompileJourney(ctx, j.clone())
			if err != nil {
				t.Fatalf("second CompileJourney: %v", err)
			}
			if diff := cmp.Diff(first, second); diff != "" {
				t.Errorf("compiling twice differs (-first +second):\n%s", diff)
			}
			if first.Journey.Digest == "" || first.Journey.Digest != second.Journey.Digest {
				t.Errorf("digests %q and %q, want equal and non-empty", first.Journey.Digest, second.Journey.Digest)
			}
		})
	}
}

// TestReferenceJourneysShape keeps reference journeys realistic and varied: the
// planner comparison derives difficulty from step count and recovery budget, so a
// corpus where every journey looks alike would measure nothing.
func TestReferenceJourneysShape(t *testing.T) {
	stepCounts := map[int]bool{}
	retryBudgets := map[int]bool{}
	for _, j := range owned().ReferenceJourneys {
		stepCounts[len(j.Steps)] = true
		retryBudgets[j.Recovery.MaxRetries] = true
		if n := len(j.Steps); n < minReferenceSteps || n > maxReferenceSteps {
			t.Errorf("journey %q has %d steps, want %d to %d", j.ID, n, minReferenceSteps, maxReferenceSteps)
		}
		if n := len(j.Assertions); n < 1 || n > maxReferenceAssertions {
			t.Errorf("journey %q has %d assertions, want 1 to %d", j.ID, n, maxReferenceAssertions)
		}
		if r := j.Recovery.MaxRetries; r < 1 || r > limit.MaxRecoveryRetries {
			t.Errorf("journey %q has maxRetries %d, want 1 to %d", j.ID, r, limit.MaxRecoveryRetries)
		}
		if j.Steps[0].Intent != "navigate" {
			t.Errorf("journey %q starts with %s; start with navigate so runs do not depend on the previous page", j.ID, j.Steps[0].Intent)
		}
	}
	if len(stepCounts) < 3 || len(retryBudgets) < 3 {
		t.Errorf("journeys use %d distinct step counts and %d distinct retry budgets; want at least 3 of each", len(stepCounts), len(retryBudgets))
	}
}

// credentialPatterns flag strings that look like a secret rather than a reference to
// one. They are deliberately broad: a false positive costs a rename in the corpus,
// a false negative ships a secret in every binary.
var credentialPatterns = []struct {
	name string
	re   *regexp.Regexp
}{
	{"password word", regexp.MustCompile(`(?i)pass(word|wd)|\bpwd\b`)},
	{"secret word", regexp.MustCompile(`(?i)secret`)},
	{"token word", regexp.MustCompile(`(?i)token`)},
	{"API key", regexp.MustCompile(`(?i)api[_-]?key`)},
	{"bearer credential", regexp.MustCompile(`(?i)bearer\s`)},
	{"private key block", regexp.MustCompile(`BEGIN [A-Z ]*PRIVATE KEY`)},
	{"AWS access key", regexp.MustCompile(`\b(AKIA|ASIA)[0-9A-Z]{16}\b`)},
	{"JWT", regexp.MustCompile(`eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`)},
	{"URL with userinfo", regexp.MustCompile(`(?i)[a-z][a-z0-9+.-]*://[^/?#\s@]*@`)},
	{"hex blob", regexp.MustCompile(`[0-9A-Fa-f]{32,}`)},
}

var blobRE = regexp.MustCompile(`[A-Za-z0-9+/_=-]{32,}`)

// credentialProblem says why s looks like a credential, or returns "".
func credentialProblem(s string) string {
	for _, p := range credentialPatterns {
		if p.re.MatchString(s) {
			return p.name
		}
	}
	for _, run := range blobRE.FindAllString(s, -1) {
		upper := strings.ContainsAny(run, "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
		lower := strings.ContainsAny(run, "abcdefghijklmnopqrstuvwxyz")
		digit := strings.ContainsAny(run, "0123456789")
		// Mixed case with digits is how base64 keys look; 32 characters without a
		// single separator is no word or path, whatever its case.
		if upper && lower && digit || !strings.ContainsAny(run, "/_-") {
			return "base64 or random blob"
		}
	}
	return ""
}

func TestCredentialProblem(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"account://banking/retail-customer", ""},
		{"fixture-file://hr-onboarding/documents/tax-form-sample.pdf", ""},
		{"seed://admin-console/audit-log-1284@v2", ""},
		{"artifacts/admin-console/user-directory", ""},
		{"/admin/audit-log?page=2&perPage=100", ""},
		{"Upload a passport scan", ""},
		{"https://docs.example.com/changelog", ""},
		{"support@example.com", ""},
		{"Sign in with password hunter2", "password word"},
		{"passwd", "password word"},
		{"client_secret", "secret word"},
		{"session token", "token word"},
		{"X-Api-Key", "API key"},
		{"apikey=1", "API key"},
		{"Authorization: Bearer abc", "bearer credential"},
		{"-----BEGIN RSA PRIVATE KEY-----", "private key block"},
		{"AKIAIOSFODNN7EXAMPLE", "AWS access key"},
		{"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2ln", "JWT"},
		{"https://admin:hunter2@example.com/", "URL with userinfo"},
		{"postgres://qa@db.internal/app", "URL with userinfo"},
		{"da39a3ee5e6b4b0d3255bfef95601890afd80709", "hex blob"},
		{"dGhpcyBpcyBub3QgYSByZWFsIGtleSBhdCBhbGw=", "base64 or random blob"},
		{"k3j5h6g7f8d9s0a1q2w3e4r5t6y7u8i9o0", "base64 or random blob"},
	}
	for _, tt := range tests {
		if got := credentialProblem(tt.in); got != tt.want {
			t.Errorf("credentialProblem(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestCorpusHasNoCredentials walks every string of corpus/corpus.json, not the Go
// structs, so a field added later is covered without touching this test.
func TestCorpusHasNoCredentials(t *testing.T) {
	data, err := os.ReadFile(corpusJSONFile)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("decode corpus: %v", err)
	}
	var walk func(path string, v any)
	seen := 0
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(v)) {
				walk(path+"."+k, v[k])
			}
		case []any:
			for i, e := range v {
				walk(fmt.Sprintf("%s[%d]", path, i), e)
			}
		case string:
			seen++
			if why := credentialProblem(v); why != "" {
				t.Errorf("%s = %q looks like a credential (%s); reference it instead, e.g. account://<app>/<role>", path, v, why)
			}
		}
	}
	walk("$", doc)
	if seen == 0 {
		t.Fatal("walked no strings; the corpus walk is broken")
	}
}

func TestListApps(t *testing.T) {
	want := make([]App, len(owned().Apps))
	for i, a := range owned().Apps {
		a.Capabilities = slices.Clone(a.Capabilities)
		want[i] = a
	}
	slices.SortFunc(want, func(a, b App) int { return strings.Compare(a.ID, b.ID) })

	ctx := context.Background()
	got, err := ListApps(ctx, ListAppsInput{})
	if err != nil {
		t.Fatalf("ListApps: %v", err)
	}
	if got.CorpusVersion != CorpusVersion {
		t.Errorf("CorpusVersion = %q, want %q", got.CorpusVersion, CorpusVersion)
	}
	if diff := cmp.Diff(want, got.Apps); diff != "" {
		t.Errorf("ListApps apps mismatch (-want +got):\n%s", diff)
	}

	// The result is the caller's to keep: changing it must not change the corpus.
	got.Apps[0].DisplayName = "mutated"
	got.Apps[0].Capabilities[0] = "mutated"
	again, err := ListApps(ctx, ListAppsInput{})
	if err != nil {
		t.Fatalf("second ListApps: %v", err)
	}
	if diff := cmp.Diff(want, again.Apps); diff != "" {
		t.Errorf("mutating a ListApps result leaked into the next call (-want +got):\n%s", diff)
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := ListApps(cancelled, ListAppsInput{}); !errors.Is(err, context.Canceled) {
		t.Errorf("ListApps with a cancelled context: err = %v, want context.Canceled", err)
	}
}

func TestListFixtures(t *testing.T) {
	allApps := slices.Clone(owned().appIDs)
	invalidApp := &Error{Code: CodeInvalidAppID, Field: "appId", Allowed: allApps}
	type listFixturesCase struct {
		name         string
		appID        string
		wantFixtures []string // nil: derive from the corpus
		wantProfiles []string // nil: derive from the listed fixtures
		wantErr      *Error
	}
	tests := []listFixturesCase{
		{name: "all apps", appID: ""},
		{
			name:         "storefront",
			appID:        "storefront",
			wantFixtures: []string{"storefront-guest-catalog", "storefront-returning-shopper"},
			wantProfiles: []string{"desktop-1440-en-us", "mobile-390-en-gb"},
		},
		{
			name:         "docs-portal",
			appID:        "docs-portal",
			wantFixtures: []string{"docs-portal-archived-v3", "docs-portal-current-release"},
			wantProfiles: []string{"desktop-1440-en-us", "desktop-1920-ja-jp-dark", "mobile-390-en-gb", "tablet-820-de-de"},
		},
		{name: "unknown app", appID: "webshop", wantErr: invalidApp},
		{name: "wrong case", appID: "Storefront", wantErr: invalidApp},
		{name: "fixture ID instead of app ID", appID: "storefront-guest-catalog", wantErr: invalidApp},
	}
	for _, a := range owned().appIDs {
		tests = append(tests, listFixturesCase{name: "every app/" + a, appID: a})
	}

	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ListFixtures(ctx, ListFixturesInput{AppID: tt.appID})
			if tt.wantErr != nil {
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("ListFixtures(%q) err = %v, want *Error", tt.appID, err)
				}
				if diff := cmp.Diff(tt.wantErr.Problems(), e.Problems(), cmp.Comparer(func(a, b Problem) bool {
					return a.Code == b.Code && a.Field == b.Field && slices.Equal(a.Allowed, b.Allowed)
				})); diff != "" {
					t.Errorf("ListFixtures(%q) error mismatch (-want +got):\n%s", tt.appID, diff)
				}
				if !strings.Contains(e.Message, tt.appID) {
					t.Errorf("message %q does not name the rejected value %q", e.Message, tt.appID)
				}
				return
			}
			if err != nil {
				t.Fatalf("ListFixtures(%q): %v", tt.appID, err)
			}
			if got.CorpusVersion != CorpusVersion {
				t.Errorf("CorpusVersion = %q, want %q", got.CorpusVersion, CorpusVersion)
			}

			wantFixtures := tt.wantFixtures
			if wantFixtures == nil {
				for _, id := range owned().fixtureIDs {
					if tt.appID == "" || owned().fixtureByID[id].AppID == tt.appID {
						wantFixtures = append(wantFixtures, id)
					}
				}
			}
			var gotFixtures []string
			referenced := map[string]bool{}
			for _, f := range got.Fixtures {
				gotFixtures = append(gotFixtures, f.ID)
				if diff := cmp.Diff(*owned().fixtureByID[f.ID], f); diff != "" {
					t.Errorf("fixture %q differs from the corpus (-corpus +listed):\n%s", f.ID, diff)
				}
				for _, p := range f.EnvironmentProfileIDs {
					referenced[p] = true
				}
			}
			if diff := cmp.Diff(wantFixtures, gotFixtures); diff != "" {
				t.Errorf("fixture IDs mismatch (-want +got):\n%s", diff)
			}

			wantProfiles := tt.wantProfiles
			if wantProfiles == nil {
				for p := range referenced {
					wantProfiles = append(wantProfiles, p)
				}
				slices.Sort(wantProfiles)
			}
			var gotProfiles []string
			for _, p := range got.EnvironmentProfiles {
				gotProfiles = append(gotProfiles, p.ID)
				if diff := cmp.Diff(*owned().profileByID[p.ID], p); diff != "" {
					t.Errorf("profile %q differs from the corpus (-corpus +listed):\n%s", p.ID, diff)
				}
			}
			if diff := cmp.Diff(wantProfiles, gotProfiles); diff != "" {
				t.Errorf("environment profiles are not exactly those referenced (-want +got):\n%s", diff)
			}

			// Mutating the listing must not reach the corpus.
			for i := range got.Fixtures {
				got.Fixtures[i].EnvironmentProfileIDs[0] = "mutated"
				got.Fixtures[i].SeedRefs[0] = "mutated"
				got.Fixtures[i].ReferenceJourneyIDs[0] = "mutated"
			}
			again, err := ListFixtures(ctx, ListFixturesInput{AppID: tt.appID})
			if err != nil {
				t.Fatalf("second ListFixtures(%q): %v", tt.appID, err)
			}
			for _, f := range again.Fixtures {
				if diff := cmp.Diff(*owned().fixtureByID[f.ID], f); diff != "" || slices.Contains(f.SeedRefs, "mutated") {
					t.Errorf("mutating a ListFixtures result leaked into fixture %q (-corpus +listed):\n%s", f.ID, diff)
				}
			}
		})
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := ListFixtures(cancelled, ListFixturesInput{}); !errors.Is(err, context.Canceled) {
		t.Errorf("ListFixtures with a cancelled context: err = %v, want context.Canceled", err)
	}
}

func TestReferenceJourney(t *testing.T) {
	j := owned().ReferenceJourneys[0]
	got, ok := ReferenceJourney(j.ID)
	if !ok {
		t.Fatalf("ReferenceJourney(%q) not found", j.ID)
	}
	if diff := cmp.Diff(j, got); diff != "" {
		t.Errorf("ReferenceJourney(%q) mismatch (-corpus +got):\n%s", j.ID, diff)
	}
	for _, s := range got.Steps {
		if s.Target != nil {
			s.Target.Name = "mutated"
		}
	}
	got.Recovery.Strategies[0] = "mutated"
	if again, _ := ReferenceJourney(j.ID); !cmp.Equal(j, again) {
		t.Errorf("mutating a ReferenceJourney result leaked into the corpus")
	}
	if _, ok := ReferenceJourney("no-such-journey"); ok {
		t.Error(`ReferenceJourney("no-such-journey") found a journey`)
	}
}

// TestGenerated holds this package's generated files to what their sources
// give today (see generatedFiles): corpus_data.go to corpus/corpus.json,
// schemas/ to the struct tags and the corpus. go generate ./... rewrites them.
func TestGenerated(t *testing.T) {
	testsupport.Generated(t, generatedFiles)
}

// TestCorpusData holds corpusData, the corpus compiled in, to
// corpus/corpus.json, the file people edit, value for value: what
// TestGenerated checks as text, this checks as data.
func TestCorpusData(t *testing.T) {
	decoded, err := decodeCorpusJSON(os.DirFS("."))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(decoded, corpusData, cmpopts.IgnoreUnexported(corpus{})); diff != "" {
		t.Errorf("corpusData differs from %s (-json +go); run go generate ./...:\n%s", corpusJSONFile, diff)
	}
}
