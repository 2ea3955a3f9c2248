package dispatch

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// MarkChanged records a list_changed notification as the client handlers do, so
// tests need not wait for the SDK's debounced notification.
func MarkChanged(s *Server) {
	s.mu.Lock()
	s.changes++
	s.mu.Unlock()
}

// DefaultLimits returns the catalog limits a nil Options gives.
func DefaultLimits() (items, pages int) {
	d := New(nil, nil)
	return d.opts.MaxCatalogItems, d.opts.MaxCatalogPages
}

// Ended returns a channel closed once s is no longer routable, so tests can
// wait for a session the server ended without a clock.
func Ended(s *Server) <-chan struct{} { return s.ended }

// Noticed returns a channel that receives after the server's list_changed
// notifications arrive, so tests can wait for a real one without a clock.
func Noticed(s *Server) <-chan struct{} { return s.noticed }

// SetPageHook sets the hook run before each page is asked for.
func SetPageHook(f func(ctx context.Context, method string)) { pageHook = f }

// Replayed returns how many of s's reads were proved by a byte-identical
// replay of the recorded list answers.
func Replayed(s *Server) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.replayed
}

// SetWriteHook sets the hook the tap runs as go-sdk hands it a message,
// before the tap looks at it.
func SetWriteHook(f func(msg jsonrpc.Message)) { writeHook = f }

// Identical returns how many of s's replayed answers were taken as
// byte-identical lines by the dispatcher's own transport, undecoded.
func Identical(s *Server) uint64 {
	if s.tap == nil {
		return 0
	}
	s.tap.mu.Lock()
	defer s.tap.mu.Unlock()
	return s.tap.same
}
