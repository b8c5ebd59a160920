// Package gitinput checks a request to a git backend before the backend
// writes anything: signatures, messages, file actions, ref updates,
// archive and transport parameters (checker.go, params.go), and what a
// request asks of the repository's refs and commits (repository.go), and how a refused push is
// worded to the git client (refusal.go). The
// names inside a request are checked with gitnames' rules. Both backends
// (gitcli, gogit) run the same checks, so they refuse exactly the same
// requests with the same errors: core.ErrInvalid, or core.BadRequest with
// GitLab's message.
package gitinput

import (
	"fmt"
	"strings"

	"github.com/hearth-forge/hearth/adapters/git/gitnames"
	"github.com/hearth-forge/hearth/adapters/git/gitobject"
	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// Checker runs the checks for one backend, whose name ("gitcli", "gogit")
// starts the messages of the errors it makes, as the backend's own errors
// do. Errors of gitnames and GitLab's messages are returned as they are.
type Checker string

func (c Checker) invalidf(format string, args ...any) error {
	return fmt.Errorf("%s: "+format+": %w", append(append([]any{string(c)}, args...), core.ErrInvalid)...)
}

// Signature refuses what git would mangle or reject in an ident: an empty
// name or email, or one with "<", ">", a newline or NUL. what names the
// role ("author", "committer", "tagger").
func (c Checker) Signature(what string, s domain.Signature) error {
	if strings.TrimSpace(s.Name) == "" || strings.TrimSpace(s.Email) == "" ||
		strings.ContainsAny(s.Name+s.Email, "<>\n\x00") {
		return c.invalidf("invalid %s %q <%s>", what, s.Name, s.Email)
	}
	return nil
}

// message refuses a NUL, which no git object may carry in a message.
func (c Checker) message(what, msg string) error {
	if strings.ContainsRune(msg, 0) {
		return c.invalidf("%s message contains NUL", what)
	}
	return nil
}

// CommitFiles checks a multi-file commit and returns its actions with
// clean paths (gitnames.CleanPath), in a new slice: req is not changed.
func (c Checker) CommitFiles(req domain.CommitFiles) ([]domain.FileAction, error) {
	if err := gitnames.CheckBranch(req.Branch); err != nil {
		return nil, err
	}
	if req.StartBranch != "" {
		if err := gitnames.CheckBranch(req.StartBranch); err != nil {
			return nil, err
		}
	}
	if req.ExpectedHead != "" && !gitnames.IsOID(req.ExpectedHead) {
		return nil, c.invalidf("expected head %q", req.ExpectedHead)
	}
	if err := c.Signature("author", req.Author); err != nil {
		return nil, err
	}
	if err := c.Signature("committer", req.Committer); err != nil {
		return nil, err
	}
	if err := c.message("commit", req.Message); err != nil {
		return nil, err
	}
	if len(req.Actions) == 0 {
		return nil, core.BadRequest("No actions given")
	}
	actions := append([]domain.FileAction(nil), req.Actions...)
	for i, a := range actions {
		p, err := writePath(a.Path)
		if err != nil {
			return nil, err
		}
		actions[i].Path = p
		switch a.Action {
		case domain.FileCreate, domain.FileUpdate, domain.FileDelete:
		case domain.FileMove:
			if actions[i].PreviousPath, err = writePath(a.PreviousPath); err != nil {
				return nil, err
			}
		default:
			return nil, c.invalidf("unknown file action %q", a.Action)
		}
	}
	return actions, nil
}

// writePath is the clean form of a path a commit writes; the root and
// what git refuses in an index are GitLab's "Invalid path".
func writePath(p string) (string, error) {
	p, err := gitnames.CleanPath(p)
	if err != nil {
		return "", err
	}
	if p == "" {
		return "", core.BadRequest("Invalid path")
	}
	if err := gitnames.CheckWritePath(p); err != nil {
		return "", err
	}
	return p, nil
}

// InitialBranch is the branch a new repository's HEAD names: name, or
// "master" when it is empty.
func (c Checker) InitialBranch(name string) (string, error) {
	if name == "" {
		name = "master"
	}
	if err := gitnames.CheckBranch(name); err != nil {
		return "", err
	}
	return name, nil
}

// Tag checks the creation of tag name at revision target in the bare
// repository at gitDir, and returns the tag's full ref name; a message
// makes it an annotated tag, which needs a tagger. A tag that exists is
// core.ErrConflict.
func (c Checker) Tag(gitDir, name, target, message string, tagger domain.Signature) (string, error) {
	if err := gitnames.CheckTag(name); err != nil {
		return "", err
	}
	if err := gitnames.CheckRev(target); err != nil {
		return "", err
	}
	if message != "" {
		if err := c.Signature("tagger", tagger); err != nil {
			return "", err
		}
		if err := c.message("tag", message); err != nil {
			return "", err
		}
	}
	ref := domain.TagPrefix + name
	if _, ok, err := gitobject.ReadRef(gitDir, ref); err != nil {
		return "", fmt.Errorf("%s: create tag %s: %w", c, name, err)
	} else if ok {
		return "", fmt.Errorf("%s: tag %s: %w", c, name, core.ErrConflict)
	}
	return ref, nil
}

// Merge checks what a merge commit needs (nothing for a dry run); the
// revisions are checked when they are resolved.
func (c Checker) Merge(req domain.MergeSpec) error {
	if req.DryRun {
		return nil
	}
	if err := c.Signature("author", req.Author); err != nil {
		return err
	}
	if err := c.Signature("committer", req.Committer); err != nil {
		return err
	}
	return c.message("merge", req.Message)
}

// CherryPick checks the pick of revision sha onto revision onto.
func (c Checker) CherryPick(sha, onto string, committer domain.Signature) error {
	if err := c.Signature("committer", committer); err != nil {
		return err
	}
	if err := gitnames.CheckRev(sha); err != nil {
		return err
	}
	return gitnames.CheckRev(onto)
}

// UpdateRef checks the move of full ref name ref from oldID to newID
// (domain.ZeroID for a ref created or deleted, not both).
func (c Checker) UpdateRef(ref, newID, oldID string) error {
	if err := gitnames.CheckFullRef(ref); err != nil {
		return err
	}
	if !gitnames.IsOID(newID) || !gitnames.IsOID(oldID) || (newID == domain.ZeroID && oldID == domain.ZeroID) {
		return c.invalidf("update %s: invalid object names %q, %q", ref, newID, oldID)
	}
	return nil
}
