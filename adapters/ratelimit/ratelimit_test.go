package ratelimit

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// clock is a settable time.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestTake(t *testing.T) {
	c := &clock{t: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)}
	l := New(c.now)
	ctx := context.Background()
	for i := range 3 {
		d := l.Take(ctx, "user:1", 3, 3*time.Second)
		if !d.Allowed || d.Limit != 3 || d.Remaining != 2-i || d.Observed != i+1 {
			t.Fatalf("request %d: %+v", i, d)
		}
	}
	d := l.Take(ctx, "user:1", 3, 3*time.Second)
	if d.Allowed || d.Remaining != 0 || d.Observed != 3 || !d.Reset.Equal(c.t.Add(time.Second)) {
		t.Fatalf("over the allowance: %+v (reset %v after now)", d, d.Reset.Sub(c.t))
	}
	if d := l.Take(ctx, "user:2", 3, 3*time.Second); !d.Allowed {
		t.Fatalf("another key: %+v", d)
	}
	c.t = c.t.Add(time.Second) // one token back
	if d := l.Take(ctx, "user:1", 3, 3*time.Second); !d.Allowed {
		t.Fatalf("a second later: %+v", d)
	}
	if d := l.Take(ctx, "user:1", 3, 3*time.Second); d.Allowed {
		t.Fatalf("only one token came back: %+v", d)
	}
}

// TestSweepForgetsIdleKeys: past sweepAbove keys, those whose allowance is
// whole again are forgotten, the busy ones kept.
func TestSweepForgetsIdleKeys(t *testing.T) {
	c := &clock{t: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)}
	l := New(c.now)
	ctx := context.Background()
	for i := range sweepAbove {
		l.Take(ctx, fmt.Sprint("ip:", i), 2, time.Minute)
	}
	l.Take(ctx, "busy", 2, time.Hour)
	c.t = c.t.Add(time.Minute)
	l.Take(ctx, "new", 2, time.Minute) // over sweepAbove: sweeps first
	if _, ok := l.buckets["ip:7"]; ok || len(l.buckets) != 2 {
		t.Fatalf("%d keys after the sweep, want busy and new", len(l.buckets))
	}
	if d := l.Take(ctx, "busy", 2, time.Hour); d.Remaining != 0 {
		t.Fatalf("the busy key lost its count: %+v", d)
	}
}
