package ratelimit

import (
	"context"
	"testing"
	"time"
)

// TestBans: maxRetry failures within findTime ban the key for banTime;
// failures spread wider than findTime, other keys and a success's
// forgiveness do not.
func TestBans(t *testing.T) {
	c := &clock{t: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)}
	b := NewBans(c.now)
	ctx := context.Background()
	fail := func(key string) bool { return b.Fail(ctx, key, 3, time.Minute, time.Hour) }

	if fail("ip:a") || fail("ip:a") {
		t.Fatal("banned before the third failure")
	}
	if _, banned := b.Banned(ctx, "ip:a"); banned {
		t.Fatal("Banned before the third failure")
	}
	if !fail("ip:a") {
		t.Fatal("the third failure within a minute did not ban")
	}
	until, banned := b.Banned(ctx, "ip:a")
	if !banned || !until.Equal(c.t.Add(time.Hour)) {
		t.Fatalf("Banned = %v until %v, want an hour from now", banned, until)
	}
	if _, banned := b.Banned(ctx, "ip:b"); banned {
		t.Fatal("another address is banned")
	}
	b.Forgive(ctx, "ip:a")
	if _, banned := b.Banned(ctx, "ip:a"); !banned {
		t.Fatal("a success lifted the ban")
	}
	c.t = c.t.Add(time.Hour)
	if _, banned := b.Banned(ctx, "ip:a"); banned {
		t.Fatal("still banned after ban time")
	}

	// Failures further apart than findTime never add up.
	for range 5 {
		if fail("ip:c") {
			t.Fatal("banned for failures a minute apart")
		}
		c.t = c.t.Add(31 * time.Second)
		fail("ip:c")
		c.t = c.t.Add(30 * time.Second)
	}
	// A success starts the count again.
	fail("ip:d")
	fail("ip:d")
	b.Forgive(ctx, "ip:d")
	if fail("ip:d") || fail("ip:d") {
		t.Fatal("failures before a success still counted")
	}
}
