package repository

import (
	"context"
	"sync"
)

// refLocks serialises this process's API writes to one branch. Without it
// concurrent commits to a branch only lose compare-and-swap races to each
// other and redo their git work (64 writers made about ten times as many
// attempts as commits). Writers on other nodes and git pushes still meet
// at the ref's compare-and-swap, which stays the guarantee.
type refLocks struct {
	mu   sync.Mutex
	held map[string]*refLock
}

// refLock is one branch's turn: a one-slot channel, and how many writers
// hold or wait for it (the entry goes when that drops to zero).
type refLock struct {
	turn  chan struct{}
	users int
}

func newRefLocks() *refLocks { return &refLocks{held: map[string]*refLock{}} }

// lock waits for the branch's turn, or for ctx to end, and returns the
// function that gives the turn back.
func (l *refLocks) lock(ctx context.Context, repo, branch string) (func(), error) {
	key := repo + "\x00" + branch
	l.mu.Lock()
	rl := l.held[key]
	if rl == nil {
		rl = &refLock{turn: make(chan struct{}, 1)}
		l.held[key] = rl
	}
	rl.users++
	l.mu.Unlock()

	release := func() {
		l.mu.Lock()
		if rl.users--; rl.users == 0 {
			delete(l.held, key)
		}
		l.mu.Unlock()
	}
	select {
	case rl.turn <- struct{}{}:
		return func() { <-rl.turn; release() }, nil
	case <-ctx.Done():
		release()
		return nil, ctx.Err()
	}
}
