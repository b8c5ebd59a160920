package repository_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"go.uber.org/fx"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// TestGitCloneCommitPushFetch clones an empty project, pushes the
// default branch and a new branch, clones and fetches them back, and checks
// the push events and the repository the API reads, over each transport.
func TestGitCloneCommitPushFetch(t *testing.T) {
	t.Parallel()
	forTransports(t, testCloneCommitPushFetch)
}

func testCloneCommitPushFetch(t *testing.T, tr transport) {
	s := newRepoServer(t, tr.opts...)
	devID, _ := s.User("dev")
	p := s.hosted("alpha", "private", 0)
	s.member(p.ID, devID, domain.Developer)
	git := gitClient{t}
	remote := tr.remote(s, p.Path, "dev")

	work := git.clone(remote) // empty repository
	first := git.commit(work, "README.md", "hello\n")
	git.run(work, "push", "-q", "origin", "master")
	second := git.commit(work, "b.txt", "b\n")
	git.run(work, "push", "-q", "origin", "master")

	other := git.clone(remote)
	if got := git.run(other, "rev-parse", "HEAD"); got != second {
		t.Fatalf("clone HEAD = %s, want %s", got, second)
	}

	git.run(work, "checkout", "-q", "-b", "feature")
	f1 := git.commit(work, "f.txt", "f\n")
	f2 := git.commit(work, "g.txt", "g\n")
	git.run(work, "push", "-q", "origin", "feature")
	git.run(other, "fetch", "-q", "origin")
	if got := git.run(other, "rev-parse", "origin/feature"); got != f2 {
		t.Fatalf("fetched feature = %s, want %s", got, f2)
	}

	// The backend sees what git pushed.
	b, err := s.Repos.Branch(context.Background(), fmt.Sprintf("projects/%d.git", p.ID), "feature")
	if err != nil || b.Commit.ID != f2 {
		t.Fatalf("backend feature = %+v, %v; want %s", b, err, f2)
	}

	// Push events: one per push, with the pushed commits.
	master := s.pushesOf(p.ID, "refs/heads/master")
	if len(master) != 2 {
		t.Fatalf("master push events = %+v, want 2", master)
	}
	if ev := master[0]; ev.Before != domain.ZeroID || ev.After != first || ev.TotalCommits != 1 || ev.Actor != devID {
		t.Fatalf("first push event = %+v", ev)
	}
	if ev := master[1]; ev.Before != first || ev.After != second || ev.TotalCommits != 1 || len(ev.Commits) != 1 || ev.Commits[0].ID != second {
		t.Fatalf("second push event = %+v", ev)
	}
	feature := s.pushesOf(p.ID, "refs/heads/feature")
	if len(feature) != 1 {
		t.Fatalf("feature push events = %+v, want 1", feature)
	}
	// A new branch lists the commits that are not on the default branch.
	if ev := feature[0]; ev.Before != domain.ZeroID || ev.After != f2 || ev.TotalCommits != 2 ||
		len(ev.Commits) != 2 || ev.Commits[0].ID != f2 || ev.Commits[1].ID != f1 || ev.Commits[0].Message != "change g.txt\n" {
		t.Fatalf("feature push event = %+v", ev)
	}

	// Deleting a branch publishes an event with After = ZeroID.
	git.run(work, "push", "-q", "origin", "--delete", "feature")
	if evs := s.pushesOf(p.ID, "refs/heads/feature"); len(evs) != 2 || evs[1].After != domain.ZeroID || evs[1].Before != f2 {
		t.Fatalf("delete push events = %+v", evs)
	}

	// A tag push carries the tagged commit.
	git.run(work, "tag", "-a", "v1", "-m", "release", first)
	git.run(work, "push", "-q", "origin", "v1")
	if evs := s.pushesOf(p.ID, "refs/tags/v1"); len(evs) != 1 || evs[0].TotalCommits != 1 || evs[0].Commits[0].ID != first {
		t.Fatalf("tag push events = %+v", evs)
	}

	// The API reads what was pushed.
	var branches []struct {
		Name   string
		Commit struct{ ID string }
	}
	s.Expect(200, "GET", fmt.Sprintf("/projects/%d/repository/branches", p.ID), s.RootToken, nil).Decode(t, &branches)
	if len(branches) != 1 || branches[0].Name != "master" || branches[0].Commit.ID != second {
		t.Fatalf("branches = %+v", branches)
	}
	var commits []struct{ ID string }
	s.Expect(200, "GET", fmt.Sprintf("/projects/%d/repository/commits", p.ID), s.RootToken, nil).Decode(t, &commits)
	if len(commits) != 2 || commits[0].ID != second || commits[1].ID != first {
		t.Fatalf("commits = %+v", commits)
	}
}

// TestGitProtectedBranches checks GitLab's push rules over each
// transport: protected branches take pushes from masters (and developers
// when allowed), never force-pushes or deletions, and the message reaches
// git's output.
func TestGitProtectedBranches(t *testing.T) {
	t.Parallel()
	forTransports(t, testProtectedBranches)
}

func testProtectedBranches(t *testing.T, tr transport) {
	s := newRepoServer(t, tr.opts...)
	devID, _ := s.User("dev")
	masterID, _ := s.User("boss")
	p := s.hosted("guarded", "private", 0)
	s.member(p.ID, devID, domain.Developer)
	s.member(p.ID, masterID, domain.Master)
	git := gitClient{t}
	asMaster := tr.remote(s, p.Path, "boss")
	asDev := tr.remote(s, p.Path, "dev")

	w := git.clone(asMaster)
	base := git.commit(w, "a.txt", "a\n")
	git.run(w, "push", "-q", "origin", "master")
	git.run(w, "push", "-q", "origin", "master:stable")
	s.protect(p.ID, "master", false)
	s.protect(p.ID, "stable", true)

	d := git.clone(asDev)
	git.commit(d, "d.txt", "d\n")
	out := git.fails(d, "push", "origin", "master")
	if !strings.Contains(out, "remote: GitLab: You are not allowed to push code to protected branches on this project.") ||
		!strings.Contains(out, "[remote rejected] master -> master (pre-receive hook declined)") {
		t.Fatalf("developer push to protected master: %s", out)
	}
	// developers_can_push lets developers push, not force-push.
	devHead := git.run(d, "rev-parse", "HEAD")
	git.run(d, "push", "-q", "origin", "HEAD:stable")
	git.run(d, "reset", "-q", "--hard", base)
	git.commit(d, "e.txt", "e\n")
	out = git.fails(d, "push", "--force", "origin", "HEAD:stable")
	if !strings.Contains(out, "remote: GitLab: You are not allowed to force push code to a protected branch on this project.") {
		t.Fatalf("developer force-push to stable: %s", out)
	}
	if b, _ := s.Repos.Branch(context.Background(), fmt.Sprintf("projects/%d.git", p.ID), "stable"); b.Commit.ID != devHead {
		t.Fatalf("stable moved to %s after a refused force-push, want %s", b.Commit.ID, devHead)
	}

	// A master pushes fast-forwards but never forces, even to an existing commit.
	next := git.commit(w, "m.txt", "m\n")
	git.run(w, "push", "-q", "origin", "master")
	git.run(w, "reset", "-q", "--hard", base)
	git.commit(w, "n.txt", "n\n")
	out = git.fails(w, "push", "--force", "origin", "master")
	if !strings.Contains(out, "GitLab: You are not allowed to force push code to a protected branch on this project.") {
		t.Fatalf("master force-push: %s", out)
	}
	out = git.fails(w, "push", "--force", "origin", base+":refs/heads/master")
	if !strings.Contains(out, "force push code to a protected branch") {
		t.Fatalf("master rewind to an existing commit: %s", out)
	}
	if b, _ := s.Repos.Branch(context.Background(), fmt.Sprintf("projects/%d.git", p.ID), "master"); b.Commit.ID != next {
		t.Fatalf("master = %s after refused force-pushes, want %s", b.Commit.ID, next)
	}
	if evs := s.pushesOf(p.ID, "refs/heads/master"); len(evs) != 2 {
		t.Fatalf("master push events = %d, want 2 (refused pushes publish none)", len(evs))
	}

	// Deletions: never the default branch, never a protected one.
	out = git.fails(w, "push", "origin", "--delete", "master")
	if !strings.Contains(out, "GitLab: The default branch of a project cannot be deleted.") {
		t.Fatalf("delete default branch: %s", out)
	}
	out = git.fails(w, "push", "origin", "--delete", "stable")
	if !strings.Contains(out, "GitLab: You can only delete protected branches using the web interface.") {
		t.Fatalf("master deletes protected branch: %s", out)
	}
	out = git.fails(d, "push", "origin", "--delete", "stable")
	if !strings.Contains(out, "GitLab: You are not allowed to delete protected branches from this project.") {
		t.Fatalf("developer deletes protected branch: %s", out)
	}

	// A refused command refuses the whole push.
	git.run(d, "fetch", "-q", "origin")
	git.run(d, "checkout", "-q", "-b", "topic", "origin/master")
	git.commit(d, "t.txt", "t\n")
	out = git.fails(d, "push", "origin", "topic", "HEAD:master")
	if !strings.Contains(out, "protected branches") {
		t.Fatalf("mixed push: %s", out)
	}
	if _, err := s.Repos.Branch(context.Background(), fmt.Sprintf("projects/%d.git", p.ID), "topic"); err == nil {
		t.Fatal("topic was created by a refused push")
	}
	git.run(d, "push", "-q", "origin", "topic")

	// Tags: developers create them; changing an existing tag needs a master.
	git.run(d, "tag", "v1", base)
	git.run(d, "push", "-q", "origin", "v1")
	git.run(d, "tag", "-f", "v1", devHead)
	out = git.fails(d, "push", "--force", "origin", "v1")
	if !strings.Contains(out, "GitLab: You are not allowed to change existing tags on this project.") {
		t.Fatalf("developer moves a tag: %s", out)
	}
	git.run(w, "fetch", "-q", "origin", "tag", "v1")
	git.run(w, "push", "-q", "origin", "--delete", "v1")
}

// TestGitHTTPAccess checks who may clone and push what, and how refusals
// look to git and over HTTP.
func TestGitHTTPAccess(t *testing.T) {
	t.Parallel()
	s := newRepoServer(t)
	world := newAccessWorld(t, s, httpTransport())
	priv, pub, internal := world.priv, world.pub, world.internal
	devID, devToken, blockedID, blockedToken := world.devID, world.devToken, world.blockedID, world.blockedToken
	git := gitClient{t}

	// Anonymous: public clones, private and internal ask for credentials.
	git.clone(s.remote(pub.Path, "", ""))
	for _, p := range []hosted{priv, internal} {
		out := git.fails("", "clone", s.remote(p.Path, "", ""), t.TempDir()+"/x")
		if !strings.Contains(out, "could not read Username") && !strings.Contains(out, "Authentication failed") {
			t.Fatalf("anonymous clone of %s: %s", p.Path, out)
		}
		resp := s.raw(t, "GET", "/"+p.Path+".git/info/refs?service=git-upload-pack", "", "", nil, nil)
		if resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") != `Basic realm="Hearth"` {
			t.Fatalf("anonymous info/refs of %s: %d %v", p.Path, resp.StatusCode, resp.Header)
		}
	}
	// Anonymous pushes to a public project ask for credentials too.
	if resp := s.raw(t, "GET", "/"+pub.Path+".git/info/refs?service=git-receive-pack", "", "", nil, nil); resp.StatusCode != 401 {
		t.Fatalf("anonymous receive-pack advertisement: %d", resp.StatusCode)
	}
	// Unknown projects look like private ones to anonymous callers.
	if resp := s.raw(t, "GET", "/root/nothing.git/info/refs?service=git-upload-pack", "", "", nil, nil); resp.StatusCode != 401 {
		t.Fatalf("anonymous info/refs of a missing project: %d", resp.StatusCode)
	}

	// Signed in: internal projects clone; a stranger gets 404 for private.
	git.clone(s.remote(internal.Path, "stranger", password("stranger")))
	out := git.fails("", "clone", s.remote(priv.Path, "stranger", password("stranger")), t.TempDir()+"/x")
	if !strings.Contains(out, "not found") {
		t.Fatalf("stranger clone of private: %s", out)
	}
	if resp := s.raw(t, "GET", "/"+priv.Path+".git/info/refs?service=git-upload-pack", "stranger", password("stranger"), nil, nil); resp.StatusCode != 404 {
		t.Fatalf("stranger info/refs: %d", resp.StatusCode)
	}
	// Guests see the project but not its code; reporters clone but do not push.
	if resp := s.raw(t, "GET", "/"+priv.Path+".git/info/refs?service=git-upload-pack", "guest", password("guest"), nil, nil); resp.StatusCode != 403 {
		t.Fatalf("guest info/refs: %d", resp.StatusCode)
	}
	w := git.clone(s.remote(priv.Path, "rep", password("rep")))
	git.commit(w, "r.txt", "r\n")
	out = git.fails(w, "push", "origin", "master")
	if !strings.Contains(out, "You are not allowed to push code to this project.") || !strings.Contains(out, "403") {
		t.Fatalf("reporter push: %s", out)
	}

	// Credentials: a token as password (any username), a wrong password.
	w = git.clone(s.remote(priv.Path, "anything", devToken))
	git.commit(w, "t.txt", "t\n")
	git.run(w, "push", "-q", "origin", "master")
	out = git.fails("", "clone", s.remote(priv.Path, "dev", "wrong-password"), t.TempDir()+"/x")
	if !strings.Contains(out, "Authentication failed") {
		t.Fatalf("wrong password: %s", out)
	}
	if resp := s.raw(t, "GET", "/"+pub.Path+".git/info/refs?service=git-upload-pack", "dev", "wrong-password", nil, nil); resp.StatusCode != 401 {
		t.Fatalf("wrong password on a public project: %d", resp.StatusCode)
	}
	// PRIVATE-TOKEN works as with the API.
	hdr := http.Header{"Private-Token": {devToken}}
	if resp := s.raw(t, "GET", "/"+priv.Path+".git/info/refs?service=git-receive-pack", "", "", hdr, nil); resp.StatusCode != 200 ||
		resp.Header.Get("Content-Type") != "application/x-git-receive-pack-advertisement" || !strings.HasPrefix(resp.text, "001f# service=git-receive-pack\n0000") {
		t.Fatalf("PRIVATE-TOKEN advertisement: %d %v %q", resp.StatusCode, resp.Header, resp.text)
	}
	// read_user tokens do not reach repositories.
	_, readUser, err := s.Users.CreatePersonalToken(context.Background(), nil, devID, "ru", []string{"read_user"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp := s.raw(t, "GET", "/"+priv.Path+".git/info/refs?service=git-upload-pack", "dev", readUser, nil, nil); resp.StatusCode != 401 {
		t.Fatalf("read_user token: %d", resp.StatusCode)
	}
	// Blocked users are refused, by password and by token.
	s.Expect(201, "POST", fmt.Sprintf("/users/%d/block", blockedID), s.RootToken, nil)
	for _, secret := range []string{password("blocked"), blockedToken} {
		if resp := s.raw(t, "GET", "/"+priv.Path+".git/info/refs?service=git-upload-pack", "blocked", secret, nil, nil); resp.StatusCode != 401 {
			t.Fatalf("blocked user: %d", resp.StatusCode)
		}
	}

	// Only the smart protocol.
	if resp := s.raw(t, "GET", "/"+pub.Path+".git/info/refs", "", "", nil, nil); resp.StatusCode != 403 {
		t.Fatalf("dumb info/refs: %d", resp.StatusCode)
	}
	// Without ".git", info/refs redirects (so `git clone .../project` works).
	resp := s.raw(t, "GET", "/"+pub.Path+"/info/refs?service=git-upload-pack", "", "", nil, nil)
	if resp.StatusCode != 301 || resp.Header.Get("Location") != "/"+pub.Path+".git/info/refs?service=git-upload-pack" {
		t.Fatalf("info/refs without .git: %d %v", resp.StatusCode, resp.Header)
	}
	git.clone(s.URL + "/" + pub.Path)
}

// TestGitHTTPNestedGroupsAndGzip clones and pushes a project of a
// subgroup, and sends a gzip-compressed upload-pack request by hand.
func TestGitHTTPNestedGroupsAndGzip(t *testing.T) {
	t.Parallel()
	s := newRepoServer(t)
	var top, sub struct{ ID int64 }
	s.Expect(201, "POST", "/groups", s.RootToken, url.Values{"name": {"top"}, "path": {"top"}, "visibility": {"public"}}).Decode(t, &top)
	s.Expect(201, "POST", "/groups", s.RootToken, url.Values{"name": {"sub"}, "path": {"sub"}, "visibility": {"public"}, "parent_id": {fmt.Sprint(top.ID)}}).Decode(t, &sub)
	p := s.hosted("deep", "public", sub.ID)
	if p.Path != "top/sub/deep" {
		t.Fatalf("path = %q", p.Path)
	}
	git := gitClient{t}
	w := git.clone(s.remote(p.Path, "root", apptest.RootPassword))
	head := git.commit(w, "a.txt", "a\n")
	git.run(w, "push", "-q", "origin", "master")
	c := git.clone(s.remote(p.Path, "", ""))
	if got := git.run(c, "rev-parse", "HEAD"); got != head {
		t.Fatalf("clone of nested project = %s, want %s", got, head)
	}

	// A protocol v0 fetch of head, gzip-compressed.
	var zbuf bytes.Buffer
	zw := gzip.NewWriter(&zbuf)
	fmt.Fprintf(zw, "%04xwant %s\n", 4+5+40+1, head)
	io.WriteString(zw, "00000009done\n")
	zw.Close()
	hdr := http.Header{"Content-Type": {"application/x-git-upload-pack-request"}, "Content-Encoding": {"gzip"}}
	resp := s.raw(t, "POST", "/"+p.Path+".git/git-upload-pack", "", "", hdr, zbuf.Bytes())
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/x-git-upload-pack-result" ||
		!strings.HasPrefix(resp.text, "0008NAK\n") || !strings.Contains(resp.text, "PACK") {
		t.Fatalf("gzip upload-pack: %d %v %.80q", resp.StatusCode, resp.Header, resp.text)
	}
	if cc := resp.Header.Get("Cache-Control"); !strings.Contains(cc, "no-cache") {
		t.Fatalf("Cache-Control = %q", cc)
	}
	// A body that is not gzip is a 400, not a 500.
	resp = s.raw(t, "POST", "/"+p.Path+".git/git-upload-pack", "", "", hdr, []byte("plain"))
	if resp.StatusCode != 400 {
		t.Fatalf("bad gzip: %d %s", resp.StatusCode, resp.text)
	}
	// A malformed push command list is a 400.
	resp = s.raw(t, "POST", "/"+p.Path+".git/git-receive-pack", "root", apptest.RootPassword,
		http.Header{"Content-Type": {"application/x-git-receive-pack-request"}}, []byte("0010-x y z\n0000"))
	if resp.StatusCode != 400 {
		t.Fatalf("malformed push: %d %s", resp.StatusCode, resp.text)
	}
}

type rawResponse struct {
	*http.Response
	text string
}

// raw sends a request to the server root without following redirects.
func (g *repoServer) raw(t *testing.T, method, path, user, secret string, hdr http.Header, body []byte) rawResponse {
	t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, g.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	if user != "" {
		req.SetBasicAuth(user, secret)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode >= 500 {
		t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, data)
	}
	return rawResponse{resp, string(data)}
}

// plainTransport hides the transport's optional interfaces (CheckedReceiver).
type plainTransport struct{ ports.RepoTransport }

// TestGitHTTPUncheckedBackend: with a backend that cannot check a push
// between its objects and its refs, protected branches still never take a
// force-push: updates the repository cannot prove fast-forward are refused.
func TestGitHTTPUncheckedBackend(t *testing.T) {
	t.Parallel()
	s := newRepoServer(t, apptest.With(fx.Decorate(func(r ports.RepoTransport) ports.RepoTransport { return plainTransport{r} })))
	p := s.hosted("plain", "private", 0)
	git := gitClient{t}
	w := git.clone(s.remote(p.Path, "root", apptest.RootPassword))
	base := git.commit(w, "a.txt", "a\n")
	git.run(w, "push", "-q", "origin", "master")
	git.commit(w, "b.txt", "b\n")
	git.run(w, "push", "-q", "origin", "master")
	ahead := git.commit(w, "c.txt", "c\n")
	git.run(w, "push", "-q", "origin", "HEAD:refs/heads/side")
	s.protect(p.ID, "master", false)

	// Rewinding to an existing commit is a force-push the repository can see.
	out := git.fails(w, "push", "--force", "origin", base+":refs/heads/master")
	if !strings.Contains(out, "remote: GitLab: You are not allowed to force push code to a protected branch on this project.") {
		t.Fatalf("rewind: %s", out)
	}
	// New objects cannot be checked before refs move: refused.
	git.commit(w, "d.txt", "d\n")
	out = git.fails(w, "push", "origin", "HEAD:master")
	if !strings.Contains(out, "cannot be checked") {
		t.Fatalf("push of new objects to protected branch: %s", out)
	}
	// A fast-forward to commits already in the repository passes.
	git.run(w, "push", "-q", "origin", ahead+":refs/heads/master")
	if b, _ := s.Repos.Branch(context.Background(), fmt.Sprintf("projects/%d.git", p.ID), "master"); b.Commit.ID != ahead {
		t.Fatalf("master = %s, want %s", b.Commit.ID, ahead)
	}
	// Unprotected branches take anything.
	git.run(w, "push", "-q", "--force", "origin", base+":refs/heads/side")
}

// TestGitHTTPLiftsServerTimeouts: a slow client outlives the server's read
// and write timeouts on the git routes.
func TestGitHTTPLiftsServerTimeouts(t *testing.T) {
	t.Parallel()
	s := newRepoServer(t)
	p := s.hosted("slow", "public", 0)
	git := gitClient{t}
	w := git.clone(s.remote(p.Path, "root", apptest.RootPassword))
	head := git.commit(w, "a.txt", "a\n")
	git.run(w, "push", "-q", "origin", "master")

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: s.Router, ReadTimeout: 200 * time.Millisecond, WriteTimeout: 200 * time.Millisecond}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	// The client is slow on purpose: its pauses outlast the server's 200 ms
	// timeouts, which is what the test is about (they prove nothing about
	// events, and the server's clock cannot stand in for a network peer).
	pr, pw := io.Pipe()
	go func() {
		fmt.Fprintf(pw, "%04xwant %s\n", 4+5+40+1, head)
		time.Sleep(600 * time.Millisecond)
		io.WriteString(pw, "0000")
		time.Sleep(300 * time.Millisecond)
		io.WriteString(pw, "0009done\n")
		pw.Close()
	}()
	resp, err := http.Post("http://"+ln.Addr().String()+"/"+p.Path+".git/git-upload-pack", "application/x-git-upload-pack-request", pr)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 || !bytes.Contains(data, []byte("PACK")) {
		t.Fatalf("slow fetch: %d %v %.80q", resp.StatusCode, err, data)
	}
}

// TestGitHTTPFirstPushAdoptsDefaultBranch: an empty project whose default
// branch is master takes the first pushed branch as its default (HEAD and
// the record), as GitLab does; later pushes of other branches change
// nothing.
func TestGitHTTPFirstPushAdoptsDefaultBranch(t *testing.T) {
	t.Parallel()
	s := newRepoServer(t)
	p := s.hosted("first-push", "private", 0)
	git := gitClient{t}
	remote := s.remote(p.Path, "root", apptest.RootPassword)
	work := git.clone(remote)
	git.run(work, "checkout", "-q", "-b", "main")
	git.commit(work, "README.md", "hello\n")
	git.run(work, "push", "-q", "origin", "main")
	git.run(work, "checkout", "-q", "-b", "zzz")
	git.run(work, "push", "-q", "origin", "zzz")

	var got struct {
		DefaultBranch string `json:"default_branch"`
	}
	s.Expect(200, "GET", fmt.Sprintf("/projects/%d", p.ID), s.RootToken, nil).Decode(t, &got)
	if got.DefaultBranch != "main" {
		t.Fatalf("default_branch = %q, want main", got.DefaultBranch)
	}
	head, err := s.Repos.DefaultBranch(context.Background(), fmt.Sprintf("projects/%d.git", p.ID))
	if err != nil || head != "main" {
		t.Fatalf("HEAD = %q, %v; want main", head, err)
	}
	if other := git.clone(remote); git.run(other, "rev-parse", "--abbrev-ref", "HEAD") != "main" {
		t.Fatalf("a fresh clone does not check out main")
	}
	// The access log names the Basic-auth caller of git requests.
	found := false
	for _, line := range strings.Split(s.Logs(), "\n") {
		if strings.Contains(line, `"path":"/root/first-push.git/git-receive-pack"`) && strings.Contains(line, `"user_id":1`) {
			found = true
		}
	}
	if !found {
		t.Fatalf("no access log line with the pusher's user_id")
	}
}
