package echo

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"unicode"
	"unicode/utf8"
)

// BoundLogs returns a handler that writes every record through h with each
// attribute value bounded by [Quote]: a string longer than [MaxPrefix] bytes,
// or one that is not plain printable UTF-8, and the text of an error or any
// other non-scalar value under the same rule. It is for a logger handed to
// code that logs client values without saying which they are (the MCP SDK
// logs, at info, the level a client asks for in logging/setLevel, whole): a
// log line is a message too. This module's own log calls pass client values
// as [Value] instead, and keep their own long values, such as a stack.
func BoundLogs(h slog.Handler) slog.Handler {
	if b, ok := h.(boundLogs); ok {
		return b
	}
	return boundLogs{h}
}

type boundLogs struct{ h slog.Handler }

func (b boundLogs) Enabled(ctx context.Context, l slog.Level) bool { return b.h.Enabled(ctx, l) }

func (b boundLogs) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(boundAttr(a))
		return true
	})
	return b.h.Handle(ctx, out)
}

func (b boundLogs) WithAttrs(attrs []slog.Attr) slog.Handler {
	bounded := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		bounded[i] = boundAttr(a)
	}
	return boundLogs{b.h.WithAttrs(bounded)}
}

func (b boundLogs) WithGroup(name string) slog.Handler { return boundLogs{b.h.WithGroup(name)} }

// boundAttr bounds one attribute's value; numbers, bools, times and durations
// are bounded already.
func boundAttr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, bounded(v.String()))
	case slog.KindGroup:
		group := v.Group()
		out := make([]any, len(group))
		for i, g := range group {
			out[i] = boundAttr(g)
		}
		return slog.Group(a.Key, out...)
	case slog.KindAny:
		return slog.String(a.Key, bounded(fmt.Sprint(v.Any())))
	}
	return slog.Attr{Key: a.Key, Value: v}
}

// bounded is s itself when it is short, printable UTF-8, else its bounded
// quote.
func bounded(s string) string {
	if len(s) <= MaxPrefix && utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) && r != ' ' }) {
		return s
	}
	return Quote(s)
}
