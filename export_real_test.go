package automium_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/automium/automium"
	"github.com/google/go-cmp/cmp"
)

// brokenJourney is the journey whose page testdata/playwright-export/broken/
// breaks, and brokenNode the node that must then fail: its one assertion.
// rescuedJourney's page shows a button only after the first attempt of the
// step that clicks it has timed out, so rescuedNode, its recovery node, must
// run and the step's retry pass.
const (
	brokenJourney  = "storefront-search-add-to-cart"
	brokenNode     = "assert-1"
	rescuedJourney = "banking-enable-paperless-statements"
	rescuedNode    = "recover-3"
)

// The parts of Playwright's JSON report the checks below read, steps
// included (the importer reads no steps).
type (
	realReport struct {
		Suites []realSuite `json:"suites"`
	}
	realSuite struct {
		Specs  []realSpec  `json:"specs"`
		Suites []realSuite `json:"suites"`
	}
	realSpec struct {
		Title string     `json:"title"`
		Tags  []string   `json:"tags"`
		Tests []realTest `json:"tests"`
	}
	realTest struct {
		ProjectName string `json:"projectName"`
		Status      string `json:"status"`
		Annotations []struct {
			Type        string `json:"type"`
			Description string `json:"description"`
		} `json:"annotations"`
		Results []struct {
			Status string     `json:"status"`
			Steps  []realStep `json:"steps"`
		} `json:"results"`
	}
	realStep struct {
		Title string          `json:"title"`
		Error json.RawMessage `json:"error"`
		Steps []realStep      `json:"steps"`
	}
)

func (r realReport) specs() []realSpec {
	var out []realSpec
	var walk func([]realSuite)
	walk = func(ss []realSuite) {
		for _, s := range ss {
			out = append(out, s.Specs...)
			walk(s.Suites)
		}
	}
	walk(r.Suites)
	return out
}

func readReal(t *testing.T, dir, name string) (realReport, string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	var r realReport
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return r, string(data)
}

// journeyOf is the journey ID of a spec, from its @journey:<id> tag (the
// reporter writes tags without the @).
func journeyOf(sp realSpec) string {
	for _, tag := range sp.Tags {
		if id, ok := strings.CutPrefix(tag, automium.DefaultPlaywrightJourneyTag+":"); ok {
			return id
		}
	}
	return ""
}

// TestPlaywrightExportRealTools reads what testdata/playwright-export/run.sh
// made with the real tools: the listings of every reference journey's export
// in both languages by playwright test --list, and the JSON reports of the
// real Chromium run over the fixture pages, as they are and with one page
// broken. It runs only where AUTOMIUM_PLAYWRIGHT_EXPORT names that work
// directory (.ci/run sets it).
func TestPlaywrightExportRealTools(t *testing.T) {
	dir := os.Getenv("AUTOMIUM_PLAYWRIGHT_EXPORT")
	if dir == "" {
		t.Skip("needs AUTOMIUM_PLAYWRIGHT_EXPORT, the work directory of testdata/playwright-export/run.sh (.ci/run runs it)")
	}
	ctx := context.Background()
	nodes := map[string][]string{} // journey -> its node IDs
	digests := map[string]string{}
	for _, id := range automium.ReferenceJourneyIDs() {
		j, _ := automium.ReferenceJourney(id)
		res, err := automium.CompileJourney(ctx, j)
		if err != nil || !res.Valid {
			t.Fatalf("%s: %v %v", id, err, res.Errors)
		}
		for _, n := range res.Journey.Nodes {
			nodes[id] = append(nodes[id], n.ID)
		}
		digests[id] = res.Journey.Digest
	}

	for _, lang := range []string{"typescript", "javascript"} {
		t.Run("list "+lang, func(t *testing.T) {
			list, _ := readReal(t, dir, "list-"+lang+".json")
			var listed []string
			for _, sp := range list.specs() {
				id := journeyOf(sp)
				listed = append(listed, id)
				if len(sp.Tests) != 1 {
					t.Errorf("%s: %d tests, want 1", id, len(sp.Tests))
					continue
				}
				got := map[string]string{}
				for _, a := range sp.Tests[0].Annotations {
					got[a.Type] = a.Description
				}
				want := map[string]string{"journey": id, "journeyDigest": digests[id]}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s: annotations (-want +got):\n%s", id, diff)
				}
			}
			slices.Sort(listed)
			if diff := cmp.Diff(automium.ReferenceJourneyIDs(), listed); diff != "" {
				t.Errorf("journeys listed by tag (-want +got):\n%s", diff)
			}
		})
	}

	for _, c := range []struct {
		report string
		broken bool
	}{{"report.json", false}, {"report-broken.json", true}} {
		t.Run(c.report, func(t *testing.T) {
			rep, raw := readReal(t, dir, c.report)
			ran := 0
			for _, sp := range rep.specs() {
				id := journeyOf(sp)
				for _, test := range sp.Tests {
					ran++
					wantStatus := "expected"
					if c.broken && id == brokenJourney {
						wantStatus = "unexpected"
					}
					if test.Status != wantStatus {
						t.Errorf("%s: status %s, want %s", id, test.Status, wantStatus)
					}
					for _, r := range test.Results {
						var failed, titles []string
						var walk func([]realStep)
						walk = func(steps []realStep) {
							for _, s := range steps {
								titles = append(titles, s.Title)
								if !slices.Contains(nodes[id], s.Title) {
									t.Errorf("%s: step %q is not a node of the journey (%v)", id, s.Title, nodes[id])
								}
								if len(s.Error) > 0 {
									failed = append(failed, s.Title)
								}
								walk(s.Steps)
							}
						}
						walk(r.Steps)
						var want []string
						if wantStatus == "unexpected" {
							want = []string{brokenNode}
						}
						if diff := cmp.Diff(want, failed); diff != "" {
							t.Errorf("%s: failed steps (-want +got):\n%s", id, diff)
						}
						if recovered := slices.Contains(titles, rescuedNode); id == rescuedJourney && !recovered {
							t.Errorf("%s: no %s step: the step's retry did not run (steps %v)", id, rescuedNode, titles)
						} else if id != rescuedJourney && slices.ContainsFunc(titles, func(s string) bool { return strings.HasPrefix(s, "recover-") }) {
							t.Errorf("%s: a recovery step ran (steps %v)", id, titles)
						}
					}
				}
			}
			if ran < 3 {
				t.Fatalf("%d tests ran in Chromium; the proof needs at least 3", ran)
			}
			spec, err := automium.ExportPlaywrightSpec(ctx, automium.ExportPlaywrightSpecInput{JourneyID: brokenJourney})
			if err != nil {
				t.Fatal(err)
			}
			trials, err := automium.TrialsFromPlaywrightReport(context.Background(), strings.NewReader(raw), spec.Mapping)
			if err != nil {
				t.Fatal(err)
			}
			var failedJourneys []string
			for _, tr := range trials.Trials {
				if !tr.Passed {
					failedJourneys = append(failedJourneys, tr.JourneyID)
				}
			}
			var want []string
			if c.broken {
				want = []string{brokenJourney}
			}
			if diff := cmp.Diff(want, failedJourneys); diff != "" {
				t.Errorf("journeys that failed in the import (-want +got):\n%s", diff)
			}
			scripted := automium.PlannerRef{ID: "scripted", Vendor: "automium", Model: automium.PlaywrightSpecVersion}
			cmpRes, err := automium.ComparePlaywrightReport(ctx, automium.ComparePlaywrightReportInput{
				CorpusVersion: automium.CorpusVersion, Planners: []automium.PlannerRef{scripted}, Report: raw, Mapping: spec.Mapping, Rows: automium.RowSelection{All: true}})
			if err != nil {
				t.Fatal(err)
			}
			// The comparison names the journey in its per-journey rows, and
			// the triage names the node, from the step title the spec gave it.
			var failedRows, failedSteps []string
			for _, row := range cmpRes.Comparison.Planners[0].JourneyRows {
				if row.Passes < row.Runs {
					failedRows = append(failedRows, row.JourneyID)
				}
			}
			for _, tr := range cmpRes.Import.Triage {
				failedSteps = append(failedSteps, tr.JourneyID+" "+tr.FailedStep)
			}
			var wantSteps []string
			if c.broken {
				wantSteps = []string{brokenJourney + " " + brokenNode}
			}
			if diff := cmp.Diff(want, failedRows); diff != "" {
				t.Errorf("journey rows that failed in the comparison (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantSteps, failedSteps); diff != "" {
				t.Errorf("failed steps in the import's triage (-want +got):\n%s", diff)
			}
			pr := cmpRes.Comparison.Planners[0].PassRate
			if pr.N != ran || pr.Successes != ran-len(want) {
				t.Errorf("compared pass rate %d/%d, want %d/%d", pr.Successes, pr.N, ran-len(want), ran)
			}
			t.Logf("%s: %d journeys ran in Chromium; compared pass rate %d/%d; failed: %v", c.report, ran, pr.Successes, pr.N, failedJourneys)
		})
	}
}
