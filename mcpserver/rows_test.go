package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/automium/automium"
	"github.com/google/go-cmp/cmp"
)

// rowFaults says what is wrong with the calls the rows carry, before any is
// made: a row without a refusal (TestToolCalls counts the hand cases too, so
// a tool with one of them passed it without), a refusal or a shows that is
// not a JSON object, a refusal without a code, a shows that shows nothing.
// A refusal's code that is not the tool's answer fails TestToolCalls, which
// makes the call.
func rowFaults(rows []tool) []string {
	var faults []string
	object := func(raw json.RawMessage) error {
		if !json.Valid(raw) {
			return errors.New("it is not valid JSON")
		}
		if !bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
			return errors.New("it is valid JSON, not an object")
		}
		return nil
	}
	for _, r := range rows {
		name := r.def.Name
		switch {
		case r.refusal == nil:
			faults = append(faults, name+" has no refusal: give its row a call it refuses and the code of the refusal (refuses, in tools.go)")
		case object(r.refusal) != nil:
			faults = append(faults, fmt.Sprintf("%s: the arguments of its refusal are not a JSON object (%v); fix its refuses in tools.go", name, object(r.refusal)))
		case r.refusalCode == "":
			faults = append(faults, name+": its refusal has no code; give refuses the code the tool answers it with")
		}
		if r.expect == nil {
			continue
		}
		var m map[string]json.RawMessage
		if err := object(r.expect); err != nil {
			faults = append(faults, fmt.Sprintf("%s: its shows is not a JSON object (%v); fix it in tools.go", name, err))
		} else if _ = json.Unmarshal(r.expect, &m); len(m) == 0 {
			faults = append(faults, name+": its shows is an empty object, which checks nothing; name a member of the answer, or drop shows")
		}
	}
	return faults
}

// TestToolRows holds every row to rowFaults, and rowFaults to each fault.
func TestToolRows(t *testing.T) {
	if faults := rowFaults(toolTable()); len(faults) > 0 {
		t.Errorf("the tool table's rows:\n%s", strings.Join(faults, "\n"))
	}
	row := toolTable()[0]
	name := row.def.Name
	for _, tc := range []struct {
		name string
		edit func(tool) tool
		want []string
	}{
		{"no refusal", func(r tool) tool { r.refusal = nil; return r },
			[]string{name + " has no refusal: give its row a call it refuses and the code of the refusal (refuses, in tools.go)"}},
		{"a refusal cut short", func(r tool) tool { return r.refuses(`{"appId":`, automium.CodeInvalidArgument) },
			[]string{name + ": the arguments of its refusal are not a JSON object (it is not valid JSON); fix its refuses in tools.go"}},
		{"a refusal that is no object", func(r tool) tool { return r.refuses(`["appId"]`, automium.CodeInvalidArgument) },
			[]string{name + ": the arguments of its refusal are not a JSON object (it is valid JSON, not an object); fix its refuses in tools.go"}},
		{"a refusal of null", func(r tool) tool { return r.refuses(`null`, automium.CodeInvalidArgument) },
			[]string{name + ": the arguments of its refusal are not a JSON object (it is valid JSON, not an object); fix its refuses in tools.go"}},
		{"a refusal without a code", func(r tool) tool { return r.refuses(`{"appId":"x"}`, "") },
			[]string{name + ": its refusal has no code; give refuses the code the tool answers it with"}},
		{"a shows cut short", func(r tool) tool { return r.shows(`{"modeled":`) },
			[]string{name + ": its shows is not a JSON object (it is not valid JSON); fix it in tools.go"}},
		{"a shows of null", func(r tool) tool { return r.shows(`null`) },
			[]string{name + ": its shows is not a JSON object (it is valid JSON, not an object); fix it in tools.go"}},
		{"an empty shows", func(r tool) tool { return r.shows(`{}`) },
			[]string{name + ": its shows is an empty object, which checks nothing; name a member of the answer, or drop shows"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, rowFaults([]tool{tc.edit(row)})); diff != "" {
				t.Errorf("faults (-want +got):\n%s", diff)
			}
		})
	}
}
