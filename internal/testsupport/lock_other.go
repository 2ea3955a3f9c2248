//go:build !unix

package testsupport

// buildLock does nothing where flock is not available: builds may then run
// side by side, which costs time only.
func buildLock() func() { return func() {} }
