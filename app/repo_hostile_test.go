package app_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
)

// hostileValues are names, paths and revisions that try to leave the
// repository, reach git as options or name something git resolves beyond a
// plain ref.
var hostileValues = []string{
	"../../../canary.txt",
	"..%2F..%2F..%2Fcanary.txt", // sent as is: decoded once by the server
	"%2e%2e%2f%2e%2e%2fcanary.txt",
	"-x",
	"--output=/tmp/hearth-pwned",
	"--upload-pack=touch /tmp/hearth-pwned",
	"a\x00b",
	".git/config",
	"refs/heads/../../config",
	"master:../../canary.txt",
	"HEAD:README.md",
	"master^{tree}",
	"master@{0}",
	"@{-1}",
	"master..master",
	"/etc/passwd",
	"\x01ctrl",
}

// TestRepositoryHostileInput sends every hostile value in every path
// parameter of every repository, merge request, issue, note, snippet,
// todo and git HTTP route (enumerated from the
// router, so a new route cannot be forgotten), and in the query and form
// parameters those routes read. Nothing may answer 5xx, a hostile path
// parameter must give 400 or 404, no answer may carry the canary planted
// outside the repository, and the repository must be unchanged (refs,
// fsck) with no file created outside it.
func TestRepositoryHostileInput(t *testing.T) {
	t.Parallel()
	srv := apptest.New(t)
	canary := "CANARY-" + fmt.Sprint(time.Now().UnixNano())
	for _, dir := range []string{srv.Config.DataDir, filepath.Dir(srv.RepoDir(1))} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "canary.txt"), []byte(canary), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var p struct{ ID int64 }
	srv.JSON(t, "POST", "/projects", srv.RootToken, url.Values{"name": {"target"}, "visibility": {"public"}}, 201, &p)
	repo := domain.RepoPath(p.ID)
	sig := domain.Signature{Name: "Seed", Email: "seed@example.com", When: time.Unix(1500000000, 0).UTC()}
	if _, err := srv.Repos.CommitFiles(context.Background(), repo, domain.CommitFiles{
		Branch: "master", Message: "seed", Author: sig, Committer: sig,
		Actions: []domain.FileAction{
			{Action: domain.FileCreate, Path: "README.md", Content: []byte("hello\n")},
			{Action: domain.FileCreate, Path: "dir/file.txt", Content: []byte("inside\n")},
		},
	}); err != nil {
		t.Fatalf("seed: %v", err)
	}
	if _, err := srv.Repos.CreateTag(context.Background(), repo, "v1", "master", "", sig); err != nil {
		t.Fatalf("seed tag: %v", err)
	}
	before := gitOut(t, srv.RepoDir(p.ID), "for-each-ref")
	dataBefore := listFiles(t, srv.Config.DataDir)

	param := regexp.MustCompile(`\{([a-zA-Z_]+)(:[^}]*)?\}|\*`)
	queryNames := []string{"ref", "ref_name", "path", "sha", "from", "to", "branch", "tag_name", "file_path", "previous_path", "service", "format",
		"source_branch", "target_branch", "labels", "milestone", "state", "merge_commit_message"}
	routes := 0
	for _, rt := range srv.Router.Routes() {
		switch rt.Module {
		case "repository", "repository-git", "mergerequests", "issues", "notes", "snippets", "todos":
		default:
			continue
		}
		routes++
		for _, hv := range hostileValues {
			raw := strings.Contains(hv, "%") // already escaped on purpose
			esc := hv
			if !raw {
				esc = url.PathEscape(hv)
			}
			path := strings.TrimPrefix(rt.Pattern, "/api/v4")
			hostileInPath := false
			path = param.ReplaceAllStringFunc(path, func(m string) string {
				if m == "{id}" {
					return fmt.Sprint(p.ID)
				}
				hostileInPath = true
				return esc
			})
			q := url.Values{}
			for _, n := range queryNames {
				q.Set(n, hv)
			}
			q.Set("commit_message", "hostile")
			q.Set("content", "x")
			q.Set("note", "x")
			q.Set("description", "x")
			q.Set("title", "hostile")
			full := path + "?" + q.Encode()
			if rt.Module == "repository-git" {
				full = srv.URL + full
			}
			var body any
			if rt.Method != http.MethodGet && rt.Method != http.MethodDelete && rt.Module != "repository-git" {
				body = q
			}
			resp, respBody := srv.Do(t, rt.Method, full, srv.RootToken, body)
			where := fmt.Sprintf("%s %s with %q", rt.Method, rt.Pattern, hv)
			if resp.StatusCode >= 500 {
				t.Errorf("%s: %d %s", where, resp.StatusCode, respBody)
			}
			if hostileInPath && resp.StatusCode != 400 && resp.StatusCode != 404 && resp.StatusCode != 401 {
				t.Errorf("%s: %d, want 400 or 404: %.200s", where, resp.StatusCode, respBody)
			}
			if bytes.Contains(respBody, []byte(canary)) || bytes.Contains(respBody, []byte("[core]")) || bytes.Contains(respBody, []byte("root:x:0")) {
				t.Errorf("%s: answer leaks a file outside the repository: %.200s", where, respBody)
			}
		}
	}
	if routes < 20 {
		t.Fatalf("only %d repository routes found; the router walk is broken", routes)
	}
	if _, err := os.Stat("/tmp/hearth-pwned"); err == nil {
		t.Errorf("a hostile option reached git: /tmp/hearth-pwned exists")
	}
	if after := gitOut(t, srv.RepoDir(p.ID), "for-each-ref"); after != before {
		t.Errorf("refs changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	gitOut(t, srv.RepoDir(p.ID), "fsck", "--strict")
	for f := range listFiles(t, srv.Config.DataDir) {
		if !dataBefore[f] && !strings.Contains(f, string(filepath.Separator)+"repositories"+string(filepath.Separator)) {
			t.Errorf("file created outside the repositories: %s", f)
		}
	}
	t.Logf("%d routes x %d hostile values", routes, len(hostileValues))
}

// listFiles lists the regular files under dir, skipping the database's own
// files (SQLite journals come and go).
func listFiles(t *testing.T, dir string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && !strings.Contains(filepath.Base(path), "hearth.db") {
			out[path] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
