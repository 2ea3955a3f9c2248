package safetytest

import (
	"bufio"
	"bytes"
	jsonv2 "encoding/json/v2"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/automium/automium/internal/testsupport"
)

// httpProcess is automium-mcp -http, driven with its token over one session.
type httpProcess struct {
	t       testing.TB
	cmd     *exec.Cmd
	url     string
	token   string
	session string
	stderr  *testsupport.LockedBuffer
}

// startHTTP starts automium-mcp -http on a free loopback port and reads the
// address and token from its banner.
func startHTTP(t testing.TB) *httpProcess {
	t.Helper()
	p := &httpProcess{t: t, cmd: exec.Command(binary(t), "-http", "127.0.0.1:0"), stderr: &testsupport.LockedBuffer{}}
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.cmd.Process.Kill(); p.cmd.Wait() })
	banner := make(chan [2]string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(nil, 1<<20)
		var url string
		for sc.Scan() {
			line := sc.Text()
			p.stderr.Write([]byte(line + "\n"))
			if m := regexp.MustCompile(`serving MCP Streamable HTTP at (http://\S+)`).FindStringSubmatch(line); m != nil {
				url = m[1]
			}
			if m := regexp.MustCompile(`bearer token for this run: (\S+)`).FindStringSubmatch(line); m != nil {
				banner <- [2]string{url, m[1]}
			}
		}
	}()
	select {
	case b := <-banner:
		p.url, p.token = b[0], b[1]
	case <-time.After(60 * time.Second):
		t.Fatalf("no banner within 60 s; stderr: %s", p.stderr)
	}
	return p
}

// post sends one body and returns the status and the JSON-RPC message of the
// answer: the body of an application/json answer, or the data of the
// response event of an event stream.
func (p *httpProcess) post(body []byte) (int, []byte) {
	p.t.Helper()
	return p.postFrom(bytes.NewReader(body), int64(len(body)))
}

// postFrom is post with a body of n bytes read from body as it is sent, so
// that a caller with a large body need not hold it in one piece.
func (p *httpProcess) postFrom(body io.Reader, n int64) (int, []byte) {
	p.t.Helper()
	req, err := http.NewRequest(http.MethodPost, p.url, body)
	if err != nil {
		p.t.Fatal(err)
	}
	req.ContentLength = n
	req.Header.Set("Authorization", "Bearer "+p.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if p.session != "" {
		req.Header.Set("Mcp-Session-Id", p.session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		p.t.Fatalf("POST: %v; stderr: %s", err, p.stderr)
	}
	defer resp.Body.Close()
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" && p.session == "" {
		p.session = id
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		p.t.Fatal(err)
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return resp.StatusCode, bytes.TrimSpace(data)
	}
	var msg []byte
	for _, line := range bytes.Split(data, []byte("\n")) {
		if m, ok := bytes.CutPrefix(line, []byte("data: ")); ok && bytes.Contains(m, []byte(`"jsonrpc"`)) {
			msg = m
		}
	}
	return resp.StatusCode, msg
}

func (p *httpProcess) initialize() {
	p.t.Helper()
	if status, msg := p.post([]byte(initializeLine)); status != http.StatusOK || !bytes.Contains(msg, []byte(`"result"`)) {
		p.t.Fatalf("initialize: status %d, %s", status, msg)
	}
	if status, _ := p.post([]byte(initializedLine)); status != http.StatusAccepted {
		p.t.Fatalf("notifications/initialized: status %d", status)
	}
}

// attackRow is one attack class: a message, and the answer both transports
// must give, "" for none (a notification).
type attackRow struct {
	name, message string
}

// attackTable holds one message per attack class on the envelope and the
// errors, each of which once had an answer that depended on the transport.
func attackTable() []attackRow {
	call := func(id, rest string) string { return `{"jsonrpc":"2.0","id":` + id + `,` + rest + `}` }
	many := strings.TrimSuffix(strings.Repeat("[],", 200_000), ",")
	return []attackRow{
		{"valid ping", call("1", `"method":"ping"`)},
		{"not JSON", `{not json`},
		{"truncated", `{"jsonrpc":"2.0","id":2,"method":"ping"`},
		{"trailing bytes", call("3", `"method":"ping"`) + "x"},
		{"two values", call("4", `"method":"ping"`) + ` {}`},
		{"invalid UTF-8 in a string", call("5", `"method":"ping","params":{"_meta":{"x":"`+"\xff\xfe"+`"}}`)},
		{"lone surrogate in an argument", call("6", `"method":"tools/call","params":{"name":"automium_list_fixtures","arguments":{"appId":"\ud800"}}`)},
		{"batch of one initialize", "[" + initializeLine + "]"},
		{"batch of a ping", "[" + call("7", `"method":"ping"`) + "]"},
		{"empty batch", `[]`},
		{"a number", `7`},
		{"METHOD beside method", call("8", `"method":"tools/call","params":{"name":"automium_list_apps","arguments":{}},"METHOD":"ping"`)},
		{"escaped id beside id", call("9", `"\u0069d":10,"method":"ping"`)},
		{"Params beside params", call("11", `"method":"ping","params":{},"Params":{"_meta":{}}`)},
		{"case-variant names in arguments", call("12", `"method":"tools/call","params":{"name":"automium_list_fixtures","arguments":{"appId":"storefront","APPID":"x"}}`)},
		{"Kelvin sign in a _meta name", call("13", `"method":"ping","params":{"_meta":{"\u212aey":1,"key":2}}}`)},
		{"two _meta members", call("14", `"method":"tools/list","params":{"_meta":{},"_Meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`)},
		{"200,000 values in _meta, id first", call("15", `"method":"tools/call","params":{"name":"automium_list_apps","arguments":{},"_meta":{"x":[`+many+`]}}`)},
		{"200,000 values before the id", `{"jsonrpc":"2.0","method":"ping","params":{"_meta":{"x":[` + many + `]}},"id":"late"}`},
		{"nesting 100 deep in capabilities", call("16", `"method":"ping","params":{"capabilities":`+strings.Repeat(`{"a":`, 100)+`1`+strings.Repeat(`}`, 100)+`}`)},
		{"fractional id", call("1.5", `"method":"ping"`)},
		{"id past 2^53", call("9007199254740993", `"method":"ping"`)},
		{"null id", call("null", `"method":"ping"`)},
		{"object id", call(`{"a":1}`, `"method":"ping"`)},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":17,"method":"ping"}`},
		{"method a number", call("18", `"method":5`)},
		{"method of 1 MiB", call("19", `"method":"`+strings.Repeat("m", 1<<20)+`"`)},
		{"unknown method", call("20", `"method":"no/such/method"`)},
		{"params a 1 MiB string", call("21", `"method":"tools/call","params":"`+strings.Repeat("p", 1<<20)+`"`)},
		{"tools/call name of the wrong type", call("22", `"method":"tools/call","params":{"name":5,"pad":"`+strings.Repeat("<", 1<<16)+`"}`)},
		{"prompts/get arguments a string", call("23", `"method":"prompts/get","params":{"name":"draft_journey","arguments":"text"}`)},
		{"resources/read without params", call("24", `"method":"resources/read"`)},
		{"neither request nor response", `{"jsonrpc":"2.0","id":25}`},
		{"response without an id", `{"jsonrpc":"2.0","result":{}}`},
		{"notification with string params", `{"jsonrpc":"2.0","method":"notifications/progress","params":"x"}`},
		{"a notification", `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`},
		{"a notification without its params", `{"jsonrpc":"2.0","method":"notifications/progress"}`},
		{"a notification with an id", call("27", `"method":"notifications/initialized"`)},
		{"unknown tool", call("26", `"method":"tools/call","params":{"name":"`+strings.Repeat("t", 1000)+`","arguments":{}}`)},
		{"string id with escapes", call(`"a\u2028\"b"`, `"method":"ping"`)},
		{"string id with an escaped letter", call(`"\u0041"`, `"method":"ping"`)},
		{"id minus zero", call(`-0`, `"method":"ping"`)},
		{"escaped id and an error", call(`"\u0042"`, `"method":"no/such/method"`)},
		{"byte order mark", "\ufeff" + call("28", `"method":"ping"`)},
		{"method in another case only", call("29", `"METHOD":"ping"`)},
		// The protocol pin reads the version the door read; a version of
		// 1 MiB once reached go-sdk over HTTP, which quoted 4 KiB of it
		// beside the Mcp-Protocol-Version header in a -32020.
		{"protocol version of 1 MiB in _meta", call("30", `"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"`+strings.Repeat("<", 1<<20)+`"}}`)},
		{"protocol version of 1 MiB in _meta, before 2026", call("31", `"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"`+strings.Repeat("1", 1<<20)+`"}}`)},
		// What go-sdk refuses by decoding params or by its method table,
		// rendered on the way out from its code (envelope.SDKError), the
		// same on both transports.
		{"tools/call null params", call("40", `"method":"tools/call","params":null`)},
		{"tools/call _meta a list", call("41", `"method":"tools/call","params":{"name":"automium_list_apps","arguments":{},"_meta":[]}`)},
		{"tools/call arguments a list", call("42", `"method":"tools/call","params":{"name":"automium_list_apps","arguments":[1]}`)},
		{"prompts/get argument a number", call("43", `"method":"prompts/get","params":{"name":"draft_journey","arguments":{"goal":1}}`)},
		{"resources/read uri an object", call("44", `"method":"resources/read","params":{"uri":{"`+strings.Repeat("u", 1000)+`":1}}`)},
		{"logging/setLevel level a list", call("45", `"method":"logging/setLevel","params":{"level":[]}`)},
		{"completion/complete ref a string", call("46", `"method":"completion/complete","params":{"ref":"x","argument":{"name":"a","value":"b"}}`)},
		{"tools/list cursor a number", call("47", `"method":"tools/list","params":{"cursor":7}`)},
		{"second initialize, protocolVersion a number", call("48", `"method":"initialize","params":{"protocolVersion":5,"capabilities":{},"clientInfo":{"name":"x","version":"0"}}`)},
		{"second initialize, capabilities a list", call("49", `"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":[],"clientInfo":{"name":"x","version":"0"}}`)},
		{"second initialize without params", call("50", `"method":"initialize"`)},
		{"a client method sent to the server", call("51", `"method":"sampling/createMessage","params":{}`)},
		{"a request without an id", `{"jsonrpc":"2.0","method":"tools/list"}`},
		{"a notification of an unknown method", `{"jsonrpc":"2.0","method":"notifications/` + strings.Repeat("n", 1000) + `"}`},
		{"a progress notification of the wrong shape", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":"half"}}`},
		// Variants of the params check's classes: shapes go-sdk decodes
		// (served, or refused by the server's handlers with its own
		// errors) and shapes it does not (refused by the door). A second
		// initialize in an initialized session once read as the server's
		// bug (go-sdk's plain error, code 0, became -32603); an error
		// response whose code is a string was refused by stdio and by
		// go-sdk's HTTP transport in two different ways.
		{"tools/call arguments null", call("60", `"method":"tools/call","params":{"name":"automium_list_apps","arguments":null}`)},
		{"tools/call arguments empty list", call("61", `"method":"tools/call","params":{"name":"automium_list_apps","arguments":[]}`)},
		{"tools/call arguments a string", call("62", `"method":"tools/call","params":{"name":"automium_list_apps","arguments":"x"}`)},
		{"tools/call arguments a number", call("63", `"method":"tools/call","params":{"name":"automium_list_apps","arguments":5}`)},
		{"tools/call name null", call("64", `"method":"tools/call","params":{"name":null,"arguments":{}}`)},
		{"tools/call no name", call("65", `"method":"tools/call","params":{"arguments":{}}`)},
		{"tools/call _meta a string", call("66", `"method":"tools/call","params":{"name":"automium_list_apps","arguments":{},"_meta":"x"}`)},
		{"tools/call _meta a number", call("67", `"method":"tools/call","params":{"name":"automium_list_apps","arguments":{},"_meta":5}`)},
		{"tools/call _meta null", call("68", `"method":"tools/call","params":{"name":"automium_list_apps","arguments":{},"_meta":null}`)},
		{"tools/call progressToken object", call("69", `"method":"tools/call","params":{"name":"automium_list_apps","arguments":{},"_meta":{"progressToken":{"a":1}}}`)},
		{"tools/call progressToken list", call("70", `"method":"tools/call","params":{"name":"automium_list_apps","arguments":{},"_meta":{"progressToken":[1]}}`)},
		{"tools/call progressToken bool", call("71", `"method":"tools/call","params":{"name":"automium_list_apps","arguments":{},"_meta":{"progressToken":true}}`)},
		{"tools/call progressToken fraction", call("72", `"method":"tools/call","params":{"name":"automium_list_apps","arguments":{},"_meta":{"progressToken":1.5}}`)},
		{"tools/call progressToken huge string", call("73", `"method":"tools/call","params":{"name":"automium_list_apps","arguments":{},"_meta":{"progressToken":"`+strings.Repeat("<", 1<<16)+`"}}`)},
		{"tools/call task member", call("74", `"method":"tools/call","params":{"name":"automium_list_apps","arguments":{},"task":{"ttl":"x"}}`)},
		{"tools/call unknown members at every level", call("75", `"method":"tools/call","params":{"name":"automium_list_apps","arguments":{},"zz":{"q":[1]},"_meta":{"zz":1}},"zz":1`)},
		{"tools/list cursor huge", call("76", `"method":"tools/list","params":{"cursor":"`+strings.Repeat("<", 1<<20)+`"}`)},
		{"prompts/list cursor bogus", call("77", `"method":"prompts/list","params":{"cursor":"`+strings.Repeat("<", 1000)+`"}`)},
		{"resources/list cursor bogus", call("78", `"method":"resources/list","params":{"cursor":"`+strings.Repeat("<", 1000)+`"}`)},
		{"tools/list cursor a string number", call("79", `"method":"tools/list","params":{"cursor":"7"}`)},
		{"resources/read uri a number", call("80", `"method":"resources/read","params":{"uri":5}`)},
		{"resources/read uri null", call("81", `"method":"resources/read","params":{"uri":null}`)},
		{"resources/read uri empty", call("82", `"method":"resources/read","params":{"uri":""}`)},
		{"resources/read uri huge", call("83", `"method":"resources/read","params":{"uri":"automium://`+strings.Repeat("<", 1<<16)+`"}`)},
		{"resources/read no uri", call("84", `"method":"resources/read","params":{}`)},
		{"prompts/get arguments null", call("85", `"method":"prompts/get","params":{"name":"draft_journey","arguments":null}`)},
		{"prompts/get name null", call("86", `"method":"prompts/get","params":{"name":null}`)},
		{"prompts/get unknown prompt", call("87", `"method":"prompts/get","params":{"name":"`+strings.Repeat("<", 1000)+`"}`)},
		{"prompts/get argument null", call("88", `"method":"prompts/get","params":{"name":"draft_journey","arguments":{"goal":null}}`)},
		{"initialize capabilities null members", call("89", `"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":null,"sampling":null,"elicitation":null,"experimental":null},"clientInfo":{"name":"x","version":"0"}}`)},
		{"initialize no clientInfo", call("90", `"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}`)},
		{"initialize capabilities null", call("91", `"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":null,"clientInfo":{"name":"x","version":"0"}}`)},
		{"initialize protocolVersion a string number", call("92", `"method":"initialize","params":{"protocolVersion":"5","capabilities":{},"clientInfo":{"name":"x","version":"0"}}`)},
		{"initialize protocolVersion huge", call("93", `"method":"initialize","params":{"protocolVersion":"`+strings.Repeat("<", 1<<16)+`","capabilities":{},"clientInfo":{"name":"x","version":"0"}}`)},
		{"initialize empty params", call("94", `"method":"initialize","params":{}`)},
		{"initialize deep in-bound capabilities", call("95", `"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"experimental":{"x":`+strings.Repeat(`{"a":`, 60)+`1`+strings.Repeat(`}`, 60)+`}},"clientInfo":{"name":"x","version":"0"}}`)},
		{"initialize experimental a list", call("96", `"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"experimental":[]},"clientInfo":{"name":"x","version":"0"}}`)},
		{"initialize params a list", call("97", `"method":"initialize","params":[]`)},
		{"ping params a list", call("98", `"method":"ping","params":[]`)},
		{"ping params a string", call("99", `"method":"ping","params":"x"`)},
		{"ping params a number", call("100", `"method":"ping","params":5`)},
		{"tools/list params a list", call("101", `"method":"tools/list","params":[1]`)},
		{"cancelled requestId object", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{"a":1}}}`},
		{"cancelled requestId null", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":null}}`},
		{"cancelled requestId fraction", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1.5}}`},
		{"cancelled requestId huge", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"` + strings.Repeat("<", 1<<16) + `"}}`},
		{"cancelled without params", `{"jsonrpc":"2.0","method":"notifications/cancelled"}`},
		{"cancelled with an id", call("102", `"method":"notifications/cancelled","params":{"requestId":1}`)},
		{"progress from the client", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":0.5}}`},
		{"progress token an object", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":{},"progress":0.5}}`},
		{"roots list_changed with params", `{"jsonrpc":"2.0","method":"notifications/roots/list_changed","params":{"x":1}}`},
		{"roots list_changed params a list", `{"jsonrpc":"2.0","method":"notifications/roots/list_changed","params":[]}`},
		{"initialized params a string", `{"jsonrpc":"2.0","method":"notifications/initialized","params":"x"}`},
		{"elicitation/create", call("103", `"method":"elicitation/create","params":{}`)},
		{"roots/list", call("104", `"method":"roots/list"`)},
		{"sampling/createMessage notification", `{"jsonrpc":"2.0","method":"sampling/createMessage","params":{}}`},
		{"response unknown id", `{"jsonrpc":"2.0","id":9999,"result":{}}`},
		{"response unknown string id", `{"jsonrpc":"2.0","id":"` + strings.Repeat("<", 1000) + `","result":{}}`},
		{"response both result and error", `{"jsonrpc":"2.0","id":105,"result":{},"error":{"code":1,"message":"x"}}`},
		{"error response unknown id", `{"jsonrpc":"2.0","id":106,"error":{"code":1,"message":"` + strings.Repeat("<", 1000) + `"}}`},
		{"error response code a string", `{"jsonrpc":"2.0","id":107,"error":{"code":"x","message":"y"}}`},
		{"response with a method", `{"jsonrpc":"2.0","id":108,"method":"ping","result":{}}`},
		{"server/discover", call("109", `"method":"server/discover"`)},
		{"server/discover params a list", call("110", `"method":"server/discover","params":[]`)},
		{"tasks/get", call("111", `"method":"tasks/get","params":{"taskId":"x"}`)},
		{"tasks/list", call("112", `"method":"tasks/list"`)},
		{"tasks/cancel", call("113", `"method":"tasks/cancel","params":{"taskId":"x"}`)},
		{"tasks/result", call("114", `"method":"tasks/result","params":{"taskId":"x"}`)},
		{"uppercase method", call("115", `"method":"TOOLS/LIST"`)},
		{"Ping", call("116", `"method":"Ping"`)},
		{"subscribe", call("117", `"method":"resources/subscribe","params":{"uri":"automium://x"}`)},
		{"unsubscribe", call("118", `"method":"resources/unsubscribe","params":{"uri":"automium://x"}`)},
		{"subscriptions/listen", call("119", `"method":"subscriptions/listen","params":{}`)},
		{"completion/complete prompt ref", call("120", `"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"draft_journey"},"argument":{"name":"goal","value":"x"}}`)},
		{"completion/complete bad ref type", call("121", `"method":"completion/complete","params":{"ref":{"type":"`+strings.Repeat("<", 1000)+`"},"argument":{"name":"a","value":"b"}}`)},
		{"completion/complete empty", call("122", `"method":"completion/complete","params":{}`)},
		{"logging/setLevel bogus level", call("123", `"method":"logging/setLevel","params":{"level":"`+strings.Repeat("<", 1000)+`"}`)},
		{"logging/setLevel level null", call("124", `"method":"logging/setLevel","params":{"level":null}`)},
		{"logging/setLevel empty", call("125", `"method":"logging/setLevel","params":{}`)},
		{"ping with _meta progressToken", call("126", `"method":"ping","params":{"_meta":{"progressToken":{}}}`)},
		{"tools/call number as string in arguments", call("127", `"method":"tools/call","params":{"name":"automium_list_fixtures","arguments":{"appId":5}}`)},
		{"sessionless call in a session begun by initialize", call("132", `"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"0"}}}`)},
		{"sessionless tools/call in a session begun by initialize", call("133", `"method":"tools/call","params":{"name":"automium_list_apps","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"0"}}}`)},
		{"sessionless call without client capabilities", call("130", `"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`)},
		{"sessionless call with client info a string", call("131", `"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":"`+strings.Repeat("<", 1000)+`"}}`)},
		{"a message over 16 MiB, id first", call(`"big"`, `"method":"tools/call","params":{"name":"automium_list_apps","arguments":{"pad":"`+strings.Repeat("x", 16<<20)+`"}}`)},
	}
}

// TestAttackTableBothTransports: one table of attack classes, sent to the
// binary over stdio and over -http with its token; for each row both give the
// same answer, byte for byte (framing aside), and every answer is bounded.
func TestAttackTableBothTransports(t *testing.T) {
	if testing.Short() {
		t.Skip("a process-level proof; skipped with -short")
	}
	stdio := start(t, "")
	stdio.initialize()
	web := startHTTP(t)
	web.initialize()
	for i, row := range attackTable() {
		t.Run(row.name, func(t *testing.T) {
			status, overHTTP := web.post([]byte(row.message))
			// Calls are served concurrently, so the ping sent behind the
			// row may be answered first: reading goes on until both the
			// ping's answer and, when HTTP answered, one more line are in.
			sentinel := fmt.Sprintf(`"after-%d"`, i)
			stdio.send(row.message, `{"jsonrpc":"2.0","id":`+sentinel+`,"method":"ping"}`)
			var overStdio []byte
			for pinged := false; !pinged || (len(overHTTP) > 0 && overStdio == nil); {
				line := stdio.next()
				if bytes.Contains(line, []byte(`"id":`+sentinel)) {
					pinged = true
					continue
				}
				if overStdio != nil {
					t.Errorf("stdio: a second answer: %.300s", line)
				}
				overStdio = line
			}
			if diff := cmp.Diff(string(overStdio), string(overHTTP)); diff != "" {
				t.Errorf("answers differ (-stdio +http, status %d):\n%.2000s", status, diff)
			}
			for _, answer := range [][]byte{overStdio, overHTTP} {
				if len(answer) > 8<<10 {
					t.Errorf("answer of %d bytes, want a bounded one: %.300s", len(answer), answer)
				}
				// Every row is the client's doing: none may read as the
				// server's bug (-32603) or as no code at all.
				for _, leak := range []string{"*mcp.", "jsonrpc2", "unmarshaling", `"code":0`, `"code":-32603`, strings.Repeat("m", 100), strings.Repeat("p", 100), strings.Repeat("<", 100), strings.Repeat("1", 100)} {
					if bytes.Contains(answer, []byte(leak)) {
						t.Errorf("answer holds %q: %.300s", leak, answer)
					}
				}
			}
			t.Logf("status %d: %.300s", status, overHTTP)
		})
	}
}

// TestBeforeInitializeBothTransports: a call go-sdk would refuse before
// initialize with a plain error (code 0) is refused by the transport, which
// knows the session's state, with the door's message: over stdio before the
// first initialize, over HTTP without a session. The answers are the same.
func TestBeforeInitializeBothTransports(t *testing.T) {
	if testing.Short() {
		t.Skip("a process-level proof; skipped with -short")
	}
	const want = `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request: \"tools/list\" was sent before initialize; send initialize first"}}`
	line := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	stdio := start(t, "")
	stdio.send(line)
	if got := string(stdio.next()); got != want {
		t.Errorf("stdio: %s\nwant %s", got, want)
	}
	web := startHTTP(t)
	if status, got := web.post([]byte(line)); string(got) != want || status != http.StatusBadRequest {
		t.Errorf("HTTP without a session: status %d, %s\nwant 400, %s", status, got, want)
	}
}

// strictJSON is the door's rule on JSON written out independently of it:
// JSON v2's strict decode (one value, valid UTF-8, no name twice exactly) and
// no object with two names equal ignoring case.
func strictJSON(line []byte) bool {
	var v any
	if jsonv2.Unmarshal(line, &v) != nil {
		return false
	}
	var distinct func(any) bool
	distinct = func(v any) bool {
		switch v := v.(type) {
		case map[string]any:
			var names []string
			for name, member := range v {
				for _, other := range names {
					if strings.EqualFold(name, other) {
						return false
					}
				}
				names = append(names, name)
				if !distinct(member) {
					return false
				}
			}
		case []any:
			for _, e := range v {
				if !distinct(e) {
					return false
				}
			}
		}
		return true
	}
	return distinct(v)
}

// TestSessionsKeepBoundedInitializeParams: what go-sdk keeps of a session for
// its whole life, its initialize params, is bounded at the door
// (envelope.MaxSessionParamsBytes, internal to the transport: maxSessionParamsBytes here), on both transports. An initialize over the
// bound is refused with -32602 and leaves no session; 64 HTTP sessions (the
// session cap) that each initialized with params just under it stay resident in
// a few MiB more than one session. Before the bound, a 15 MiB clientInfo.name
// left about 29 MiB in every idle session, and 24 of them held 761 MiB.
func TestSessionsKeepBoundedInitializeParams(t *testing.T) {
	if testing.Short() {
		t.Skip("a process-level proof; skipped with -short")
	}
	initialize := func(nameBytes int) []byte {
		return []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"` +
			strings.Repeat("n", nameBytes) + `","version":"0"}}}`)
	}
	const overhead = 89 // the params' bytes around the name
	const want = `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params: the params of \"initialize\" hold 15728729 bytes; a session keeps them for its whole life, so the limit is 65536: send a shorter clientInfo and fewer capabilities"}}`

	stdio := start(t, "")
	stdio.send(string(initialize(15 << 20)))
	if got := string(stdio.next()); got != want {
		t.Errorf("stdio, a 15 MiB clientInfo.name: %.500s\nwant %s", got, want)
	}
	web := startHTTP(t)
	status, got := web.post(initialize(15 << 20))
	if status != http.StatusBadRequest || string(got) != want {
		t.Errorf("HTTP, a 15 MiB clientInfo.name: status %d, %.500s\nwant 400, %s", status, got, want)
	}
	if web.session != "" {
		t.Errorf("the refused initialize left session %q", web.session)
	}

	pid := web.cmd.Process.Pid
	const sessions = 64 // transport.DefaultHTTPMaxSessions
	name := maxSessionParamsBytes - overhead
	var before int64
	for i := range sessions {
		web.session = ""
		if status, msg := web.post(initialize(name)); status != http.StatusOK || !bytes.Contains(msg, []byte(`"result"`)) {
			t.Fatalf("session %d: initialize at the bound: status %d, %.300s", i, status, msg)
		}
		if status, _ := web.post([]byte(initializedLine)); status != http.StatusAccepted {
			t.Fatalf("session %d: notifications/initialized: status %d", i, status)
		}
		if i == 0 {
			before, _ = procRSS(t, pid)
		}
	}
	after, peak := procRSS(t, pid)
	t.Logf("VmRSS after one session %.1f MiB, after %d %.1f MiB; VmHWM %.1f MiB", float64(before)/(1<<20), sessions, float64(after)/(1<<20), float64(peak)/(1<<20))
	// Each session keeps its params a few times over (the request, go-sdk's
	// decoded copy, the answer's echo is not kept): 64 × 64 KiB × 4 is 16 MiB.
	if grown := after - before; grown > 32<<20 {
		t.Errorf("%d sessions at the bound grew the server by %.1f MiB, want at most 32 MiB", sessions, float64(grown)/(1<<20))
	}
}

// maxSessionParamsBytes is the door's bound on the params a session keeps
// (envelope.MaxSessionParamsBytes, which is internal to the transport):
// 64 KiB, as docs/limits.md says.
const maxSessionParamsBytes = 64 << 10
