package dispatch

// MarkChanged records a list_changed notification as the client handlers do, so
// tests need not wait for the SDK's debounced notification.
func MarkChanged(s *Server) {
	s.mu.Lock()
	s.changed = true
	s.mu.Unlock()
}

// DefaultLimits returns the catalog limits a nil Options gives.
func DefaultLimits() (items, pages int) {
	d := New(nil, nil)
	return d.opts.MaxCatalogItems, d.opts.MaxCatalogPages
}
