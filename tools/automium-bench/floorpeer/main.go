// Command floorpeer is the floor automium-bench divides by: an MCP server over
// stdio in a few dozen lines of plain Go, which decodes each line and writes a
// response holding bytes it encoded once. No real server can do less per call, so
// throughput(automium-mcp) ÷ throughput(floor) says how much of the protocol's
// unavoidable cost a call adds.
//
// It answers initialize, ignores notifications, and serves tools/call from a
// table the harness fills first with bench_load calls ({"tool", "args", "text",
// "structured"}): a call with that tool name and those argument bytes gets text
// as one text block and structured as its structured content, as automium-mcp's
// tools answer. It imports
// nothing but the standard library and the harness's record type (benchload,
// itself only encoding/json), so its start-up is the Go runtime's.
package main

import (
	"bufio"
	"encoding/json"
	"os"

	"github.com/automium/automium/tools/automium-bench/internal/benchload"
)

type request struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"params"`
}

type textContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type toolResult struct {
	Content           []textContent   `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
}

func main() {
	in := bufio.NewReaderSize(os.Stdin, 64<<10)
	out := bufio.NewWriterSize(os.Stdout, 64<<10)
	results := map[string][]byte{}
	ok, _ := json.Marshal(toolResult{Content: []textContent{{"text", "{}"}}, StructuredContent: json.RawMessage("{}")})
	initialized := []byte(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"floor","version":"1"}}`)
	var line []byte
	for {
		chunk, err := in.ReadSlice('\n')
		line = append(line[:0], chunk...)
		if err == bufio.ErrBufferFull {
			for err == bufio.ErrBufferFull {
				chunk, err = in.ReadSlice('\n')
				line = append(line, chunk...)
			}
		}
		if err != nil && len(line) == 0 {
			return
		}
		var req request
		if json.Unmarshal(line, &req) != nil || req.ID == nil {
			continue // a notification, or nothing the harness sends
		}
		var result []byte
		switch req.Method {
		case "initialize":
			result = initialized
		case "tools/call":
			if req.Params.Name == "bench_load" {
				var l benchload.Load
				if json.Unmarshal(req.Params.Arguments, &l) == nil {
					results[l.Tool+"\x00"+string(l.Args)], _ = json.Marshal(toolResult{Content: []textContent{{"text", l.Text}}, StructuredContent: l.Structured})
				}
				result = ok
			} else if result = results[req.Params.Name+"\x00"+string(req.Params.Arguments)]; result == nil {
				result = ok
			}
		default:
			result = []byte("{}")
		}
		out.WriteString(`{"jsonrpc":"2.0","id":`)
		out.Write(req.ID)
		out.WriteString(`,"result":`)
		out.Write(result)
		out.WriteString("}\n")
		if out.Flush() != nil {
			return
		}
	}
}
