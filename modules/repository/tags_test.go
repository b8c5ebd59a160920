package repository_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/domain"
)

func tagsPath(id int64, rest string) string {
	return fmt.Sprintf("/projects/%d/repository/tags%s", id, rest)
}

func tagNames(ts []tagReply) []string {
	out := make([]string, len(ts))
	for i, tg := range ts {
		out[i] = tg.Name
	}
	return out
}

func TestTagList(t *testing.T) {
	t.Parallel()
	s := newRepoServer(t)
	tm := newTeam(s, "tlist")
	s.seedTag(tm.id, "alpha", tm.c2.ID, "")
	s.seedTag(tm.id, "v1.0", tm.c1.ID, "")
	s.seedTag(tm.id, "v2.0", "feature/x", "Second release\n\nwith notes")
	s.Expect(201, "POST", tagsPath(tm.id, "/v1.0/release"), tm.dev, url.Values{"description": {"## One"}})

	var all []tagReply
	resp := s.Expect(200, "GET", tagsPath(tm.id, ""), tm.reporter, nil)
	resp.Decode(t, &all)
	if got := tagNames(all); !slices.Equal(got, []string{"v2.0", "v1.0", "alpha"}) {
		t.Fatalf("tags %v, want reverse name order", got)
	}
	if resp.Header.Get("X-Total") != "3" {
		t.Fatalf("X-Total %q", resp.Header.Get("X-Total"))
	}
	v2, v1, alpha := all[0], all[1], all[2]
	if v2.Message == nil || *v2.Message != "Second release\n\nwith notes" || v2.Commit.ID != tm.c3.ID || v2.Release != nil {
		t.Fatalf("annotated v2.0: %+v", v2)
	}
	if v1.Message != nil || v1.Commit.ID != tm.c1.ID || v1.Release == nil ||
		v1.Release.TagName != "v1.0" || v1.Release.Description != "## One" {
		t.Fatalf("lightweight v1.0 with a release: %+v", v1)
	}
	if alpha.Commit.ID != tm.c2.ID || alpha.Commit.Title != "Change README.md" || !slices.Equal(alpha.Commit.ParentIDs, []string{tm.c1.ID}) {
		t.Fatalf("alpha: %+v", alpha)
	}

	var page []tagReply
	resp = s.Expect(200, "GET", tagsPath(tm.id, "?per_page=1&page=2"), tm.dev, nil)
	resp.Decode(t, &page)
	if len(page) != 1 || page[0].Name != "v1.0" || page[0].Release == nil || resp.Header.Get("X-Total-Pages") != "3" {
		t.Fatalf("page 2: %+v %v", page, resp.Header)
	}

	notFound := `{"message":"404 Project Not Found"}`
	s.ExpectBody(404, notFound, "GET", tagsPath(tm.id, ""), "", nil)
	s.ExpectBody(404, notFound, "GET", tagsPath(tm.id, ""), tm.stranger, nil)
	s.ExpectBody(404, notFound, "GET", tagsPath(tm.id, ""), tm.guest, nil)

	pub := s.seed("tlist-public", "public")
	s.seedTag(pub.id, "v1", pub.c1.ID, "")
	s.Expect(200, "GET", tagsPath(pub.id, ""), "", nil).Decode(t, &page)
	if len(page) != 1 || page[0].Name != "v1" {
		t.Fatalf("anonymous list of a public repository: %+v", page)
	}
	s.ExpectBody(200, `[]`, "GET", tagsPath(s.projectID("tlist-empty", "private"), ""), s.RootToken, nil)
}

func TestTagGet(t *testing.T) {
	t.Parallel()
	s := newRepoServer(t)
	tm := newTeam(s, "tget")
	s.seedTag(tm.id, "rel/1", tm.c1.ID, "")
	s.seedTag(tm.id, "v1.0", tm.c2.ID, "Annotated")

	// Lightweight: message and release present and null.
	got := s.Expect(200, "GET", tagsPath(tm.id, "/rel%2F1"), tm.reporter, nil)
	if data := string(got.Body); !strings.Contains(data, `"message":null`) || !strings.Contains(data, `"release":null`) {
		t.Fatalf("lightweight tag body %s", data)
	}
	var tg tagReply
	got.Decode(t, &tg)
	if tg.Name != "rel/1" || tg.Commit.ID != tm.c1.ID {
		t.Fatalf("rel/1: %+v", tg)
	}
	s.Expect(200, "GET", tagsPath(tm.id, "/v1%2E0"), tm.dev, nil).Decode(t, &tg)
	if tg.Name != "v1.0" || tg.Message == nil || *tg.Message != "Annotated" || tg.Commit.ID != tm.c2.ID {
		t.Fatalf("v1.0: %+v", tg)
	}

	for _, name := range []string{"unknown", "..%2F..%2Fconfig", "-x", "refs%2Ftags%2Fv1.0", "a%00b"} {
		s.ExpectBody(404, `{"message":"404 Tag Not Found"}`, "GET", tagsPath(tm.id, "/"+name), tm.dev, nil)
	}
	s.ExpectBody(404, `{"message":"404 Project Not Found"}`, "GET", tagsPath(tm.id, "/v1.0"), "", nil)
	s.ExpectBody(404, `{"message":"404 Project Not Found"}`, "GET", tagsPath(tm.id, "/v1.0"), tm.guest, nil)
}

func TestTagCreate(t *testing.T) {
	t.Parallel()
	s := newRepoServer(t)
	tm := newTeam(s, "tcreate")
	path := tagsPath(tm.id, "")
	form := apptest.Form

	// Lightweight.
	created := s.Expect(201, "POST", path, tm.dev, form("tag_name", "light", "ref", "master"))
	data := created.Body
	var tg tagReply
	created.Decode(t, &tg)
	if tg.Name != "light" || tg.Message != nil || tg.Release != nil || tg.Commit.ID != tm.c2.ID ||
		!strings.Contains(string(data), `"message":null`) {
		t.Fatalf("lightweight tag %s", data)
	}
	if typ := s.git(tm.id, "cat-file", "-t", "refs/tags/light"); typ != "commit" {
		t.Fatalf("light is a %s", typ)
	}

	// Annotated, by the caller, with the message trimmed as GitLab does.
	s.Expect(201, "POST", path, tm.dev, map[string]string{"tag_name": "ann/1", "ref": tm.c1.ID, "message": "  Release one \n"}).Decode(t, &tg)
	if tg.Message == nil || *tg.Message != "Release one" || tg.Commit.ID != tm.c1.ID {
		t.Fatalf("annotated tag %+v", tg)
	}
	obj := s.git(tm.id, "cat-file", "-p", "refs/tags/ann/1")
	if !strings.Contains(obj, "tagger TCREATE-U2 <tcreate-u2@example.com>") || !strings.Contains(obj, "object "+tm.c1.ID) {
		t.Fatalf("tag object:\n%s", obj)
	}

	// With release notes, from a tag name.
	s.Expect(201, "POST", path, tm.dev, form("tag_name", "v1", "ref", "ann/1", "release_description", "Notes *md*")).Decode(t, &tg)
	if tg.Commit.ID != tm.c1.ID || tg.Release == nil || tg.Release.TagName != "v1" || tg.Release.Description != "Notes *md*" {
		t.Fatalf("tag with release %+v", tg)
	}
	s.Expect(200, "GET", tagsPath(tm.id, "/v1"), tm.reporter, nil).Decode(t, &tg)
	if tg.Release == nil || tg.Release.Description != "Notes *md*" {
		t.Fatalf("stored release %+v", tg)
	}

	// Each creation is announced; an annotated tag's push carries the tag object.
	ev := s.pushesOf(tm.id, "refs/tags/light")
	if len(ev) != 1 || ev[0].Before != domain.ZeroID || ev[0].After != tm.c2.ID || len(ev[0].Commits) != 0 ||
		ev[0].TotalCommits != 0 || ev[0].Actor != tm.devID {
		t.Fatalf("events of light: %+v", ev)
	}
	tagObject := s.git(tm.id, "rev-parse", "refs/tags/ann/1")
	if ev = s.pushesOf(tm.id, "refs/tags/ann/1"); len(ev) != 1 || ev[0].After != tagObject || tagObject == tm.c1.ID {
		t.Fatalf("events of ann/1: %+v (tag object %s)", ev, tagObject)
	}

	// Failures are 405s with GitLab's explanations.
	s.ExpectBody(405, `{"message":"Tag light already exists"}`, "POST", path, tm.dev, form("tag_name", "light", "ref", tm.c1.ID))
	for _, name := range []string{"bad name", "-x", "refs/tags/x", "a..b", "x.lock", "HEAD", "a\x00b", "x^"} {
		s.ExpectBody(405, `{"message":"Tag name invalid"}`, "POST", path, tm.dev, form("tag_name", name, "ref", "master"))
	}
	for _, ref := range []string{"nope", "-x", "../../etc/passwd", "--upload-pack=x", "1111111111111111111111111111111111111111"} {
		s.ExpectBody(405, fmt.Sprintf(`{"message":"Target %s is invalid"}`, ref), "POST", path, tm.dev, form("tag_name", "t-new", "ref", ref))
	}
	if _, err := s.Repos.Tag(context.Background(), domain.RepoPath(tm.id), "t-new"); err == nil {
		t.Fatal("a failed creation left a tag")
	}
	s.ExpectBody(400, `{"error":"tag_name is missing, ref is missing"}`, "POST", path, tm.dev, url.Values{})

	// Permission order: 401, 404, 403.
	s.ExpectBody(401, `{"message":"401 Unauthorized"}`, "POST", path, "", form("tag_name", "p", "ref", "master"))
	s.ExpectBody(404, `{"message":"404 Project Not Found"}`, "POST", path, tm.stranger, form("tag_name", "p", "ref", "master"))
	s.ExpectBody(403, `{"message":"403 Forbidden"}`, "POST", path, tm.guest, form("tag_name", "p", "ref", "master"))
	s.ExpectBody(403, `{"message":"403 Forbidden"}`, "POST", path, tm.reporter, form("tag_name", "p", "ref", "master"))
}

func TestTagDelete(t *testing.T) {
	t.Parallel()
	s := newRepoServer(t)
	tm := newTeam(s, "tdelete")
	s.Expect(201, "POST", tagsPath(tm.id, ""), tm.dev, url.Values{"tag_name": {"v1"}, "ref": {"master"},
		"message": {"one"}, "release_description": {"notes"}})
	tagObject := s.git(tm.id, "rev-parse", "refs/tags/v1")

	s.Expect(401, "DELETE", tagsPath(tm.id, "/v1"), "", nil)
	s.ExpectBody(404, `{"message":"404 Project Not Found"}`, "DELETE", tagsPath(tm.id, "/v1"), tm.stranger, nil)
	s.ExpectBody(403, `{"message":"403 Forbidden"}`, "DELETE", tagsPath(tm.id, "/v1"), tm.guest, nil)
	s.ExpectBody(403, `{"message":"403 Forbidden"}`, "DELETE", tagsPath(tm.id, "/v1"), tm.reporter, nil)

	s.Expect(204, "DELETE", tagsPath(tm.id, "/v1"), tm.dev, nil)
	s.ExpectBody(404, `{"message":"404 Tag Not Found"}`, "GET", tagsPath(tm.id, "/v1"), tm.dev, nil)
	s.ExpectBody(404, `{"message":"404 Tag Not Found"}`, "DELETE", tagsPath(tm.id, "/v1"), tm.dev, nil)
	s.ExpectBody(404, `{"message":"404 Tag Not Found"}`, "DELETE", tagsPath(tm.id, "/..%2F..%2FHEAD"), tm.dev, nil)
	ev := s.pushesOf(tm.id, "refs/tags/v1")
	if len(ev) != 2 || ev[1].Before != tagObject || ev[1].After != domain.ZeroID || len(ev[1].Commits) != 0 || ev[1].Actor != tm.devID {
		t.Fatalf("events of v1: %+v", ev)
	}

	// The events feed records both as pushes of no commits ("pushed new"
	// and "deleted", as GitLab names them).
	var feed []struct {
		ActionName string `json:"action_name"`
		AuthorID   int64  `json:"author_id"`
		Data       struct {
			Before, After, Ref string
			Commits            []any
			TotalCommitsCount  int `json:"total_commits_count"`
		} `json:"data"`
	}
	s.Expect(200, "GET", fmt.Sprintf("/projects/%d/events?action=pushed", tm.id), tm.dev, nil).Decode(t, &feed)
	var seen []string
	for _, e := range feed {
		if e.Data.Ref == "refs/tags/v1" && e.AuthorID == tm.devID && len(e.Data.Commits) == 0 && e.Data.TotalCommitsCount == 0 {
			seen = append(seen, e.ActionName+" "+e.Data.Before+">"+e.Data.After)
		}
	}
	if !slices.Contains(seen, "pushed new "+domain.ZeroID+">"+tagObject) || !slices.Contains(seen, "deleted "+tagObject+">"+domain.ZeroID) {
		t.Fatalf("feed pushes of refs/tags/v1: %v", seen)
	}

	// The release went with the tag.
	var tg tagReply
	s.Expect(201, "POST", tagsPath(tm.id, ""), tm.dev, url.Values{"tag_name": {"v1"}, "ref": {"master"}}).Decode(t, &tg)
	if tg.Release != nil {
		t.Fatalf("the deleted tag's release came back: %+v", tg.Release)
	}
}

func TestTagReleases(t *testing.T) {
	t.Parallel()
	s := newRepoServer(t)
	tm := newTeam(s, "trelease")
	s.seedTag(tm.id, "rel/1", tm.c1.ID, "")
	release := tagsPath(tm.id, "/rel%2F1/release")

	s.Expect(401, "POST", release, "", url.Values{"description": {"x"}})
	s.ExpectBody(404, `{"message":"404 Project Not Found"}`, "POST", release, tm.stranger, url.Values{"description": {"x"}})
	s.ExpectBody(403, `{"message":"403 Forbidden"}`, "POST", release, tm.reporter, url.Values{"description": {"x"}})
	s.ExpectBody(403, `{"message":"403 Forbidden"}`, "PUT", release, tm.guest, url.Values{"description": {"x"}})

	s.ExpectBody(404, `{"message":"404 Release Not Found"}`, "PUT", release, tm.dev, url.Values{"description": {"x"}})
	s.ExpectBody(201, `{"tag_name":"rel/1","description":"First"}`, "POST", release, tm.dev, url.Values{"description": {"First"}})
	s.ExpectBody(409, `{"message":"Release already exists"}`, "POST", release, tm.dev, url.Values{"description": {"Again"}})
	s.ExpectBody(200, `{"tag_name":"rel/1","description":"Second"}`, "PUT", release, tm.dev, map[string]string{"description": "Second"})
	var tg tagReply
	s.Expect(200, "GET", tagsPath(tm.id, "/rel%2F1"), tm.reporter, nil).Decode(t, &tg)
	if tg.Release == nil || tg.Release.Description != "Second" {
		t.Fatalf("release after update: %+v", tg.Release)
	}

	s.ExpectBody(404, `{"message":"404 Tag Not Found"}`, "POST", tagsPath(tm.id, "/nope/release"), tm.dev, url.Values{"description": {"x"}})
	s.ExpectBody(404, `{"message":"404 Tag Not Found"}`, "PUT", tagsPath(tm.id, "/nope/release"), tm.dev, url.Values{"description": {"x"}})
	s.ExpectBody(400, `{"error":"description is missing"}`, "POST", release, tm.dev, url.Values{})
	s.ExpectBody(400, `{"error":"description is missing"}`, "PUT", release, tm.dev, nil)
}

// TestTagsWithGoGitlab drives the endpoints with go-gitlab on SQLite with gitcli and Postgres with gogit.
func TestTagsWithGoGitlab(t *testing.T) {
	t.Parallel()
	for _, v := range variants() {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			testTagsWithGoGitlab(t, newRepoServer(t, v.opts...))
		})
	}
}

func testTagsWithGoGitlab(t *testing.T, s *repoServer) {
	r := s.seed("tclient", "private")
	gl, err := gitlab.NewClient(s.RootToken, gitlab.WithBaseURL(s.API()))
	if err != nil {
		t.Fatal(err)
	}
	tg, _, err := gl.Tags.CreateTag(r.id, &gitlab.CreateTagOptions{TagName: gitlab.Ptr("v1.0"), Ref: gitlab.Ptr("master"), Message: gitlab.Ptr("One")})
	if err != nil || tg.Name != "v1.0" || tg.Message != "One" || tg.Commit == nil || tg.Commit.ID != r.c2.ID {
		t.Fatalf("CreateTag: %+v %v", tg, err)
	}
	if _, _, err := gl.Tags.CreateTag(r.id, &gitlab.CreateTagOptions{TagName: gitlab.Ptr("v0.9"), Ref: gitlab.Ptr(r.c1.ID)}); err != nil {
		t.Fatalf("CreateTag lightweight: %v", err)
	}
	_, _, err = gl.Tags.CreateTag(r.id, &gitlab.CreateTagOptions{TagName: gitlab.Ptr("v1.0"), Ref: gitlab.Ptr("master")})
	var glErr *gitlab.ErrorResponse
	if !errors.As(err, &glErr) || glErr.Response.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("CreateTag of an existing tag: %v", err)
	}

	// The legacy release endpoints through the client's raw requests.
	req, err := gl.NewRequest(http.MethodPost, fmt.Sprintf("projects/%d/repository/tags/v1.0/release", r.id),
		map[string]string{"description": "Notes"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var note gitlab.ReleaseNote
	if _, err := gl.Do(req, &note); err != nil || note.TagName != "v1.0" || note.Description != "Notes" {
		t.Fatalf("create release: %+v %v", note, err)
	}

	list, resp, err := gl.Tags.ListTags(r.id, &gitlab.ListTagsOptions{ListOptions: gitlab.ListOptions{PerPage: 1}})
	if err != nil || len(list) != 1 || list[0].Name != "v1.0" || list[0].Release == nil ||
		list[0].Release.Description != "Notes" || resp.TotalItems != 2 {
		t.Fatalf("ListTags: %+v %+v %v", list, resp, err)
	}
	tg, _, err = gl.Tags.GetTag(r.id, "v0.9")
	if err != nil || tg.Message != "" || tg.Release != nil || tg.Commit.ID != r.c1.ID || tg.Commit.AuthoredDate == nil {
		t.Fatalf("GetTag: %+v %v", tg, err)
	}
	if _, err := gl.Tags.DeleteTag(r.id, "v1.0"); err != nil {
		t.Fatalf("DeleteTag: %v", err)
	}
	if _, _, err := gl.Tags.GetTag(r.id, "v1.0"); err == nil {
		t.Fatal("GetTag of a deleted tag succeeded")
	}
}
