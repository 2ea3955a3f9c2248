package safetytest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/automium/automium/internal/echo"
	"github.com/automium/automium/internal/hostile"
)

// fieldCase is one hostile message: the JSON-RPC request around the value's
// bytes, which are written between head and tail as they are.
type fieldCase struct {
	what, id, head, tail string
}

// advertisedFieldCases reads the tools and prompts the binary advertises and
// returns, for each, a request per string field of its input schema
// (hostile.StringFields, as mcpserver's in-memory test reads them), one per
// prompt argument, and one whose unknown argument name is the value.
func advertisedFieldCases(t *testing.T, p *process) []fieldCase {
	t.Helper()
	var tools struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(parse(t, p.call(`{"jsonrpc":"2.0","id":"tools","method":"tools/list"}`)).Result, &tools); err != nil || len(tools.Tools) == 0 {
		t.Fatalf("tools/list: %v, %d tools", err, len(tools.Tools))
	}
	var prompts struct {
		Prompts []struct {
			Name      string `json:"name"`
			Arguments []struct {
				Name string `json:"name"`
			} `json:"arguments"`
		} `json:"prompts"`
	}
	if err := json.Unmarshal(parse(t, p.call(`{"jsonrpc":"2.0","id":"prompts","method":"prompts/list"}`)).Result, &prompts); err != nil || len(prompts.Prompts) == 0 {
		t.Fatalf("prompts/list: %v, %d prompts", err, len(prompts.Prompts))
	}
	var cases []fieldCase
	add := func(what, method, name, argsHead, argsTail string) {
		id := strconv.Quote(fmt.Sprint("field-", len(cases)))
		cases = append(cases, fieldCase{what, id,
			`{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":{"name":` + strconv.Quote(name) + `,"arguments":` + argsHead,
			argsTail + `}}`})
	}
	for _, tl := range tools.Tools {
		fields, err := hostile.StringFields(tl.InputSchema)
		if err != nil {
			t.Fatalf("%s: %v", tl.Name, err)
		}
		for _, f := range fields {
			head, tail, ok := hostile.Args(f)
			if !ok {
				t.Fatalf("%s: a string field at %q is not in an object", tl.Name, f)
			}
			add(tl.Name+"."+strings.Join(f, "."), "tools/call", tl.Name, head, tail)
		}
		add(tl.Name+".<unknown name>", "tools/call", tl.Name, `{"`, `":"x"}`)
	}
	for _, pr := range prompts.Prompts {
		for _, a := range pr.Arguments {
			add(pr.Name+"."+a.Name, "prompts/get", pr.Name, `{`+strconv.Quote(a.Name)+`:"`, `"}`)
		}
		add(pr.Name+".<unknown name>", "prompts/get", pr.Name, `{"`, `":"x"}`)
	}
	return cases
}

// TestHostileFieldsBothTransports is the rule "no answer repeats a client
// value whole" over the two real wires: the binary, over stdio and over
// -http with its token, one process each, gets a 1 MiB value and a 7 MiB value
// of < in every string field of every tool and every prompt argument it
// advertises, and as an unknown argument name. The value is written as raw
// bytes (raw < is valid JSON; an HTML-escaping encoder would send \u003c, six
// times as long). Every answer is at most 64 KiB, quotes at most
// echo.MaxPrefix units of the value in any spelling, and is the same on both
// transports. The largest answer per transport is logged for SECURITY.md.
func TestHostileFieldsBothTransports(t *testing.T) {
	skipUnlessProofs(t, "sends some 300 MiB of hostile values to two processes")
	stdio := start(t, "")
	stdio.initialize()
	web := startHTTP(t)
	web.initialize()
	cases := advertisedFieldCases(t, stdio)
	largest := map[string]int{}
	var largestWhat [2]string
	for _, v := range hostile.Values() {
		value := v.Bytes() // one copy per value, written into each request
		for _, c := range cases {
			what := c.what + "=" + v.Name
			size := int64(len(c.head) + len(value) + len(c.tail))
			_, overHTTP := web.postFrom(io.MultiReader(strings.NewReader(c.head), bytes.NewReader(value), strings.NewReader(c.tail)), size)
			for _, b := range [][]byte{[]byte(c.head), value, []byte(c.tail + "\n")} {
				if _, err := stdio.Stdin().Write(b); err != nil {
					t.Fatalf("%s: writing to the server: %v; stderr: %s", what, err, stdio.Stderr)
				}
			}
			// One request is in flight and the server sends nothing
			// unasked, so the next line is its answer.
			overStdio := stdio.next()
			if !bytes.Contains(overStdio, []byte(`"id":`+c.id)) {
				t.Fatalf("%s: stdio answered another request: %.300s", what, overStdio)
			}
			if diff := cmp.Diff(string(overStdio), string(overHTTP)); diff != "" {
				t.Errorf("%s: answers differ (-stdio +http):\n%.2000s", what, diff)
			}
			for i, answer := range [][]byte{overStdio, overHTTP} {
				transport := [2]string{"stdio", "http"}[i]
				if problem := hostile.Check(answer, v, echo.MaxPrefix); problem != "" {
					t.Errorf("%s over %s: %s", what, transport, problem)
				}
				if !bytes.Contains(answer, []byte(`"error"`)) && !bytes.Contains(answer, []byte(`"isError":true`)) && !bytes.Contains(answer, []byte(`"valid":false`)) {
					t.Errorf("%s over %s: accepted: %.300s", what, transport, answer)
				}
				if len(answer) > largest[transport] {
					largest[transport], largestWhat[i] = len(answer), what
				}
			}
		}
	}
	t.Logf("%d requests per transport (%d fields and names, 2 values); largest answer: stdio %d bytes (%s), http %d bytes (%s)",
		2*len(cases), len(cases), largest["stdio"], largestWhat[0], largest["http"], largestWhat[1])
	_, stdioPeak := stdio.rss()
	_, httpPeak := procRSS(t, web.cmd.Process.Pid)
	_, testPeak := procRSS(t, os.Getpid())
	t.Logf("VmHWM: stdio server %.0f MiB, http server %.0f MiB, this test %.0f MiB", float64(stdioPeak)/(1<<20), float64(httpPeak)/(1<<20), float64(testPeak)/(1<<20))
}
