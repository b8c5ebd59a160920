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

// d2Seed makes a project with a small tree on master and a feature branch.
func d2Seed(t *testing.T, s *d2Server, name, visibility string) (int64, d2Commit, d2Commit) {
	t.Helper()
	pid := s.projectID(name, visibility)
	first := s.commit(s.RootToken, pid, d2Body("master", "init",
		d2Action{"action": "create", "file_path": "README.md", "content": "hello\n"},
		d2Action{"action": "create", "file_path": "src/main.go", "content": "package main\n"},
		d2Action{"action": "create", "file_path": "src/lib/util.go", "content": "package lib\n"},
		d2Action{"action": "create", "file_path": "docs/a b.txt", "content": "spaced\n"}))
	feature := s.commit(s.RootToken, pid, map[string]any{"branch": "feature", "start_branch": "master", "commit_message": "feature work",
		"actions": []d2Action{{"action": "create", "file_path": "feature.txt", "content": "f\n"}, {"action": "update", "file_path": "README.md", "content": "hello feature\n"}}})
	return pid, first, feature
}

type d2Tree struct {
	ID, Name, Type, Path, Mode string
}

// TestD2Tree lists trees: root, a path, recursive, pages, 404s.
func TestD2Tree(t *testing.T) {
	t.Parallel()
	s := newD2(t)
	pid, _, _ := d2Seed(t, s, "trees", "private")
	base := fmt.Sprintf("/projects/%d/repository/tree", pid)
	var tree []d2Tree
	s.JSON(t, "GET", base, s.RootToken, nil, 200, &tree)
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
	s.JSON(t, "GET", base+"?path=src&ref=master", s.RootToken, nil, 200, &tree)
	if len(tree) != 2 || tree[0].Path != "src/lib" || tree[1].Path != "src/main.go" {
		t.Fatalf("src: %+v", tree)
	}
	resp := s.JSON(t, "GET", base+"?recursive=true&per_page=3", s.RootToken, nil, 200, &tree)
	if len(tree) != 3 || resp.Header.Get("X-Total") != "7" || resp.Header.Get("X-Total-Pages") != "3" {
		t.Fatalf("recursive page: %+v X-Total %s", tree, resp.Header.Get("X-Total"))
	}
	s.JSON(t, "GET", base+"?ref=feature", s.RootToken, nil, 200, &tree)
	if len(tree) != 4 {
		t.Fatalf("feature tree: %+v", tree)
	}
	for _, q := range []string{"?path=nope", "?ref=nope", "?path=README.md"} {
		s.expect(404, `{"message":"404 Tree Not Found"}`, "GET", base+q, s.RootToken, nil)
	}
	for _, q := range []string{"?path=../../etc", "?path=" + url.QueryEscape(".git"), "?ref=-x", "?ref=" + url.QueryEscape("master:src")} {
		resp, data := s.Do(t, "GET", base+q, s.RootToken, nil)
		if resp.StatusCode != 400 && resp.StatusCode != 404 {
			t.Fatalf("tree %s: %d %s", q, resp.StatusCode, data)
		}
	}
	empty := s.projectID("empty-tree", "private")
	s.expect(404, `{"message":"404 Tree Not Found"}`, "GET", fmt.Sprintf("/projects/%d/repository/tree", empty), s.RootToken, nil)
}

// TestD2FileReadsAndBlobs reads files (JSON and raw) and blobs.
func TestD2FileReadsAndBlobs(t *testing.T) {
	t.Parallel()
	s := newD2(t)
	pid, first, feature := d2Seed(t, s, "file-reads", "public")
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
	s.JSON(t, "GET", base+"/files/src%2Flib%2Futil%2Ego?ref=feature", "", nil, 200, &f)
	content, _ := base64.StdEncoding.DecodeString(f.Content)
	if f.FileName != "util.go" || f.FilePath != "src/lib/util.go" || f.Size != 12 || f.Encoding != "base64" || string(content) != "package lib\n" ||
		f.Ref != "feature" || f.CommitID != feature.ID || f.LastCommitID != first.ID || f.BlobID != s.git(pid, "rev-parse", "feature:src/lib/util.go") {
		t.Fatalf("file: %+v", f)
	}
	s.JSON(t, "GET", base+"/files/README.md?ref=feature", "", nil, 200, &f)
	if f.LastCommitID != feature.ID {
		t.Fatalf("README last commit: %s", f.LastCommitID)
	}
	resp, data := s.Do(t, "GET", base+"/files/docs%2Fa%20b.txt/raw?ref=master", "", nil)
	if resp.StatusCode != 200 || string(data) != "spaced\n" || resp.Header.Get("Content-Type") != "text/plain" {
		t.Fatalf("raw: %d %q %q", resp.StatusCode, resp.Header.Get("Content-Type"), data)
	}
	s.expect(400, `{"error":"ref is missing"}`, "GET", base+"/files/README.md", "", nil)
	s.expect(400, `{"error":"ref is missing"}`, "GET", base+"/files/README.md/raw", "", nil)
	s.expect(404, `{"message":"404 File Not Found"}`, "GET", base+"/files/nope.txt?ref=master", "", nil)
	s.expect(404, `{"message":"404 File Not Found"}`, "GET", base+"/files/src?ref=master", "", nil)
	s.expect(404, `{"message":"404 File Not Found"}`, "GET", base+"/files/feature.txt/raw?ref=master", "", nil)
	s.expect(404, `{"message":"404 Commit Not Found"}`, "GET", base+"/files/README.md?ref=nope", "", nil)
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
	s.JSON(t, "GET", base+"/blobs/"+blobID, "", nil, 200, &b)
	if b.SHA != blobID || b.Size != 6 || b.Encoding != "base64" || b.Content != base64.StdEncoding.EncodeToString([]byte("hello\n")) {
		t.Fatalf("blob: %+v", b)
	}
	resp, data = s.Do(t, "GET", base+"/blobs/"+blobID[:10]+"/raw", "", nil)
	if resp.StatusCode != 200 || string(data) != "hello\n" || resp.Header.Get("Content-Type") != "text/plain" {
		t.Fatalf("raw blob: %d %q", resp.StatusCode, data)
	}
	s.expect(404, `{"message":"404 Blob Not Found"}`, "GET", base+"/blobs/ffffffffffffffffffffffffffffffffffffffff", "", nil)
	resp, _ = s.Do(t, "GET", base+"/blobs/master", "", nil)
	if resp.StatusCode != 404 && resp.StatusCode != 400 {
		t.Fatalf("blob by branch name: %d", resp.StatusCode)
	}
}

// TestD2FileWrites creates, updates and deletes single files.
func TestD2FileWrites(t *testing.T) {
	t.Parallel()
	s := newD2(t)
	pid, _, _ := d2Seed(t, s, "writes", "private")
	path := fmt.Sprintf("/projects/%d/repository/files/new%%2Fdir%%2Ffile.txt", pid)
	form := func(kv ...string) url.Values {
		v := url.Values{"branch": {"master"}, "commit_message": {"msg"}}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return v
	}
	s.expect(201, `{"file_path":"new/dir/file.txt","branch":"master"}`, "POST", path, s.RootToken, form("content", "v1\n"))
	if got := s.git(pid, "show", "master:new/dir/file.txt"); got != "v1" {
		t.Fatalf("created content %q", got)
	}
	s.expect(400, `{"message":"A file with this name already exists"}`, "POST", path, s.RootToken, form("content", "again"))
	s.expect(400, `{"error":"content is missing"}`, "POST", path, s.RootToken, form())
	s.expect(400, `{"error":"branch is missing, commit_message is missing"}`, "PUT", path, s.RootToken, url.Values{"content": {"x"}})
	s.expect(200, `{"file_path":"new/dir/file.txt","branch":"master"}`, "PUT", path, s.RootToken,
		form("content", base64.StdEncoding.EncodeToString([]byte("v2\n")), "encoding", "base64", "author_name", "Writer", "author_email", "w@example.com"))
	if got := s.git(pid, "log", "-1", "--format=%an <%ae> %s", "master"); got != "Writer <w@example.com> msg" {
		t.Fatalf("update commit: %q", got)
	}
	if got := s.git(pid, "show", "master:new/dir/file.txt"); got != "v2" {
		t.Fatalf("updated content %q", got)
	}
	// last_commit_id guards against updating a file changed since.
	stale := s.git(pid, "rev-parse", "master~1")
	s.expect(400, `{"message":"You are attempting to update a file that has changed since you started editing it."}`, "PUT", path, s.RootToken, form("content", "v3", "last_commit_id", stale))
	s.expect(200, "", "PUT", path, s.RootToken, form("content", "v3", "last_commit_id", s.git(pid, "rev-parse", "master")))
	s.expect(400, `{"message":"A file with this name doesn't exist"}`, "PUT", fmt.Sprintf("/projects/%d/repository/files/zz", pid), s.RootToken, form("content", "x"))
	// An empty file is content too.
	s.expect(201, "", "POST", fmt.Sprintf("/projects/%d/repository/files/empty.txt", pid), s.RootToken, form("content", ""))
	// A new branch from start_branch.
	s.expect(201, `{"file_path":"new/dir/other.txt","branch":"topic"}`, "POST", strings.Replace(path, "file.txt", "other.txt", 1), s.RootToken,
		url.Values{"branch": {"topic"}, "start_branch": {"master"}, "commit_message": {"m"}, "content": {"t"}})
	s.expect(204, "", "DELETE", path, s.RootToken, form())
	if out := s.git(pid, "ls-tree", "-r", "--name-only", "master"); strings.Contains(out, "new/dir/file.txt") {
		t.Fatalf("deleted file still in master:\n%s", out)
	}
	s.expect(400, `{"message":"A file with this name doesn't exist"}`, "DELETE", path, s.RootToken, form())
	for _, bad := range []string{"..%2Fx", ".git%2Fhooks%2Fpost-update", "a%00b"} {
		resp, data := s.Do(t, "POST", fmt.Sprintf("/projects/%d/repository/files/%s", pid, bad), s.RootToken, form("content", "x"))
		if resp.StatusCode != 400 && resp.StatusCode != 404 {
			t.Fatalf("create %s: %d %s", bad, resp.StatusCode, data)
		}
	}
	// Protection and permissions.
	did, dev := s.user("dev")
	s.member(pid, did, domain.Developer)
	s.protect(pid, "master", false)
	s.expect(400, `{"message":"You are not allowed to push into this branch"}`, "POST", path, dev, form("content", "x"))
	rid, rep := s.user("rep")
	s.member(pid, rid, domain.Reporter)
	s.expect(403, "", "DELETE", fmt.Sprintf("/projects/%d/repository/files/README.md", pid), rep, form())
	if got := s.git(pid, "fsck", "--strict", "--no-progress"); strings.Contains(got, "error") {
		t.Fatalf("fsck: %s", got)
	}
}

// TestD2Compare compares branches and commits.
func TestD2Compare(t *testing.T) {
	t.Parallel()
	s := newD2(t)
	pid, first, feature := d2Seed(t, s, "compare", "private")
	more := s.commit(s.RootToken, pid, d2Body("feature", "more", d2Action{"action": "create", "file_path": "more.txt", "content": "m\n"}))
	s.commit(s.RootToken, pid, d2Body("master", "master moves", d2Action{"action": "create", "file_path": "m.txt", "content": "x\n"}))
	base := fmt.Sprintf("/projects/%d/repository/compare", pid)
	type cmp struct {
		Commit  *d2Commit  `json:"commit"`
		Commits []d2Commit `json:"commits"`
		Diffs   []struct {
			NewPath string `json:"new_path"`
			NewFile bool   `json:"new_file"`
		} `json:"diffs"`
		CompareTimeout bool `json:"compare_timeout"`
		CompareSameRef bool `json:"compare_same_ref"`
	}
	var c cmp
	s.JSON(t, "GET", base+"?from=master&to=feature", s.RootToken, nil, 200, &c)
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
	s.JSON(t, "GET", base+"?from=master&to=feature&straight=true", s.RootToken, nil, 200, &c)
	if len(c.Diffs) != 4 {
		t.Fatalf("straight compare diffs: %+v", c.Diffs)
	}
	s.JSON(t, "GET", base+"?from=feature&to="+more.ID, s.RootToken, nil, 200, &c)
	if !c.CompareSameRef || len(c.Commits) != 0 || c.Commit != nil {
		t.Fatalf("same ref: %+v", c)
	}
	s.JSON(t, "GET", base+"?from="+first.ID+"&to=nope", s.RootToken, nil, 200, &c)
	if len(c.Commits) != 0 || c.Commit != nil || len(c.Diffs) != 0 {
		t.Fatalf("unknown ref: %+v", c)
	}
	s.expect(400, `{"error":"from is missing, to is missing"}`, "GET", base, s.RootToken, nil)
	s.expect(400, "", "GET", base+"?from=-x&to=master", s.RootToken, nil)
}

// TestD2Archive downloads archives in every format.
func TestD2Archive(t *testing.T) {
	t.Parallel()
	s := newD2(t)
	pid, _, feature := d2Seed(t, s, "Arch", "public")
	base := fmt.Sprintf("/projects/%d/repository/archive", pid)
	master := s.git(pid, "rev-parse", "master")

	resp, data := s.Do(t, "GET", base, "", nil)
	want := fmt.Sprintf(`attachment; filename="arch-master-%s.tar.gz"`, master)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Disposition") != want {
		t.Fatalf("archive: %d %q", resp.StatusCode, resp.Header.Get("Content-Disposition"))
	}
	files := d2TarFiles(t, data, true)
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
	if resp.StatusCode != 200 || d2TarFiles(t, data, false)["arch-"+feature.ID+"-"+feature.ID+"/feature.txt"] != "f\n" {
		t.Fatalf("tar by sha: %d %v", resp.StatusCode, resp.Header)
	}
	resp, _ = s.Do(t, "GET", base+".tar.bz2", "", nil)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/x-bzip2" {
		t.Fatalf("tar.bz2: %d", resp.StatusCode)
	}
	s.expect(404, `{"message":"404 File Not Found"}`, "GET", base+"?sha=nope", "", nil)
	s.expect(404, "", "GET", base+".rar", "", nil)
	resp, _ = s.Do(t, "GET", base+"?sha=-x", "", nil)
	if resp.StatusCode != 400 && resp.StatusCode != 404 {
		t.Fatalf("hostile sha: %d", resp.StatusCode)
	}
}

// d2TarFiles reads a (gzipped) tar into path -> content.
func d2TarFiles(t *testing.T, data []byte, gz bool) map[string]string {
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
