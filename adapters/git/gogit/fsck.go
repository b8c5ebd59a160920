package gogit

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/hearth-forge/hearth/adapters/git/gitnames"
	"github.com/hearth-forge/hearth/adapters/git/gitobject"
	"github.com/hearth-forge/hearth/core/ports"
)

var _ ports.RepoChecker = (*Backend)(nil)

// maxFsckProblems caps how many problems a report keeps.
const maxFsckProblems = 20

// Fsck is go-git's equivalent of git fsck: it walks every object
// reachable from the refs and a detached HEAD (commits, their trees and
// parents, trees' entries, tags' targets), reading each whole and checking
// that it hashes to its name and has the type that names it. Submodule
// entries point outside the repository and are not followed. ctx bounds
// the walk.
func (b *Backend) Fsck(ctx context.Context, repo string) ([]string, error) {
	r, err := b.open(repo)
	if err != nil {
		return nil, err
	}
	refs, err := listRefs(r.dir, "refs/")
	if err != nil {
		return nil, fmt.Errorf("gogit: fsck %s: list refs: %w", repo, err)
	}
	type item struct{ id, want, from string }
	var todo []item
	for _, ref := range refs {
		todo = append(todo, item{ref.oid, "", ref.name})
	}
	if head, err := os.ReadFile(filepath.Join(r.dir, "HEAD")); err == nil {
		if id := strings.TrimSpace(string(head)); gitnames.IsOID(id) {
			todo = append(todo, item{id, "", "HEAD"})
		}
	}
	var problems []string
	report := func(format string, args ...any) {
		if len(problems) < maxFsckProblems {
			problems = append(problems, fmt.Sprintf(format, args...))
		} else if len(problems) == maxFsckProblems {
			problems = append(problems, "... and more")
		}
	}
	seen := map[string]bool{}
	for len(todo) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("gogit: fsck %s: %w", repo, err)
		}
		it := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if seen[it.id] {
			continue
		}
		seen[it.id] = true
		want := it.want
		if want == "" {
			want = "object"
		}
		typ, data, err := r.verifyObject(it.id, it.want != "blob")
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			report("missing %s %s (from %s)", want, it.id, it.from)
			continue
		}
		if err != nil {
			report("corrupt %s %s (from %s): %v", want, it.id, it.from, err)
			continue
		}
		if it.want != "" && typ != it.want {
			report("%s %s is a %s, want a %s (from %s)", want, it.id, typ, it.want, it.from)
			continue
		}
		from := typ + " " + it.id
		switch typ {
		case "commit":
			header, _, _ := bytes.Cut(data, []byte("\n\n"))
			for _, line := range strings.Split(string(header), "\n") {
				k, v, _ := strings.Cut(line, " ")
				switch {
				case k == "tree" && gitnames.IsOID(v):
					todo = append(todo, item{v, "tree", from})
				case k == "parent" && gitnames.IsOID(v):
					todo = append(todo, item{v, "commit", from})
				case k == "tree" || k == "parent":
					report("commit %s has a malformed %s line", it.id, k)
				}
			}
		case "tree":
			entries, err := gitobject.ParseTree(it.id, data)
			if err != nil {
				report("%v", err)
				continue
			}
			for _, e := range entries {
				if e.Mode != "160000" {
					todo = append(todo, item{e.ID, e.Type(), from})
				}
			}
		case "tag":
			t, err := gitobject.ParseTag(it.id, data)
			if err != nil || !gitnames.IsOID(t.Object) {
				report("tag %s is malformed", it.id)
				continue
			}
			todo = append(todo, item{t.Object, t.Type, from})
		}
	}
	return problems, nil
}

// verifyObject reads the object id whole, checks that its content hashes
// to id, and returns its type and, when keep, its content. A missing
// object is plumbing.ErrObjectNotFound.
func (r *repoh) verifyObject(id string, keep bool) (string, []byte, error) {
	o, err := r.st.EncodedObject(plumbing.AnyObject, plumbing.NewHash(id))
	if err != nil {
		return "", nil, err
	}
	rd, err := o.Reader()
	if err != nil {
		return "", nil, err
	}
	defer rd.Close()
	typ := o.Type().String()
	h := sha1.New()
	h.Write([]byte(typ + " " + strconv.FormatInt(o.Size(), 10) + "\x00"))
	var content bytes.Buffer
	w := io.Writer(h)
	if keep {
		w = io.MultiWriter(h, &content)
	}
	n, err := io.Copy(w, rd)
	if err != nil {
		return "", nil, err
	}
	if n != o.Size() {
		return "", nil, fmt.Errorf("%d bytes, header says %d", n, o.Size())
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != id {
		return "", nil, fmt.Errorf("content hashes to %s", got)
	}
	return typ, content.Bytes(), nil
}
