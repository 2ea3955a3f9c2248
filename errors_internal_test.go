package automium

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestJoin(t *testing.T) {
	a := &Error{Code: CodeInvalidAppID, Field: "appId", Message: "a"}
	b := &Error{Code: CodeInvalidArgument, Field: "goal", Message: "b"}
	tests := []struct {
		name string
		in   []*Error
		want *Error
	}{
		{"none", nil, nil},
		{"one is itself", []*Error{a}, a},
		{"several lead with the first and list all", []*Error{a, b}, &Error{Code: CodeInvalidAppID, Field: "appId", Message: "a", Problems: []Problem{a.problem(), b.problem()}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Join(tt.in...)); diff != "" {
				t.Errorf("Join (-want +got):\n%s", diff)
			}
		})
	}
}
