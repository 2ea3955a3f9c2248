package boltstore_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/automium/automium/binding"
	"github.com/automium/automium/binding/boltstore"
	"github.com/automium/automium/binding/steptest"
)

// TestFileChangedWhileOpen: the store's file appended to (part of a page,
// whole pages of garbage, a copy of its own pages) while it is open, just
// before a write; and cut short while it is open. Appended bytes past the
// pages bbolt uses are never read, so the store goes on and, opened again,
// holds the truth and the new step, or is refused; a file cut short is
// refused at the next read (bbolt's memory fault recovered), never a crash,
// and its Close returns (bbolt's own would wait forever on the locks of the
// transaction that faulted).
func TestFileChangedWhileOpen(t *testing.T) {
	clean := built(t)
	ps := pageSize(t, clean)
	after := map[string]binding.Position{}
	for k, v := range truth {
		after[k] = v
	}
	after["run-2"] = binding.Position{PlanID: steptest.PlanB, Next: 2}
	for name, extra := range map[string][]byte{
		"part of a page":         []byte("appended"),
		"two pages of garbage":   make([]byte, 2*ps),
		"a copy of its pages":    clean,
		"a page and a half more": make([]byte, ps+ps/2),
	} {
		t.Run("appended "+name, func(t *testing.T) {
			path := write(t, clean)
			s := open(t, path)
			boltstore.SetBeforeWrite(func() {
				f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
				if err != nil {
					t.Error(err)
					return
				}
				defer f.Close()
				if _, err := f.Write(extra); err != nil {
					t.Error(err)
				}
			})
			ok, err := s.Advance("run-2", truth["run-2"], steptest.PlanB)
			boltstore.SetBeforeWrite(nil)
			if err != nil {
				if p := refusal(err); p != "" {
					t.Error(p)
				}
			}
			s.Close()
			want := after
			if !ok {
				want = truth
			}
			if p := judgeWith(path, want, nil); p != "" {
				t.Errorf("opened again: %s", p)
			}
		})
	}
	t.Run("cut short", func(t *testing.T) {
		path := write(t, clean)
		s := open(t, path)
		defer s.Close()
		if err := os.Truncate(path, int64(ps)); err != nil {
			t.Fatal(err)
		}
		// The mapped pages past the end now fault when read.
		for _, run := range []string{"run-1", "run-2", "run-3"} {
			if _, err := s.Position(run); err != nil {
				if p := refusal(err); p != "" {
					t.Errorf("Position(%s): %s", run, p)
				}
			}
			if ok, err := s.Advance(run, binding.Position{}, steptest.PlanA); ok {
				t.Errorf("step 0 of %s authorized again", run)
			} else if err != nil {
				if p := refusal(err); p != "" {
					t.Errorf("Advance(%s): %s", run, p)
				}
			}
		}
	})
}

// TestPermissions: a store this process may not read, or may read but not
// write, is refused at Open, coded, saying so and what to do. Tests run as
// root, which file modes do not stop, so the check runs on a thread whose
// file-system user is "nobody" (setfsuid, Linux; per thread, so the
// goroutine is locked to it).
func TestPermissions(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	const nobody = 65534
	for _, tt := range []struct {
		name  string
		mode  os.FileMode
		owner int
	}{
		{"no access", 0o600, 0},
		{"read-only", 0o400, nobody},
		{"write-only", 0o200, nobody},
		{"in a directory it may not enter", 0o600, nobody},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".db")
			if strings.HasPrefix(tt.name, "in a directory") {
				sub := filepath.Join(dir, "closed")
				if err := os.Mkdir(sub, 0o700); err != nil {
					t.Fatal(err)
				}
				path = filepath.Join(sub, "steps.db")
			}
			if err := os.WriteFile(path, built(t), tt.mode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, tt.mode); err != nil {
				t.Fatal(err)
			}
			uid := os.Geteuid()
			if uid == 0 {
				if err := os.Chown(path, tt.owner, tt.owner); err != nil {
					t.Fatal(err)
				}
				uid = nobody
			} else if tt.owner != 0 {
				t.Skip("the file cannot be given to another user without root; the no-access case covers this process")
			}
			var err error
			asUser(t, uid, func() { _, err = boltstore.Open(path, nil) })
			if codeOf(err) != binding.CodeStateUnavailable || !strings.Contains(err.Error(), "permission denied") || !strings.Contains(err.Error(), "may read and write it") {
				t.Errorf("Open = %v, want state_unavailable saying permission denied and what to do", err)
			}
			if strings.Contains(err.Error(), "another process") {
				t.Errorf("Open = %v: a permission error is not a lock held by another process", err)
			}
		})
	}
}

// asUser runs fn on a thread whose file-system user ID is uid, when the
// process is root; as the process otherwise.
func asUser(t *testing.T, uid int, fn func()) {
	t.Helper()
	if os.Geteuid() != 0 {
		fn()
		return
	}
	runtime.LockOSThread()
	setfsuid := func(id int) int {
		prev, _, _ := syscall.RawSyscall(syscall.SYS_SETFSUID, uintptr(id), 0, 0)
		return int(prev)
	}
	prev := setfsuid(uid)
	if now := setfsuid(uid); now != uid {
		setfsuid(prev)
		runtime.UnlockOSThread()
		t.Skipf("setfsuid(%d) is not permitted here (file-system user stays %d); a root process cannot be denied a file otherwise", uid, now)
	}
	fn()
	if setfsuid(prev); setfsuid(prev) != prev {
		// The thread keeps another user: leave it locked, so that it
		// ends with this goroutine and nothing else runs on it.
		t.Fatal("the file-system user could not be restored")
	}
	runtime.UnlockOSThread()
}
