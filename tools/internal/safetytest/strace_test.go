package safetytest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/automium/automium/internal/testsupport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestStraceWholeSession runs automium-mcp under `strace -f` through a whole
// session driven by the go-sdk client (protocol 2025-11-25: initialize, every
// list, every resource read, every tool with good and bad input, every prompt,
// every completion) and proves from the kernel's side that the process:
//
//   - creates, writes, truncates, renames or deletes no file: every open is
//     read-only and every path-taking call names a file on a short allowlist of
//     what the Go runtime reads at start-up;
//   - opens no socket, of any family, and so makes no network call;
//   - starts no process: exactly one execve, the first, and every clone is a
//     thread of the same process;
//   - writes only to stdout, stderr and the runtime's own eventfd;
//   - never reads /proc/self/environ (the environment a Go program sees is on its
//     stack, so strace cannot see Getenv; the root package's source scan,
//     TestNoForbiddenCallsInNonTestCode, covers that);
//   - makes no system call outside a fixed list, so anything new fails the test
//     until someone decides it is harmless.
//
// Every system call is traced (no -e trace filter), each thread to its own file
// (-ff), so no call is split across lines. The test is skipped only when strace
// is not installed; .ci/run installs it.
func TestStraceWholeSession(t *testing.T) {
	if testing.Short() {
		t.Skip("a process-level proof; skipped with -short, run in full by go test ./... and CI")
	}
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("strace is not installed (apt-get install strace); .ci/run installs it")
	}
	dir := t.TempDir()
	prefix := filepath.Join(dir, "trace")
	cmd := exec.Command(strace, "-f", "-ff", "-qq", "-e", "signal=none", "-s", "64", "-o", prefix, binary(t))
	var stderr testsupport.LockedBuffer
	cmd.Stderr = &stderr

	ctx := testsupport.Context(t)
	client := mcp.NewClient(&mcp.Implementation{Name: "safetytest-strace", Version: "v0"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connecting through strace: %v; stderr: %s", err, stderr.String())
	}
	if got := cs.InitializeResult().ProtocolVersion; got != "2025-11-25" {
		t.Errorf("negotiated %q, want 2025-11-25", got)
	}
	calls := sessionCalls()
	for _, c := range calls {
		data, err := sdkCall(ctx, cs, c)
		checkSDKOutcome(t, c, data, err)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("closing the session: %v", err)
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("strace exited with status %d (the server's status); stderr: %s", code, stderr.String())
	}

	tr := readTrace(t, prefix)
	problems := tr.check()
	// The trace must show the session itself, or an empty trace would pass.
	if tr.stdoutWrites < len(calls)+1 {
		problems = append(problems, fmt.Sprintf("only %d writes to stdout for %d requests: the trace is incomplete", tr.stdoutWrites, len(calls)+1))
	}
	if !tr.exited {
		problems = append(problems, "no exit_group: the trace is incomplete")
	}
	if len(problems) > 0 {
		t.Errorf("the trace of %d threads breaks the safety boundary:\n  %s\n\nsystem calls seen:\n%s",
			tr.threads, strings.Join(problems, "\n  "), tr.summary())
	} else {
		t.Logf("%d threads, %d system calls, %d opens (all read-only, allowlisted), %d stdout writes; counts:\n%s",
			tr.threads, tr.total, len(tr.opens), tr.stdoutWrites, tr.summary())
	}
}

// straceLine matches one completed call in an -ff trace file: name(args) = result.
var straceLine = regexp.MustCompile(`^([a-z0-9_]+)\((.*)\)\s+=\s+(.*)$`)

// straceUnknownAtExit matches what strace prints, padded, for a thread that the
// process's exit stopped between system calls.
var straceUnknownAtExit = regexp.MustCompile(`^\?\?\?\(\)\s+=\s+\?$`)

// straceDetached matches a call strace detached from while it was still blocked.
var straceDetached = regexp.MustCompile(`^([a-z0-9_]+\(.*?)\s*<detached \.\.\.>$`)

// syscallEvent is one traced call.
type syscallEvent struct {
	file   string // trace file, one per thread
	index  int    // position in that file
	name   string
	args   string
	result string
	raw    string
}

// trace is everything read from the per-thread trace files.
type trace struct {
	threads      int
	total        int
	events       []syscallEvent
	counts       map[string]int
	opens        []syscallEvent
	stdoutWrites int
	exited       bool
	unparsed     []string
}

func readTrace(t *testing.T, prefix string) *trace {
	t.Helper()
	files, err := filepath.Glob(prefix + ".*")
	if err != nil || len(files) == 0 {
		t.Fatalf("no trace files at %s.*: %v", prefix, err)
	}
	tr := &trace{threads: len(files), counts: map[string]int{}}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := strings.TrimSpace(string(data))
		if text == "" {
			// A thread that strace saw start but that made no call it
			// recorded before the process exited leaves an empty file: it
			// holds no system call, so nothing in it can break a rule.
			continue
		}
		lines := strings.Split(text, "\n")
		for i, l := range lines {
			if i == len(lines)-1 && straceUnknownAtExit.MatchString(l) {
				// A thread stopped by exit_group between system calls has no
				// call left to decode; strace prints this as its last line.
				continue
			}
			if d := straceDetached.FindStringSubmatch(l); d != nil {
				// A call still blocked when the process exited: strace detaches
				// from it and prints what it has, the name and the arguments.
				l = d[1] + ") = ?"
			}
			m := straceLine.FindStringSubmatch(l)
			if m == nil {
				tr.unparsed = append(tr.unparsed, filepath.Base(f)+": "+l)
				continue
			}
			ev := syscallEvent{file: filepath.Base(f), index: i, name: m[1], args: m[2], result: m[3], raw: l}
			tr.events = append(tr.events, ev)
			tr.counts[ev.name]++
			tr.total++
		}
	}
	return tr
}

// summary lists the system calls seen with their counts, most frequent first.
func (tr *trace) summary() string {
	names := make([]string, 0, len(tr.counts))
	for n := range tr.counts {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int {
		if tr.counts[a] != tr.counts[b] {
			return tr.counts[b] - tr.counts[a]
		}
		return strings.Compare(a, b)
	})
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "  %-20s %d\n", n, tr.counts[n])
	}
	for _, o := range tr.opens {
		fmt.Fprintf(&b, "  open: %s\n", o.raw)
	}
	return b.String()
}

// runtimeSyscalls are the system calls a static Go program makes for itself while
// serving over stdio: memory, threads, scheduling, signals, timers, the netpoller
// (epoll and eventfd, which Go sets up even without sockets) and stdio. Any other
// call fails the test, so a new kind of behaviour is looked at before it ships.
var runtimeSyscalls = map[string]bool{
	"arch_prctl": true, "brk": true, "clone": true, "close": true, "epoll_create1": true,
	"epoll_ctl": true, "epoll_pwait": true, "epoll_pwait2": true, "epoll_wait": true, "eventfd2": true,
	"execve": true, "exit": true, "exit_group": true, "fcntl": true, "fstat": true, "futex": true,
	"getpid": true, "getppid": true, "getrandom": true, "getrlimit": true, "gettid": true, "madvise": true,
	"mincore": true, "mmap": true, "mprotect": true, "munmap": true, "nanosleep": true, "newfstatat": true,
	"openat": true, "pread64": true, "prctl": true, "prlimit64": true, "read": true, "rseq": true,
	"rt_sigaction": true, "rt_sigprocmask": true, "rt_sigreturn": true, "sched_getaffinity": true,
	"sched_yield": true, "set_robust_list": true, "set_tid_address": true, "setitimer": true,
	"sigaltstack": true, "tgkill": true, "timer_create": true, "timer_delete": true, "timer_settime": true,
	"uname": true, "write": true, "clock_gettime": true, "clock_nanosleep": true, "gettimeofday": true,
	"pipe2": true, "getuid": true, "geteuid": true, "getgid": true, "getegid": true,
	// The kernel resumes a sleep a signal interrupted (the runtime preempts
	// threads with signals) with restart_syscall; rare, and as harmless as the
	// nanosleep it continues.
	"restart_syscall": true,
}

// forbiddenSyscalls name what the boundary excludes, so that the failure message
// says which promise broke rather than only that a call is new.
var forbiddenSyscalls = map[string]string{
	"socket": "network", "socketpair": "network", "connect": "network", "bind": "network", "listen": "network",
	"accept": "network", "accept4": "network", "sendto": "network", "sendmsg": "network", "sendmmsg": "network",
	"recvfrom": "network", "recvmsg": "network", "recvmmsg": "network", "getsockopt": "network", "setsockopt": "network",
	"creat": "file creation", "mkdir": "file creation", "mkdirat": "file creation", "mknod": "file creation",
	"mknodat": "file creation", "memfd_create": "file creation", "link": "file creation", "linkat": "file creation",
	"symlink": "file creation", "symlinkat": "file creation",
	"unlink": "file deletion", "unlinkat": "file deletion", "rmdir": "file deletion",
	"rename": "file mutation", "renameat": "file mutation", "renameat2": "file mutation", "truncate": "file mutation",
	"ftruncate": "file mutation", "fallocate": "file mutation", "chmod": "file mutation", "fchmod": "file mutation",
	"fchmodat": "file mutation", "chown": "file mutation", "fchown": "file mutation", "fchownat": "file mutation",
	"lchown": "file mutation", "utimensat": "file mutation", "setxattr": "file mutation", "fsetxattr": "file mutation",
	"lsetxattr": "file mutation", "pwrite64": "file write", "pwritev": "file write", "pwritev2": "file write",
	"writev": "file write", "sendfile": "file write", "splice": "file write", "copy_file_range": "file write",
	"io_uring_setup": "asynchronous I/O", "io_setup": "asynchronous I/O",
	"fork": "process creation", "vfork": "process creation", "execveat": "process creation", "clone3": "process creation",
	"ptrace": "process control", "process_vm_readv": "process control", "process_vm_writev": "process control",
	"kill": "process control", "mount": "system change", "umount2": "system change", "chdir": "system change",
	"chroot": "system change", "pivot_root": "system change", "setuid": "system change", "setgid": "system change",
}

// readablePaths are the files the Go runtime of a static binary reads on its own:
// the huge page size (for the heap) and, since Go 1.25, the cgroup CPU limit (for
// the default GOMAXPROCS).
var readablePaths = map[string]string{
	"/sys/kernel/mm/transparent_hugepage/hpage_pmd_size": "Go runtime: huge page size",
	"/proc/self/cgroup":    "Go runtime: cgroup of the process, for GOMAXPROCS",
	"/proc/self/mountinfo": "Go runtime: where the cgroup file system is mounted, for GOMAXPROCS",
	"/proc/self/auxv":      "golang.org/x/sys/cpu: CPU features (arm64 only)",
}

// readablePath reports whether path may be opened read-only, and why.
func readablePath(path string) (string, bool) {
	if why, ok := readablePaths[path]; ok {
		return why, true
	}
	if strings.HasPrefix(path, "/sys/fs/cgroup/") && !strings.Contains(path, "/../") {
		switch filepath.Base(path) {
		case "cpu.max", "cpu.cfs_quota_us", "cpu.cfs_period_us":
			return "Go runtime: cgroup CPU limit, for GOMAXPROCS", true
		}
	}
	return "", false
}

// pathSyscalls take a path as their first string argument (after an optional
// directory fd); every such path must be readable.
var pathSyscalls = map[string]bool{
	"open": true, "openat": true, "openat2": true, "stat": true, "lstat": true, "newfstatat": true,
	"statx": true, "access": true, "faccessat": true, "faccessat2": true, "readlink": true,
	"readlinkat": true, "statfs": true, "getxattr": true, "lgetxattr": true, "listxattr": true,
	"llistxattr": true, "inotify_add_watch": true, "name_to_handle_at": true, "execve": true,
}

// firstPath is the first quoted argument of a traced call.
var firstPath = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)

// writeFlags are open flags that allow changing or creating a file.
var writeFlags = []string{"O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND", "O_TMPFILE"}

// check applies every rule and returns one line per violation.
func (tr *trace) check() []string {
	var problems []string
	for _, u := range tr.unparsed {
		problems = append(problems, "unparsed trace line (the rules cannot vouch for it): "+u)
	}
	writable := map[string]bool{"1": true, "2": true} // stdout, stderr; plus eventfds, per thread group
	for _, ev := range tr.events {
		if ev.name == "eventfd2" || ev.name == "pipe2" {
			for _, fd := range regexp.MustCompile(`\d+`).FindAllString(ev.result+" "+ev.args, -1) {
				writable[fd] = true
			}
		}
	}
	execves := 0
	for _, ev := range tr.events {
		if why, bad := forbiddenSyscalls[ev.name]; bad {
			problems = append(problems, fmt.Sprintf("%s (%s): %s", ev.name, why, ev.raw))
			continue
		}
		if !runtimeSyscalls[ev.name] {
			problems = append(problems, fmt.Sprintf("%s is not a system call the Go runtime is known to make here; decide whether it is harmless and add it to runtimeSyscalls: %s", ev.name, ev.raw))
		}
		switch ev.name {
		case "execve":
			execves++
			if execves > 1 || ev.index != 0 {
				problems = append(problems, "execve after the first (a subprocess or re-exec): "+ev.raw)
			}
			continue
		case "clone":
			if !strings.Contains(ev.args, "CLONE_THREAD") {
				problems = append(problems, "clone without CLONE_THREAD (a new process): "+ev.raw)
			}
		case "write":
			fd, _, _ := strings.Cut(ev.args, ",")
			if !writable[fd] {
				problems = append(problems, "write to fd "+fd+", which is not stdout, stderr or a runtime eventfd: "+ev.raw)
			}
			if fd == "1" {
				tr.stdoutWrites++
			}
		case "exit_group":
			tr.exited = true
		case "tgkill":
			// The runtime signals its own threads (goroutine preemption).
			if pid, _, _ := strings.Cut(ev.args, ","); !tr.ownPID(pid) {
				problems = append(problems, "signal to another process: "+ev.raw)
			}
		}
		if !pathSyscalls[ev.name] {
			continue
		}
		m := firstPath.FindStringSubmatch(ev.args)
		if m == nil {
			problems = append(problems, "path-taking call without a readable path: "+ev.raw)
			continue
		}
		path, err := strconv.Unquote(`"` + m[1] + `"`)
		if err != nil {
			path = m[1]
		}
		if strings.HasPrefix(ev.name, "open") {
			tr.opens = append(tr.opens, ev)
			for _, f := range writeFlags {
				if strings.Contains(ev.args, f) {
					problems = append(problems, fmt.Sprintf("open with %s (file write or creation): %s", f, ev.raw))
				}
			}
		}
		if path == "/proc/self/environ" || strings.HasSuffix(path, "/environ") {
			problems = append(problems, "read of the environment block: "+ev.raw)
			continue
		}
		if _, ok := readablePath(path); !ok {
			problems = append(problems, fmt.Sprintf("%s of %s, which is not on the allowlist of files the Go runtime reads: %s", ev.name, path, ev.raw))
		}
	}
	if execves != 1 {
		problems = append(problems, fmt.Sprintf("%d execve calls, want exactly 1 (strace starting the server)", execves))
	}
	return problems
}

// ownPID reports whether pid is the traced process: the thread whose trace file
// starts with execve.
func (tr *trace) ownPID(pid string) bool {
	for _, ev := range tr.events {
		if ev.name == "execve" && ev.index == 0 {
			return strings.HasSuffix(ev.file, "."+strings.TrimSpace(pid))
		}
	}
	return false
}

// TestStraceRulesCatchViolations feeds the trace checker a made-up trace with one
// violation of each rule, so that TestStraceWholeSession is known to be able to
// fail, and a clean trace, so that it is known to be able to pass.
func TestStraceRulesCatchViolations(t *testing.T) {
	clean := []string{
		`execve("/tmp/automium-mcp", ["/tmp/automium-mcp"], 0x7ffc /* 35 vars */) = 0`,
		`openat(AT_FDCWD, "/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", O_RDONLY) = 3`,
		`openat(AT_FDCWD, "/sys/fs/cgroup/user.slice/cpu.max", O_RDONLY|O_CLOEXEC) = 3`,
		`eventfd2(0, EFD_CLOEXEC|EFD_NONBLOCK) = 6`,
		`write(6, "\1\0\0\0\0\0\0\0", 8) = 8`,
		`clone(child_stack=0x12d3, flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS, tls=0x12d3) = 101`,
		`read(0, "{\"jsonrpc\":\"2.0\"}\n", 65536) = 18`,
		`write(1, "{\"jsonrpc\":\"2.0\"}\n", 18) = 18`,
		`tgkill(100, 101, SIGURG) = 0`,
		`exit_group(0) = ?`,
	}
	violations := map[string]string{
		`socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC|SOCK_NONBLOCK, IPPROTO_IP) = 7`:         "socket (network)",
		`connect(7, {sa_family=AF_INET, sin_port=htons(443)}, 16) = -1 EINPROGRESS`:       "connect (network)",
		`connect(7, {sa_family=AF_INET, sin_port=htons(443)}, 16 <detached ...>`:          "connect (network)",
		`openat(AT_FDCWD, "/tmp/out.json", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 8`: "open with O_WRONLY",
		`openat(AT_FDCWD, "/etc/passwd", O_RDONLY|O_CLOEXEC) = 9`:                         "openat of /etc/passwd",
		`openat(AT_FDCWD, "/proc/self/environ", O_RDONLY|O_CLOEXEC) = 9`:                  "read of the environment block",
		`openat(AT_FDCWD, "/sys/fs/cgroup/../../etc/shadow/cpu.max", O_RDONLY) = 9`:       "not on the allowlist",
		`newfstatat(AT_FDCWD, "/home/user/.aws/credentials", 0xc0001, 0) = -1 ENOENT`:     "newfstatat of /home/user/.aws/credentials",
		`execve("/bin/sh", ["sh", "-c", "curl"], 0xc000 /* 35 vars */) = 0`:               "execve after the first",
		`clone(child_stack=NULL, flags=CLONE_VM|CLONE_VFORK|SIGCHLD) = 102`:               "clone without CLONE_THREAD",
		`write(9, "secret", 6) = 6`:           "write to fd 9",
		`unlinkat(AT_FDCWD, "/tmp/x", 0) = 0`: "unlinkat (file deletion)",
		`tgkill(4242, 4243, SIGKILL) = 0`:     "signal to another process",
		`io_uring_setup(8, 0xc000) = 10`:      "io_uring_setup (asynchronous I/O)",
		`personality(0xffffffff) = 0`:         "personality is not a system call the Go runtime is known to make",
		`this line is not strace output`:      "unparsed trace line",
	}

	write := func(dir string, lines []string) *trace {
		if err := os.WriteFile(filepath.Join(dir, "trace.100"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return readTrace(t, filepath.Join(dir, "trace"))
	}
	if problems := write(t.TempDir(), clean).check(); len(problems) != 0 {
		t.Errorf("a clean trace has problems:\n%s", strings.Join(problems, "\n"))
	}
	// How strace ends the file of a thread that was blocked, or between calls,
	// when the process exited.
	atExit := append(slices.Clone(clean), `read(0,  <detached ...>`, `???()                                   = ?`)
	if problems := write(t.TempDir(), atExit).check(); len(problems) != 0 {
		t.Errorf("a clean trace ending in detached calls has problems:\n%s", strings.Join(problems, "\n"))
	}
	for line, want := range violations {
		problems := write(t.TempDir(), append(slices.Clone(clean), line)).check()
		found := false
		for _, p := range problems {
			found = found || strings.Contains(p, want)
		}
		if !found {
			t.Errorf("%s: problems %q, want one containing %q", line, problems, want)
		}
	}
}
