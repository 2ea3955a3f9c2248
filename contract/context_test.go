package contract

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/automium/automium"
	"github.com/google/go-cmp/cmp"
)

// Get checks its context first, as every capability of the root package
// does: a nil context is invalid_argument, a done one ends the call with an
// error that wraps the context's.
func TestGetContext(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancelExpired := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancelExpired()
	in := GetInput{Name: automium.ReplayEventVersion}
	if _, err := Get(context.Background(), in); err != nil {
		t.Fatalf("with a live context: %v", err)
	}
	for _, tt := range []struct {
		ctx      context.Context
		code     automium.Code
		sentinel error
	}{
		{nil, automium.CodeInvalidArgument, nil},
		{canceled, automium.CodeCanceled, context.Canceled},
		{expired, automium.CodeDeadlineExceeded, context.DeadlineExceeded},
	} {
		_, err := Get(tt.ctx, in)
		var e *automium.Error
		if !errors.As(err, &e) {
			t.Fatalf("ctx %v: got %v, want *automium.Error", tt.ctx, err)
		}
		if diff := cmp.Diff(tt.code, e.Code); diff != "" {
			t.Errorf("ctx %v: code (-want +got):\n%s", tt.ctx, diff)
		}
		if tt.sentinel != nil && !errors.Is(err, tt.sentinel) {
			t.Errorf("ctx %v: errors.Is(err, %v) is false", tt.ctx, tt.sentinel)
		}
	}
}
