// Package toolcalls carries one valid call of every tool of mcpserver's tool
// table to the programs that replay them: the traced session of
// tools/internal/safetytest and the bench (tools/automium-bench). The calls
// are the rows' own examples, so a new row is called by both without a line
// of theirs; their tests compare the tools they call with the table.
//
// mcpserver sets the hook when it is initialized; a program that calls
// [Examples] imports mcpserver, as both do to serve it.
package toolcalls

import "encoding/json"

// Call is one tool call: the tool's name and its JSON arguments.
type Call struct {
	Tool string
	Args json.RawMessage
}

// examples is the hook, set once by mcpserver's init and only read after.
var examples func() []Call

// Register sets the hook; mcpserver calls it from init.
func Register(f func() []Call) { examples = f }

// Examples returns one valid call of every tool, in the order of the table.
// It panics when mcpserver is not linked in.
func Examples() []Call {
	if examples == nil {
		panic("toolcalls: mcpserver is not linked in; import it")
	}
	return examples()
}
