package automium

import (
	"context"
	"io"
	"math"

	"github.com/automium/automium/internal/echo"
	"github.com/automium/automium/internal/limit"
)

// tau2Format is the table row of τ²-bench results.
var tau2Format = reportFormat{
	name:         FormatTau2,
	read:         (*trialBuilder).readTau2,
	noTags:       "a τ²-bench results file, which records no tags; map the planner from project (the agent's model) and the journey from annotation task_id",
	project:      "info.agent_info.llm (the agent's model)",
	annotation:   "a simulation member %s holding the %s",
	slugJourneys: true,
	// τ² writes its Results with the timestamp first.
	sniff: firstJSONMemberIs("timestamp"),
}

// tau2PassTolerance is how far from 1.0 a reward may be and still pass: τ²
// itself counts a trial as successful when its reward is within 1e-6 of 1.0.
const tau2PassTolerance = 1e-6

// TrialsFromTau2Results reads a τ²-bench results file and makes one [Trial]
// of each simulation. It reads the monolithic results JSON (timestamp, info,
// tasks, simulations) or the results.json of a results folder, whose
// simulation_index lists the same verdicts without the messages; both
// through the bounded document reader, in memory proportional to the
// simulations. A simulation becomes a trial as follows:
//
//   - planner: the mapping's project is the agent's model,
//     info.agent_info.llm; an annotation named N is the simulation's member
//     N (a string or number), so the journey is mapped from annotation
//     task_id;
//   - journey: the value mapped, made a journey ID by keeping it if it is one
//     and otherwise lowercasing it, turning each run of other characters
//     into '-' and adding 12 hex digits of its SHA-256 (task IDs such as
//     "[mobile_data_issue]bad_vpn[PERSONA:Easy]" are not journey IDs);
//   - repetition: trial + 1 (τ² counts trials from 0), unless the mapping
//     reads a repetition; a task's trial given twice is refused;
//   - passed: reward_info.reward (reward in simulation_index) within 1e-6 of
//     1.0, τ²'s own rule; any other reward, or none, fails;
//   - notEvaluable: termination_reason infrastructure_error, which τ² leaves
//     out of pass^k, average reward and its counts; every other reason
//     (max_steps, too_many_errors, agent_error, user_error, timeout, ...)
//     scores reward 0 in τ² and is a failure here too;
//   - latencyMs: duration (seconds); latencyUnknown without one;
//   - tokens: the sum of usage.prompt_tokens (input) and
//     usage.completion_tokens (output) over the simulation's assistant
//     messages, the agent's own; tokensUnknown when no assistant message has
//     usage (simulation_index carries none). The user simulator's tokens and
//     agent_cost are not a trial's: Trial has no cost.
//
// Errors are *Error values at paths into the file, as
// [TrialsFromPlaywrightReport] reports them.
func TrialsFromTau2Results(ctx context.Context, r io.Reader, m ReportMapping) (ImportedTrials, error) {
	return readOneReport(ctx, r, m, FormatTau2)
}

func (b *trialBuilder) readTau2(ctx context.Context, r io.Reader, root Path) error {
	d := newJSONDoc(ctx, r, root, "a τ²-bench results file")
	notes := b.wanted(FromAnnotation)
	var model string
	var records []*testRecord
	saw := false
	sims := func(at Path) error {
		saw = true
		return d.array(at, func(_ int, at Path) error {
			if b.out.Tests+len(records) >= limit.MaxObservedTrials {
				return newError(CodeLimitExceeded, at, nil, "is simulation number %d; one call reads at most %d", b.out.Tests+len(records)+1, limit.MaxObservedTrials)
			}
			t, err := tau2Simulation(d, at, notes)
			records = append(records, t)
			return err
		})
	}
	if err := d.object(root, func(name string, at Path) error {
		switch name {
		case "info":
			return d.object(at, func(name string, at Path) error {
				if name != "agent_info" {
					return d.skip(at)
				}
				return d.object(at, func(name string, at Path) error {
					if name != "llm" || d.dec.PeekKind() != '"' {
						return d.skip(at)
					}
					s, err := d.str(at)
					model = echo.Cut(s, keptValueBytes)
					return err
				})
			})
		case "simulations", "simulation_index":
			if saw {
				return newError(CodeInvalidArgument, at, nil, "is a second list of simulations; a results file has simulations or simulation_index, not both")
			}
			return sims(at)
		}
		return d.skip(at)
	}); err != nil {
		return err
	}
	if err := d.end(); err != nil {
		return err
	}
	if !saw {
		return newError(CodeInvalidArgument, root, nil, "has no simulations and no simulation_index: it is not a τ²-bench results file; pass the results JSON τ² wrote")
	}
	for _, t := range records {
		t.project = model
		if err := b.add(t); err != nil {
			return err
		}
	}
	return nil
}

// tau2Simulation reads one simulation (or one simulation_index entry).
func tau2Simulation(d *jsonDoc, at Path, notes []string) (*testRecord, error) {
	t := &testRecord{at: at, attempts: 1}
	reward := math.NaN()
	var termination string
	sawTrial := false
	err := d.object(at, func(name string, at Path) error {
		switch name {
		case "reward_info":
			if d.dec.PeekKind() != '{' {
				return d.skip(at)
			}
			return d.object(at, func(name string, at Path) error {
				if name != "reward" || d.dec.PeekKind() != '0' {
					return d.skip(at)
				}
				n, err := d.num(at)
				reward = n
				return err
			})
		case "messages":
			return d.array(at, func(_ int, at Path) error { return tau2Message(d, t, at) })
		}
		known := name == "trial" || name == "duration" || name == "reward" || name == "termination_reason"
		if !known && !containsString(notes, name) {
			return d.skip(at)
		}
		v, ok, err := scalarText(d, at)
		if err != nil || !ok {
			return err
		}
		if containsString(notes, name) {
			t.keep(string(FromAnnotation)+"\x00"+name, v)
		}
		switch name {
		case "termination_reason":
			termination = v
		case "trial":
			n, ok := wholeNumber(v)
			if !ok || n < 0 || n >= limit.MaxRepetitions {
				return newError(CodeInvalidArgument, at, nil, "is %s; a trial is a whole number from 0 to %d (τ² counts trials from 0)", echo.Value(v), limit.MaxRepetitions-1)
			}
			t.rep, sawTrial = int(n)+1, true
		case "duration":
			sec, ok := junitSeconds(v)
			if !ok {
				return newError(CodeInvalidArgument, at, nil, "is %s; a duration is seconds, from 0 to %d", echo.Value(v), limit.MaxTrialLatencyMs/1000)
			}
			t.ms, t.msKnown = sec*1000, true
		case "reward":
			if n, ok := decimal(v); ok {
				reward = n
			}
		}
		return nil
	})
	if err != nil {
		return t, err
	}
	if !sawTrial {
		return t, newError(CodeInvalidArgument, at.Field("trial"), nil, "is missing; every τ² simulation has its trial; pass the results file unedited")
	}
	switch {
	case termination == "infrastructure_error":
		t.noVerdict = true
		t.keepError("termination_reason infrastructure_error")
	case math.Abs(reward-1) <= tau2PassTolerance:
		t.passed = true
	case termination != "":
		t.keepError("termination_reason " + termination)
	}
	return t, nil
}

// tau2Message adds the usage of one assistant message.
func tau2Message(d *jsonDoc, t *testRecord, at Path) error {
	if d.dec.PeekKind() != '{' {
		return d.skip(at)
	}
	var role string
	var usage [2]float64
	var usageAt Path
	has := false
	err := d.object(at, func(name string, at Path) error {
		switch name {
		case "role":
			v, _, err := scalarText(d, at)
			role = v
			return err
		case "usage":
			if d.dec.PeekKind() != '{' {
				return d.skip(at)
			}
			usageAt = at
			return d.object(at, func(name string, at Path) error {
				i := 0
				switch {
				case d.dec.PeekKind() != '0':
					return d.skip(at)
				case name == "completion_tokens":
					i = 1
				case name != "prompt_tokens":
					return d.skip(at)
				}
				n, err := d.num(at)
				usage[i] = n
				has = true
				return err
			})
		}
		return d.skip(at)
	})
	if err == nil && has && role == "assistant" {
		t.keepToken(0, formatNumber(usage[0]), usageAt)
		t.keepToken(1, formatNumber(usage[1]), usageAt)
	}
	return err
}
