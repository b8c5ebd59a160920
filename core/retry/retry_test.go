package retry

import (
	"context"
	"errors"
	"testing"
)

func TestBackoff(t *testing.T) {
	t.Parallel()
	if err := Backoff(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Backoff(ctx, 7); !errors.Is(err, context.Canceled) {
		t.Fatalf("ended context: %v", err)
	}
}
