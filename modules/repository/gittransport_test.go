package repository_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
)

// transport is one way git reaches the server. The transport contract
// (clone, push, fetch, push events, protected branches, who may do what)
// runs over each from the same tests; what differs is how a user signs
// in and how git words a refusal it did not get from the server.
type transport struct {
	name string
	opts []apptest.Option
	// remote is the URL user reaches path by, signed in as user.
	remote func(s *repoServer, path, user string) string
	// notFound and authFailed are what git prints when the project is
	// hidden from the caller and when the credentials are refused.
	notFound, authFailed string
}

func transports() []transport { return []transport{httpTransport(), sshTransport()} }

// httpTransport signs in with the user's password in the URL.
func httpTransport() transport {
	return transport{
		name: "http",
		remote: func(s *repoServer, path, user string) string {
			secret := password(user)
			if user == "root" {
				secret = apptest.RootPassword
			}
			return s.remote(path, user, secret)
		},
		notFound:   "not found",
		authFailed: "Authentication failed",
	}
}

// sshTransport signs in with the user's test key (apptest.SSHKey).
func sshTransport() transport {
	return transport{
		name:       "ssh",
		opts:       []apptest.Option{apptest.SSH()},
		remote:     func(s *repoServer, path, user string) string { return s.SSHRemote(s.T, path, user) },
		notFound:   "GitLab: The project you were looking for could not be found.",
		authFailed: "Permission denied (publickey)",
	}
}

// gitBackends are the git backends the transport contract runs on: both
// serve git, and must look the same to a git client.
var gitBackends = []string{"gitcli", "gogit"}

// forTransports runs test once per git backend and transport, in
// parallel.
func forTransports(t *testing.T, test func(t *testing.T, tr transport)) {
	for _, b := range gitBackends {
		for _, tr := range transports() {
			tr.opts = append([]apptest.Option{backend(b)}, tr.opts...)
			t.Run(b+"/"+tr.name, func(t *testing.T) {
				t.Parallel()
				test(t, tr)
			})
		}
	}
}

// TestGitAccessMatrix: who may clone and push which project, over each
// transport, with the same refusals (git over HTTP's own statuses and
// challenges are in TestGitHTTPAccess).
func TestGitAccessMatrix(t *testing.T) {
	t.Parallel()
	forTransports(t, testAccessMatrix)
}

func testAccessMatrix(t *testing.T, tr transport) {
	s := newRepoServer(t, tr.opts...)
	w := newAccessWorld(t, s, tr)
	priv, pub, internal, blockedID, git := w.priv, w.pub, w.internal, w.blockedID, gitClient{t}
	// Remotes of the blocked user are made (and the key registered)
	// before the block.
	blockedRemote := tr.remote(s, priv.Path, "blocked")
	s.Expect(201, "POST", fmt.Sprintf("/users/%d/block", blockedID), s.RootToken, nil)

	const (
		noDownload = "You are not allowed to download code from this project."
		noPush     = "You are not allowed to push code to this project."
	)
	cases := []struct {
		user    string
		project hosted
		push    bool
		refusal string // "" when allowed
	}{
		{"dev", priv, true, ""},
		{"rep", priv, false, ""},
		{"rep", priv, true, noPush},
		{"guest", priv, false, noDownload},
		{"stranger", priv, false, tr.notFound},
		{"stranger", internal, false, ""},
		{"stranger", internal, true, noPush},
		{"stranger", pub, false, ""},
		{"dev", pub, true, ""},
	}
	for _, c := range cases {
		remote := tr.remote(s, c.project.Path, c.user)
		what := c.user + " clone " + c.project.Path
		if !c.push {
			if c.refusal == "" {
				git.clone(remote)
				continue
			}
			if out := git.fails("", "clone", remote, t.TempDir()+"/x"); !strings.Contains(out, c.refusal) {
				t.Errorf("%s: %s\nwant %q", what, out, c.refusal)
			}
			continue
		}
		what = c.user + " push " + c.project.Path
		w := git.clone(tr.remote(s, c.project.Path, "root"))
		git.run(w, "remote", "set-url", "origin", remote)
		git.commit(w, c.user+".txt", c.user+"\n")
		if c.refusal == "" {
			git.run(w, "push", "-q", "origin", "HEAD:refs/heads/"+c.user)
			continue
		}
		if out := git.fails(w, "push", "origin", "HEAD:refs/heads/"+c.user); !strings.Contains(out, c.refusal) {
			t.Errorf("%s: %s\nwant %q", what, out, c.refusal)
		}
	}
	if out := git.fails("", "clone", blockedRemote, t.TempDir()+"/x"); !strings.Contains(out, tr.authFailed) {
		t.Errorf("blocked user: %s\nwant %q", out, tr.authFailed)
	}
}

// accessWorld is the access tests' server content: users dev, rep,
// guest, stranger and blocked, and a private, a public and an internal
// project (each with one commit on master); dev develops the private and
// the public one, rep reports, guest is a guest and blocked develops on
// the private one.
type accessWorld struct {
	priv, pub, internal hosted
	devID, blockedID    int64
	devToken            string
	blockedToken        string
}

func newAccessWorld(t *testing.T, s *repoServer, tr transport) accessWorld {
	t.Helper()
	var w accessWorld
	w.devID, w.devToken = s.User("dev")
	reporterID, _ := s.User("rep")
	guestID, _ := s.User("guest")
	s.User("stranger")
	w.blockedID, w.blockedToken = s.User("blocked")
	w.priv = s.hosted("secret", "private", 0)
	w.pub = s.hosted("open", "public", 0)
	w.internal = s.hosted("inside", "internal", 0)
	for _, id := range []int64{w.priv.ID, w.pub.ID} {
		s.member(id, w.devID, domain.Developer)
	}
	s.member(w.priv.ID, reporterID, domain.Reporter)
	s.member(w.priv.ID, guestID, domain.Guest)
	s.member(w.priv.ID, w.blockedID, domain.Developer)
	git := gitClient{t}
	for _, p := range []hosted{w.priv, w.pub, w.internal} {
		c := git.clone(tr.remote(s, p.Path, "root"))
		git.commit(c, "README.md", p.Path+"\n")
		git.run(c, "push", "-q", "origin", "master")
	}
	return w
}
