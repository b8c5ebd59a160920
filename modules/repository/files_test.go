package repository_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"fmt"
	"io"
	"net/url"
	"strings"
	"testing"

	"github.com/hearth-forge/hearth/core/domain"
)

// seedFiles makes a project with a small tree on master and a feature branch.
func seedFiles(t *testing.T, s *repoServer, name, visibility string) (int64, commitReply, commitReply) {
	t.Helper()
	pid := s.projectID(name, visibility)
	first := s.commit(s.RootToken, pid, commitBody("master", "init",
		action{"action": "create", "file_path": "README.md", "content": "hello\n"},
		action{"action": "create", "file_path": "src/main.go", "content": "package main\n"},
		action{"action": "create", "file_path": "src/lib/util.go", "content": "package lib\n"},
		action{"action": "create", "file_path": "docs/a b.txt", "content": "spaced\n"}))
	feature := s.commit(s.RootToken, pid, map[string]any{"branch": "feature", "start_branch": "master", "commit_message": "feature work",
		"actions": []action{{"action": "create", "file_path": "feature.txt", "content": "f\n"}, {"action": "update", "file_path": "README.md", "content": "hello feature\n"}}})
	return pid, first, feature
}

type treeEntry struct {
	ID, Name, Type, Path, Mode string
}

// TestTree lists trees: root, a path, recursive, pages, 404s.
func TestTree(t *testing.T) {
	t.Parallel()
	s := newRepoServer(t)
	pid, _, _ := seedFiles(t, s, "trees", "private")
	base := fmt.Sprintf("/projects/%d/repository/tree", pid)
	var tree []treeEntry
	s.Expect(200, "GET", base, s.RootToken, nil).Decode(t, &tree)
	names := []string{}
	for _, e := range tree {
		names = append(names, e.Type+":"+e.Path)
	}
	if strings.Join(names, ",") != "tree:docs,tree:src,blob:README.md" {
		t.Fatalf("root tree: %v", names)
	}
	if tree[2].Mode != "100644" || tree[0].Mode != "040000" || len(tree[2].ID) != 40 || tree[2].Name != "README.md" {
		t.Fatalf("entries: %+v", tree)
	}
	s.Expect(200, "GET", base+"?path=src&ref=master", s.RootToken, nil).Decode(t, &tree)
	if len(tree) != 2 || tree[0].Path != "src/lib" || tree[1].Path != "src/main.go" {
		t.Fatalf("src: %+v", tree)
	}
	resp := s.Expect(200, "GET", base+"?recursive=true&per_page=3", s.RootToken, nil)
	resp.Decode(t, &tree)
	if len(tree) != 3 || resp.Header.Get("X-Total") != "7" || resp.Header.Get("X-Total-Pages") != "3" {
		t.Fatalf("recursive page: %+v X-Total %s", tree, resp.Header.Get("X-Total"))
	}
	s.Expect(200, "GET", base+"?ref=feature", s.RootToken, nil).Decode(t, &tree)
	if len(tree) != 4 {
		t.Fatalf("feature tree: %+v", tree)
	}
	for _, q := range []string{"?path=nope", "?ref=nope", "?path=README.md"} {
		s.ExpectBody(404, `{"message":"404 Tree Not Found"}`, "GET", base+q, s.RootToken, nil)
	}
	for _, q := range []string{"?path=../../etc", "?path=" + url.QueryEscape(".git"), "?ref=-x", "?ref=" + url.QueryEscape("master:src")} {
		resp, data := s.Do(t, "GET", base+q, s.RootToken, nil)
		if resp.StatusCode != 400 && resp.StatusCode != 404 {
			t.Fatalf("tree %s: %d %s", q, resp.StatusCode, data)
		}
	}
	empty := s.projectID("empty-tree", "private")
	s.ExpectBody(404, `{"message":"404 Tree Not Found"}`, "GET", fmt.Sprintf("/projects/%d/repository/tree", empty), s.RootToken, nil)
}

// TestFileReadsAndBlobs reads files (JSON and raw) and blobs.
func TestFileReadsAndBlobs(t *testing.T) {
	t.Parallel()
	s := newRepoServer(t)
	pid, first, feature := seedFiles(t, s, "file-reads", "public")
	base := fmt.Sprintf("/projects/%d/repository", pid)
	var f struct {
		FileName     string `json:"file_name"`
		FilePath     string `json:"file_path"`
		Size         int64  `json:"size"`
		Encoding     string `json:"encoding"`
		Content      string `json:"content"`
		Ref          string `json:"ref"`
		BlobID       string `json:"blob_id"`
		CommitID     string `json:"commit_id"`
		LastCommitID string `json:"last_commit_id"`
	}
	s.Expect(200, "GET", base+"/files/src%2Flib%2Futil%2Ego?ref=feature", "", nil).Decode(t, &f)
	content, _ := base64.StdEncoding.DecodeString(f.Content)
	if f.FileName != "util.go" || f.FilePath != "src/lib/util.go" || f.Size != 12 || f.Encoding != "base64" || string(content) != "package lib\n" ||
		f.Ref != "feature" || f.CommitID != feature.ID || f.LastCommitID != first.ID || f.BlobID != s.git(pid, "rev-parse", "feature:src/lib/util.go") {
		t.Fatalf("file: %+v", f)
	}
	s.Expect(200, "GET", base+"/files/README.md?ref=feature", "", nil).Decode(t, &f)
	if f.LastCommitID != feature.ID {
		t.Fatalf("README last commit: %s", f.LastCommitID)
	}
	resp, data := s.Do(t, "GET", base+"/files/docs%2Fa%20b.txt/raw?ref=master", "", nil)
	if resp.StatusCode != 200 || string(data) != "spaced\n" || resp.Header.Get("Content-Type") != "text/plain" {
		t.Fatalf("raw: %d %q %q", resp.StatusCode, resp.Header.Get("Content-Type"), data)
	}
	s.ExpectBody(400, `{"error":"ref is missing"}`, "GET", base+"/files/README.md", "", nil)
	s.ExpectBody(400, `{"error":"ref is missing"}`, "GET", base+"/files/README.md/raw", "", nil)
	s.ExpectBody(404, `{"message":"404 File Not Found"}`, "GET", base+"/files/nope.txt?ref=master", "", nil)
	s.ExpectBody(404, `{"message":"404 File Not Found"}`, "GET", base+"/files/src?ref=master", "", nil)
	s.ExpectBody(404, `{"message":"404 File Not Found"}`, "GET", base+"/files/feature.txt/raw?ref=master", "", nil)
	s.ExpectBody(404, `{"message":"404 Commit Not Found"}`, "GET", base+"/files/README.md?ref=nope", "", nil)
	for _, p := range []string{"..%2F..%2Fetc%2Fpasswd", "%2e%2e%2fREADME.md", ".git%2Fconfig", "-x", "src%2F..%2FREADME.md", "a%00b"} {
		for _, suffix := range []string{"", "/raw"} {
			resp, data := s.Do(t, "GET", base+"/files/"+p+suffix+"?ref=master", "", nil)
			if resp.StatusCode != 400 && resp.StatusCode != 404 {
				t.Fatalf("file %s%s: %d %s", p, suffix, resp.StatusCode, data)
			}
		}
	}

	blobID := s.git(pid, "rev-parse", "master:README.md")
	var b struct {
		Size     int64  `json:"size"`
		Encoding string `json:"encoding"`
		Content  string `json:"content"`
		SHA      string `json:"sha"`
	}
	s.Expect(200, "GET", base+"/blobs/"+blobID, "", nil).Decode(t, &b)
	if b.SHA != blobID || b.Size != 6 || b.Encoding != "base64" || b.Content != base64.StdEncoding.EncodeToString([]byte("hello\n")) {
		t.Fatalf("blob: %+v", b)
	}
	resp, data = s.Do(t, "GET", base+"/blobs/"+blobID[:10]+"/raw", "", nil)
	if resp.StatusCode != 200 || string(data) != "hello\n" || resp.Header.Get("Content-Type") != "text/plain" {
		t.Fatalf("raw blob: %d %q", resp.StatusCode, data)
	}
	s.ExpectBody(404, `{"message":"404 Blob Not Found"}`, "GET", base+"/blobs/ffffffffffffffffffffffffffffffffffffffff", "", nil)
	resp, _ = s.Do(t, "GET", base+"/blobs/master", "", nil)
	if resp.StatusCode != 404 && resp.StatusCode != 400 {
		t.Fatalf("blob by branch name: %d", resp.StatusCode)
	}
}

// TestFileWrites creates, updates and deletes single files.
func TestFileWrites(t *testing.T) {
	t.Parallel()
	s := newRepoServer(t)
	pid, _, _ := seedFiles(t, s, "writes", "private")
	path := fmt.Sprintf("/projects/%d/repository/files/new%%2Fdir%%2Ffile.txt", pid)
	form := func(kv ...string) url.Values {
		v := url.Values{"branch": {"master"}, "commit_message": {"msg"}}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return v
	}
	s.ExpectBody(201, `{"file_path":"new/dir/file.txt","branch":"master"}`, "POST", path, s.RootToken, form("content", "v1\n"))
	if got := s.git(pid, "show", "master:new/dir/file.txt"); got != "v1" {
		t.Fatalf("created content %q", got)
	}
	s.ExpectBody(400, `{"message":"A file with this name already exists"}`, "POST", path, s.RootToken, form("content", "again"))
	s.ExpectBody(400, `{"error":"content is missing"}`, "POST", path, s.RootToken, form())
	s.ExpectBody(400, `{"error":"branch is missing, commit_message is missing"}`, "PUT", path, s.RootToken, url.Values{"content": {"x"}})
	s.ExpectBody(200, `{"file_path":"new/dir/file.txt","branch":"master"}`, "PUT", path, s.RootToken, form("content", base64.StdEncoding.EncodeToString([]byte("v2\n")), "encoding", "base64", "author_name", "Writer", "author_email", "w@example.com"))
	if got := s.git(pid, "log", "-1", "--format=%an <%ae> %s", "master"); got != "Writer <w@example.com> msg" {
		t.Fatalf("update commit: %q", got)
	}
	if got := s.git(pid, "show", "master:new/dir/file.txt"); got != "v2" {
		t.Fatalf("updated content %q", got)
	}
	// last_commit_id guards against updating a file changed since.
	stale := s.git(pid, "rev-parse", "master~1")
	s.ExpectBody(400, `{"message":"You are attempting to update a file that has changed since you started editing it."}`, "PUT", path, s.RootToken, form("content", "v3", "last_commit_id", stale))
	s.Expect(200, "PUT", path, s.RootToken, form("content", "v3", "last_commit_id", s.git(pid, "rev-parse", "master")))
	s.ExpectBody(400, `{"message":"A file with this name doesn't exist"}`, "PUT", fmt.Sprintf("/projects/%d/repository/files/zz", pid), s.RootToken, form("content", "x"))
	// An empty file is content too.
	s.Expect(201, "POST", fmt.Sprintf("/projects/%d/repository/files/empty.txt", pid), s.RootToken, form("content", ""))
	// A new branch from start_branch.
	s.ExpectBody(201, `{"file_path":"new/dir/other.txt","branch":"topic"}`, "POST", strings.Replace(path, "file.txt", "other.txt", 1), s.RootToken, url.Values{"branch": {"topic"}, "start_branch": {"master"}, "commit_message": {"m"}, "content": {"t"}})
	s.Expect(204, "DELETE", path, s.RootToken, form())
	if out := s.git(pid, "ls-tree", "-r", "--name-only", "master"); strings.Contains(out, "new/dir/file.txt") {
		t.Fatalf("deleted file still in master:\n%s", out)
	}
	s.ExpectBody(400, `{"message":"A file with this name doesn't exist"}`, "DELETE", path, s.RootToken, form())
	for _, bad := range []string{"..%2Fx", ".git%2Fhooks%2Fpost-update", "a%00b"} {
		resp, data := s.Do(t, "POST", fmt.Sprintf("/projects/%d/repository/files/%s", pid, bad), s.RootToken, form("content", "x"))
		if resp.StatusCode != 400 && resp.StatusCode != 404 {
			t.Fatalf("create %s: %d %s", bad, resp.StatusCode, data)
		}
	}
	// Protection and permissions.
	did, dev := s.User("dev")
	s.member(pid, did, domain.Developer)
	s.protect(pid, "master", false)
	s.ExpectBody(400, `{"message":"You are not allowed to push into this branch"}`, "POST", path, dev, form("content", "x"))
	rid, rep := s.User("rep")
	s.member(pid, rid, domain.Reporter)
	s.Expect(403, "DELETE", fmt.Sprintf("/projects/%d/repository/files/README.md", pid), rep, form())
	if got := s.git(pid, "fsck", "--strict", "--no-progress"); strings.Contains(got, "error") {
		t.Fatalf("fsck: %s", got)
	}
}

// TestCompare compares branches and commits.
func TestCompare(t *testing.T) {
	t.Parallel()
	s := newRepoServer(t)
	pid, first, feature := seedFiles(t, s, "compare", "private")
	more := s.commit(s.RootToken, pid, commitBody("feature", "more", action{"action": "create", "file_path": "more.txt", "content": "m\n"}))
	s.commit(s.RootToken, pid, commitBody("master", "master moves", action{"action": "create", "file_path": "m.txt", "content": "x\n"}))
	base := fmt.Sprintf("/projects/%d/repository/compare", pid)
	type cmp struct {
		Commit  *commitReply  `json:"commit"`
		Commits []commitReply `json:"commits"`
		Diffs   []struct {
			NewPath string `json:"new_path"`
			NewFile bool   `json:"new_file"`
		} `json:"diffs"`
		CompareTimeout bool `json:"compare_timeout"`
		CompareSameRef bool `json:"compare_same_ref"`
	}
	var c cmp
	s.Expect(200, "GET", base+"?from=master&to=feature", s.RootToken, nil).Decode(t, &c)
	if len(c.Commits) != 2 || c.Commits[0].ID != feature.ID || c.Commits[1].ID != more.ID || c.Commit == nil || c.Commit.ID != more.ID || c.CompareSameRef || c.CompareTimeout {
		t.Fatalf("compare: %+v", c)
	}
	paths := []string{}
	for _, d := range c.Diffs {
		paths = append(paths, d.NewPath)
	}
	// From the merge base: master's own change (m.txt) is not in it.
	if strings.Join(paths, ",") != "README.md,feature.txt,more.txt" {
		t.Fatalf("compare diffs: %v", paths)
	}
	s.Expect(200, "GET", base+"?from=master&to=feature&straight=true", s.RootToken, nil).Decode(t, &c)
	if len(c.Diffs) != 4 {
		t.Fatalf("straight compare diffs: %+v", c.Diffs)
	}
	s.Expect(200, "GET", base+"?from=feature&to="+more.ID, s.RootToken, nil).Decode(t, &c)
	if !c.CompareSameRef || len(c.Commits) != 0 || c.Commit != nil {
		t.Fatalf("same ref: %+v", c)
	}
	s.Expect(200, "GET", base+"?from="+first.ID+"&to=nope", s.RootToken, nil).Decode(t, &c)
	if len(c.Commits) != 0 || c.Commit != nil || len(c.Diffs) != 0 {
		t.Fatalf("unknown ref: %+v", c)
	}
	s.ExpectBody(400, `{"error":"from is missing, to is missing"}`, "GET", base, s.RootToken, nil)
	s.Expect(400, "GET", base+"?from=-x&to=master", s.RootToken, nil)
}

// TestArchive downloads archives in every format.
func TestArchive(t *testing.T) {
	t.Parallel()
	s := newRepoServer(t)
	pid, _, feature := seedFiles(t, s, "Arch", "public")
	base := fmt.Sprintf("/projects/%d/repository/archive", pid)
	master := s.git(pid, "rev-parse", "master")

	resp, data := s.Do(t, "GET", base, "", nil)
	want := fmt.Sprintf(`attachment; filename="arch-master-%s.tar.gz"`, master)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Disposition") != want {
		t.Fatalf("archive: %d %q", resp.StatusCode, resp.Header.Get("Content-Disposition"))
	}
	files := tarFiles(t, data, true)
	prefix := "arch-master-" + master + "/"
	if files[prefix+"src/lib/util.go"] != "package lib\n" || files[prefix+"README.md"] != "hello\n" {
		t.Fatalf("tar.gz entries: %v", files)
	}
	resp, data = s.Do(t, "GET", base+".zip?sha=feature", "", nil)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/zip" ||
		!strings.Contains(resp.Header.Get("Content-Disposition"), "arch-feature-"+feature.ID+".zip") {
		t.Fatalf("zip: %d %v", resp.StatusCode, resp.Header)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range zr.File {
		found = found || f.Name == "arch-feature-"+feature.ID+"/feature.txt"
	}
	if !found {
		t.Fatalf("zip lacks feature.txt")
	}
	resp, data = s.Do(t, "GET", base+"?format=tar&sha="+feature.ID, "", nil)
	if resp.StatusCode != 200 || tarFiles(t, data, false)["arch-"+feature.ID+"-"+feature.ID+"/feature.txt"] != "f\n" {
		t.Fatalf("tar by sha: %d %v", resp.StatusCode, resp.Header)
	}
	resp, _ = s.Do(t, "GET", base+".tar.bz2", "", nil)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/x-bzip2" {
		t.Fatalf("tar.bz2: %d", resp.StatusCode)
	}
	s.ExpectBody(404, `{"message":"404 File Not Found"}`, "GET", base+"?sha=nope", "", nil)
	s.Expect(404, "GET", base+".rar", "", nil)
	resp, _ = s.Do(t, "GET", base+"?sha=-x", "", nil)
	if resp.StatusCode != 400 && resp.StatusCode != 404 {
		t.Fatalf("hostile sha: %d", resp.StatusCode)
	}
}

// tarFiles reads a (gzipped) tar into path -> content.
func tarFiles(t *testing.T, data []byte, gz bool) map[string]string {
	t.Helper()
	var rd io.Reader = bytes.NewReader(data)
	if gz {
		zr, err := gzip.NewReader(rd)
		if err != nil {
			t.Fatalf("gzip: %v", err)
		}
		rd = zr
	}
	tr := tar.NewReader(rd)
	out := map[string]string{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("tar: %v", err)
		}
		b, _ := io.ReadAll(tr)
		out[h.Name] = string(b)
	}
}
