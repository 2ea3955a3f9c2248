package automium

import (
	"reflect"
	"strings"
	"testing"

	"github.com/automium/automium/internal/limit"
	"github.com/google/go-cmp/cmp"
)

func TestPathString(t *testing.T) {
	tests := []struct {
		name string
		path Path
		want string
	}{
		{"the input itself", Path{}, ""},
		{"a field", PathOf("steps"), "steps"},
		{"nested", PathOf("steps").Index(3).Field("target").Field("role"), "steps[3].target.role"},
		{"an empty name is a name, not an index", PathOf(""), `""`},
		{"an empty name below a field", PathOf("a").Field(""), `a.""`},
		{"a name with a dot is quoted", PathOf("a.b"), `"a.b"`},
		{"a name like an index is quoted", PathOf("[0]"), `"[0]"`},
		{"a hostile name is cut", PathOf(strings.Repeat("<", 1<<20)), `"` + strings.Repeat("<", 40) + `"… (1048576 bytes)`},
		{"invalid UTF-8 is escaped", PathOf("a\xffb"), `"a\xffb"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.path.String()); diff != "" {
				t.Errorf("String (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPathIsImmutable: extending a path never changes the path extended, so
// two checks can extend one prefix.
func TestPathIsImmutable(t *testing.T) {
	base := PathOf("steps").Index(1)
	a, b := base.Field("intent"), base.Field("target")
	if a.String() != "steps[1].intent" || b.String() != "steps[1].target" || base.String() != "steps[1]" {
		t.Errorf("paths changed each other: %s, %s, %s", a, b, base)
	}
}

// TestSortProblems is the one order of problems: by path, fields as the type
// declares them at every level, elements by index, unknown names last, and
// problems at one path in the order found.
func TestSortProblems(t *testing.T) {
	p := func(at Path, msg string) Problem { return NewProblem(CodeInvalidArgument, at, nil, "%s", msg) }
	in := []Problem{
		p(PathOf("junk"), "unknown"),
		p(PathOf("steps").Index(2).Field("intent"), "s2 intent"),
		p(PathOf("steps").Index(0).Field("target").Field("role"), "s0 target role"),
		p(PathOf("steps").Index(0).Field("intent"), "s0 intent"),
		p(PathOf("goal"), "goal 1"),
		p(PathOf("steps"), "steps"),
		p(PathOf("goal"), "goal 2"),
		p(Path{}, "the input"),
		p(PathOf("id"), "id"),
	}
	sortProblems(reflect.TypeFor[CompileJourneyInput](), in)
	var got []string
	for _, q := range in {
		got = append(got, q.Message)
	}
	want := []string{"the input", "id", "goal 1", "goal 2", "steps", "s0 intent", "s0 target role", "s2 intent", "unknown"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

// TestJoinBoundsText: however many problems and whatever their text, the
// listed ones stay under MaxProblemBytes as JSON counts them.
func TestJoinBoundsText(t *testing.T) {
	var in []Problem
	for range 500 {
		in = append(in, NewProblem(CodeInvalidArgument, PathOf(strings.Repeat("<", 1000)), []string{"a", "b"}, "%s is bad", ClientValue(strings.Repeat("<", 1000))))
	}
	e := Join(in...).(*Error)
	total := 0
	for _, p := range e.Problems() {
		total += problemBytes(p)
	}
	last := e.Problems()[len(e.Problems())-1]
	if total > limit.MaxProblemBytes || last.Code != CodeLimitExceeded || !strings.Contains(last.Message, "more problems are not listed") {
		t.Errorf("%d problems, %d bytes as JSON, last %q; want at most %d bytes and a note", len(e.Problems()), total, last.Message, limit.MaxProblemBytes)
	}
}
