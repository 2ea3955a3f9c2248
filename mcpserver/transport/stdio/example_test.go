package stdio_test

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"slices"
	"strings"

	"github.com/automium/automium/mcpserver"
	"github.com/automium/automium/mcpserver/transport/stdio"
)

// Serving Automium, or any *mcp.Server, on this transport: a malformed line is
// answered and the session goes on, and the ping read just before the end of
// input is still answered. Reader and Writer default to stdin and stdout.
func Example() {
	input := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"example","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{not json`,
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`,
	}, "\n")
	var out bytes.Buffer
	server := mcpserver.New(nil)
	if err := server.Run(context.Background(), &stdio.Transport{Reader: strings.NewReader(input), Writer: &out}); err != nil {
		log.Fatal(err)
	}
	// Answers may come in any order, as MCP allows: sort them, and leave out
	// initialize's long answer.
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	slices.Sort(lines)
	for _, line := range lines {
		if !strings.Contains(line, `"id":1,`) {
			fmt.Println(line)
		}
	}
	// Output:
	// {"jsonrpc":"2.0","id":2,"result":{}}
	// {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: invalid character 'o' in literal null (expecting 'u') at byte 2"}}
}
