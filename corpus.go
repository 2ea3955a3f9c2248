package automium

import (
	"context"
	"maps"
	"reflect"
	"slices"
	"sync"

	"github.com/automium/automium/internal/closedset"
	"github.com/automium/automium/internal/echo"
)

// SupportedCorpusVersions returns the corpus versions this build can serve. There is
// exactly one today; the function exists so callers and error messages do not
// hard-code that.
func SupportedCorpusVersions() []string { return []string{CorpusVersion} }

// HostingType says how the QA team runs its copy of an app, which decides
// what a fixture reset can rely on; its string is the wire form, as in
// hostingType.
type HostingType string

// The hosting types.
const (
	HostingSelfHostedContainer HostingType = "self-hosted-container"
	HostingStaticBundle        HostingType = "static-bundle"
	HostingVendorSandbox       HostingType = "vendor-sandbox"
)

var hostingTypeNames = closedset.Strings([]HostingType{HostingSelfHostedContainer, HostingStaticBundle, HostingVendorSandbox})

// Capability is a UI capability an app exercises. Intents that need one
// (upload_file needs file-upload, for instance) are rejected for apps
// without it; its string is the wire form, as in capabilities.
type Capability string

// The app capabilities.
const (
	CapabilityAuth         Capability = "auth"
	CapabilityCartCheckout Capability = "cart-checkout"
	CapabilityDialogs      Capability = "dialogs"
	CapabilityDragDrop     Capability = "drag-drop"
	CapabilityFileUpload   Capability = "file-upload"
	CapabilityForms        Capability = "forms"
	CapabilityMultiTab     Capability = "multi-tab"
	CapabilitySearch       Capability = "search"
	CapabilityTables       Capability = "tables"
)

var capabilityNames = closedset.Strings([]Capability{
	CapabilityAuth, CapabilityCartCheckout, CapabilityDialogs, CapabilityDragDrop, CapabilityFileUpload,
	CapabilityForms, CapabilityMultiTab, CapabilitySearch, CapabilityTables,
})

// App is an authorized benchmark app: a web app the QA team owns a copy of.
type App struct {
	ID           string       `json:"id" jsonschema:"stable app identifier used by every other call"`
	DisplayName  string       `json:"displayName" jsonschema:"human-readable app name"`
	HostingType  HostingType  `json:"hostingType" jsonschema:"how the QA team hosts its copy of the app" validate:"required,automium_hosting_type"`
	Rationale    string       `json:"rationale" jsonschema:"why the app is in the benchmark corpus"`
	Capabilities []Capability `json:"capabilities" jsonschema:"UI capabilities the app exercises; intents that need a missing capability are rejected" validate:"required,min=1,unique,dive,automium_capability"`
}

// Fixture is a reproducible starting state of one app: the seeded data, the
// accounts (by reference only) and where its artifacts go.
type Fixture struct {
	ID                    string   `json:"id" jsonschema:"stable fixture identifier"`
	AppID                 string   `json:"appId" jsonschema:"the app this fixture belongs to"`
	Description           string   `json:"description" jsonschema:"the state the fixture seeds"`
	EnvironmentProfileIDs []string `json:"environmentProfileIds" jsonschema:"environment profiles this fixture is certified for"`
	SeedRefs              []string `json:"seedRefs" jsonschema:"references to the seed data sets, never the data itself"`
	AccountRefs           []string `json:"accountRefs" jsonschema:"account:// references; credentials are never exposed or resolved"`
	FileRefs              []string `json:"fileRefs,omitempty" jsonschema:"fixture-file:// references usable as upload_file values"`
	ArtifactRoot          string   `json:"artifactRoot" jsonschema:"relative root under which runs of this fixture store artifacts"`
	ReferenceJourneyIDs   []string `json:"referenceJourneyIds" jsonschema:"IDs of the checked-in reference journeys for this fixture"`
}

// Viewport is a browser viewport in CSS pixels.
type Viewport struct {
	Width  int `json:"width" jsonschema:"viewport width in CSS pixels"`
	Height int `json:"height" jsonschema:"viewport height in CSS pixels"`
}

// EnvironmentProfile fixes the browser context a run is modeled in, so results
// from different viewports or locales are never compared as if they were alike.
type EnvironmentProfile struct {
	ID                string   `json:"id" jsonschema:"stable environment profile identifier"`
	DisplayName       string   `json:"displayName" jsonschema:"human-readable profile name"`
	Viewport          Viewport `json:"viewport" jsonschema:"browser viewport"`
	DeviceScaleFactor float64  `json:"deviceScaleFactor" jsonschema:"device pixel ratio"`
	IsMobile          bool     `json:"isMobile" jsonschema:"whether the profile emulates a mobile device"`
	Locale            string   `json:"locale" jsonschema:"BCP 47 locale"`
	TimezoneID        string   `json:"timezoneId" jsonschema:"IANA time zone"`
	ColorScheme       string   `json:"colorScheme" jsonschema:"preferred color scheme: light or dark"`
}

// corpus is the decoded form of corpus/corpus.json.
type corpus struct {
	Version           string                `json:"version"`
	Apps              []App                 `json:"apps"`
	Fixtures          []Fixture             `json:"fixtures"`
	Profiles          []EnvironmentProfile  `json:"environmentProfiles"`
	ReferenceJourneys []CompileJourneyInput `json:"referenceJourneys"`

	// Indexes built once at load; never mutated afterwards.
	appByID     map[string]*App
	fixtureByID map[string]*Fixture
	profileByID map[string]*EnvironmentProfile
	journeyByID map[string]*CompileJourneyInput
	// journeyDigests compiles a reference journey for its digest on first use.
	journeyDigests map[string]func() (string, error)
	appIDs         []string
	fixtureIDs     []string
	profileIDs     []string
}

// owned is the corpus with its indexes, built on first use from corpusData
// (corpus_data.go, generated from corpus/corpus.json by go generate, which
// decodes the JSON strictly). A server's start needs none of it, and as Go
// values nothing is decoded: decoding the JSON cost 2 to 3 ms of the first call
// that read the corpus, and before that of every start.
var owned = sync.OnceValue(func() *corpus { return indexCorpus(corpusData) })

// indexCorpus returns c with its indexes and each fixture's reference journey
// IDs; it copies what it changes, so corpusData stays as generated.
func indexCorpus(c corpus) *corpus {
	if c.Version != CorpusVersion {
		panic("automium: the corpus is " + c.Version + ", want " + CorpusVersion)
	}
	c.Fixtures = slices.Clone(c.Fixtures)
	c.appByID = make(map[string]*App, len(c.Apps))
	for i := range c.Apps {
		c.appByID[c.Apps[i].ID] = &c.Apps[i]
		c.appIDs = append(c.appIDs, c.Apps[i].ID)
	}
	c.journeyByID = make(map[string]*CompileJourneyInput, len(c.ReferenceJourneys))
	c.journeyDigests = make(map[string]func() (string, error), len(c.ReferenceJourneys))
	for i := range c.ReferenceJourneys {
		j := &c.ReferenceJourneys[i]
		c.journeyByID[j.ID] = j
		c.journeyDigests[j.ID] = sync.OnceValues(func() (string, error) {
			g, err := compile(*j)
			return g.Digest, err
		})
	}
	c.fixtureByID = make(map[string]*Fixture, len(c.Fixtures))
	for i := range c.Fixtures {
		f := &c.Fixtures[i]
		for _, j := range c.ReferenceJourneys {
			if j.FixtureID == f.ID {
				f.ReferenceJourneyIDs = append(f.ReferenceJourneyIDs, j.ID)
			}
		}
		c.fixtureByID[f.ID] = f
		c.fixtureIDs = append(c.fixtureIDs, f.ID)
	}
	c.profileByID = make(map[string]*EnvironmentProfile, len(c.Profiles))
	for i := range c.Profiles {
		c.profileByID[c.Profiles[i].ID] = &c.Profiles[i]
		c.profileIDs = append(c.profileIDs, c.Profiles[i].ID)
	}
	slices.Sort(c.appIDs)
	slices.Sort(c.fixtureIDs)
	slices.Sort(c.profileIDs)
	return &c
}

var (
	_ = registerTag("automium_app", CodeInvalidAppID, "an authorized benchmark app ID", func() []string { return owned().appIDs })
	_ = registerTag("automium_fixture", CodeInvalidFixtureID, "a fixture ID from the owned corpus", func() []string { return owned().fixtureIDs })
	// A journey or a trial may name a team's own app and fixture (ext:…,
	// external.go); what lists or models the corpus takes corpus IDs only.
	_ = registerExternalTag("automium_app_or_ext", "automium_app")
	_ = registerExternalTag("automium_fixture_or_ext", "automium_fixture")
	_ = registerTag("automium_profile", CodeInvalidEnvironmentProfile, "an environment profile ID from the owned corpus", func() []string { return owned().profileIDs })
	_ = registerTag("automium_hosting_type", CodeInvalidArgument, "a hosting type", func() []string { return hostingTypeNames })
	_ = registerTag("automium_capability", CodeInvalidArgument, "an app capability", func() []string { return capabilityNames })
	_ = registerTag("automium_corpus_version", CodeUnsupportedCorpusVersion, "a supported corpus version", SupportedCorpusVersions)
)

// ListAppsInput takes no arguments. It is a struct so the call has the same shape
// as every other capability and can grow without breaking callers.
type ListAppsInput struct{}

// ListAppsResult lists the authorized benchmark apps.
type ListAppsResult struct {
	CorpusVersion string `json:"corpusVersion" jsonschema:"version of the owned benchmark corpus"`
	Apps          []App  `json:"apps" jsonschema:"authorized benchmark apps, sorted by ID"`
}

// ListApps returns the authorized benchmark apps of the owned corpus, sorted by ID.
// Only checked-in entries are returned; the result is a copy the caller may keep.
func ListApps(ctx context.Context, in ListAppsInput) (ListAppsResult, error) {
	if err := checkContext(ctx); err != nil {
		return ListAppsResult{}, err
	}
	apps := make([]App, 0, len(owned().appIDs))
	for _, id := range owned().appIDs {
		a := *owned().appByID[id]
		a.Capabilities = slices.Clone(a.Capabilities)
		apps = append(apps, a)
	}
	return ListAppsResult{CorpusVersion: CorpusVersion, Apps: apps}, nil
}

// ListFixturesInput optionally narrows the listing to one app.
type ListFixturesInput struct {
	AppID string `json:"appId,omitempty" jsonschema:"app ID; when set, only that app's fixtures are listed" validate:"omitempty,automium_app"`
}

// ListFixturesResult lists fixtures and the environment profiles they reference.
type ListFixturesResult struct {
	CorpusVersion       string               `json:"corpusVersion" jsonschema:"version of the owned benchmark corpus"`
	Fixtures            []Fixture            `json:"fixtures" jsonschema:"benchmark fixtures, sorted by ID"`
	EnvironmentProfiles []EnvironmentProfile `json:"environmentProfiles" jsonschema:"the environment profiles the listed fixtures reference, sorted by ID"`
}

// ListFixtures returns the fixtures of the owned corpus, sorted by ID, optionally
// only those of in.AppID. It never opens or resolves the accounts it references and
// never seeds or resets anything.
func ListFixtures(ctx context.Context, in ListFixturesInput) (ListFixturesResult, error) {
	if err := checkContext(ctx); err != nil {
		return ListFixturesResult{}, err
	}
	if err := validateInput(in); err != nil {
		return ListFixturesResult{}, err
	}
	fixtures := []Fixture{}
	profiles := map[string]bool{}
	for _, id := range owned().fixtureIDs {
		f := owned().fixtureByID[id]
		if in.AppID != "" && f.AppID != in.AppID {
			continue
		}
		fixtures = append(fixtures, cloneFixture(f))
		for _, p := range f.EnvironmentProfileIDs {
			profiles[p] = true
		}
	}
	envs := []EnvironmentProfile{}
	for _, id := range owned().profileIDs {
		if profiles[id] {
			envs = append(envs, *owned().profileByID[id])
		}
	}
	return ListFixturesResult{CorpusVersion: CorpusVersion, Fixtures: fixtures, EnvironmentProfiles: envs}, nil
}

func cloneFixture(f *Fixture) Fixture {
	c := *f
	c.EnvironmentProfileIDs = slices.Clone(f.EnvironmentProfileIDs)
	c.SeedRefs = slices.Clone(f.SeedRefs)
	c.AccountRefs = slices.Clone(f.AccountRefs)
	c.FileRefs = slices.Clone(f.FileRefs)
	c.ReferenceJourneyIDs = slices.Clone(f.ReferenceJourneyIDs)
	return c
}

// ReferenceJourney returns a copy of the checked-in reference journey with the given
// ID. Reference journeys are the workload of planner comparisons and good starting
// points when drafting a new journey.
func ReferenceJourney(id string) (CompileJourneyInput, bool) {
	j, ok := owned().journeyByID[id]
	if !ok {
		return CompileJourneyInput{}, false
	}
	return j.clone(), true
}

// ReferenceJourneyIDs returns the IDs of the checked-in reference journeys, sorted.
func ReferenceJourneyIDs() []string {
	return slices.Sorted(maps.Keys(owned().journeyByID))
}

// FixtureOfApp returns a copy of the fixture fixtureID of the app appID, or the
// error a capability gives for that pair: invalid_app_id for an app outside the
// corpus, invalid_fixture_id (listing the app's fixtures) for an unknown fixture,
// fixture_app_mismatch for a fixture of another app. Adapters use it to check a
// pair the way the capabilities do, without rebuilding the corpus's indexes.
func FixtureOfApp(appID, fixtureID string) (Fixture, error) {
	app := owned().appByID[appID]
	if app == nil {
		return Fixture{}, newError(CodeInvalidAppID, field("appId"), owned().appIDs, "%s is not an authorized benchmark app ID; use one of the allowed values", echo.Value(appID))
	}
	fixture := owned().fixtureByID[fixtureID]
	if fixture == nil {
		return Fixture{}, unknownFixtureOfApp(field("fixtureId"), appID, fixtureID).Err()
	}
	if p := fixtureAppMismatch(app, fixture); p != nil {
		return Fixture{}, p
	}
	return cloneFixture(fixture), nil
}

// appFixtureIDs lists the fixture IDs of one app, for fix-it messages.
func appFixtureIDs(appID string) []string {
	var ids []string
	for _, id := range owned().fixtureIDs {
		if owned().fixtureByID[id].AppID == appID {
			ids = append(ids, id)
		}
	}
	return ids
}

// unknownFixtureOfApp reports a fixture ID the corpus does not know, listing the
// fixtures of the app the caller named: the list it can actually pick from.
func unknownFixtureOfApp(at Path, appID, fixtureID string) Problem {
	return newError(CodeInvalidFixtureID, at, appFixtureIDs(appID),
		"%q is not a fixture of app %q; use one of the allowed values", echo.Value(fixtureID), appID).Problem
}

// fixtureOfApp checks the fixtureId field of an input of type owner, at at,
// against the app the input names, and returns the fixture when it is one of
// app's (or app is unknown and the fixture is known), else nil. It is the one
// check of such a field, in place of its generic rules: an unknown fixture of
// a known app lists that app's fixtures, a fixture of another app says whose
// it is.
func (ps *problems) fixtureOfApp(at Path, owner reflect.Type, app *App, fixtureID string) *Fixture {
	fixture := owned().fixtureByID[fixtureID]
	switch {
	case app != nil && fixtureID != "" && fixture == nil:
		ps.addProblem(unknownFixtureOfApp(at, app.ID, fixtureID))
		return nil
	case !ps.checkField(at, owner, "fixtureId", fixtureID):
		return nil
	}
	if p := fixtureAppMismatch(app, fixture); p != nil {
		ps.addError(at, p)
		return nil
	}
	return fixture
}

// fixtureOfAppOrExt is fixtureOfApp for an input that may name an app and a
// fixture outside the corpus (ext:…): it returns the corpus fixture, if any,
// and whether the fixture field is sound. An external app takes an external
// fixture, and a corpus app a fixture of its own: a pair across the border
// is fixture_app_mismatch, since either side would pass the other off.
// Whether an external fixture is of its external app is the caller's word.
func (ps *problems) fixtureOfAppOrExt(at Path, owner reflect.Type, appID, fixtureID string) (*Fixture, bool) {
	appExt, fixtureExt := isExternal(appID), isExternal(fixtureID)
	if !appExt && !fixtureExt {
		f := ps.fixtureOfApp(at, owner, owned().appByID[appID], fixtureID)
		return f, f != nil
	}
	if !ps.checkField(at, owner, "fixtureId", fixtureID) {
		return nil, false
	}
	app := owned().appByID[appID]
	switch {
	case appExt && !fixtureExt:
		// An optional fixture (a report mapping's) may be absent: the
		// mapping's own check says app and fixture go together.
		fixture := owned().fixtureByID[fixtureID]
		if fixture == nil {
			if fixtureID != "" {
				ps.add(at, CodeInvalidArgument, nil, "%s is not a fixture; app %s is outside the corpus, so give it a fixture of its own, ext: and a name, such as ext:default", echo.Value(fixtureID), echo.Value(appID))
			}
			return nil, false
		}
		ps.add(at, CodeFixtureAppMismatch, nil,
			"fixture %s is the corpus's (of app %s), and app %s is outside the corpus; give your app a fixture of its own, ext: and a name, such as ext:default",
			echo.Value(fixtureID), fixture.AppID, echo.Value(appID))
		return nil, false
	case !appExt && app != nil:
		ps.add(at, CodeFixtureAppMismatch, appFixtureIDs(app.ID),
			"%s is outside the corpus, and app %s is the corpus's; use one of its fixtures (the allowed values), or name your own app ext:… too", echo.Value(fixtureID), app.ID)
		return nil, false
	case !appExt:
		return nil, false // the app's own problem says what to fix
	}
	return nil, true
}

// fixtureAppMismatch reports a known fixture that belongs to another known app.
func fixtureAppMismatch(app *App, fixture *Fixture) *Error {
	if app == nil || fixture == nil || fixture.AppID == app.ID {
		return nil
	}
	return newError(CodeFixtureAppMismatch, field("fixtureId"), appFixtureIDs(app.ID),
		"fixture %q belongs to app %q, not %q; use a fixture of %q", fixture.ID, fixture.AppID, app.ID, app.ID)
}
