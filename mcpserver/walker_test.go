package mcpserver

import (
	"bytes"
	"encoding/json"
	"encoding/json/jsontext"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/automium/automium"
	"github.com/automium/automium/internal/limit"
	"github.com/google/go-cmp/cmp"
)

// decoder decodes raw arguments for one input type, as a tool does.
type decoder func(raw []byte) (any, error)

func decoderFor[In any]() decoder {
	return func(raw []byte) (any, error) { return decodeArguments[In](raw) }
}

var (
	journeyArgs    = decoderFor[automium.CompileJourneyInput]()
	fixtureArgs    = decoderFor[automium.ListFixturesInput]()
	submissionArgs = decoderFor[automium.CreateRunSubmissionInput]()
	replayArgs     = decoderFor[automium.GetReplaySummaryInput]()
	comparisonArgs = decoderFor[automium.ComparePlannersInput]()
	manifestArgs   = decoderFor[automium.GetArtifactManifestInput]()
)

// problemList flattens an error into "code field" lines, one per problem.
func problemList(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	var e *automium.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is %T, want *automium.Error", err, err)
	}
	all := e.Problems()
	if first := all[0]; first.Code != e.Code || first.Field != e.Field || first.Message != e.Message {
		t.Errorf("top level %s %s is not the first problem %s %s", e.Code, e.Field, first.Code, first.Field)
	}
	var out []string
	for _, p := range all {
		if p.Message == "" {
			t.Errorf("problem %s at %q has no message", p.Code, p.Field)
		}
		out = append(out, string(p.Code)+" "+p.Field)
	}
	return out
}

// repeat joins n copies of item with commas.
func repeat(item string, n int) string {
	return strings.TrimSuffix(strings.Repeat(item+",", n), ",")
}

// TestWalkerProblems lists, for inputs with shape or bound problems, every
// problem the walker reports, in input order, and a phrase its message must hold.
func TestWalkerProblems(t *testing.T) {
	planner := `{"id":"baseline","vendor":"openai","model":"gpt-4.1-mini"}`
	tests := []struct {
		name   string
		decode decoder
		raw    string
		want   []string
		// message is a phrase the first problem's message must contain.
		message string
	}{
		// Names are compared after unescaping (issue: escaped keys bypassed the
		// pre-scan and the duplicate check).
		{"escaped name counted against maxItems", journeyArgs, `{"st\u0065ps":[` + repeat(`{}`, limit.MaxSteps+1) + `]}`,
			[]string{"limit_exceeded steps"}, "more than 200 items"},
		{"escaped duplicate of a string", fixtureArgs, `{"appId":"kanban","app\u0049d":"banking"}`,
			[]string{"invalid_argument appId"}, `one spelling is "app\\u0049d"`},
		{"escaped duplicate of an object", submissionArgs, `{"planner":` + planner + `,"pl\u0061nner":` + planner + `}`,
			[]string{"invalid_argument planner"}, "appears twice"},
		{"escaped duplicate of another kind", submissionArgs, `{"planner":` + planner + `,"pl\u0061nner":"x"}`,
			[]string{"invalid_argument planner"}, "appears twice"},
		{"plain duplicate", journeyArgs, `{"goal":"a","goal":"b"}`, []string{"invalid_argument goal"}, "send each property once"},
		{"nested duplicate", journeyArgs, `{"steps":[{},{"target":{"role":"button","role":"link"}}]}`,
			[]string{"invalid_argument steps[1].target.role"}, "appears twice"},
		{"case variant", journeyArgs, `{"Steps":[]}`, []string{"invalid_argument Steps"}, `use "steps"`},
		{"case variant beside its name", fixtureArgs, `{"appId":"kanban","APPID":"banking"}`, []string{"invalid_argument APPID"}, `use "appId"`},
		{"unknown name holding an array", journeyArgs, `{"junk":[` + repeat(`{}`, 1000) + `]}`, []string{"invalid_argument junk"}, "not a property"},
		{"unknown name on a tool without inputs", decoderFor[automium.ListAppsInput](), `{"verbose":true}`, []string{"invalid_argument verbose"}, "takes no arguments"},
		{"unknown name with special characters is quoted", journeyArgs, `{"a.b[0]":1}`, []string{`invalid_argument "a.b[0]"`}, "not a property"},

		// Kinds and paths.
		{"kind deep in a journey", journeyArgs, `{"steps":[{},{},{},{"target":{"role":5}}]}`,
			[]string{"invalid_argument steps[3].target.role"}, "must be a string, not a number"},
		{"null is not a value", journeyArgs, `{"steps":[{"target":null}]}`, []string{"invalid_argument steps[0].target"}, "omit the property"},
		{"planner of the wrong kind", submissionArgs, `{"planner":"gpt"}`, []string{"malformed_planner planner"}, "id, vendor and model"},
		{"planner null", submissionArgs, `{"planner":null}`, []string{"malformed_planner planner"}, "not null"},

		// Integers as JSON Schema reads them.
		{"fraction", replayArgs, `{"retryCount":2.5}`, []string{"invalid_argument retryCount"}, "must be an integer, not 2.5"},
		{"tiny fraction", replayArgs, `{"retryCount":1.0000000000000000000001}`, []string{"invalid_argument retryCount"}, "must be an integer"},
		{"negative below a minimum of 0", comparisonArgs, `{"seed":-1}`, []string{"invalid_argument seed"}, "is -1, below the minimum of 0"},
		{"negative size", manifestArgs, `{"entries":[{"size":-1}]}`, []string{"invalid_argument entries[0].size"}, "below the minimum of 0"},
		{"above a maximum", comparisonArgs, `{"repetitions":1e3}`, []string{"limit_exceeded repetitions"}, "is 1e3, above the limit of 100"},
		// Repetitions below 1 mean 1 (issue 30), so only the type bounds them.
		{"beyond every Go integer", comparisonArgs, `{"repetitions":-1e400}`, []string{"invalid_argument repetitions"}, "is -1e400, below the minimum of -9223372036854775808"},
		{"huge literal is cut", comparisonArgs, `{"repetitions":1` + strings.Repeat("0", 100_000) + `}`, []string{"limit_exceeded repetitions"}, "(100001 bytes)"},
		{"integer as a string", comparisonArgs, `{"repetitions":"2"}`, []string{"invalid_argument repetitions"}, "must be an integer, not a string"},

		// Strings.
		{"too long", journeyArgs, `{"goal":"` + strings.Repeat("é", limit.MaxTextLength+1) + `"}`, []string{"limit_exceeded goal"}, "the limit is 2000 characters"},
		{"too long once unescaped", journeyArgs, `{"goal":"` + strings.Repeat(`\u00e9`, limit.MaxTextLength+1) + `"}`, []string{"limit_exceeded goal"}, "the limit is 2000"},
		{"empty optional app ID", fixtureArgs, `{"appId":""}`, []string{"invalid_argument appId"}, "is empty"},
		{"null optional app ID", fixtureArgs, `{"appId":null}`, []string{"invalid_argument appId"}, "not null"},
		{"empty optional sha256", manifestArgs, `{"entries":[{"sha256":""}]}`, []string{"invalid_argument entries[0].sha256"}, "is empty"},

		// Every problem at once, in the one order of problems: the input
		// type's field order, unknown names last.
		{"several problems", journeyArgs,
			`{"junk":1,"goal":5,"steps":[{"intent":"click","target":"x"}],"assertions":"none","recovery":{"maxRetries":9}}`,
			[]string{"invalid_argument goal", "invalid_argument steps[0].target", "invalid_argument assertions", "limit_exceeded recovery.maxRetries", "invalid_argument junk"}, "must be a string"},
		{"problems past an array bound", journeyArgs, `{"steps":[` + repeat(`{}`, limit.MaxSteps+5) + `],"goal":7}`,
			[]string{"invalid_argument goal", "limit_exceeded steps"}, "must be a string"},
		{"too many problems", journeyArgs, `{` + repeat(`"x":1`, 1000) + `}`,
			append(slicesRepeat("invalid_argument x", limit.MaxProblems-1), "limit_exceeded "), "not a property"},

		// Structure.
		{"too deep", journeyArgs, `{"goal":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`,
			[]string{"invalid_argument goal", "limit_exceeded goal"}, "must be a string, not an array"},
		{"not an object", journeyArgs, `[1,2,3]`, []string{"invalid_argument "}, "the arguments are an array"},
		{"not JSON", journeyArgs, `{"steps":[{},`, []string{"invalid_argument "}, "not valid JSON"},
		{"not JSON after problems", journeyArgs, `{"goal":5,`, []string{"invalid_argument "}, "not valid JSON"},
		{"trailing data", journeyArgs, `{"id":"a"} {"id":"b"}`, []string{"invalid_argument "}, "not valid JSON"},
		{"bad escape", journeyArgs, `{"goal":"\x"}`, []string{"invalid_argument "}, "not valid JSON"},
		{"control character", journeyArgs, "{\"goal\":\"a\nb\"}", []string{"invalid_argument "}, "not valid JSON"},
		{"leading zero", replayArgs, `{"retryCount":01}`, []string{"invalid_argument "}, "not valid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.decode([]byte(tt.raw))
			if diff := cmp.Diff(tt.want, problemList(t, err)); diff != "" {
				t.Fatalf("problems (-want +got):\n%s", diff)
			}
			if msg := err.(*automium.Error).Message; !strings.Contains(msg, tt.message) {
				t.Errorf("message %q lacks %q", msg, tt.message)
			}
		})
	}
}

func slicesRepeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// TestWalkerRefusesInvalidText checks that text encoding/json would read with
// U+FFFD in place of an invalid byte or an unpaired surrogate is refused: two
// different invalid strings would otherwise be one planner ID or one digest.
func TestWalkerRefusesInvalidText(t *testing.T) {
	for _, raw := range []string{
		`{"goal":"lone \ud800 high"}`,
		`{"goal":"lone \udc00 low"}`,
		`{"goal":"\ud800\u0041 broken pair"}`,
		"{\"goal\":\"invalid \xff\xfe UTF-8 \xc3\"}",
		"{\"goal\":\"\xe2\x82\"}",
	} {
		_, err := decodeArguments[automium.CompileJourneyInput](json.RawMessage(raw))
		var e *automium.Error
		if !errors.As(err, &e) || e.Field != "goal" || e.Code != automium.CodeInvalidArgument {
			t.Errorf("%q: got %v, want invalid_argument at goal", raw, err)
		}
	}
}

// TestWalkerReadsWhatEncodingJSONReads holds the walker's decoding to encoding/json's
// on inputs both accept, including the corners of string decoding.
func TestWalkerReadsWhatEncodingJSONReads(t *testing.T) {
	inputs := []string{
		referenceJourneyJSON(t),
		`{"goal":"a\"}\\\/\b\f\n\r\t\u0041\u00e9\ud83d\ude00"}`,
		` { "steps" : [ { } , { "target" : { "role" : "button" } } ] , "recovery" : { "maxRetries" : 3 } } `,
		`{"steps":[],"assertions":[]}`,
		`{"recovery":{"maxRetries":0,"strategies":[]}}`,
	}
	for _, id := range automium.ReferenceJourneyIDs() {
		j, _ := automium.ReferenceJourney(id)
		ex, err := json.Marshal(j)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, string(ex))
	}
	for _, raw := range inputs {
		got, err := decodeArguments[automium.CompileJourneyInput](json.RawMessage(raw))
		if err != nil {
			t.Errorf("%.80s: %v", raw, err)
			continue
		}
		var want automium.CompileJourneyInput
		if err := json.Unmarshal([]byte(raw), &want); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%.80s (-encoding/json +walker):\n%s", raw, diff)
		}
	}
	for name, raw := range validArgs(t) {
		tl := toolNamed(t, name)
		got, err := walkerDecode(tl.in, raw)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		want := reflect.New(tl.in)
		if err := json.Unmarshal([]byte(raw), want.Interface()); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want.Elem().Interface(), got); diff != "" {
			t.Errorf("%s (-encoding/json +walker):\n%s", name, diff)
		}
	}
}

// TestWalkerReadsIntegersAsJSONSchema checks that every spelling JSON Schema's
// integer accepts is read as that integer.
func TestWalkerReadsIntegersAsJSONSchema(t *testing.T) {
	for lit, want := range map[string]uint64{
		"0": 0, "-0": 0, "2.0": 2, "1e1": 10, "1E+1": 10, "100e-2": 1, "0.5e1": 5, "0.05e2": 5, "1.50e1": 15,
		"0e-999999999999": 0, "9007199254740991": 9007199254740991, "9.007199254740991e15": 9007199254740991,
	} {
		in, err := decodeArguments[automium.ComparePlannersInput](json.RawMessage(`{"seed":` + lit + `}`))
		if err != nil || in.Seed != want {
			t.Errorf("seed %s = %d, %v; want %d", lit, in.Seed, err, want)
		}
	}
	// A Go int with no minimum rule is bounded by its type: no tool input has
	// one but repetitions, so a type of the test's own stands in.
	type unbounded struct {
		N int `json:"n"`
	}
	for _, lit := range []string{"-9223372036854775808", "-9.223372036854775808e18"} {
		in, err := decodeArguments[unbounded](json.RawMessage(`{"n":` + lit + `}`))
		if err != nil || in.N != -1<<63 {
			t.Errorf("n %s = %d, %v; want the smallest int", lit, in.N, err)
		}
	}
	if _, err := decodeArguments[unbounded](json.RawMessage(`{"n":-1e400}`)); err == nil || !strings.Contains(err.Error(), "below the minimum of -9223372036854775808") {
		t.Errorf("n -1e400: %v, want below the minimum of the type", err)
	}
	for _, lit := range []string{"9007199254740992", "1e16", "18446744073709551616", "1e20"} {
		if _, err := decodeArguments[automium.ComparePlannersInput](json.RawMessage(`{"seed":` + lit + `}`)); err == nil {
			t.Errorf("seed %s accepted above its maximum", lit)
		}
	}
}

func toolNamed(t testing.TB, name string) tool {
	for _, tl := range tools() {
		if tl.def.Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %s", name)
	return tool{}
}

// walkerDecode decodes raw into a fresh value of t with t's walker.
func walkerDecode(t reflect.Type, raw string) (any, error) {
	w := newWalk([]byte(raw))
	defer w.release()
	v := reflect.New(t).Elem()
	w.value(walkerOf(t), v)
	if w.syntax {
		return nil, notJSON()
	}
	if len(w.problems) > 0 {
		return nil, automium.Join(w.problems...)
	}
	return v.Interface(), nil
}

// TestHostileArgumentsCostOnePass is the bound SECURITY.md states for arguments:
// a hostile call as large as the byte cap allows, with millions of values under
// a bounded, escaped, case-variant or unknown name, is refused after one pass
// over its bytes without decoding them, and its error stays small.
func TestHostileArgumentsCostOnePass(t *testing.T) {
	if testing.Short() {
		t.Skip("byte-cap-sized hostile calls; skipped with -short")
	}
	huge := func(key, item string) []byte {
		var b bytes.Buffer
		b.WriteString(`{"` + key + `":[`)
		for b.Len()+2*len(item)+4 < maxArgumentBytes {
			b.WriteString(item + ",")
		}
		b.WriteString(item + `]}`)
		return b.Bytes()
	}
	tests := []struct {
		name, field string
		raw         []byte
	}{
		{"plain name", "steps", huge("steps", "{}")},
		{"escaped name", "steps", huge(`st\u0065ps`, "{}")},
		{"case variant", "Steps", huge("Steps", "{}")},
		{"unknown name", "junk", huge("junk", "{}")},
		{"unknown name, nested arrays", "junk", huge("junk", "[[[[]]]]")},
		{"long unknown name", `"` + strings.Repeat("k", 40) + `"… (7340032 bytes)`, []byte(`{"` + strings.Repeat("k", 7<<20) + `":1}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			allocs := testing.AllocsPerRun(2, func() {
				_, err = decodeArguments[automium.CompileJourneyInput](json.RawMessage(tt.raw))
			})
			e, ok := err.(*automium.Error)
			if !ok || e.Field != tt.field {
				t.Fatalf("err = %v, want a problem at %q", err, tt.field)
			}
			body, _ := json.Marshal(errorEnvelope{Error: e})
			t.Logf("%d bytes refused with %.0f allocations and a %d-byte error", len(tt.raw), allocs, len(body))
			if allocs > 50 {
				t.Errorf("refusing took %.0f allocations; the values must be skipped, not decoded", allocs)
			}
			if len(body) > 1024 {
				t.Errorf("error is %d bytes: %s", len(body), body)
			}
		})
	}
}

// TestErrorsStayBounded checks that the largest error the walker can give, every
// problem slot filled with the longest messages it writes, is a few kilobytes.
func TestErrorsStayBounded(t *testing.T) {
	long := strings.Repeat("<", 60<<10)
	var b strings.Builder
	b.WriteString(`{"steps":[`)
	for i := range limit.MaxProblems + 5 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"` + long + `":1}`)
	}
	b.WriteString(`]}`)
	_, err := decodeArguments[automium.CompileJourneyInput](json.RawMessage(b.String()))
	e, ok := err.(*automium.Error)
	if !ok || len(e.Problems()) > limit.MaxProblems || e.Problems()[len(e.Problems())-1].Code != automium.CodeLimitExceeded {
		t.Fatalf("err = %.300v, want at most %d problems, the last saying more were not listed", err, limit.MaxProblems)
	}
	res := toolErrorResult(discard, "automium_compile_journey", e)
	size := len(resultText(res))
	t.Logf("%d bytes of arguments gave a %d-byte error", b.Len(), size)
	if size > 64<<10 {
		t.Errorf("error is %d bytes, want at most 64 KiB", size)
	}
}

// TestSkipAllocatesNothing checks the promise of skip: values the walker does
// not decode cost no allocation, whatever they hold.
func TestSkipAllocatesNothing(t *testing.T) {
	raw := []byte(`[{"a":[true,false,null,-1.5e3,"x\u00e9\"y"],"b":{}},[[]],"s",0]`)
	w := newWalk(raw)
	defer w.release()
	allocs := testing.AllocsPerRun(10, func() {
		w.dec.Reset(bytes.NewBuffer(raw), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
		if w.skip(); w.stop || !w.atEOF() {
			t.Fatalf("skip stopped at %d of %d (syntax %v)", w.dec.InputOffset(), len(raw), w.syntax)
		}
	})
	// Resetting the decoder boxes its reader: one allocation; skipping adds none.
	if allocs > 1 {
		t.Errorf("skip made %.0f allocations", allocs)
	}
}
