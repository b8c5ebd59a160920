package contracttests

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// hookStoreCases are the subtests of the project webhook store.
func hookStoreCases() []storeCase {
	return []storeCase{
		{"HookCreateGet", storeHookCreateGet},
		{"HookListPages", storeHookListPages},
		{"HookUpdate", storeHookUpdate},
		{"HookDelete", storeHookDelete},
		{"HookProjectDeleteCascades", storeHookProjectDeleteCascades},
		{"ConcurrentHookUpdates", storeConcurrentHookUpdates},
	}
}

// storeHook creates a hook of the project with GitLab's defaults and url.
func storeHook(t *testing.T, s Stores, projectID int64, url string) *domain.ProjectHook {
	t.Helper()
	h := domain.NewProjectHook(projectID, url)
	h.CreatedAt = storeT0
	if err := s.Hooks.Create(t.Context(), &h); err != nil {
		t.Fatalf("create hook %s: %v", url, err)
	}
	return &h
}

func storeHookCreateGet(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeCIProject(t, s, "p", nil)
	until := storeT0.Add(time.Hour)
	h := &domain.ProjectHook{ProjectID: p.ID, URL: "https://example.com/hook", Token: "s3cr3t <&>",
		TagPushEvents: true, IssuesEvents: true, ConfidentialIssuesEvents: true, MergeRequestsEvents: true,
		NoteEvents: true, JobEvents: true, PipelineEvents: true, WikiPageEvents: true,
		FailureCount: 3, DisabledUntil: &until, CreatedAt: storeT0}
	if err := s.Hooks.Create(ctx, h); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if h.ID == 0 {
		t.Fatal("Create left ID 0")
	}
	want := *h
	want.UpdatedAt = storeT0 // a zero UpdatedAt is CreatedAt
	got, err := s.Hooks.Get(ctx, p.ID, h.ID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if diff := cmp.Diff(&want, got); diff != "" {
		t.Errorf("Get (-want +got):\n%s", diff)
	}
	// The defaults a hook starts with are GitLab's.
	d := storeHook(t, s, p.ID, "http://example.com/d")
	if got, err := s.Hooks.Get(ctx, p.ID, d.ID); err != nil || !got.PushEvents || !got.EnableSSLVerification || got.TagPushEvents || got.Token != "" {
		t.Errorf("default hook = %+v, %v", got, err)
	}
	other := storeCIProject(t, s, "other", nil)
	_, err = s.Hooks.Get(ctx, other.ID, h.ID)
	storeWantKind(t, err, core.ErrNotFound, "Get through another project")
	_, err = s.Hooks.Get(ctx, p.ID, d.ID+100)
	storeWantKind(t, err, core.ErrNotFound, "Get of a missing hook")
	storeWantKind(t, s.Hooks.Create(ctx, &domain.ProjectHook{ProjectID: other.ID + 100, URL: "http://x"}), core.ErrNotFound, "Create in a missing project")
}

func storeHookListPages(t *testing.T, s Stores) {
	ctx := t.Context()
	p, other := storeCIProject(t, s, "p", nil), storeCIProject(t, s, "other", nil)
	var ids []int64
	for _, u := range []string{"http://a", "http://b", "http://c"} {
		ids = append(ids, storeHook(t, s, p.ID, u).ID)
	}
	storeHook(t, s, other.ID, "http://other")
	hookIDs := func(hs []domain.ProjectHook) []int64 {
		return storeIDs(hs, func(h domain.ProjectHook) int64 { return h.ID })
	}
	list, n, err := s.Hooks.List(ctx, p.ID, domain.Page{Page: 1, PerPage: 2})
	storeWantList(t, "page 1", hookIDs(list), n, err, ids[:2], 3)
	list, n, err = s.Hooks.List(ctx, p.ID, domain.Page{Page: 2, PerPage: 2})
	storeWantList(t, "page 2", hookIDs(list), n, err, ids[2:], 3)
	list, n, err = s.Hooks.List(ctx, p.ID+100, domain.Page{Page: 1, PerPage: 20})
	storeWantList(t, "missing project", hookIDs(list), n, err, nil, 0)
}

func storeHookUpdate(t *testing.T, s Stores) {
	ctx := t.Context()
	p, other := storeCIProject(t, s, "p", nil), storeCIProject(t, s, "other", nil)
	h := storeHook(t, s, p.ID, "http://a")
	upd, err := s.Hooks.Update(ctx, p.ID, h.ID, func(v *domain.ProjectHook) error {
		v.URL, v.Token, v.PushEvents, v.NoteEvents, v.EnableSSLVerification = "https://b/hook", "tok", false, true, false
		v.ID, v.ProjectID, v.CreatedAt = h.ID+1, other.ID, storeT0.Add(time.Hour) // not saved
		return nil
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	if !upd.UpdatedAt.After(storeT0) {
		t.Errorf("UpdatedAt = %v, want later than %v", upd.UpdatedAt, storeT0)
	}
	want := *h
	want.URL, want.Token, want.PushEvents, want.NoteEvents, want.EnableSSLVerification = "https://b/hook", "tok", false, true, false
	want.UpdatedAt = upd.UpdatedAt
	if diff := cmp.Diff(&want, upd); diff != "" {
		t.Errorf("Update (-want +got):\n%s", diff)
	}
	if got, err := s.Hooks.Get(ctx, p.ID, h.ID); err != nil || !cmp.Equal(got, upd) {
		t.Errorf("Get after Update = %+v, %v; want %+v", got, err, upd)
	}
	stop := errors.New("stop")
	_, err = s.Hooks.Update(ctx, p.ID, h.ID, func(v *domain.ProjectHook) error { v.URL = "http://lost"; return stop })
	if !errors.Is(err, stop) {
		t.Errorf("Update with a failing fn: %v, want its error", err)
	}
	if got, _ := s.Hooks.Get(ctx, p.ID, h.ID); got.URL != "https://b/hook" {
		t.Errorf("a failed Update saved URL %q", got.URL)
	}
	_, err = s.Hooks.Update(ctx, other.ID, h.ID, func(*domain.ProjectHook) error { return nil })
	storeWantKind(t, err, core.ErrNotFound, "Update through another project")
}

func storeHookDelete(t *testing.T, s Stores) {
	ctx := t.Context()
	p, other := storeCIProject(t, s, "p", nil), storeCIProject(t, s, "other", nil)
	h, keep := storeHook(t, s, p.ID, "http://a"), storeHook(t, s, p.ID, "http://b")
	storeWantKind(t, s.Hooks.Delete(ctx, other.ID, h.ID), core.ErrNotFound, "Delete through another project")
	if err := s.Hooks.Delete(ctx, p.ID, h.ID); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	storeWantKind(t, s.Hooks.Delete(ctx, p.ID, h.ID), core.ErrNotFound, "second Delete")
	_, err := s.Hooks.Get(ctx, p.ID, h.ID)
	storeWantKind(t, err, core.ErrNotFound, "Get of a deleted hook")
	if _, err := s.Hooks.Get(ctx, p.ID, keep.ID); err != nil {
		t.Errorf("the other hook: %v", err)
	}
}

func storeHookProjectDeleteCascades(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeCIProject(t, s, "p", nil)
	h := storeHook(t, s, p.ID, "http://a")
	if err := s.Projects.Delete(ctx, p.ID); err != nil {
		t.Fatalf("delete project: %v", err)
	}
	_, err := s.Hooks.Get(ctx, p.ID, h.ID)
	storeWantKind(t, err, core.ErrNotFound, "hook of a deleted project")
}

// storeConcurrentHookUpdates checks Update's lock: every racer's change
// survives.
func storeConcurrentHookUpdates(t *testing.T, s Stores) {
	p := storeCIProject(t, s, "p", nil)
	h := storeHook(t, s, p.ID, "http://a/")
	storeNoErrors(t, storeRace(func(int) error {
		_, err := s.Hooks.Update(t.Context(), p.ID, h.ID, func(v *domain.ProjectHook) error {
			v.URL += "x"
			return nil
		})
		return err
	}))
	got, err := s.Hooks.Get(t.Context(), p.ID, h.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want := "http://a/" + strings.Repeat("x", storeWorkers); got.URL != want {
		t.Errorf("URL = %q, want %q: an update was lost", got.URL, want)
	}
}
