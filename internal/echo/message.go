package echo

import (
	"fmt"
	"io"
	"slices"
)

// A Message is a message as data: a format written by this module and the
// arguments it is about, some of which a client sent. It is rendered by
// [Message.Render], the one renderer of every message the module writes
// (errors of the root package, of the MCP adapter and of its prompts, and the
// log lines that repeat a client value), so that how a client value appears in
// a message is decided in one place: through [Quote], whatever the verb.
//
// Arguments are read by type:
//   - [Value]: something a client sent; rendered by [Quote], so it never adds
//     more than a few hundred bytes to a message, whatever its length;
//   - [Name]: the Go name of a capability, rendered in the words of the reader
//     (see [Words]), so one problem reads "from CreateRunSubmission" to a Go
//     caller and "from automium_create_run_submission" to an agent without
//     anyone rewriting the text after it was made;
//   - Message: a part of the message, rendered with the same words;
//   - anything else (numbers, this module's own words): as fmt formats it.
//
// A Message is immutable once made, and cheap to copy.
type Message struct {
	format string
	args   []any
}

// Value marks a string a client sent. Whatever the verb (%s, %q, %v, a
// width), fmt writes it through [Quote] and nothing more, so a Value is
// bounded wherever it is formatted, in a Message or not.
type Value string

// Format writes the bounded quote of v.
func (v Value) Format(f fmt.State, _ rune) { io.WriteString(f, Quote(string(v))) }

// Name marks the Go name of a capability, such as CreateRunSubmission, which a
// [Words] may turn into the name its reader calls it by.
type Name string

// Words turns a capability's Go name into the name a reader calls it by. A nil
// Words keeps Go names.
type Words func(goName string) string

// Msg makes a Message. The format is this module's own text; every client value
// among args must be a [Value].
func Msg(format string, args ...any) Message {
	return Message{format: format, args: args}
}

// IsZero reports whether m was never made.
func (m Message) IsZero() bool { return m.format == "" && m.args == nil }

// Render writes m in the given words: client values through [Quote], capability
// names through words, parts with the same words.
func (m Message) Render(words Words) string {
	if len(m.args) == 0 {
		return m.format
	}
	if !slices.ContainsFunc(m.args, needsWords) {
		return fmt.Sprintf(m.format, m.args...)
	}
	args := make([]any, len(m.args))
	for i, a := range m.args {
		// A Value formats itself through Quote.
		switch v := a.(type) {
		case Name:
			args[i] = string(v)
			if words != nil {
				args[i] = words(string(v))
			}
		case Message:
			args[i] = v.Render(words)
		default:
			args[i] = a
		}
	}
	return fmt.Sprintf(m.format, args...)
}

// needsWords reports whether an argument is rendered differently in different
// words.
func needsWords(a any) bool {
	switch a.(type) {
	case Name, Message:
		return true
	}
	return false
}

// String renders m with Go names.
func (m Message) String() string { return m.Render(nil) }

// Values marks each of a list of client values, for a format that lists them.
func Values(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = Value(v)
	}
	return out
}
