package mcpserver

import (
	"fmt"
	"strings"
	"sync"

	"github.com/automium/automium"
	"github.com/automium/automium/internal/limit"
)

// URIs of the journey guide: the rules an agent needs to write a journey that
// compiles, readable without prompts. Prompts are slash commands a person
// triggers in most hosts, so an autonomous agent that only lists tools and
// resources must find everything here.
const (
	vocabularyURI       = "automium://vocabulary/" + automium.IntentVocabularyVersion
	journeysURIPrefix   = "automium://journeys/"
	journeysURITemplate = journeysURIPrefix + "{id}"
)

// vocabularyDocument is the body of the vocabulary resource. Everything in it is
// derived from the root package (the vocabulary, its closed sets, its limits and
// the reference journeys), so it cannot drift from what compilation accepts.
type vocabularyDocument struct {
	Name              string               `json:"name"`
	Summary           string               `json:"summary"`
	Rules             []string             `json:"rules"`
	Intents           []vocabularyIntent   `json:"intents"`
	TargetRoles       []automium.Role      `json:"targetRoles"`
	Assertions        []assertionKind      `json:"assertions"`
	Recovery          recoveryRules        `json:"recovery"`
	Limits            journeyLimits        `json:"limits"`
	ReferenceJourneys referenceJourneyList `json:"referenceJourneys"`
}

// vocabularyIntent is an intent of the root vocabulary with one step of a
// reference journey that uses it, so an agent sees a target and value that
// compile rather than only a description of them.
type vocabularyIntent struct {
	automium.IntentSpec
	Example     *automium.Step `json:"example,omitempty"`
	ExampleFrom string         `json:"exampleFrom,omitempty"`
}

// assertionKind says what one assertion kind needs, with an example from a
// reference journey.
type assertionKind struct {
	Kind        automium.AssertionKind `json:"kind"`
	Target      automium.Requirement   `json:"target"`
	Value       automium.Requirement   `json:"value"`
	ValueKind   string                 `json:"valueKind,omitempty"`
	Example     *automium.Assertion    `json:"example,omitempty"`
	ExampleFrom string                 `json:"exampleFrom,omitempty"`
}

type recoveryRules struct {
	MinRetries int                         `json:"minRetries"`
	MaxRetries int                         `json:"maxRetries"`
	Strategies []automium.RecoveryStrategy `json:"strategies"`
}

type journeyLimits struct {
	Steps      int `json:"steps"`
	Assertions int `json:"assertions"`
	TextLength int `json:"textLength"`
	IDLength   int `json:"idLength"`
}

type referenceJourneyList struct {
	URITemplate string   `json:"uriTemplate"`
	IDs         []string `json:"ids"`
}

// journeyRules are the rules of every journey, in the words both the
// vocabulary resource and the draft_journey prompt use, so the two cannot say
// different things.
func journeyRules() []string {
	return []string{
		"A journey is the argument object of automium_compile_journey: id, appId, fixtureId, goal, steps, assertions and recovery; its input schema in tools/list gives every field.",
		"appId is an app of automium://apps and fixtureId a fixture of that app in automium://fixtures. id is a new ID of lowercase letters, digits, '.', '_' and '-'. goal is one sentence.",
		fmt.Sprintf("steps: 1 to %d, each an intent of the frozen %s vocabulary (intents below) with exactly the target, destination and value the intent requires. An intent with a capability works only on apps whose capabilities include it. finish, if used, is the last step.", limit.MaxSteps, automium.IntentVocabularyVersion),
		"Targets are semantic, {\"role\": <one of the target roles>, \"name\": <accessible name>}, never CSS, XPath or coordinates.",
		"Avoid arbitrary URLs: navigate takes an app-relative route starting with a single /, never an absolute URL or another host. There is no script evaluation, no raw mouse or keyboard coordinates and no file path.",
		"upload_file takes one of the fixture's fileRefs (fixture-file:// references in automium://fixtures). Account refs are references only: never ask for, invent or embed credentials.",
		fmt.Sprintf("assertions: 1 to %d, checked after the steps; each kind needs the target and value listed for that kind.", limit.MaxAssertions),
		fmt.Sprintf("recovery bounds retries: {\"maxRetries\": 1 to %d, \"strategies\": one or more distinct recovery strategies, applied in order before each retry of a failed step}. Leave it out, or set maxRetries 0 without strategies, and a failed step fails the journey.", limit.MaxRecoveryRetries),
		"Reference journeys that compile are at " + journeysURITemplate + " (IDs under referenceJourneys, and in each fixture's referenceJourneyIds); start from one and change what your goal needs.",
		"If automium_compile_journey answers valid=false, fix every listed problem (each has a JSON path, a code and the allowed values) and call it again.",
	}
}

// vocabulary is the vocabulary resource's document, built once.
var vocabulary = sync.OnceValue(func() vocabularyDocument {
	ids := automium.ReferenceJourneyIDs()
	stepExample := map[automium.Intent]vocabularyIntent{}
	assertionExample := map[automium.AssertionKind]assertionKind{}
	for _, id := range ids {
		j, ok := automium.ReferenceJourney(id)
		if !ok {
			panic("mcpserver: reference journey " + id + " is listed but missing")
		}
		for _, s := range j.Steps {
			if _, ok := stepExample[s.Intent]; !ok {
				stepExample[s.Intent] = vocabularyIntent{Example: &s, ExampleFrom: journeysURIPrefix + id}
			}
		}
		for _, a := range j.Assertions {
			if _, ok := assertionExample[a.Kind]; !ok {
				assertionExample[a.Kind] = assertionKind{Example: &a, ExampleFrom: journeysURIPrefix + id}
			}
		}
	}
	doc := vocabularyDocument{
		Name:        automium.IntentVocabularyVersion,
		Summary:     "The frozen planner intent vocabulary and the rules of a journey: what each intent and assertion kind needs, the target roles, bounded recovery and the limits, with an example from a reference journey for each intent and kind. Journeys written to these rules compile with automium_compile_journey.",
		Rules:       journeyRules(),
		TargetRoles: automium.Roles(),
		Recovery: recoveryRules{
			MaxRetries: limit.MaxRecoveryRetries,
			Strategies: automium.RecoveryStrategies(),
		},
		Limits: journeyLimits{
			Steps:      limit.MaxSteps,
			Assertions: limit.MaxAssertions,
			TextLength: limit.MaxTextLength,
			IDLength:   limit.MaxIDLength,
		},
		ReferenceJourneys: referenceJourneyList{URITemplate: journeysURITemplate, IDs: ids},
	}
	for _, in := range automium.Vocabulary() {
		v := stepExample[in.Name]
		v.IntentSpec = in
		doc.Intents = append(doc.Intents, v)
	}
	for _, kind := range automium.AssertionSpecs() {
		a := assertionExample[kind.Kind]
		a.Kind, a.Target, a.Value, a.ValueKind = kind.Kind, kind.Target, kind.Value, kind.ValueKind
		doc.Assertions = append(doc.Assertions, a)
	}
	return doc
})

// assertionLine renders what one assertion kind needs, for prose.
func assertionLine(a assertionKind) string {
	var b strings.Builder
	fmt.Fprintf(&b, "- `%s`: target %s; value %s", a.Kind, a.Target, a.Value)
	switch a.ValueKind {
	case "route":
		b.WriteString(" (an app-relative route)")
	case "text":
		b.WriteString(" (the expected text)")
	}
	b.WriteString(".")
	return b.String()
}
