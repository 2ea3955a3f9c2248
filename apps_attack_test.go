package automium

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/automium/automium/internal/limit"
)

// observedAppsInput is an observed comparison of MaxPlanners planners named
// by the costliest IDs (a < is six bytes of JSON) over journeys spread across
// apps distinct apps of the longest IDs, as trials or as counts.
func observedAppsInput(apps, journeys int, counts bool) CompareObservedTrialsInput {
	in := CompareObservedTrialsInput{CorpusVersion: CorpusVersion}
	id := func(p int) string { return fmt.Sprintf("%s%02d", strings.Repeat("<", limit.MaxIDLength-2), p) }
	for p := range limit.MaxPlanners {
		in.Planners = append(in.Planners, PlannerRef{ID: id(p), Vendor: "v", Model: "m"})
	}
	for j := range journeys {
		app := fmt.Sprintf("ext:%s%03d", strings.Repeat("a", limit.MaxIDLength-7), j%apps)
		journey := fmt.Sprintf("j-%06d", j)
		for p := range limit.MaxPlanners {
			passed := (j*p)%3 == 0
			if counts {
				in.Counts = append(in.Counts, JourneyCounts{PlannerID: id(p), AppID: app, JourneyID: journey, Runs: 1, Passes: b2i(passed), FirstAttemptPasses: b2i(passed)})
				continue
			}
			in.Trials = append(in.Trials, Trial{PlannerID: id(p), AppID: app, FixtureID: "ext:f", JourneyID: journey, Repetition: 1, Passed: passed})
		}
	}
	return in
}

// TestObservedAppsBound holds an observed comparison to MaxObservedApps
// distinct apps, on trials and on counts: each planner carries a rollup per
// app in every answer, and 32 apps of the longest IDs made the default answer
// 158,576 bytes (50,000 apps: 13.6 MB) against its 120,832-byte bound, with
// every pair already left out. At the limit the default answer is within
// the bound; one app more is limit_exceeded at trials or counts.
func TestObservedAppsBound(t *testing.T) {
	for _, tc := range []struct {
		name     string
		apps     int
		counts   bool
		wantCode Code
	}{
		{"trials at the limit", limit.MaxObservedApps, false, ""},
		{"counts at the limit", limit.MaxObservedApps, true, ""},
		{"trials over", limit.MaxObservedApps + 1, false, CodeLimitExceeded},
		{"counts over", limit.MaxObservedApps + 1, true, CodeLimitExceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := CompareObservedTrials(context.Background(), observedAppsInput(tc.apps, 1000, tc.counts))
			var code Code
			var e *Error
			if errors.As(err, &e) {
				code = e.Code
				if !strings.Contains(e.Message, "at most 16") {
					t.Errorf("the problem does not say the limit: %v", err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantCode, code); diff != "" {
				t.Fatalf("code (-want +got):\n%s\n%v", diff, err)
			}
			if err != nil {
				return
			}
			if n := jsonSize(&r); n > maxReportJSONBytes {
				t.Errorf("%d apps: the default answer is %d bytes, over %d", tc.apps, n, maxReportJSONBytes)
			}
			if n := len(markdownOf(t, &r)); n > limit.MaxMarkdownBytes {
				t.Errorf("the summary is %d bytes, over %d", n, limit.MaxMarkdownBytes)
			}
		})
	}
}
