package gitcli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/adapters/git/gitobject"
	"github.com/hearth-forge/hearth/core"
)

// Object reads go through long-lived "git cat-file --batch-command"
// processes, one request at a time each, kept per repository in a small
// pool: spawning git for every blob, tree or commit would dominate the cost
// of a tree listing or a page of log. Limits.MaxCatFiles bounds the
// processes in use and alive at once.
const (
	// catFileIdle is how long an unused process is kept.
	catFileIdle = time.Minute
	// catFilePerRepo bounds the idle processes kept for one repository;
	// more may run at once under load, the extra ones exit when returned.
	catFilePerRepo = 4
	// catFileMaxIdle bounds the idle processes kept for all repositories.
	catFileMaxIdle = 64
)

// catFile is one running "git cat-file --batch-command" on one repository.
type catFile struct {
	gitDir string
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	// broken is set when the process may be out of step with us (an
	// interrupted read, a killed process): it is never reused.
	broken   bool
	lastUsed time.Time
}

// catFilePool hands out catFile processes, keeping idle ones per
// repository. A process is borrowed only with one of busy's slots held, and
// at most cap(busy) processes are alive, busy or idle: to start one for a
// repository without an idle process when that many are alive, the pool
// stops the longest idle one of another repository. The zero value is not
// usable; see newCatFilePool.
type catFilePool struct {
	b       *Backend
	idleFor time.Duration
	busy    *slots

	mu      sync.Mutex
	idle    map[string][]*catFile // gitDir -> idle processes, most recent last
	nIdle   int
	live    int // processes started and not yet stopped by the pool
	closed  bool
	janitor chan struct{} // closed by Close; nil until the janitor runs
	started int           // processes ever started (tests)
}

func newCatFilePool(b *Backend, idleFor time.Duration, busy *slots) *catFilePool {
	return &catFilePool{b: b, idleFor: idleFor, busy: busy, idle: map[string][]*catFile{}}
}

// get returns an idle process for gitDir or starts one. The caller holds
// a slot of p.busy.
func (p *catFilePool) get(gitDir string) (*catFile, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, errors.New("gitcli: backend closed")
	}
	if c := p.takeIdle(gitDir); c != nil {
		p.mu.Unlock()
		return c, nil
	}
	var victim *catFile
	if p.live >= cap(p.busy.ch) {
		// Every other slot holder has at most one process, so at
		// least one of the live ones is idle.
		victim = p.takeOldestIdle()
	}
	p.live++
	p.started++
	p.mu.Unlock()
	if victim != nil {
		victim.stop()
	}
	c, err := p.start(gitDir)
	if err != nil {
		p.mu.Lock()
		p.live--
		p.mu.Unlock()
	}
	return c, err
}

// takeIdle removes and returns the most recently used idle process of
// gitDir, nil when there is none and the counts stay as they are. p.mu is
// held.
func (p *catFilePool) takeIdle(gitDir string) *catFile {
	list := p.idle[gitDir]
	if len(list) == 0 {
		return nil
	}
	c := list[len(list)-1]
	p.idle[gitDir] = list[:len(list)-1]
	if len(p.idle[gitDir]) == 0 {
		delete(p.idle, gitDir)
	}
	p.nIdle--
	return c
}

// takeOldestIdle removes the idle process unused for longest from the
// pool and the live count, for the caller to stop; nil when none is idle.
// p.mu is held.
func (p *catFilePool) takeOldestIdle() *catFile {
	var oldest string
	for dir, list := range p.idle {
		// Lists run from least to most recently used.
		if oldest == "" || list[0].lastUsed.Before(p.idle[oldest][0].lastUsed) {
			oldest = dir
		}
	}
	if oldest == "" {
		return nil
	}
	list := p.idle[oldest]
	c := list[0]
	if len(list) == 1 {
		delete(p.idle, oldest)
	} else {
		p.idle[oldest] = list[1:]
	}
	p.nIdle--
	p.live--
	return c
}

func (p *catFilePool) start(gitDir string) (*catFile, error) {
	// Not CommandContext: the process outlives the request that started
	// it; requests interrupt it themselves (see catFile.do).
	cmd := exec.Command(p.b.git, "--git-dir="+gitDir, "cat-file", "--batch-command")
	cmd.Dir = gitDir
	cmd.Env = p.b.env
	cmd.WaitDelay = waitDelay
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("gitcli: cat-file: %w", err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("gitcli: cat-file: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("gitcli: start cat-file: %w", err)
	}
	return &catFile{gitDir: gitDir, cmd: cmd, in: in, out: bufio.NewReaderSize(out, 64<<10)}, nil
}

// put returns c to the pool, or stops it when it is broken or not wanted.
func (p *catFilePool) put(c *catFile) {
	c.lastUsed = time.Now()
	p.mu.Lock()
	if c.broken || p.closed || len(p.idle[c.gitDir]) >= catFilePerRepo || p.nIdle >= catFileMaxIdle {
		p.live--
		p.mu.Unlock()
		c.stop()
		return
	}
	p.idle[c.gitDir] = append(p.idle[c.gitDir], c)
	p.nIdle++
	if p.janitor == nil {
		p.janitor = make(chan struct{})
		go p.sweep(p.janitor)
	}
	p.mu.Unlock()
}

// sweep stops processes idle for longer than idleFor until done closes.
func (p *catFilePool) sweep(done chan struct{}) {
	t := time.NewTicker(p.idleFor / 2)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case now := <-t.C:
			var old []*catFile
			p.mu.Lock()
			for dir, list := range p.idle {
				keep := list[:0]
				for _, c := range list {
					if now.Sub(c.lastUsed) >= p.idleFor {
						old = append(old, c)
					} else {
						keep = append(keep, c)
					}
				}
				if len(keep) == 0 {
					delete(p.idle, dir)
				} else {
					p.idle[dir] = keep
				}
			}
			p.nIdle -= len(old)
			p.live -= len(old)
			p.mu.Unlock()
			for _, c := range old {
				c.stop()
			}
		}
	}
}

// evict stops the idle processes of gitDir (deleted or replaced: a process
// could still hold the old repository's pack files open).
func (p *catFilePool) evict(gitDir string) {
	p.mu.Lock()
	list := p.idle[gitDir]
	delete(p.idle, gitDir)
	p.nIdle -= len(list)
	p.live -= len(list)
	p.mu.Unlock()
	for _, c := range list {
		c.stop()
	}
}

// close stops every idle process and the janitor; processes in use stop
// when they are returned.
func (p *catFilePool) close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	idle := p.idle
	p.idle = map[string][]*catFile{}
	p.live -= p.nIdle
	p.nIdle = 0
	if p.janitor != nil {
		close(p.janitor)
	}
	p.mu.Unlock()
	for _, list := range idle {
		for _, c := range list {
			c.stop()
		}
	}
}

// stats reports the idle processes and how many were ever started.
func (p *catFilePool) stats() (idle, started int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.nIdle, p.started
}

// alive is how many processes are running, busy or idle.
func (p *catFilePool) alive() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.live
}

func (c *catFile) stop() {
	if c.broken {
		// Possibly mid-answer: nothing worth waiting for.
		_ = c.cmd.Process.Kill()
	}
	c.broken = true
	_ = c.in.Close() // cat-file exits at the end of its input
	done := make(chan struct{})
	go func() {
		_ = c.cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Second):
		_ = c.cmd.Process.Kill()
		<-done
	}
}

// errMissing is an object name cat-file does not know (or that is ambiguous).
var errMissing = fmt.Errorf("object: %w (%w)", core.ErrNotFound, gitobject.ErrMissing)

// withCatFile runs fn with a process of gitDir, once one of the bounded
// cat-file slots is free (core.ErrUnavailable when none frees within the
// queue timeout). fn must only talk to c: it must not run other git, which
// would hold the slot across unrelated work. When ctx ends during fn the
// process is killed, which unblocks fn. A process that failed to answer
// (see request) or was killed is not reused; one that merely did not find
// an object is.
func (b *Backend) withCatFile(ctx context.Context, gitDir string, fn func(c *catFile) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := b.cat.busy.acquire(ctx); err != nil {
		return err
	}
	defer b.cat.busy.release()
	c, err := b.cat.get(gitDir)
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() { _ = c.cmd.Process.Kill() })
	err = fn(c)
	if !stop() {
		c.broken = true // killed: its state is unknown
		if err == nil {
			err = ctx.Err()
		} else if ctxErr := ctx.Err(); !errors.Is(err, ctxErr) {
			err = fmt.Errorf("%w (%v)", ctxErr, err)
		}
	}
	if c.broken && err != nil {
		b.log.Debug("cat-file process discarded", zap.String("repo", gitDir), zap.Error(err))
	}
	b.cat.put(c)
	return err
}

// info reads an object's name, type and size; errMissing when unknown.
func (c *catFile) info(name string) (gitobject.Object, error) {
	return c.request("info", name)
}

// contents reads an object; errMissing when unknown.
func (c *catFile) contents(name string) (gitobject.Object, error) {
	return c.request("contents", name)
}

// ReadObject is contents, for gitobject's readers of tags and trees.
func (c *catFile) ReadObject(id string) (gitobject.Object, error) { return c.contents(id) }

func (c *catFile) request(cmd, name string) (gitobject.Object, error) {
	if name == "" || strings.ContainsAny(name, "\n\x00") {
		return gitobject.Object{}, fmt.Errorf("cat-file: bad object name %q: %w", name, core.ErrInvalid)
	}
	if c.broken {
		return gitobject.Object{}, errors.New("cat-file: process is out of step")
	}
	// Any failure from here on leaves the process in an unknown state.
	c.broken = true
	if _, err := io.WriteString(c.in, cmd+" "+name+"\n"); err != nil {
		return gitobject.Object{}, fmt.Errorf("cat-file: write: %w", err)
	}
	line, err := c.out.ReadString('\n')
	if err != nil {
		return gitobject.Object{}, fmt.Errorf("cat-file: read: %w", err)
	}
	line = strings.TrimSuffix(line, "\n")
	if strings.HasSuffix(line, " missing") || strings.HasSuffix(line, " ambiguous") {
		c.broken = false
		return gitobject.Object{}, errMissing
	}
	f := strings.Fields(line)
	if len(f) != 3 {
		return gitobject.Object{}, fmt.Errorf("cat-file: unexpected header %q", line)
	}
	size, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil || size < 0 {
		return gitobject.Object{}, fmt.Errorf("cat-file: unexpected header %q", line)
	}
	o := gitobject.Object{ID: f[0], Type: f[1], Size: size}
	if cmd == "info" {
		c.broken = false
		return o, nil
	}
	o.Data = make([]byte, size+1)
	if _, err := io.ReadFull(c.out, o.Data); err != nil {
		return gitobject.Object{}, fmt.Errorf("cat-file: read %s: %w", o.ID, err)
	}
	if o.Data[size] != '\n' {
		return gitobject.Object{}, fmt.Errorf("cat-file: %s not followed by a newline", o.ID)
	}
	o.Data = o.Data[:size]
	c.broken = false
	return o, nil
}
