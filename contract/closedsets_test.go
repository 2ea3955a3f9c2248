package contract

import (
	"testing"

	"github.com/automium/automium/internal/adapter"
	"github.com/automium/automium/internal/testsupport"
)

// TestClosedSetsTyped: every closed set of a contract message has a named
// type with a constant per value, so a Go caller's typo does not compile.
func TestClosedSetsTyped(t *testing.T) {
	exempt := map[string]string{
		"PlannerRequest.intentVocabularyVersion": "a version pin of one value, automium.IntentVocabularyVersion",
	}
	testsupport.ClosedSetsTyped(t, precomputedSchemaTypes, adapter.Schema, exempt, nil)
}
