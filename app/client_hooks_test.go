package app_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/hearth-forge/hearth/app/apptest"
)

// TestGitLabClientHooks drives the project hook calls of the official Go
// client: every answer must parse, and the values it returns are checked.
func TestGitLabClientHooks(t *testing.T) {
	t.Parallel()
	srv := apptest.New(t)
	gl, err := gitlab.NewClient(srv.RootToken, gitlab.WithBaseURL(srv.API()))
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := gl.Projects.CreateProject(&gitlab.CreateProjectOptions{Name: gitlab.Ptr("hooks-client")})
	if err != nil {
		t.Fatalf("create project: %v", err)
	}
	h, resp, err := gl.Projects.AddProjectHook(p.ID, &gitlab.AddProjectHookOptions{
		URL: gitlab.Ptr("https://203.0.113.10/hook"), Token: gitlab.Ptr("secret"),
		IssuesEvents: gitlab.Ptr(true), JobEvents: gitlab.Ptr(true), EnableSSLVerification: gitlab.Ptr(false),
	})
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("AddProjectHook: %v", err)
	}
	if h.URL != "https://203.0.113.10/hook" || h.ProjectID != p.ID || !h.PushEvents || !h.IssuesEvents || !h.JobEvents ||
		h.NoteEvents || h.EnableSSLVerification || h.CreatedAt == nil || h.CreatedAt.IsZero() {
		t.Fatalf("added hook %+v", h)
	}
	if _, _, err := gl.Projects.AddProjectHook(p.ID, &gitlab.AddProjectHookOptions{URL: gitlab.Ptr("https://203.0.113.11/two")}); err != nil {
		t.Fatalf("second hook: %v", err)
	}

	list, resp, err := gl.Projects.ListProjectHooks(p.ID, &gitlab.ListProjectHooksOptions{ListOptions: gitlab.ListOptions{PerPage: 1}})
	if err != nil || len(list) != 1 || list[0].ID != h.ID || resp.TotalItems != 2 || resp.NextPage != 2 {
		t.Fatalf("ListProjectHooks: %v %+v (total %d, next %d)", err, list, resp.TotalItems, resp.NextPage)
	}
	got, _, err := gl.Projects.GetProjectHook(p.ID, h.ID)
	if err != nil || got.ID != h.ID || got.URL != h.URL || !got.JobEvents {
		t.Fatalf("GetProjectHook: %v %+v", err, got)
	}
	edited, _, err := gl.Projects.EditProjectHook(p.ID, h.ID, &gitlab.EditProjectHookOptions{
		URL: gitlab.Ptr("https://203.0.113.12/moved"), PushEvents: gitlab.Ptr(false), PipelineEvents: gitlab.Ptr(true),
	})
	if err != nil || edited.URL != "https://203.0.113.12/moved" || edited.PushEvents || !edited.PipelineEvents || !edited.IssuesEvents {
		t.Fatalf("EditProjectHook: %v %+v", err, edited)
	}
	_, resp, err = gl.Projects.AddProjectHook(p.ID, &gitlab.AddProjectHookOptions{URL: gitlab.Ptr("http://127.0.0.1:9/")})
	var ge *gitlab.ErrorResponse
	if !errors.As(err, &ge) || resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(ge.Message, "Invalid url given") {
		t.Fatalf("a local hook URL: %v", err)
	}

	if resp, err := gl.Projects.DeleteProjectHook(p.ID, h.ID); err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DeleteProjectHook: %v", err)
	}
	if _, resp, err := gl.Projects.GetProjectHook(p.ID, h.ID); err == nil || resp.StatusCode != http.StatusNotFound {
		t.Fatalf("deleted hook: %v", err)
	}
}
