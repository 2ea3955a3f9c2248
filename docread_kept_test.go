package automium

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDocAtKept: a kept place is the whole path while it is short, and its
// way in, a gap and its last steps past that, whatever the depth.
func TestDocAtKept(t *testing.T) {
	tests := []struct {
		levels int
		want   string
	}{
		{1, "reports[0].content.testsuites.testsuite[0].testcase[3]"},
		{3, "reports[0].content.testsuites.testsuite[0].testsuite[0].testsuite[0].testcase[3]"},
		{4, "reports[0].content.testsuites.testsuite[0]…testsuite[0].testsuite[0].testcase[3]"},
		{90, "reports[0].content.testsuites.testsuite[0]…testsuite[0].testsuite[0].testcase[3]"},
	}
	for _, tt := range tests {
		at := docAt{s: &docSteps{root: field("reports").at(0).dot("content")}}
		at = at.field("testsuites")
		for range tt.levels {
			at = at.field("testsuite").index(0)
		}
		at = at.field("testcase").index(3)
		kept := at.kept()
		if diff := cmp.Diff(tt.want, kept.String()); diff != "" {
			t.Errorf("%d levels: kept (-want +got):\n%s", tt.levels, diff)
		}
		if n := len(kept.steps); n > 4+keptHead+1+keptTail {
			t.Errorf("%d levels: kept %d steps", tt.levels, n)
		}
		if got, want := at.path().String(), "reports[0].content.testsuites"+strings.Repeat(".testsuite[0]", tt.levels)+".testcase[3]"; got != want {
			t.Errorf("%d levels: path %s, want %s", tt.levels, got, want)
		}
	}
}

// TestAttributeTwice: an attribute given twice is refused among a few (compared
// pairwise) and among many (through a set), and distinct ones are not.
func TestAttributeTwice(t *testing.T) {
	for _, n := range []int{2, attrTwiceScan, attrTwiceScan + 1, 1000} {
		var distinct strings.Builder
		for i := range n {
			fmt.Fprintf(&distinct, ` a%d="1"`, i)
		}
		doc := func(attrs string) string {
			return `<testsuite name="s" hostname="baseline"` + attrs + `><testcase name="t"><properties><property name="journey" value="storefront-search-add-to-cart"/></properties></testcase></testsuite>`
		}
		if _, err := TrialsFromJUnitReport(context.Background(), strings.NewReader(doc(distinct.String())), byHostAndProperty); err != nil {
			t.Errorf("%d distinct attributes: %v", n, err)
		}
		twice := strings.Replace(distinct.String(), fmt.Sprintf(` a%d="1"`, n-1), ` a0="2"`, 1)
		_, err := TrialsFromJUnitReport(context.Background(), strings.NewReader(doc(twice)), byHostAndProperty)
		if err == nil || !strings.Contains(err.Error(), "gives the attribute \"a0\" twice") {
			t.Errorf("%d attributes, a0 twice: %v", n, err)
		}
	}
}
