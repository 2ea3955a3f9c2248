package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/automium/automium"
	"github.com/automium/automium/internal/limit"
)

// baselineResult is this run against the --baseline snapshot.
type baselineResult struct{ r automium.BaselineReport }

func (b *baselineResult) pass() bool { return b.r.Pass }

func (b *baselineResult) writeMarkdown(w io.Writer) error {
	return automium.WriteBaselineMarkdown(w, &b.r)
}

// compareBaseline reads the --baseline snapshot (a regular file of at most
// MaxCountsSnapshotBytes) and compares this run with it.
func (c *comparer) compareBaseline(ctx context.Context, report automium.ComparisonReport, margin float64) (*baselineResult, error) {
	in, err := c.open(c.o.baseline, limit.MaxCountsSnapshotBytes)
	if err != nil {
		return nil, err
	}
	defer in.f.Close()
	base, err := automium.ReadCountsSnapshot(ctx, in.r)
	if err != nil {
		if in.r.err != nil {
			return nil, &fileError{in.name, "cannot be read: " + readErrText(in.r.err)}
		}
		return nil, &placedError{file: in.name, err: err}
	}
	current, err := automium.SnapshotOf(report)
	if err != nil {
		return nil, err
	}
	b, err := automium.CompareBaseline(ctx, automium.BaselineInput{Baseline: base, Current: current, Margin: margin})
	if err != nil {
		var ae *automium.Error
		if errors.As(err, &ae) && strings.HasPrefix(ae.Field, "margin") {
			return nil, &usageError{"--margin " + c.o.margin.String() + " is not a margin; give percentage points above 0 and below 100, for example 5"}
		}
		return nil, &placedError{file: in.name, err: trimBaselinePlace(err)}
	}
	return &baselineResult{b}, nil
}

// trimBaselinePlace keeps a problem of the baseline at its place in the
// file: CompareBaseline says baseline.X for the snapshot's X. A problem of
// this run's side (current.X) is about the reports, not the baseline file:
// its field becomes thisRun, which describe tells as such.
func trimBaselinePlace(err error) error {
	var ae *automium.Error
	if !errors.As(err, &ae) {
		return err
	}
	ps := ae.Problems()
	for i := range ps {
		switch {
		case strings.HasPrefix(ps[i].Field, "baseline."):
			ps[i].Field = strings.TrimPrefix(ps[i].Field, "baseline.")
		case ps[i].Field == "baseline":
			ps[i].Field = ""
		case strings.HasPrefix(ps[i].Field, "current"):
			ps[i].Field = thisRun
		}
	}
	return automium.Join(ps...)
}

// thisRun is the field of a baseline comparison's problem with this run's
// side, the reports, rather than with the baseline file.
const thisRun = "\x00this run"

// writeSnapshot writes this run's counts to name.
func writeSnapshot(name string, report automium.ComparisonReport) error {
	snap, err := automium.SnapshotOf(report)
	if err != nil {
		return fmt.Errorf("the snapshot of this run: %w", err)
	}
	return writeFileAtomic(name, func(w io.Writer) error { return automium.WriteCountsSnapshot(w, snap) })
}
