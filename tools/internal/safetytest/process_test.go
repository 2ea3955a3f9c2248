package safetytest

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// memoryCalls is the number of calls TestMemoryStaysFlat makes.
var memoryCalls = flag.Int("memory-calls", 10_000, "calls TestMemoryStaysFlat makes against the binary")

// proofs runs the two long process-level proofs, TestSeededAdversarialSessions
// and TestHostileFieldsBothTransports: together some two minutes on a 2-core
// machine, so that go test ./... would otherwise be dominated by them. .ci/run
// runs them with go test ./tools/internal/safetytest -proofs.
var proofs = flag.Bool("proofs", false, "run the long process-level proofs (seeded adversarial sessions, every field on both transports)")

// skipUnlessProofs skips a long proof unless -proofs is given (and always with -short).
func skipUnlessProofs(t *testing.T, what string) {
	t.Helper()
	if testing.Short() || !*proofs {
		t.Skipf("%s; run with go test ./tools/internal/safetytest -proofs, as .ci/run does", what)
	}
}

// Bounds of TestMemoryStaysFlat. Measured on linux/amd64 (Go 1.26): RSS settles
// at about 16.5 MiB after the first 1,000 calls and moves by less than 1 MiB
// over the next 9,000, so these leave room for a different machine's page
// accounting while still catching a leak of a few hundred bytes per call.
const (
	maxRSSGrowth = 8 << 20  // after the warm-up
	maxRSSPeak   = 48 << 20 // VmHWM over the whole run
	warmupCalls  = 1000
	sampleEvery  = 1000
)

// TestMemoryStaysFlat makes 10,000 calls (-memory-calls) against the binary over
// a raw pipe, cycling through the scripted session (every tool with good and bad
// arguments, every resource, prompt and completion; the 1.9 MB journey is left
// out, see TestOversizedLineBoundedMemory), and samples the server's VmRSS from
// /proc every 1,000 calls. After the first 1,000 calls, RSS may not grow by more
// than maxRSSGrowth, and the peak may not exceed maxRSSPeak. The figures are
// logged (go test -v) and recorded in SECURITY.md. tools/automium-bench samples
// RSS after 1,000, 5,000 and 10,000 calls too, for docs/performance.md.
func TestMemoryStaysFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 calls; skipped with -short")
	}
	var calls []call
	for _, c := range sessionCalls() {
		if len(c.params) <= 64<<10 {
			calls = append(calls, c)
		}
	}
	p := start(t, "")
	p.initialize()
	var samples []string
	var warm, highest int64
	for i := range *memoryCalls {
		c := calls[i%len(calls)]
		line := p.call(c.line(i + 1))
		if i < len(calls) {
			checkOutcome(t, c, line)
		}
		if n := i + 1; n%sampleEvery == 0 || n == *memoryCalls {
			rss, _ := p.rss()
			samples = append(samples, fmt.Sprintf("%d calls: %.1f MiB", n, float64(rss)/(1<<20)))
			switch {
			case n == warmupCalls:
				warm = rss
			case n > warmupCalls:
				highest = max(highest, rss)
			}
		}
	}
	_, peak := p.rss()
	p.close()
	t.Logf("VmRSS %s; VmHWM %.1f MiB", strings.Join(samples, ", "), float64(peak)/(1<<20))
	if warm > 0 && highest-warm > maxRSSGrowth {
		t.Errorf("RSS grew by %.1f MiB after the first %d calls, want at most %d MiB: %s",
			float64(highest-warm)/(1<<20), warmupCalls, maxRSSGrowth>>20, strings.Join(samples, ", "))
	}
	if peak > maxRSSPeak {
		t.Errorf("peak RSS %.1f MiB, want at most %d MiB", float64(peak)/(1<<20), maxRSSPeak>>20)
	}
}

// canary is a credential-shaped value put in the environment of one run of
// TestDeterminismAcrossProcesses; it must never appear in the output.
const canary = "canary-c2VjcmV0LXRoYXQtbXVzdC1uZXZlci1sZWFr"

// TestDeterminismAcrossProcesses replays the whole scripted session (including
// the 100,000-step journey) in two separate processes and requires byte-identical
// response lines. The second process differs in everything that should not
// matter: GOMAXPROCS=1, another working directory, and credential-like
// environment variables set to a canary, which must not appear in any response.
func TestDeterminismAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("a process-level proof; skipped with -short, run in full by go test ./... and CI")
	}
	calls := sessionCalls()
	transcript := func(dir string, env ...string) [][]byte {
		p := start(t, dir, env...)
		out := [][]byte{p.call(initializeLine)}
		p.send(initializedLine)
		for i, c := range calls {
			line := p.call(c.line(i + 1))
			checkOutcome(t, c, line)
			out = append(out, line)
		}
		p.close()
		return out
	}
	first := transcript(t.TempDir())
	second := transcript("/", "GOMAXPROCS=1", "AWS_ACCESS_KEY_ID="+canary, "AWS_SECRET_ACCESS_KEY="+canary,
		"GITHUB_TOKEN="+canary, "OPENAI_API_KEY="+canary, "ANTHROPIC_API_KEY="+canary, "AUTOMIUM_TOKEN="+canary)
	if len(first) != len(second) {
		t.Fatalf("%d responses, then %d", len(first), len(second))
	}
	size := 0
	for i := range first {
		size += len(first[i])
		if !bytes.Equal(first[i], second[i]) {
			name := "initialize"
			if i > 0 {
				name = calls[i-1].name
			}
			t.Errorf("%s: the two processes answered differently:\n%.400s\n%.400s", name, first[i], second[i])
		}
		if bytes.Contains(second[i], []byte(canary)) {
			t.Errorf("response %d contains the credential canary from the environment", i)
		}
	}
	t.Logf("%d responses, %d bytes, identical in both processes", len(first), size)
}

// TestOversizedLineBoundedMemory checks that the memory an oversized line costs
// is bounded by the 16 MiB line cap, not by the line: mcpserver/transport/stdio buffers a
// line only up to the cap and discards the rest as it arrives. It sends a line
// just over the cap, then one of 64 MiB and one of 1 GiB, each answered with
// -32600 and followed by a request that must still be answered, and requires the
// server's peak RSS (VmHWM) to stay at 128 MiB or less: an eighth of the last
// line, so the line cannot have been held. It also
// records the peak cost of the largest line accepted (exactly 16 MiB).
func TestOversizedLineBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("a process-level proof; skipped with -short, run in full by go test ./... and CI")
	}
	p := start(t, "")
	p.initialize()
	if r := summarize(t, p.call(checkLine)); r != `result, id "check"` {
		t.Fatalf("check request: %s", r)
	}
	_, idle := p.rss()

	const head = `{"jsonrpc":"2.0","id":"huge","method":"tools/call","params":{"name":"automium_compile_journey","arguments":{"goal":"`
	const tail = `"}}}`
	chunk := bytes.Repeat([]byte("x"), 1<<20)
	sendLine := func(size int) {
		t.Helper()
		if _, err := io.WriteString(p.Stdin(), head); err != nil {
			t.Fatal(err)
		}
		for left := size - len(head) - len(tail); left > 0; left -= len(chunk) {
			if _, err := p.Stdin().Write(chunk[:min(left, len(chunk))]); err != nil {
				t.Fatal(err)
			}
		}
		p.send(tail)
	}
	var peaks []string
	var last int64
	for _, size := range []int{16<<20 + 1, 64 << 20, 1 << 30} {
		sendLine(size)
		if r := summarize(t, p.next()); r != `error -32600, id "huge"` {
			t.Errorf("%d-byte line: got %s, want error -32600 with the request's id", size, r)
		}
		if r := summarize(t, p.call(checkLine)); r != `result, id "check"` {
			t.Errorf("request after the %d-byte line: %s", size, r)
		}
		_, peak := p.rss()
		peaks = append(peaks, fmt.Sprintf("%d MiB line: %.1f MiB", size>>20, float64(peak)/(1<<20)))
		last = peak
	}
	t.Logf("VmHWM idle %.1f MiB; after each rejected line: %s", float64(idle)/(1<<20), strings.Join(peaks, ", "))
	// Buffering up to the cap costs the line, its append growth and the garbage
	// collector's slack, a few times 16 MiB; the excess costs nothing. Measured:
	// 50-75 MiB after the first line and 78-95 MiB after the 1 GiB one, where the
	// difference is garbage from the earlier lines not yet collected.
	if last > 128<<20 {
		t.Errorf("a rejected 1 GiB line raised peak RSS to %.1f MiB, want at most 128 MiB: %s", float64(last)/(1<<20), strings.Join(peaks, ", "))
	}

	// The largest accepted line: 16 MiB of tool arguments, which mcpserver then
	// rejects at its 8 MiB cap. The transport, the SDK's message decoding and its
	// params decoding each hold a copy of the line: measured 100-165 MiB peak.
	sendLine(16 << 20)
	if r := summarize(t, p.next()); r != `isError limit_exceeded, id "huge"` {
		t.Errorf("16 MiB line: got %s, want isError limit_exceeded", r)
	}
	_, largest := p.rss()
	t.Logf("VmHWM after the largest accepted line (16 MiB): %.1f MiB", float64(largest)/(1<<20))
	if largest > 192<<20 {
		t.Errorf("the largest accepted line raised peak RSS to %.1f MiB, want at most 192 MiB", float64(largest)/(1<<20))
	}
	p.close()
}

// TestWorstCaseArguments measures what used to be the most expensive tool call
// under the 8 MiB argument cap: a journey whose steps are 2.8 million empty
// objects. The transport's structure bound (stdio.DefaultMaxValues) refuses the
// line with -32600 in one pass over its bytes, before the SDK or mcpserver's
// argument walker sees it; what remains is reading the 8 MiB line. SECURITY.md records
// the figures.
func TestWorstCaseArguments(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 8 MiB of arguments; skipped with -short")
	}
	p := start(t, "")
	p.initialize()
	_, idle := p.rss()
	const argumentCap = 8 << 20
	n := (argumentCap - len(`{"steps":[]}`) + 1) / len(`{},`)
	args := `{"steps":[` + strings.TrimSuffix(strings.Repeat(`{},`, n), ",") + `]}`
	began := time.Now()
	if r := summarize(t, p.call(toolLine("1", "automium_compile_journey", args))); r != "error -32600, id 1" {
		t.Errorf("%d bytes of empty steps: %s, want error -32600", len(args), r)
	}
	elapsed := time.Since(began)
	if r := summarize(t, p.call(checkLine)); r != `result, id "check"` {
		t.Errorf("request after the worst-case arguments: %s", r)
	}
	_, peak := p.rss()
	t.Logf("%d steps in %d bytes of arguments: answered in %v; VmHWM %.0f MiB (idle %.0f MiB)",
		n, len(args), elapsed.Round(time.Millisecond), float64(peak)/(1<<20), float64(idle)/(1<<20))
	if peak > 160<<20 {
		t.Errorf("peak RSS %.0f MiB, want at most 160 MiB: are the arguments decoded before their sizes are checked?", float64(peak)/(1<<20))
	}
	p.close()
}

// TestWorstValidCall measures the heaviest call the limits accept (issue 11,
// class 10): a compile_journey with the most steps and assertions, each value
// 2,000 characters of quotes, backslashes, '<' (which JSON escapes as six
// bytes), CJK and emoji, and a retry on every step. It must compile, and its
// answer must stay within what the input implies: the graph carries each value
// once (a node per step and assertion, none per edge), so the structured answer
// is at most 1.25 times the arguments and the whole line, which repeats the
// answer as escaped text, at most 3 times. The time and peak memory are logged
// for SECURITY.md, not asserted.
func TestWorstValidCall(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 1.6 MB of arguments and reads 3.6 MB; skipped with -short")
	}
	args := maximalJourneyArgs()
	p := start(t, "")
	p.initialize()
	var elapsed []time.Duration
	var line []byte
	for i := range 3 {
		began := time.Now()
		line = p.call(toolLine(fmt.Sprint(i+1), "automium_compile_journey", args))
		elapsed = append(elapsed, time.Since(began))
	}
	var result toolResult
	if err := json.Unmarshal(parse(t, line).Result, &result); err != nil || result.IsError {
		t.Fatalf("the maximal journey did not compile (%v): %.300s", err, line)
	}
	var answer struct {
		Valid bool `json:"valid"`
	}
	if err := json.Unmarshal(result.StructuredContent, &answer); err != nil || !answer.Valid {
		t.Fatalf("the maximal journey is not valid (%v): %.300s", err, result.StructuredContent)
	}
	if got, limit := len(result.StructuredContent), len(args)*5/4; got > limit {
		t.Errorf("structured answer of %d bytes for %d bytes of arguments, want at most %d: is text repeated per node or edge?", got, len(args), limit)
	}
	if got, limit := len(line), 3*len(args); got > limit {
		t.Errorf("response line of %d bytes for %d bytes of arguments, want at most %d: is text escaped more than once?", got, len(args), limit)
	}
	_, peak := p.rss()
	t.Logf("maximal compile_journey: %d bytes of arguments, answer line %d bytes (structured %d); %v, %v, %v; VmHWM %.0f MiB",
		len(args), len(line), len(result.StructuredContent), elapsed[0].Round(time.Millisecond), elapsed[1].Round(time.Millisecond),
		elapsed[2].Round(time.Millisecond), float64(peak)/(1<<20))
	p.close()
}
