// Package gitcli is the default ports.RepoBackend: bare repositories on the
// local file system (laid out, built and removed as gitdisk does for both
// backends), driven by the git command-line tool.
package gitcli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/adapters/git/gitdisk"
	"github.com/hearth-forge/hearth/adapters/git/gitinput"
	"github.com/hearth-forge/hearth/adapters/git/gitobject"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

var _ ports.RepoBackend = (*Backend)(nil)

// check runs the request checks both backends share, naming this backend
// in its errors.
const check = gitinput.Checker("gitcli")

// Backend stores bare repositories under a root directory.
type Backend struct {
	disk *gitdisk.Root
	home string   // empty directory used as HOME for every git process
	git  string   // absolute path of the git executable
	env  []string // the complete environment of every git process
	log  *zap.Logger
	cat  *catFilePool
	// limits bound concurrent git work; procs holds the slots of git
	// processes other than cat-file (the pool holds cat-file's).
	limits Limits
	procs  *slots
	// merged remembers which branch heads are reachable from which commits.
	// Without it every branch list walks the default branch's history.
	merged *lru[mergedKey, bool]
	// mergeBases and dryMerges answer merge requests' mergeability checks,
	// which run on reads, without a git process once asked: both depend
	// only on the two commits.
	mergeBases *lru[mergedKey, string]
	dryMerges  *lru[mergedKey, dryMerge]
	// commits keeps parsed commits, so lists of branches and first pages
	// of log need no round trip to cat-file once read.
	commits *lru[commitKey, domain.Commit]
	// lastCommits remembers the last commit to touch a path as of a
	// commit (the files API's last_commit_id), which otherwise walks
	// history with a git process per request.
	lastCommits *lru[pathKey, string]
	// packed keeps repositories' packed-refs parsed for ref lookups.
	packed *gitobject.PackedRefs
	// runs counts the git processes run (cat-file aside), for the tests
	// that pin how much git a read costs.
	runs atomic.Int64
	// observe, when set, is told of each git process (WithRunObserver).
	observe func(took time.Duration, err error)
	// hooks holds the pre-receive hook of ReceivePack (and only its).
	hooks string
}

// New opens (creating it if needed) the repository root. Repositories live
// at filepath.Join(root, repo). A nil log discards logging. Without
// WithLimits the backend uses DefaultLimits.
func New(root string, log *zap.Logger, opts ...Option) (*Backend, error) {
	if log == nil {
		log = zap.NewNop()
	}
	disk, err := gitdisk.Open("gitcli", root, log)
	if err != nil {
		return nil, err
	}
	abs := disk.Dir()
	home := filepath.Join(abs, homeDir)
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, fmt.Errorf("gitcli: create git home: %w", err)
	}
	hooks, err := installHooks(abs)
	if err != nil {
		return nil, fmt.Errorf("gitcli: install hooks: %w", err)
	}
	gitPath, err := exec.LookPath("git")
	if err != nil {
		return nil, fmt.Errorf("gitcli: find git executable: %w", err)
	}
	b := &Backend{
		disk:   disk,
		home:   home,
		git:    gitPath,
		env:    gitEnv(abs, home),
		log:    log,
		hooks:  hooks,
		limits: DefaultLimits(),
	}
	for _, o := range opts {
		o(b)
	}
	b.procs = newSlots(b.limits.MaxProcesses, b.limits.QueueTimeout, "git process")
	b.cat = newCatFilePool(b, catFileIdle, newSlots(b.limits.MaxCatFiles, b.limits.QueueTimeout, "cat-file"))
	b.merged = newLRU[mergedKey, bool](mergedCacheSize)
	b.mergeBases = newLRU[mergedKey, string](mergedCacheSize)
	b.dryMerges = newLRU[mergedKey, dryMerge](mergedCacheSize)
	b.commits = newLRU[commitKey, domain.Commit](commitCacheSize)
	b.lastCommits = newLRU[pathKey, string](commitCacheSize)
	b.packed = gitobject.NewPackedRefs()
	return b, nil
}

// Close stops the backend's long-lived git processes (the cat-file pool).
// Calls made after Close fail; Close may be called more than once.
func (b *Backend) Close() error {
	b.cat.close()
	return nil
}
