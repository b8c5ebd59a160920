package gitcli

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/hearth-forge/hearth/core"
)

// limitedBackend is a backend over a fresh root with one commit in
// projects/1.git, bounded by l.
func limitedBackend(t *testing.T, l Limits) (*Backend, string) {
	t.Helper()
	root := t.TempDir()
	b, err := New(root, zaptest.NewLogger(t), WithLimits(l))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b, plainRepo(t, root)
}

// gate is a reader that blocks its first Read until opened, telling when
// it got there: git reading its standard input from a gate is a process
// holding its slot for as long as the test wants.
type gate struct {
	entered, open chan struct{}
	once          sync.Once
}

func newGate() *gate { return &gate{entered: make(chan struct{}), open: make(chan struct{})} }

func (g *gate) Read([]byte) (int, error) {
	g.once.Do(func() { close(g.entered) })
	<-g.open
	return 0, io.EOF
}

// waitQueued waits until n callers wait for a slot of s.
func waitQueued(t *testing.T, s *slots, n int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for s.queued.Load() != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d callers queued for a %s slot, want %d", s.queued.Load(), s.what, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestProcessBound: with every process slot taken the next git command
// waits out the queue timeout and fails as busy (without running git);
// one queued while the slot frees runs. A read that needs only cat-file
// is not held up by the process bound.
func TestProcessBound(t *testing.T) {
	t.Parallel()
	const queue = 100 * time.Millisecond
	b, bare := limitedBackend(t, Limits{MaxProcesses: 1, MaxCatFiles: 1, QueueTimeout: queue})
	ctx := t.Context()

	g := newGate()
	held := make(chan error, 1)
	go func() {
		_, err := b.runInOpts(ctx, bare, runOpts{stdin: g}, "hash-object", "--stdin")
		held <- err
	}()
	<-g.entered
	runs := b.runs.Load()

	start := time.Now()
	_, err := b.IsAncestor(ctx, "projects/1.git", "main", "main")
	if !errors.Is(err, core.ErrUnavailable) {
		t.Fatalf("git with every process slot taken: %v, want core.ErrUnavailable", err)
	}
	if waited := time.Since(start); waited < queue {
		t.Errorf("gave up after %v, before the queue timeout %v", waited, queue)
	}
	if n := b.runs.Load(); n != runs {
		t.Errorf("%d git processes ran while the slot was taken", n-runs)
	}
	// Cat-file has its own slots.
	if _, err := b.Commit(ctx, "projects/1.git", "main"); err != nil {
		t.Fatalf("cat-file read with the process slots taken: %v", err)
	}
	// A caller whose context ends while it waits is busy too.
	cctx, cancel := context.WithCancel(ctx)
	cancelled := make(chan error, 1)
	go func() {
		_, err := b.IsAncestor(cctx, "projects/1.git", "main", "main")
		cancelled <- err
	}()
	waitQueued(t, b.procs, 1)
	cancel()
	if err := <-cancelled; !errors.Is(err, core.ErrUnavailable) || !errors.Is(err, context.Canceled) {
		t.Fatalf("caller cancelled while queued: %v, want core.ErrUnavailable and context.Canceled", err)
	}

	// Now one waits long enough for the holder to finish.
	b.procs.wait = time.Minute
	queued := make(chan error, 1)
	go func() {
		ok, err := b.IsAncestor(ctx, "projects/1.git", "main", "main")
		if err == nil && !ok {
			err = errors.New("main is not an ancestor of itself")
		}
		queued <- err
	}()
	waitQueued(t, b.procs, 1)
	close(g.open)
	if err := <-held; err != nil {
		t.Fatalf("the slot holder: %v", err)
	}
	if err := <-queued; err != nil {
		t.Fatalf("queued caller after the slot freed: %v", err)
	}
}

// TestCatFileBound: with every cat-file slot taken the next object read
// waits out the queue timeout and fails as busy, one queued while the slot
// frees gets it, and no more processes stay alive than there are slots.
func TestCatFileBound(t *testing.T) {
	t.Parallel()
	const queue = 100 * time.Millisecond
	b, bare := limitedBackend(t, Limits{MaxProcesses: 1, MaxCatFiles: 1, QueueTimeout: queue})
	root := filepath.Dir(filepath.Dir(bare))
	CleanGit(t, root, "clone", "--quiet", "--bare", bare, filepath.Join(root, "projects", "2.git"))
	ctx := t.Context()

	entered, release := make(chan struct{}), make(chan struct{})
	held := make(chan error, 1)
	go func() {
		held <- b.withCatFile(ctx, bare, func(c *catFile) error {
			close(entered)
			<-release
			_, err := c.info("HEAD")
			return err
		})
	}()
	<-entered

	start := time.Now()
	if _, err := b.Commit(ctx, "projects/1.git", "main"); !errors.Is(err, core.ErrUnavailable) {
		t.Fatalf("read with every cat-file slot taken: %v, want core.ErrUnavailable", err)
	}
	if waited := time.Since(start); waited < queue {
		t.Errorf("gave up after %v, before the queue timeout %v", waited, queue)
	}
	// Git processes have their own slots.
	if _, err := b.runIn(ctx, bare, "rev-parse", "main"); err != nil {
		t.Fatalf("git process with the cat-file slots taken: %v", err)
	}

	b.cat.busy.wait = time.Minute
	queued := make(chan error, 1)
	go func() {
		_, err := b.Commit(ctx, "projects/2.git", "main")
		queued <- err
	}()
	waitQueued(t, b.cat.busy, 1)
	close(release)
	if err := <-held; err != nil {
		t.Fatalf("the slot holder: %v", err)
	}
	if err := <-queued; err != nil {
		t.Fatalf("queued read after the slot freed: %v", err)
	}
	// The second repository's process replaced the first's idle one.
	if _, started := b.cat.stats(); b.cat.alive() != 1 || started != 2 {
		t.Errorf("%d cat-file processes alive of %d started, want 1 of 2", b.cat.alive(), started)
	}
	for _, repo := range []string{"projects/1.git", "projects/2.git", "projects/1.git"} {
		if _, err := b.Commit(ctx, repo, "main"); err != nil {
			t.Fatal(err)
		}
		if alive := b.cat.alive(); alive != 1 {
			t.Fatalf("after reading %s: %d cat-file processes alive, want 1", repo, alive)
		}
	}
}
