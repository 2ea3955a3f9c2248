package automium

import (
	"reflect"
	"slices"
	"testing"

	"github.com/automium/automium/internal/testsupport"
)

// TestClosedSetsTyped: every closed set of a capability's input or result
// has a named type with a constant per value, so a Go caller's typo does not
// compile. The values exempt are the corpus's, which it lists (ListApps,
// ListFixtures, SupportedCorpusVersions) and which change with it.
func TestClosedSetsTyped(t *testing.T) {
	roots := append(slices.Clone(precomputedSchemaTypes), reflect.TypeFor[IntentSpec](), reflect.TypeFor[AssertionSpec](), reflect.TypeFor[ArtifactSpec]())
	const corpus = "corpus data: the corpus lists it, and it changes with the corpus"
	exempt := map[string]string{
		"CompileJourneyInput.appId":                     corpus,
		"CompileJourneyInput.fixtureId":                 corpus,
		"CreateRunSubmissionInput.appId":                corpus,
		"CreateRunSubmissionInput.fixtureId":            corpus,
		"CreateRunSubmissionInput.environmentProfileId": corpus,
		"ListFixturesInput.appId":                       corpus,
		"ReportMapping.appId":                           corpus,
		"Trial.appId":                                   corpus,
		"JourneyCounts.appId":                           corpus,
		"CompareObservedTrialsInput.corpusVersion":      corpus,
		"ComparePlaywrightReportInput.corpusVersion":    corpus,
		"ComparePlannersInput.corpusVersion":            corpus,
		"ComparePlannersInput.appIds[]":                 corpus,
		"Trial.fixtureId":                               corpus,
		"ReportMapping.fixtureId":                       corpus,
	}
	testsupport.ClosedSetsTyped(t, roots, schemaOf, exempt)
}
