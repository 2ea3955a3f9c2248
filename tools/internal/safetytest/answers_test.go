package safetytest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/automium/automium"
)

// largeJUnit is issue 36's report: planners × journeys JUnit testsuites, one
// per planner and journey, whose testcases (about 40 bytes each) inherit
// their journey from the testsuite's property.
func largeJUnit(planners, journeys, runs int) string {
	var b strings.Builder
	b.WriteString("<testsuites>")
	for p := range planners {
		for j := range journeys {
			fmt.Fprintf(&b, `<testsuite hostname="p%d"><properties><property name="journey" value="j%d"/></properties>`, p, j)
			for r := range runs {
				fmt.Fprintf(&b, `<testcase name="r%d" time="1.5"/>`, r)
			}
			b.WriteString("</testsuite>")
		}
	}
	b.WriteString("</testsuites>")
	return b.String()
}

// largeComparisonArgs are compare_reports arguments for that report, its
// journeys outside the corpus, on one app and fixture.
func largeComparisonArgs(planners, journeys, runs int) string {
	var ps []string
	for p := range planners {
		ps = append(ps, fmt.Sprintf(`{"id":"p%d","vendor":"v","model":"m"}`, p))
	}
	return `{"corpusVersion":"` + automium.CorpusVersion + `","planners":[` + strings.Join(ps, ",") +
		`],"mapping":{"planner":{"from":"project"},"journey":{"from":"annotation","name":"journey"},"appId":"storefront","fixtureId":"storefront-guest-catalog"},` +
		`"reports":[{"format":"junit","content":` + jsonString(largeJUnit(planners, journeys, runs)) + `}]}`
}

// TestLargeComparisonsStayBounded: issue 36's comparisons over stdio, one
// call of 16 planners × 1,500 journeys, one at the 100,000-trial cap, and 8
// of the first pipelined, held to the
// documented peak memory, each answer within its tool's worst answer.
func TestLargeComparisonsStayBounded(t *testing.T) {
	skipUnlessProofs(t, "sends 8 comparisons of 16 planners × 1,500 journeys")
	args := largeComparisonArgs(16, 1500, 1)
	t.Logf("%d bytes of arguments", len(args))
	p := start(t, "")
	p.initialize()
	began := time.Now()
	one := p.call(toolLine(`"one"`, "automium_compare_reports", args))
	_, peakOne := p.rss()
	t.Logf("one call: %d-byte answer in %v, VmHWM %.0f MiB; %.200s", len(one), time.Since(began).Round(time.Millisecond), float64(peakOne)/(1<<20), one)
	// The trial cap: 100,000 trials, 16 planners × 1,250 journeys × 5 runs.
	capArgs := largeComparisonArgs(16, 1250, 5)
	began = time.Now()
	atCap := p.call(toolLine(`"cap"`, "automium_compare_reports", capArgs))
	_, peakCap := p.rss()
	t.Logf("100,000 trials (%d bytes of arguments): %d-byte answer in %v, VmHWM %.0f MiB", len(capArgs), len(atCap), time.Since(began).Round(time.Millisecond), float64(peakCap)/(1<<20))
	if len(atCap) > 512<<10 || !strings.Contains(string(atCap), `"structuredContent"`) {
		t.Errorf("100,000 trials: a %d-byte answer: %.300s", len(atCap), atCap)
	}
	for i := range 8 {
		p.send(toolLine(fmt.Sprint(i), "automium_compare_reports", args))
	}
	got := p.collect(8)
	_, peak := p.rss()
	for id, a := range got {
		if len(a) > 512<<10 {
			t.Errorf("call %s: a %d-byte answer", id, len(a))
		}
	}
	t.Logf("8 pipelined: VmHWM %.0f MiB (bound %d MiB)", float64(peak)/(1<<20), stdioPeakBound>>20)
	if peak > stdioPeakBound {
		t.Errorf("stdio VmHWM %.0f MiB, over the documented %d MiB", float64(peak)/(1<<20), stdioPeakBound>>20)
	}
}

// observedArgs are compare_observed_trials arguments at the door's bound:
// as many trials as fit in its 100,000 JSON values, 16 planners over as many
// journeys, one run each.
func observedArgs() string {
	const planners, valuesPerTrial = 16, 7
	journeys := (100_000 - 200) / valuesPerTrial / planners
	var ps, ts []string
	for p := range planners {
		ps = append(ps, fmt.Sprintf(`{"id":"p%d","vendor":"v","model":"m"}`, p))
		for j := range journeys {
			ts = append(ts, fmt.Sprintf(`{"plannerId":"p%d","appId":"storefront","fixtureId":"storefront-guest-catalog","journeyId":"j%d","repetition":1,"passed":%t}`, p, j, (p+j)%3 != 0))
		}
	}
	return `{"corpusVersion":"` + automium.CorpusVersion + `","planners":[` + strings.Join(ps, ",") + `],"trials":[` + strings.Join(ts, ",") + `]}`
}

// TestObservedComparisonsStayBounded: 8 pipelined compare_observed_trials at
// the door's bound over stdio, held to the documented peak memory.
func TestObservedComparisonsStayBounded(t *testing.T) {
	skipUnlessProofs(t, "sends 8 comparisons of some 14,000 trials")
	args := observedArgs()
	p := start(t, "")
	p.initialize()
	for i := range 8 {
		p.send(toolLine(fmt.Sprint(i), "automium_compare_observed_trials", args))
	}
	got := p.collect(8)
	_, peak := p.rss()
	for id, a := range got {
		if len(a) > 512<<10 {
			t.Errorf("call %s: a %d-byte answer", id, len(a))
		}
	}
	t.Logf("%d bytes of arguments; 8 pipelined: VmHWM %.0f MiB (bound %d MiB)", len(args), float64(peak)/(1<<20), stdioPeakBound>>20)
	if peak > stdioPeakBound {
		t.Errorf("stdio VmHWM %.0f MiB, over the documented %d MiB", float64(peak)/(1<<20), stdioPeakBound>>20)
	}
}

// TestLargeComparisonsOverHTTP: 2 and then 8 concurrent comparisons of 16
// planners × 1,500 journeys over HTTP, held to the documented peak memory.
// A call the budget cannot admit beside the others gets 503, as it should;
// it is retried until answered. On a machine loaded with other work a call
// admitted beside three others can pass the server's 60 s write timeout.
func TestLargeComparisonsOverHTTP(t *testing.T) {
	skipUnlessProofs(t, "sends 10 comparisons of 16 planners × 1,500 journeys over HTTP")
	args := largeComparisonArgs(16, 1500, 1)
	web := startHTTP(t)
	web.initialize()
	for _, n := range []int{2, 8} {
		var wg sync.WaitGroup
		sizes := make([]int, n)
		busy := make([]int, n)
		for i := range n {
			wg.Go(func() {
				body := []byte(toolLine(fmt.Sprint(n*100+i), "automium_compare_reports", args)) // ids differ: one session
				for {
					status, answer, err := postAnswer(web, body)
					if err != nil { // from a goroutine: Errorf, never Fatalf
						t.Errorf("%d concurrent, call %d: %v", n, i, err)
						return
					}
					if status != http.StatusServiceUnavailable {
						sizes[i] = len(answer)
						if !bytes.Contains(answer, []byte(`"result"`)) || bytes.Contains(answer, []byte(`"isError":true`)) {
							t.Errorf("%d concurrent, call %d: HTTP %d, %.300s", n, i, status, answer)
						}
						return
					}
					busy[i]++
					time.Sleep(50 * time.Millisecond) // pacing a retry after 503, as Retry-After asks; nothing waits on it
				}
			})
		}
		wg.Wait()
		_, peak := procRSS(t, web.cmd.Process.Pid)
		t.Logf("%d concurrent: answers %v bytes, 503s %v; VmHWM %.0f MiB (bound %d MiB)", n, sizes, busy, float64(peak)/(1<<20), httpPeakBound>>20)
		if peak > httpPeakBound {
			t.Errorf("%d concurrent: http VmHWM %.0f MiB, over the documented %d MiB", n, float64(peak)/(1<<20), httpPeakBound>>20)
		}
	}
}

// postAnswer is httpProcess.postFrom for a goroutine: it returns an error
// instead of ending the test, and the message of a JSON or event-stream answer.
func postAnswer(p *httpProcess, body []byte) (int, []byte, error) {
	req, err := http.NewRequest(http.MethodPost, p.url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+p.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", p.session)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, err
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return resp.StatusCode, bytes.TrimSpace(data), nil
	}
	var msg []byte
	for _, line := range bytes.Split(data, []byte("\n")) {
		if m, ok := bytes.CutPrefix(line, []byte("data: ")); ok && bytes.Contains(m, []byte(`"jsonrpc"`)) {
			msg = m
		}
	}
	return resp.StatusCode, msg, nil
}
