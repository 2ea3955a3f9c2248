package automium

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/automium/automium/internal/echo"
	"github.com/automium/automium/internal/limit"
	"github.com/google/go-cmp/cmp"
)

// distinctTrials returns n trials whose planner, app and journey IDs all
// differ and all pass their rules: the worst case for the strings a walk
// remembers (ruleWalk.passed).
func distinctTrials(n int) CompareObservedTrialsInput {
	in := CompareObservedTrialsInput{CorpusVersion: CorpusVersion, Planners: []PlannerRef{{ID: "p", Vendor: "v", Model: "m"}}}
	for i := range n {
		s := strconv.Itoa(i)
		in.Trials = append(in.Trials, Trial{PlannerID: "p" + s, AppID: "ext:a" + s, FixtureID: "ext:f" + s, JourneyID: "j" + s, Repetition: 1})
	}
	return in
}

// TestRememberedStringsBounded: the strings a walk remembers are bounded,
// whatever the input. Unbounded, 100,000 trials of distinct IDs (10 MB of
// arguments, within one MCP message) made validation allocate 77.6 MB
// against 10.4 MB without the set.
func TestRememberedStringsBounded(t *testing.T) {
	w := ruleWalk{remember: maxRemembered}
	w.fields(reflect.ValueOf(distinctTrials(2 * 4096)))
	if len(w.out) != 0 {
		t.Fatalf("problems in a valid input: %v", w.out)
	}
	if got := len(w.passed); got > maxRemembered {
		t.Errorf("a walk over %d distinct valid strings remembered %d of them; the bound is %d", 4*2*4096, got, maxRemembered)
	}
}

// TestRememberingChangesNoAnswer: a walk that remembers the strings that
// passed finds exactly what a walk checking every value finds (remember 0),
// and so does one whose set is full after a string (remember 1): the same
// problems, paths, codes and messages, in the same order. The inputs put
// one string under rules it passes and rules it breaks, under the same
// rule text on other types, at paths a capability checks itself, in
// Unicode variants and in lists that must hold no duplicates.
func TestRememberingChangesNoAnswer(t *testing.T) {
	type id string
	type item struct {
		Free  string   `json:"free" validate:"required,notblank,max_id_length"`
		Slug  string   `json:"slug" validate:"required,max_id_length,automium_slug"`
		Named id       `json:"named" validate:"required,max_id_length,automium_slug"`
		Short string   `json:"short" validate:"omitempty,max=3"`
		App   string   `json:"app" validate:"omitempty,max_id_length,automium_app_or_ext"`
		Fix   string   `json:"fix" validate:"omitempty,max_id_length,automium_fixture_or_ext"`
		Tags  []string `json:"tags" validate:"omitempty,max=16,unique,dive,max=3"`
	}
	type input struct {
		Items []item `json:"items" validate:"dive"`
		Tail  string `json:"tail" validate:"omitempty,max=3"`
	}
	long := strings.Repeat("a", limit.MaxIDLength)
	nfc, nfd := "caf\u00e9", "cafe\u0301"
	journey := func(s string) Step { return Step{Intent: "navigate", Value: s} }
	for _, tc := range []struct {
		name   string
		in     any
		except []Path
	}{
		{"one string passes as free text and fails as a slug", input{Items: []item{
			{Free: "Abc", Slug: "abc", Named: "abc"}, {Free: "abc", Slug: "Abc", Named: "Abc"}, {Free: "Abc", Slug: "Abc", Named: "abc"}}}, nil},
		{"the same rule text on a named type", input{Items: []item{{Free: "a", Slug: "a!", Named: "a"}, {Free: "a", Slug: "a", Named: "a!"}}}, nil},
		{"a length that passes one bound and breaks another", input{Items: []item{
			{Free: long, Slug: long, Named: id(long), Short: "abc"}, {Free: long + "a", Slug: long + "a", Named: id(long), Short: "abcd"}}, Tail: "abcd"}, nil},
		{"Unicode and case variants", input{Items: []item{
			{Free: nfc, Slug: nfc, Named: id(nfd), Short: nfc, Tags: []string{nfc, nfd}}, {Free: nfd, Slug: "CAFE", Named: "cafe", Short: nfd, Tags: []string{"é", "é"}}}}, nil},
		{"an external ID as an app and as a fixture", input{Items: []item{
			{Free: "x", Slug: "x", Named: "x", App: "ext:acme", Fix: "ext:acme"}, {Free: "x", Slug: "x", Named: "x", App: "ext:Acme", Fix: "ext:acme"}, {Free: "x", Slug: "x", Named: "x", App: "ext:acme", Fix: "ext:"}}}, nil},
		{"duplicates in a unique list of repeated strings", input{Items: []item{
			{Free: "a", Slug: "a", Named: "a", Tags: []string{"a", "b"}}, {Free: "a", Slug: "a", Named: "a", Tags: []string{"a", "a"}}, {Free: "a", Slug: "a", Named: "a", Tags: []string{"abcd", "a", "abcd"}}}}, nil},
		{"blank and empty repeats", input{Items: []item{{Free: " ", Slug: "", Named: ""}, {Free: " ", Slug: "a"}, {Free: "", Named: "a"}}}, nil},
		{"a string skipped at an excepted path and checked elsewhere", input{Items: []item{{Free: "a", Slug: "A!", Named: "a"}, {Free: "a", Slug: "A!", Named: "A!"}}},
			[]Path{field("items").at(0).dot("slug")}},
		{"trials repeating passing and failing IDs", CompareObservedTrialsInput{CorpusVersion: CorpusVersion,
			Planners: []PlannerRef{{ID: "p", Vendor: "v", Model: "m"}, {ID: "p", Vendor: " ", Model: "p"}},
			Trials: []Trial{
				{PlannerID: "journey-a", AppID: "ext:a", FixtureID: "ext:a", JourneyID: "journey-a", Repetition: 1},
				{PlannerID: "Journey-A", AppID: "journey-a", FixtureID: "journey-a", JourneyID: "Journey-A", Repetition: 0},
				{PlannerID: "journey-a", AppID: "ext:a", FixtureID: "ext:a", JourneyID: "journey-a", Repetition: 101},
			}, Journeys: []string{"journey-a", long + "b", "journey-a"}},
			[]Path{field("trials").at(anyIndex).dot("fixtureId")}},
		{"a journey repeating step values", CompileJourneyInput{ID: "j", AppID: "ext:a", FixtureID: "ext:a", Goal: "go",
			Steps: []Step{journey("/a"), journey(strings.Repeat("v", limit.MaxTextLength+1)), journey("/a"), journey(strings.Repeat("v", limit.MaxTextLength+1))}},
			[]Path{field("fixtureId")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			walk := func(remember int) []Problem {
				w := ruleWalk{except: tc.except, remember: remember}
				w.fields(reflect.ValueOf(tc.in))
				return w.out
			}
			want := walk(0)
			if len(want) == 0 {
				t.Fatal("the input has no problem; it tests nothing")
			}
			for _, remember := range []int{1, maxRemembered} {
				if diff := cmp.Diff(want, walk(remember), cmp.AllowUnexported(Problem{}, Path{}, pathStep{}, echo.Message{})); diff != "" {
					t.Errorf("remembering %d strings changed the problems (-each checked +remembered):\n%s", remember, diff)
				}
			}
		})
	}
}

// TestConcurrentWalksShareNothing: walks running at once, over inputs that
// share strings passing in some and failing in others, each answer as they
// do alone. Under -race it also shows they share no memory.
func TestConcurrentWalksShareNothing(t *testing.T) {
	valid := CompareObservedTrialsInput{CorpusVersion: CorpusVersion, Planners: []PlannerRef{{ID: "p", Vendor: "v", Model: "m"}},
		Trials: []Trial{{PlannerID: "p", AppID: "ext:a", FixtureID: "ext:a", JourneyID: "abc", Repetition: 1}}}
	invalid := valid
	invalid.Trials = []Trial{{PlannerID: "p", AppID: "ext:a", FixtureID: "ext:a", JourneyID: "Abc", Repetition: 1}, valid.Trials[0]}
	inputs := []CompareObservedTrialsInput{valid, invalid}
	want := make([]string, len(inputs))
	for i, in := range inputs {
		want[i] = fmt.Sprint(validateStruct(in))
	}
	var wg sync.WaitGroup
	got := make([][]string, 8)
	for g := range got {
		wg.Go(func() {
			for i := range 50 {
				got[g] = append(got[g], fmt.Sprint(validateStruct(inputs[(g+i)%2])))
			}
		})
	}
	wg.Wait()
	for g := range got {
		for i, s := range got[g] {
			if w := want[(g+i)%2]; s != w {
				t.Fatalf("goroutine %d, walk %d: got %s, alone %s", g, i, s, w)
			}
		}
	}
}

// TestFlaggedIsHasOfEachElement: flagged answers for each element what has
// answers, whatever the problems' paths: the list itself, an element, a
// field below one, another list, a gap, an index past the list's end.
func TestFlaggedIsHasOfEachElement(t *testing.T) {
	list := field("trials")
	ps := &problems{}
	for _, at := range []Path{
		list, list.at(1), list.at(3).dot("plannerId"), list.at(3).dot("appId"), field("counts").at(0),
		field("trialsX").at(2), list.at(9), {steps: []pathStep{{name: "trials"}, {index: 4, elem: true, gap: true}}},
		list.dot("5"), field("planners").at(6),
	} {
		ps.add(at, CodeInvalidArgument, nil, "problem")
	}
	const n = 8
	var want []bool
	for i := range n {
		want = append(want, ps.has(list.at(i)))
	}
	if diff := cmp.Diff(want, ps.flagged(list, n)); diff != "" {
		t.Errorf("flagged (-has of each +flagged):\n%s", diff)
	}
	if !slices.Contains(want, true) || !slices.Contains(want, false) {
		t.Errorf("has of each element is %v; the case tests nothing", want)
	}
}
