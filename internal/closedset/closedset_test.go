package closedset

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

type color string

func TestConversions(t *testing.T) {
	tests := []struct {
		name   string
		values []string
		sorted []color
	}{
		{"none", []string{}, []color{}},
		{"unsorted", []string{"red", "blue", "Green"}, []color{"Green", "blue", "red"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Sorted[color](tt.values)
			if diff := cmp.Diff(tt.sorted, got); diff != "" {
				t.Errorf("Sorted (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.values, Strings(got), cmp.Transformer("sort", func(s []string) map[string]bool {
				m := map[string]bool{}
				for _, v := range s {
					m[v] = true
				}
				return m
			})); diff != "" {
				t.Errorf("Strings(Sorted(x)) holds other values than x (-want +got):\n%s", diff)
			}
		})
	}
}
