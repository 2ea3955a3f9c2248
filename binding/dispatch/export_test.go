package dispatch

// MarkChanged records a list_changed notification as the client handlers do, so
// tests need not wait for the SDK's debounced notification.
func MarkChanged(s *Server) {
	s.mu.Lock()
	s.changed = true
	s.mu.Unlock()
}
