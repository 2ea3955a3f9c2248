package safetytest

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/automium/automium"
	"github.com/automium/automium/internal/limit"
	"github.com/automium/automium/internal/testsupport"
)

// abuseCase is hostile or malformed input sent to the real binary over a raw pipe,
// with the responses it must get. want lists one entry per response, as
// summarize writes it; no entries means the server must stay silent.
type abuseCase struct {
	name  string
	lines []string
	want  []string
}

// checkLine is the valid request sent after every case; its answer must equal,
// byte for byte, the answer to the same request before any abuse.
const checkLine = `{"jsonrpc":"2.0","id":"check","method":"tools/call","params":{"name":"automium_list_fixtures","arguments":{"appId":"storefront"}}}`

func toolLine(id, tool, args string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args)
}

// beforeInitializeCases are sent to a fresh process before initialize.
var beforeInitializeCases = []abuseCase{
	{"tools/list before initialize", []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`}, []string{"error -32600, id 1"}},
	{"tools/call before initialize", []string{toolLine("2", "automium_list_apps", "{}")}, []string{"error -32600, id 2"}},
	{"ping before initialize (allowed by MCP)", []string{`{"jsonrpc":"2.0","id":3,"method":"ping"}`}, []string{"result, id 3"}},
	{"notifications/initialized before initialize", []string{testsupport.InitializedLine}, nil},
}

// abuseCases are sent, in order, to one process after initialize.
func abuseCases() []abuseCase {
	huge := func(id string, size int) string {
		head := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"automium_compile_journey","arguments":{"goal":"`, id)
		return head + strings.Repeat("x", size-len(head)-len(`"}}}`)) + `"}}}`
	}
	steps := `{"id":"j","appId":"storefront","fixtureId":"storefront-guest-catalog","goal":"g","steps":[` +
		strings.TrimSuffix(strings.Repeat(`{"intent":"click"},`, 100_000), ",") +
		`],"assertions":[{"kind":"text_visible","value":"ok"}],"recovery":{"strategies":["retry_step"]}}`
	bigArgs := `{"goal":"` + strings.Repeat("x", 9<<20) + `"}`
	manifest := func(path string) string {
		return `{"runId":"run-0123456789abcdef0123","root":"artifacts","entries":[{"kind":"trace","path":"` + path + `"}]}`
	}
	bigID := `"` + strings.Repeat("i", 1<<20) + `"`
	return []abuseCase{
		// Malformed JSON.
		{"malformed JSON `{not json`", []string{`{not json`}, []string{"error -32700, id null"}},
		{"truncated request", []string{`{"jsonrpc":"2.0","id":1,"method":"ping"`}, []string{"error -32700, id null"}},
		{"two JSON values on one line", []string{`{"jsonrpc":"2.0","id":2,"method":"ping"} {"jsonrpc":"2.0","id":3,"method":"ping"}`}, []string{"error -32700, id null"}},
		{"binary garbage (NUL, 0xFF bytes)", []string{"\x00\x01\xff\xfe"}, []string{"error -32700, id null"}},
		{"100,000 nested arrays", []string{strings.Repeat("[", 100_000)}, []string{"error -32700, id null"}},
		{"arguments nested 1,000 levels deep", []string{toolLine("5", "automium_compile_journey", `{"goal":`+strings.Repeat("[", 1000)+strings.Repeat("]", 1000)+`}`)},
			[]string{"error -32600, id 5"}},
		{"invalid UTF-8 inside a string argument is refused, not read as U+FFFD", []string{toolLine("4", "automium_list_fixtures", "{\"appId\":\"\xff\"}")}, []string{"error -32700, id null"}},
		{"blank and whitespace-only lines", []string{"", "   \t"}, nil},
		// Valid JSON that is not JSON-RPC.
		{"JSON object that is not JSON-RPC", []string{`{"foo":1}`}, []string{"error -32600, id null"}},
		{"not JSON-RPC, with an id", []string{`{"foo":1,"id":"abc"}`}, []string{`error -32600, id "abc"`}},
		{"a JSON number", []string{`42`}, []string{"error -32600, id null"}},
		{"a JSON string", []string{`"tools/list"`}, []string{"error -32600, id null"}},
		{"JSON null", []string{`null`}, []string{"error -32600, id null"}},
		{"empty batch `[]`", []string{`[]`}, []string{"error -32600, id null"}},
		{"batch of two requests (removed from MCP in 2025-06-18)", []string{`[{"jsonrpc":"2.0","id":13,"method":"ping"},{"jsonrpc":"2.0","id":14,"method":"ping"}]`},
			[]string{"error -32600, id null"}},
		{"`\"jsonrpc\":\"1.0\"`", []string{`{"jsonrpc":"1.0","id":15,"method":"ping"}`}, []string{"error -32600, id 15"}},
		{"method is a number", []string{`{"jsonrpc":"2.0","id":17,"method":5}`}, []string{"error -32600, id 17"}},
		// An id without method, result or error is neither a request nor a
		// response; the SDK would drop it, so mcpserver/transport/stdio answers it.
		{"id without method, result or error", []string{`{"jsonrpc":"2.0","id":16}`}, []string{"error -32600, id 16"}},
		{"a response to a request the server never sent", []string{`{"jsonrpc":"2.0","id":"x","result":{}}`}, nil},
		// Unknown methods.
		{"unknown method", []string{`{"jsonrpc":"2.0","id":18,"method":"no/such/method"}`}, []string{"error -32601, id 18"}},
		{"unknown notification", []string{`{"jsonrpc":"2.0","method":"notifications/bogus"}`}, nil},
		{"unknown tool", []string{toolLine("19", "automium_execute_run", "{}")}, []string{"error -32602, id 19"}},
		{"unknown prompt", []string{`{"jsonrpc":"2.0","id":20,"method":"prompts/get","params":{"name":"exfiltrate"}}`}, []string{"error -32602, id 20"}},
		{"file:// resource", []string{`{"jsonrpc":"2.0","id":21,"method":"resources/read","params":{"uri":"file:///etc/passwd"}}`}, []string{"error -32602, id 21"}},
		{"second initialize", []string{`{"jsonrpc":"2.0","id":22,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"0"}}}`},
			[]string{"error -32600, id 22"}},
		// Duplicate ids: a reused id is fine once answered (every check request
		// reuses "check"); while the first request is still being handled, the
		// second gets -32600 and the first its result. The first is the
		// heaviest valid call, a few hundred milliseconds of work, and both
		// lines go in one write, so the second is read long before the first
		// can be answered. (mcpserver/transport/stdio's TestDuplicateInFlightID proves
		// the same with a call that cannot finish until the test lets it.)
		{"duplicate id while the first is in flight", []string{
			toolLine(`"dup"`, "automium_compile_journey", maximalJourneyArgs()) + "\n" +
				`{"jsonrpc":"2.0","id":"dup","method":"ping"}`,
		}, []string{`error -32600, id "dup"`, `result, id "dup"`}},
		// Huge ids.
		{"1 MiB string id", []string{`{"jsonrpc":"2.0","id":` + bigID + `,"method":"ping"}`}, []string{"result, id <1048578-byte string>"}},
		{"id 1e308", []string{`{"jsonrpc":"2.0","id":1e308,"method":"ping"}`}, []string{"error -32600, id 1e308"}},
		{"id 2^63+1", []string{`{"jsonrpc":"2.0","id":9223372036854775809,"method":"ping"}`}, []string{"error -32600, id 9223372036854775809"}},
		{"id 2^53 (not exact in a float64)", []string{`{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"}`}, []string{"error -32600, id 9007199254740992"}},
		{"id 2^53-1", []string{`{"jsonrpc":"2.0","id":9007199254740991,"method":"ping"}`}, []string{"result, id 9007199254740991"}},
		{"id 1.5", []string{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`}, []string{"error -32600, id 1.5"}},
		{"id -1", []string{`{"jsonrpc":"2.0","id":-1,"method":"ping"}`}, []string{"result, id -1"}},
		{"id true", []string{`{"jsonrpc":"2.0","id":true,"method":"ping"}`}, []string{"error -32600, id null"}},
		{"id is an object", []string{`{"jsonrpc":"2.0","id":{},"method":"ping"}`}, []string{"error -32600, id null"}},
		{"id null", []string{`{"jsonrpc":"2.0","id":null,"method":"ping"}`}, []string{"error -32600, id null"}},
		// Wrong argument types.
		{"tool argument of the wrong type", []string{toolLine("23", "automium_list_fixtures", `{"appId":5}`)}, []string{"isError invalid_argument, id 23"}},
		{"steps is a string", []string{toolLine("24", "automium_compile_journey", `{"steps":"all of them"}`)}, []string{"isError invalid_argument, id 24"}},
		{"repetitions is 1e400", []string{toolLine("25", "automium_compare_planners", `{"repetitions":1e400}`)}, []string{"isError limit_exceeded, id 25"}},
		{"arguments is a string", []string{toolLine("26", "automium_list_apps", `"all"`)}, []string{"isError invalid_argument, id 26"}},
		{"arguments is an array", []string{toolLine("27", "automium_list_apps", `[]`)}, []string{"isError invalid_argument, id 27"}},
		{"tool name is a number", []string{`{"jsonrpc":"2.0","id":28,"method":"tools/call","params":{"name":5}}`}, []string{"error -32602, id 28"}},
		{"params is a string", []string{`{"jsonrpc":"2.0","id":29,"method":"tools/call","params":"x"}`}, []string{"error -32602, id 29"}},
		// Extra properties.
		{"unknown tool argument", []string{toolLine("30", "automium_list_fixtures", `{"appId":"storefront","admin":true}`)}, []string{"isError invalid_argument, id 30"}},
		{"argument name in the wrong case", []string{toolLine("31", "automium_list_fixtures", `{"AppId":"storefront"}`)}, []string{"isError invalid_argument, id 31"}},
		{"unknown member of params (ignored, as MCP allows)", []string{`{"jsonrpc":"2.0","id":32,"method":"tools/call","params":{"name":"automium_list_apps","arguments":{},"bogus":1}}`}, []string{"result, id 32"}},
		{"unknown member of the message (ignored)", []string{`{"jsonrpc":"2.0","id":33,"method":"ping","extra":1}`}, []string{"result, id 33"}},
		// Null arguments.
		{"arguments null, tool without inputs", []string{toolLine("34", "automium_list_apps", `null`)}, []string{"result, id 34"}},
		{"arguments null, journey (valid:false, every required field listed)", []string{toolLine("35", "automium_compile_journey", `null`)}, []string{"result, id 35"}},
		{"arguments null, comparison", []string{toolLine("36", "automium_compare_planners", `null`)}, []string{"isError invalid_argument, id 36"}},
		{"every journey field null", []string{toolLine("37", "automium_compile_journey", `{"id":null,"appId":null,"steps":null,"assertions":[null],"recovery":null}`)}, []string{"isError invalid_argument, id 37"}},
		{"params null", []string{`{"jsonrpc":"2.0","id":38,"method":"tools/call","params":null}`}, []string{"error -32600, id 38"}},
		{"params missing", []string{`{"jsonrpc":"2.0","id":39,"method":"tools/call"}`}, []string{"error -32600, id 39"}},
		{"prompt arguments null", []string{`{"jsonrpc":"2.0","id":40,"method":"prompts/get","params":{"name":"draft_journey","arguments":null}}`}, []string{"error -32602, id 40"}},
		// Artifact paths safe on Linux but not for every consumer (issue: hostile input, class 8).
		{"artifact path with percent-encoded dot segments", []string{toolLine("50", "automium_get_artifact_manifest", manifest("%2e%2e/%2e%2e/etc/passwd"))}, []string{"isError invalid_artifact_path, id 50"}},
		{"artifact path that is a Windows device name", []string{toolLine("51", "automium_get_artifact_manifest", manifest("logs/aux.txt"))}, []string{"isError invalid_artifact_path, id 51"}},
		{"artifact path with fullwidth dots and slash", []string{toolLine("52", "automium_get_artifact_manifest", manifest("\uff0e\uff0e\uff0fetc"))}, []string{"isError invalid_artifact_path, id 52"}},
		{"artifact path with a bidi override", []string{toolLine("53", "automium_get_artifact_manifest", manifest("trace\u202egnp.zip"))}, []string{"isError invalid_artifact_path, id 53"}},
		{"artifact paths differing only by case", []string{toolLine("54", "automium_get_artifact_manifest", `{"runId":"run-0123456789abcdef0123","root":"artifacts","entries":[{"kind":"trace","path":"a/trace.zip"},{"kind":"video","path":"A/TRACE.zip"}]}`)}, []string{"isError invalid_artifact_path, id 54"}},
		// Size.
		{"journey with 100,000 steps (1.9 MB)", []string{toolLine("41", "automium_compile_journey", steps)}, []string{"error -32600, id 41"}},
		{"9 MiB of tool arguments (cap 8 MiB)", []string{toolLine("42", "automium_compile_journey", bigArgs)}, []string{"isError limit_exceeded, id 42"}},
		{"line of 16 MiB + 1 byte (cap 16 MiB)", []string{huge(`"huge"`, 16<<20+1)}, []string{`error -32600, id "huge"`}},
		{"line of exactly 16 MiB", []string{huge(`"big"`, 16<<20)}, []string{`isError limit_exceeded, id "big"`}},
	}
}

// maximalJourneyArgs are the arguments of the heaviest valid call: a
// compile_journey at every limit, 200 steps and 50 assertions whose values (and
// goal) are 2,000 characters of quotes, backslashes, '<', CJK and emoji, with a
// retry on every step. The binary takes a few hundred milliseconds to answer it.
var maximalJourneyArgs = sync.OnceValue(func() string {
	unit := []rune(`"\<日本語テキスト😀🚀`)
	value := make([]rune, 2000)
	for i := range value {
		value[i] = unit[i%len(unit)]
	}
	text := string(value)
	in := automium.CompileJourneyInput{ID: "maximal", AppID: "storefront", FixtureID: "storefront-guest-catalog", Goal: text,
		Recovery: automium.Recovery{MaxRetries: limit.MaxRecoveryRetries, Strategies: []automium.RecoveryStrategy{"retry_step"}}}
	for i := range limit.MaxSteps {
		in.Steps = append(in.Steps, automium.Step{Intent: "fill", Target: &automium.Target{Role: "textbox", Name: fmt.Sprint("Field ", i)}, Value: text})
	}
	for range limit.MaxAssertions {
		in.Assertions = append(in.Assertions, automium.Assertion{Kind: "text_visible", Value: text})
	}
	args, err := json.Marshal(in)
	if err != nil {
		panic(err)
	}
	return string(args)
})

// abuseTable is SECURITY.md's table of the abuse cases and the responses each
// must get, which TestProtocolAbuse checks against the real binary.
func abuseTable() string {
	rows := []string{"| Input | Response(s) |", "|---|---|", "| **Before initialize** | |"}
	add := func(cases []abuseCase) {
		for _, c := range cases {
			want := "no response"
			if len(c.want) > 0 {
				want = strings.Join(c.want, "; ")
			}
			rows = append(rows, fmt.Sprintf("| %s | %s |", c.name, want))
		}
	}
	add(beforeInitializeCases)
	rows = append(rows, "| **After initialize** | |")
	add(abuseCases())
	return strings.Join(rows, "\n") + "\n"
}
