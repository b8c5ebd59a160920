package contracttests

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// triggerStoreCases are the subtests of the pipeline trigger store. They
// skip when the adapter hands RunStoreSuite no Triggers.
func triggerStoreCases() []storeCase {
	cases := []storeCase{
		{"TriggerCreateGetList", storeTriggerCreateGetList},
		{"TriggerUnknownParents", storeTriggerUnknownParents},
		{"TriggerUpdateDelete", storeTriggerUpdateDelete},
		{"TriggerRequests", storeTriggerRequests},
		{"TriggerOwnerDeleteCascades", storeTriggerOwnerDeleteCascades},
	}
	for i, c := range cases {
		fn := c.fn
		cases[i].fn = func(t *testing.T, s Stores) {
			if s.Triggers == nil {
				t.Skip("the adapter provides no TriggerStore")
			}
			fn(t, s)
		}
	}
	return cases
}

// storeTrigger creates a trigger of project projectID owned by ownerID
// whose token is secret.
func storeTrigger(t *testing.T, s Stores, projectID, ownerID int64, secret string) *domain.Trigger {
	t.Helper()
	tr := &domain.Trigger{ProjectID: projectID, OwnerID: &ownerID, Description: "trigger " + secret,
		TokenDigest: domain.TokenDigest(secret), TokenHint: secret[:4], CreatedAt: storeT0, UpdatedAt: storeT0}
	if err := s.Triggers.Create(t.Context(), tr); err != nil {
		t.Fatalf("create trigger %s: %v", secret, err)
	}
	return tr
}

func storeTriggerIDs(ts []domain.Trigger) []int64 {
	return storeIDs(ts, func(t domain.Trigger) int64 { return t.ID })
}

func storeTriggerCreateGetList(t *testing.T, s Stores) {
	ctx := t.Context()
	u := storeUser(t, s, "trigger-owner")
	p := storeCIProject(t, s, "triggers", nil)
	other := storeCIProject(t, s, "other-triggers", nil)
	a := storeTrigger(t, s, p.ID, u.ID, "secret-a")
	b := storeTrigger(t, s, p.ID, u.ID, "secret-b")
	c := storeTrigger(t, s, other.ID, u.ID, "secret-c")
	if a.ID == 0 || a.ID == b.ID {
		t.Fatalf("ids: %d %d", a.ID, b.ID)
	}
	want := domain.Trigger{ID: a.ID, ProjectID: p.ID, OwnerID: &u.ID, Description: "trigger secret-a",
		TokenDigest: domain.TokenDigest("secret-a"), TokenHint: "secr", CreatedAt: storeT0, UpdatedAt: storeT0}
	got, err := s.Triggers.Get(ctx, p.ID, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, *got); diff != "" {
		t.Fatalf("get (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, *a); diff != "" {
		t.Fatalf("created (-want +got):\n%s", diff)
	}
	byToken, err := s.Triggers.GetByToken(ctx, domain.TokenDigest("secret-c"))
	if err != nil || byToken.ID != c.ID || byToken.ProjectID != other.ID {
		t.Fatalf("by token: %+v %v", byToken, err)
	}
	_, err = s.Triggers.GetByToken(ctx, domain.TokenDigest("nope"))
	storeWantKind(t, err, core.ErrNotFound, "unknown token")
	_, err = s.Triggers.Get(ctx, other.ID, a.ID)
	storeWantKind(t, err, core.ErrNotFound, "trigger of another project")

	l, n, err := s.Triggers.List(ctx, p.ID, domain.Page{Page: 1, PerPage: 1})
	storeWantList(t, "first page", storeTriggerIDs(l), n, err, []int64{a.ID}, 2)
	l, n, err = s.Triggers.List(ctx, p.ID, domain.Page{Page: 2, PerPage: 1})
	storeWantList(t, "second page", storeTriggerIDs(l), n, err, []int64{b.ID}, 2)

	dup := &domain.Trigger{ProjectID: other.ID, TokenDigest: domain.TokenDigest("secret-a"), CreatedAt: storeT0}
	storeWantTaken(t, s.Triggers.Create(ctx, dup), "token", "taken digest")
}

func storeTriggerUnknownParents(t *testing.T, s Stores) {
	ctx := t.Context()
	p := storeCIProject(t, s, "orphans", nil)
	err := s.Triggers.Create(ctx, &domain.Trigger{ProjectID: p.ID + 1000, TokenDigest: domain.TokenDigest("x1"), CreatedAt: storeT0})
	storeWantKind(t, err, core.ErrNotFound, "unknown project")
	ghost := int64(987654)
	err = s.Triggers.Create(ctx, &domain.Trigger{ProjectID: p.ID, OwnerID: &ghost, TokenDigest: domain.TokenDigest("x2"), CreatedAt: storeT0})
	storeWantKind(t, err, core.ErrNotFound, "unknown owner")
	// A legacy trigger has no owner.
	legacy := &domain.Trigger{ProjectID: p.ID, TokenDigest: domain.TokenDigest("x3"), CreatedAt: storeT0}
	if err := s.Triggers.Create(ctx, legacy); err != nil || legacy.OwnerID != nil {
		t.Fatalf("legacy trigger: %+v %v", legacy, err)
	}
}

func storeTriggerUpdateDelete(t *testing.T, s Stores) {
	ctx := t.Context()
	u := storeUser(t, s, "first-owner")
	v := storeUser(t, s, "second-owner")
	p := storeCIProject(t, s, "edits", nil)
	tr := storeTrigger(t, s, p.ID, u.ID, "secret-edit")
	used := storeT0.Add(time.Hour)
	got, err := s.Triggers.Update(ctx, p.ID, tr.ID, func(t *domain.Trigger) error {
		t.Description, t.OwnerID, t.LastUsedAt = "renamed", &v.ID, &used
		t.TokenDigest, t.ProjectID = "ignored", 0 // not saved
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got.Description != "renamed" || *got.OwnerID != v.ID || !got.LastUsedAt.Equal(used) || !got.UpdatedAt.After(storeT0) {
		t.Fatalf("updated: %+v", got)
	}
	again, err := s.Triggers.Get(ctx, p.ID, tr.ID)
	if err != nil || again.Description != "renamed" || again.TokenDigest != tr.TokenDigest || again.ProjectID != p.ID || !again.LastUsedAt.Equal(used) {
		t.Fatalf("read back: %+v %v", again, err)
	}
	_, err = s.Triggers.Update(ctx, p.ID, tr.ID, func(*domain.Trigger) error { return core.Forbidden("") })
	storeWantKind(t, err, core.ErrForbidden, "fn error")
	_, err = s.Triggers.Update(ctx, p.ID+1000, tr.ID, func(*domain.Trigger) error { return nil })
	storeWantKind(t, err, core.ErrNotFound, "update in another project")

	storeWantKind(t, s.Triggers.Delete(ctx, p.ID+1000, tr.ID), core.ErrNotFound, "delete in another project")
	if err := s.Triggers.Delete(ctx, p.ID, tr.ID); err != nil {
		t.Fatal(err)
	}
	storeWantKind(t, s.Triggers.Delete(ctx, p.ID, tr.ID), core.ErrNotFound, "delete again")
	_, err = s.Triggers.GetByToken(ctx, tr.TokenDigest)
	storeWantKind(t, err, core.ErrNotFound, "deleted trigger by token")
}

func storeTriggerRequests(t *testing.T, s Stores) {
	ctx := t.Context()
	u := storeUser(t, s, "requester")
	p := storeCIProject(t, s, "requests", nil)
	tr := storeTrigger(t, s, p.ID, u.ID, "secret-req")
	pl, _ := storePipeline(t, s, p, "main", storeSHA1, storeCIJob("test", domain.CIPending))
	plain, _ := storePipeline(t, s, p, "main", storeSHA1)

	req := &domain.TriggerRequest{TriggerID: &tr.ID, PipelineID: pl.ID, CreatedAt: storeT0,
		Variables: []domain.TriggerVariable{{Key: "B", Value: "2"}, {Key: "A", Value: "x=\"y\"\n"}}}
	if err := s.Triggers.Record(ctx, req); err != nil || req.ID == 0 {
		t.Fatalf("record: %+v %v", req, err)
	}
	got, err := s.Triggers.OfPipeline(ctx, pl.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := domain.TriggerRequest{ID: req.ID, TriggerID: &tr.ID, PipelineID: pl.ID, CreatedAt: storeT0,
		Variables: []domain.TriggerVariable{{Key: "B", Value: "2"}, {Key: "A", Value: "x=\"y\"\n"}}}
	if diff := cmp.Diff(want, *got); diff != "" {
		t.Fatalf("of pipeline (-want +got):\n%s", diff)
	}
	_, err = s.Triggers.OfPipeline(ctx, plain.ID)
	storeWantKind(t, err, core.ErrNotFound, "pipeline no trigger created")
	storeWantKind(t, s.Triggers.Record(ctx, &domain.TriggerRequest{TriggerID: &tr.ID, PipelineID: pl.ID}), core.ErrConflict, "second request of a pipeline")
	storeWantKind(t, s.Triggers.Record(ctx, &domain.TriggerRequest{PipelineID: plain.ID + 1000}), core.ErrNotFound, "unknown pipeline")

	// The trigger's deletion keeps the request, without trigger; the
	// pipeline's takes it.
	if err := s.Triggers.Delete(ctx, p.ID, tr.ID); err != nil {
		t.Fatal(err)
	}
	got, err = s.Triggers.OfPipeline(ctx, pl.ID)
	if err != nil || got.TriggerID != nil || len(got.Variables) != 2 {
		t.Fatalf("after the trigger's deletion: %+v %v", got, err)
	}
	if _, err := s.Pipelines.Delete(ctx, p.ID, pl.ID); err != nil {
		t.Fatal(err)
	}
	_, err = s.Triggers.OfPipeline(ctx, pl.ID)
	storeWantKind(t, err, core.ErrNotFound, "after the pipeline's deletion")
}

func storeTriggerOwnerDeleteCascades(t *testing.T, s Stores) {
	ctx := t.Context()
	u := storeUser(t, s, "leaving-owner")
	p := storeCIProject(t, s, "cascade", nil)
	tr := storeTrigger(t, s, p.ID, u.ID, "secret-gone")
	kept := storeTrigger(t, s, p.ID, storeUser(t, s, "staying-owner").ID, "secret-kept")
	if err := s.Users.Delete(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	_, err := s.Triggers.Get(ctx, p.ID, tr.ID)
	storeWantKind(t, err, core.ErrNotFound, "trigger of a deleted owner")
	if err := s.Projects.Delete(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	_, err = s.Triggers.GetByToken(ctx, kept.TokenDigest)
	storeWantKind(t, err, core.ErrNotFound, "trigger of a deleted project")
}
