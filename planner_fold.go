package automium

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"github.com/automium/automium/internal/echo"
)

// plannerKey is what two planner IDs a reader would take for one planner
// have in common: the ID in Unicode compatibility form (NFKC: fullwidth
// letters, ligatures, the Kelvin sign and the long s are their plain
// letters) and then case-folded with Unicode's full folding (Baseline,
// BASELINE and baseline are baseline; ß is ss). Turkish dotless ı and dotted
// İ fold to themselves under the default folding, so they stay distinct
// letters, as strings.EqualFold keeps them. Planner IDs are free text (any
// script, one line), so an ASCII fold would miss the variants; they are
// compared exactly everywhere else, and this key only finds IDs that
// differ in nothing else, so that they are refused instead of counted as
// two planners (docs/external-apps.md, "Planner IDs").
func plannerKey(id string) string {
	ascii := true
	for i := 0; i < len(id) && ascii; i++ {
		ascii = id[i] < utf8.RuneSelf
	}
	if ascii {
		// NFKC leaves ASCII as it is, and full folding of ASCII is
		// lowercasing: the common case costs no tables.
		return strings.ToLower(id)
	}
	return cases.Fold().String(norm.NFKC.String(id))
}

// maxFoldLookups bounds how many IDs of one call that name no planner are
// folded to find the planner they differ from only in case. Folding a
// non-ASCII ID of 128 characters costs up to about 0.1 ms (NFKC), and a call
// may name 100,000 unknown planners; past the bound the problem says only
// that the ID is not a planner, as it did before the hint.
const maxFoldLookups = 64

// plannerFolds are the planners' IDs and their keys, made once per input,
// so that finding the twin of a trial's planner costs one fold, however many
// trials name unknown planners.
type plannerFolds struct {
	ids, keys []string
	lookups   int // IDs folded so far, up to maxFoldLookups
}

func foldsOf(ids []string) *plannerFolds {
	f := &plannerFolds{ids: ids, keys: make([]string, len(ids))}
	for i, id := range ids {
		f.keys[i] = plannerKey(id)
	}
	return f
}

// twin returns the planner ID that differs from id only in case or
// character form, if any: the planner a caller meant.
func (f *plannerFolds) twin(id string) (string, bool) {
	if f.lookups >= maxFoldLookups {
		return "", false
	}
	f.lookups++
	key := plannerKey(id)
	for i, other := range f.ids {
		if other != id && f.keys[i] == key {
			return other, true
		}
	}
	return "", false
}

// unknownPlanner says that id is not one of the planners, naming the
// planner it differs from only in case when there is one.
func (f *plannerFolds) unknownPlanner(id, fix string) echo.Message {
	if twin, ok := f.twin(id); ok {
		return echo.Msg("%s is not one of the input's planners: it differs from planner %s only in case or character form, and planner IDs are compared exactly; write %s", echo.Value(id), echo.Value(twin), echo.Value(twin))
	}
	return echo.Msg("%s is not one of the input's planners; %s", echo.Value(id), fix)
}
