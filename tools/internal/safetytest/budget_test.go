package safetytest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/automium/automium/internal/testsupport"
)

// The documented bounds on peak memory (VmHWM) of one adversarial client,
// whatever it sends and whether or not it reads: docs/limits.md and
// SECURITY.md quote them, TestSeededAdversarialSessions proves them. Most of
// the peak is the work of the calls in flight (16 maximal compile_journey
// calls at once over stdio, as many as the 16 MiB body budget admits over HTTP);
// the bounds are the highest peaks measured, about 260 MiB over stdio and 439
// MiB over HTTP (in CI, once a second initialize was refused at once instead of
// stalling its session, so that more maximal calls ran together), plus a
// quarter for the garbage collector's timing. The binary before the door and
// the budgets reached 577 to 760 MiB and 485 to 673 MiB here.
const (
	stdioPeakBound = 320 << 20
	httpPeakBound  = 560 << 20
)

// adversarialStep is one thing an adversarial client does.
type adversarialStep struct {
	kind     string   // what the step is, for the log
	messages []string // the messages to send, in order
	unread   int      // for "unread": how many of the following steps are sent without reading answers
}

// adversarialSession generates, from seed, a session of steps drawn from what
// a hostile client can do: maximal calls, calls padded with 1 MiB in _meta,
// 1 MiB notifications, second initializes, members repeated under another
// case, and stretches during which it reads no answer. The same seed gives the
// same session.
func adversarialSession(seed uint64, steps int) []adversarialStep {
	rng := rand.New(rand.NewPCG(seed, seed^0x5eed))
	pad := strings.Repeat("p", 1<<20)
	notification := `{"jsonrpc":"2.0","method":"notifications/roots/list_changed","params":{"_meta":{"pad":"` + pad + `"}}}`
	var out []adversarialStep
	for i := range steps {
		id := fmt.Sprintf(`"s%d-%d"`, seed, i)
		switch r := rng.IntN(100); {
		case r < 20:
			out = append(out, adversarialStep{kind: "maximal call", messages: []string{toolLine(id, "automium_compile_journey", maximalJourneyArgs())}})
		case r < 35:
			out = append(out, adversarialStep{kind: "padded call", messages: []string{`{"jsonrpc":"2.0","id":` + id +
				`,"method":"tools/call","params":{"name":"automium_list_apps","arguments":{},"_meta":{"pad":"` + pad + `"}}}`}})
		case r < 50:
			out = append(out, adversarialStep{kind: "1 MiB notification", messages: []string{notification}})
		case r < 58:
			out = append(out, adversarialStep{kind: "second initialize", messages: []string{strings.Replace(initializeLine, `"init"`, id, 1)}})
		case r < 65:
			// The class that once took 712 MiB: an answer too large for the
			// pipe, a second initialize behind it, and a flood of
			// notifications behind that.
			flood := []string{toolLine(`"`+id[1:len(id)-1]+`m"`, "automium_compile_journey", maximalJourneyArgs()), strings.Replace(initializeLine, `"init"`, id, 1)}
			for range 100 + rng.IntN(100) {
				flood = append(flood, notification)
			}
			out = append(out, adversarialStep{kind: "unread", unread: 1}, adversarialStep{kind: "initialize then notifications", messages: flood})
		case r < 75:
			out = append(out, adversarialStep{kind: "repeated member", messages: []string{`{"jsonrpc":"2.0","id":` + id +
				`,"method":"tools/call","params":{"name":"automium_list_apps","arguments":{},"_meta":{"pad":"` + pad[:rng.IntN(len(pad))] + `"}},"Method":"ping"}`}})
		case r < 85:
			out = append(out, adversarialStep{kind: "small call", messages: []string{toolLine(id, "automium_list_apps", "{}")}})
		default:
			out = append(out, adversarialStep{kind: "unread", unread: 5 + rng.IntN(40)})
		}
	}
	return out
}

// stallOrDone waits until done reaches target, or stops moving for a second:
// the server has stopped reading, which is what the budget promises. The wait
// only decides when to go on; nothing is asserted about it.
func stallOrDone(done *atomic.Int64, target int64) {
	last := done.Load()
	for last < target {
		time.Sleep(time.Second)
		now := done.Load()
		if now == last {
			return
		}
		last = now
	}
}

// TestSeededAdversarialSessions: seeded adversarial sessions against the
// binary, over stdio and over -http with its token; the peak memory of the
// process stays under the documented bound. It is a memory proof, not a timed
// test: the only waits decide when a stretch of unread answers ends.
func TestSeededAdversarialSessions(t *testing.T) {
	skipUnlessProofs(t, "sends hundreds of MiB to two processes")
	seeds := []uint64{1, 2, 3}
	t.Run("stdio", func(t *testing.T) {
		for _, seed := range seeds {
			peak := runStdioAdversary(t, adversarialSession(seed, 120))
			t.Logf("stdio, seed %d: VmHWM %.0f MiB (bound %d MiB)", seed, float64(peak)/(1<<20), stdioPeakBound>>20)
			if peak > stdioPeakBound {
				t.Errorf("stdio, seed %d: VmHWM %.0f MiB, over the documented %d MiB", seed, float64(peak)/(1<<20), stdioPeakBound>>20)
			}
		}
	})
	t.Run("http", func(t *testing.T) {
		for _, seed := range seeds {
			peak := runHTTPAdversary(t, adversarialSession(seed, 120))
			t.Logf("http, seed %d: VmHWM %.0f MiB (bound %d MiB)", seed, float64(peak)/(1<<20), httpPeakBound>>20)
			if peak > httpPeakBound {
				t.Errorf("http, seed %d: VmHWM %.0f MiB, over the documented %d MiB", seed, float64(peak)/(1<<20), httpPeakBound>>20)
			}
		}
	})
}

// runStdioAdversary plays steps over stdio and returns the process's VmHWM.
func runStdioAdversary(t *testing.T, steps []adversarialStep) int64 {
	cmd := exec.Command(binary(t))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr testsupport.LockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()

	// The reader reads answers unless paused; pausing stops it between lines.
	var mu sync.Mutex
	resume := sync.NewCond(&mu)
	paused := false
	ended := make(chan struct{})
	read := make(chan []byte, 1024)
	go func() {
		defer close(ended)
		r := bufio.NewReaderSize(stdout, 1<<20)
		for {
			mu.Lock()
			for paused {
				resume.Wait()
			}
			mu.Unlock()
			line, err := r.ReadBytes('\n')
			if err != nil {
				return
			}
			select {
			case read <- line:
			default: // only the end marker matters
			}
		}
	}()
	var written atomic.Int64
	writerDone := make(chan error, 1)
	go func() {
		if _, err := io.WriteString(stdin, initializeLine+"\n"+initializedLine+"\n"); err != nil {
			writerDone <- err
			return
		}
		for _, s := range steps {
			for _, m := range s.messages {
				if _, err := io.WriteString(stdin, m+"\n"); err != nil {
					writerDone <- err
					return
				}
			}
			written.Add(1)
		}
		_, err := io.WriteString(stdin, `{"jsonrpc":"2.0","id":"end","method":"ping"}`+"\n")
		writerDone <- err
	}()
	for i, s := range steps {
		if s.kind != "unread" {
			continue
		}
		stallOrDone(&written, int64(i))
		mu.Lock()
		paused = true
		mu.Unlock()
		stallOrDone(&written, int64(i+1+s.unread))
		mu.Lock()
		paused = false
		resume.Broadcast()
		mu.Unlock()
	}
	if err := <-writerDone; err != nil {
		t.Fatalf("writing: %v; stderr: %s", err, stderr.String())
	}
	for line := range read {
		if bytes.Contains(line, []byte(`"id":"end"`)) {
			break
		}
	}
	_, peak := procRSS(t, cmd.Process.Pid)
	stdin.Close()
	<-ended
	return peak
}

// runHTTPAdversary plays steps over -http in one session and returns the
// process's VmHWM. During an unread stretch, each message goes out on its own
// connection and its answer is left unread until the stretch ends.
func runHTTPAdversary(t *testing.T, steps []adversarialStep) int64 {
	p := startHTTP(t)
	p.initialize()
	type held struct {
		resp *http.Response
		err  error
	}
	send := func(message string) (*http.Response, error) {
		req, err := http.NewRequest(http.MethodPost, p.url, strings.NewReader(message))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+p.token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", p.session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		return (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
	}
	statuses := map[int]int{}
	for i := 0; i < len(steps); i++ {
		s := steps[i]
		if s.kind != "unread" {
			for _, m := range s.messages {
				resp, err := send(m)
				if err != nil {
					t.Fatalf("POST: %v; stderr: %s", err, p.stderr)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				statuses[resp.StatusCode]++
			}
			continue
		}
		// An unread stretch: the messages go out at once, none is read.
		end := min(len(steps), i+1+s.unread)
		var stretch []string
		for _, u := range steps[i+1 : end] {
			stretch = append(stretch, u.messages...)
		}
		results := make(chan held, len(stretch))
		var sent atomic.Int64
		n := len(stretch)
		for _, m := range stretch {
			go func() {
				resp, err := send(m)
				sent.Add(1)
				results <- held{resp, err}
			}()
		}
		stallOrDone(&sent, int64(n))
		for range n {
			h := <-results
			if h.err != nil {
				// Past the connection cap, the server closes the oldest
				// connection not serving a request: a refusal too.
				statuses[0]++
				continue
			}
			io.Copy(io.Discard, h.resp.Body)
			h.resp.Body.Close()
			statuses[h.resp.StatusCode]++
		}
		i = end - 1
	}
	_, peak := procRSS(t, p.cmd.Process.Pid)
	t.Logf("HTTP statuses (0 for a connection closed at the cap): %v", statuses)
	return peak
}
