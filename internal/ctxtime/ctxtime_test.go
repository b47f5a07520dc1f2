package ctxtime

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestSleepEndsWithTheContextAndSaysWhy(t *testing.T) {
	if err := Sleep(context.Background(), time.Millisecond); err != nil {
		t.Fatalf("a full sleep returned %v", err)
	}
	why := errors.New("the load ended")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(why)
	if err := Sleep(ctx, time.Hour); !errors.Is(err, why) {
		t.Fatalf("a cancelled sleep returned %v, want the cause", err)
	}
	if err := Sleep(ctx, 0); !errors.Is(err, why) {
		t.Fatalf("a zero sleep on a cancelled context returned %v", err)
	}
}
