//go:build unix

package testsupport

import (
	"os"
	"path/filepath"
	"syscall"
)

// buildLock serialises the test binaries' builds (BuildCached) across the test processes
// of one go test ./... run (each package's tests are a process of their own),
// so that with a cold build cache the second build finds every package the
// first compiled instead of compiling them again beside it, on a machine
// with two cores. It returns the unlock; failing to lock only costs time.
func buildLock() func() {
	f, err := os.OpenFile(filepath.Join(os.TempDir(), "automium-test-build.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return func() {}
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return func() {}
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}
}
