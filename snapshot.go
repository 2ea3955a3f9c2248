package automium

import (
	"bytes"
	"cmp"
	"context"
	jsonv1 "encoding/json"
	"encoding/json/jsontext"
	"encoding/json/v2"
	"io"
	"math"
	"slices"

	"github.com/automium/automium/internal/echo"
	"github.com/automium/automium/internal/limit"
)

// CountsSnapshotVersion names the snapshot of counts format.
const CountsSnapshotVersion = "automium-counts-v1"

// CountsSnapshot is a run's counts per planner and journey: the sufficient
// statistics of every verdict of its comparison, small enough to commit or
// keep as a CI artifact. It is a baseline for [CompareBaseline], and its
// planners and counts are an input of [CompareObservedTrials] as they are.
//
// Digest is digestPrefix and the SHA-256 of the RFC 8785 canonical JSON of
// the snapshot without its digest member (docs/digests.md), so a snapshot
// changed by hand, or damaged, is refused rather than read as another run.
// A snapshot carries no latency, and no repetition numbers (see
// [JourneyCounts]).
type CountsSnapshot struct {
	Format        string          `json:"format"`
	CorpusVersion string          `json:"corpusVersion"`
	Planners      []PlannerRef    `json:"planners"`
	Counts        []JourneyCounts `json:"counts"`
	Digest        string          `json:"digest"`
}

// countsBody is what a snapshot's digest covers: everything but the digest.
type countsBody struct {
	Format        string          `json:"format"`
	CorpusVersion string          `json:"corpusVersion"`
	Planners      []PlannerRef    `json:"planners"`
	Counts        []JourneyCounts `json:"counts"`
}

func (s *CountsSnapshot) digest() (string, error) {
	return digestOf(countsBody{s.Format, s.CorpusVersion, s.Planners, s.Counts})
}

// input is the comparison input a snapshot's counts make.
func (s *CountsSnapshot) input() CompareObservedTrialsInput {
	return CompareObservedTrialsInput{CorpusVersion: s.CorpusVersion, Planners: s.Planners, Counts: s.Counts}
}

// SnapshotOf returns the counts of an observed comparison report: one row per
// planner and journey row, planners in the report's order, rows in journey
// order, then its digest. The report must have every journey row (the full
// report the Go API returns); a modeled report is refused, since modeled draws
// are no baseline of a real run. A snapshot of a matched-rounds report keeps
// its counts and loses the pairing.
//
// [CompareObservedTrials] given the snapshot's planners and counts gives the
// report's pairs and verdicts, byte for byte.
func SnapshotOf(report ComparisonReport) (CountsSnapshot, error) {
	if report.Basis != BasisObserved {
		return CountsSnapshot{}, newError(CodeInvalidArgument, field("basis"), nil,
			"is %s; only an observed report, made of recorded runs, has counts to keep as a baseline", echo.Value(string(report.Basis)))
	}
	if report.RowsOmitted > 0 {
		return CountsSnapshot{}, newError(CodeInvalidArgument, field("rows"), nil,
			"left out %d journey rows; a snapshot keeps every row, so compare with Rows: RowSelection{All: true}", report.RowsOmitted)
	}
	s := CountsSnapshot{Format: CountsSnapshotVersion, CorpusVersion: report.CorpusVersion, Planners: make([]PlannerRef, 0, len(report.Planners))}
	rows := 0
	for i := range report.Planners {
		rows += len(report.Planners[i].JourneyRows)
	}
	if rows > limit.MaxObservedCounts {
		return CountsSnapshot{}, newError(CodeLimitExceeded, field("planners"), nil, "have %d journey rows; a snapshot holds at most %d", rows, limit.MaxObservedCounts)
	}
	s.Counts = make([]JourneyCounts, 0, rows)
	for i := range report.Planners {
		pr := &report.Planners[i]
		s.Planners = append(s.Planners, pr.Planner)
		for k := range pr.JourneyRows {
			r := &pr.JourneyRows[k]
			s.Counts = append(s.Counts, JourneyCounts{
				PlannerID: pr.Planner.ID, AppID: r.AppID, JourneyID: r.JourneyID,
				Runs: r.Runs, Passes: r.Passes, FirstAttemptPasses: r.FirstAttemptPasses, NotEvaluable: r.NotEvaluable,
				InputTokens: r.InputTokens, OutputTokens: r.OutputTokens, TokensUnknown: r.TokensUnknown,
				RecoveryTriggered: r.RecoveryTriggered, Recovered: r.Recovered,
			})
		}
	}
	// The report may have been built by hand: its rows are checked as any
	// counts input is.
	if _, err := observedCountsPlan(s.input()); err != nil {
		return CountsSnapshot{}, err
	}
	d, err := s.digest()
	if err != nil {
		return CountsSnapshot{}, internalError("computing a snapshot's digest")
	}
	s.Digest = d
	return s, nil
}

// NewCountsSnapshot makes a snapshot of counts gathered elsewhere, such as
// the rows of the SQL in docs/scale.md: the rows are sorted as SnapshotOf
// sorts them (by planner in the order of planners, then by journey ID), so
// the same counts in any order give the same snapshot, then checked as any
// counts input is, and digested. The slices are not kept.
func NewCountsSnapshot(corpusVersion string, planners []PlannerRef, counts []JourneyCounts) (CountsSnapshot, error) {
	s := CountsSnapshot{Format: CountsSnapshotVersion, CorpusVersion: corpusVersion, Planners: slices.Clone(planners), Counts: slices.Clone(counts)}
	if _, err := observedCountsPlan(s.input()); err != nil {
		return CountsSnapshot{}, err
	}
	rank := make(map[string]int, len(planners))
	for i, p := range planners {
		rank[p.ID] = i
	}
	slices.SortFunc(s.Counts, func(a, b JourneyCounts) int {
		return cmp.Or(cmp.Compare(rank[a.PlannerID], rank[b.PlannerID]), cmpString(a.JourneyID, b.JourneyID))
	})
	d, err := s.digest()
	if err != nil {
		return CountsSnapshot{}, internalError("computing a snapshot's digest")
	}
	s.Digest = d
	return s, nil
}

// WriteCountsSnapshot writes s as JSON with one planner or row per line and
// a newline at the end: the same snapshot gives the same bytes, and a row
// that changed between two committed snapshots is one changed line. s is
// checked as [ReadCountsSnapshot] checks it.
func WriteCountsSnapshot(w io.Writer, s CountsSnapshot) error {
	if err := checkCountsSnapshot(&s); err != nil {
		return err
	}
	var (
		b      bytes.Buffer
		failed error
	)
	value := func(v any) {
		if err := json.MarshalWrite(&b, v, jsonv1.DefaultOptionsV1(), jsontext.EscapeForHTML(false)); err != nil {
			failed = cmp.Or(failed, err)
		}
	}
	list := func(n int, item func(i int)) {
		b.WriteString("[")
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString("\n    ")
			item(i)
		}
		if n > 0 {
			b.WriteString("\n  ")
		}
		b.WriteString("]")
	}
	b.WriteString("{\n  \"format\": ")
	value(s.Format)
	b.WriteString(",\n  \"corpusVersion\": ")
	value(s.CorpusVersion)
	b.WriteString(",\n  \"planners\": ")
	list(len(s.Planners), func(i int) { value(s.Planners[i]) })
	b.WriteString(",\n  \"counts\": ")
	list(len(s.Counts), func(i int) { value(s.Counts[i]) })
	b.WriteString(",\n  \"digest\": ")
	value(s.Digest)
	b.WriteString("\n}\n")
	if failed != nil {
		return internalError("writing a snapshot's JSON") // checked strings and bounded ints always have one
	}
	_, err := w.Write(b.Bytes())
	return err
}

// ReadCountsSnapshot reads a snapshot that [WriteCountsSnapshot] wrote (or any
// JSON of the same members) and checks it. It reads with the package's one
// bounded reader, token by token: at most MaxCountsSnapshotBytes, the
// document bounds of docs/limits.md, exactly the members of [CountsSnapshot]
// and [JourneyCounts] spelled as they are (no other, none twice, no case
// variant), integers where counts are, valid UTF-8, then the supported
// format and corpus version, a digest that matches, and counts that
// [CompareObservedTrials] accepts. Every problem is a coded [*Error] naming
// where it is (such as counts[3].passes) and how to fix it; nothing read is
// echoed unbounded.
func ReadCountsSnapshot(ctx context.Context, r io.Reader) (CountsSnapshot, error) {
	if err := checkContext(ctx); err != nil {
		return CountsSnapshot{}, err
	}
	data, err := io.ReadAll(io.LimitReader(r, limit.MaxCountsSnapshotBytes+1))
	if err != nil {
		return CountsSnapshot{}, newError(CodeInvalidArgument, Path{}, nil, "could not be read: %s", echo.Value(err.Error()))
	}
	if len(data) > limit.MaxCountsSnapshotBytes {
		return CountsSnapshot{}, newError(CodeLimitExceeded, Path{}, nil, "is over %d bytes, the most a counts snapshot may have; keep fewer rows in one snapshot", limit.MaxCountsSnapshotBytes)
	}
	var s CountsSnapshot
	d := newJSONDoc(ctx, bytes.NewReader(data), Path{}, "a counts snapshot")
	if err := readSnapshot(d, &s); err != nil {
		return CountsSnapshot{}, err
	}
	if err := d.end(); err != nil {
		return CountsSnapshot{}, err
	}
	if err := checkCountsSnapshot(&s); err != nil {
		return CountsSnapshot{}, err
	}
	return s, nil
}

// readSnapshot reads the members of a snapshot; every one is required.
func readSnapshot(d *jsonDoc, s *CountsSnapshot) error {
	var seen [5]bool
	names := [5]string{"format", "corpusVersion", "planners", "counts", "digest"}
	err := d.object(d.root(), func(name string, at docAt) error {
		var err error
		switch name {
		case "format":
			seen[0] = true
			s.Format, err = d.str(at)
		case "corpusVersion":
			seen[1] = true
			s.CorpusVersion, err = d.str(at)
		case "planners":
			seen[2] = true
			s.Planners = []PlannerRef{}
			err = d.array(at, func(i int, at docAt) error {
				if i >= limit.MaxPlanners {
					return newError(CodeLimitExceeded, at.path(), nil, "is planner number %d; a snapshot has at most %d", i+1, limit.MaxPlanners)
				}
				var p PlannerRef
				err := readMembers(d, at, map[string]*string{"id": &p.ID, "vendor": &p.Vendor, "model": &p.Model}, nil)
				s.Planners = append(s.Planners, p)
				return err
			})
		case "counts":
			seen[3] = true
			s.Counts = []JourneyCounts{}
			err = d.array(at, func(i int, at docAt) error {
				if i >= limit.MaxObservedCounts {
					return newError(CodeLimitExceeded, at.path(), nil, "is row number %d; a snapshot has at most %d", i+1, limit.MaxObservedCounts)
				}
				var c JourneyCounts
				err := readMembers(d, at,
					map[string]*string{"plannerId": &c.PlannerID, "appId": &c.AppID, "journeyId": &c.JourneyID},
					map[string]*int{
						"runs": &c.Runs, "passes": &c.Passes, "firstAttemptPasses": &c.FirstAttemptPasses, "notEvaluable": &c.NotEvaluable,
						"inputTokens": &c.InputTokens, "outputTokens": &c.OutputTokens, "tokensUnknown": &c.TokensUnknown,
						"recoveryTriggered": &c.RecoveryTriggered, "recovered": &c.Recovered,
					})
				s.Counts = append(s.Counts, c)
				return err
			})
		case "digest":
			seen[4] = true
			s.Digest, err = d.str(at)
		default:
			return unknownMember(at.path())
		}
		return err
	})
	if err != nil {
		return err
	}
	for i, ok := range seen {
		if !ok {
			return newError(CodeInvalidArgument, field(names[i]), nil, "is missing; a counts snapshot has format, corpusVersion, planners, counts and digest")
		}
	}
	return nil
}

// readMembers reads an object whose members are the given strings and
// integers, each optional: an integer left out is 0, as WriteCountsSnapshot
// leaves zeros out.
func readMembers(d *jsonDoc, at docAt, strs map[string]*string, ints map[string]*int) error {
	return d.object(at, func(name string, at docAt) error {
		if p, ok := strs[name]; ok {
			v, err := d.str(at)
			*p = v
			return err
		}
		if p, ok := ints[name]; ok {
			f, err := d.num(at)
			if err != nil {
				return err
			}
			if f != math.Trunc(f) || f < -maxExactCount || f > maxExactCount {
				return newError(CodeInvalidArgument, at.path(), nil, "is %v; a count is a whole number", f)
			}
			*p = int(f)
			return nil
		}
		return unknownMember(at.path())
	})
}

// maxExactCount is far above every count bound and exact in a float64, so a
// number past it is refused before it becomes an int.
const maxExactCount = 1 << 53

func unknownMember(at Path) error {
	return newError(CodeInvalidArgument, at, nil, "is not a member of a counts snapshot (names are case-sensitive); write the snapshot with WriteCountsSnapshot or automium compare --snapshot")
}

// checkCountsSnapshot checks what a snapshot's JSON cannot: its format, its
// corpus version, its digest and its counts.
func checkCountsSnapshot(s *CountsSnapshot) error {
	if s.Format != CountsSnapshotVersion {
		return newError(CodeInvalidArgument, field("format"), []string{CountsSnapshotVersion},
			"is %s, not a format this version reads; write the snapshot again with this version", echo.Value(s.Format))
	}
	if _, err := observedCountsPlan(s.input()); err != nil {
		return err
	}
	d, err := s.digest()
	if err != nil {
		return internalError("computing a snapshot's digest")
	}
	if s.Digest != d {
		return newError(CodeInvalidArgument, field("digest"), nil,
			"is %s, but the snapshot's content hashes to %s: it was changed or damaged after it was written; write it again from the run", echo.Value(s.Digest), d)
	}
	return nil
}
