package mergerequests_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/hearth-forge/hearth/core/domain"
)

const (
	notAllowed405 = `{"message":"405 Method Not Allowed"}`
	cannotMerge   = `{"message":"Branch cannot be merged"}`
	notAllowed406 = `{"message":"Method Not Allowed"}`
	notAccept406  = `{"message":"406 Not Acceptable"}`
)

// TestCreateErrors: validation, branch checks, duplicates, forks.
func TestCreateErrors(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	r := s.seed("create-errors", "private")
	dev := s.person("dev")
	s.member(r.id, dev, developer)
	path := mrsPath(r.id)

	data := s.Expect(400, "POST", path, dev.token, form("description", "x")).Body
	var e struct{ Error string }
	decode(t, data, &e)
	if !strings.HasPrefix(e.Error, "source_branch is missing") || !strings.Contains(e.Error, "target_branch is missing") ||
		!strings.Contains(e.Error, "title is missing") {
		t.Fatalf("missing everything: %s", data)
	}
	s.ExpectBody(400, `{"error":"title is missing"}`, "POST", path, dev.token, form("source_branch", "feature", "target_branch", "master"))

	for _, c := range []struct{ field, src, tgt string }{{"source_branch", "nope", "master"}, {"target_branch", "feature", "nope"}} {
		data := s.Expect(400, "POST", path, dev.token, form("source_branch", c.src, "target_branch", c.tgt, "title", "T")).Body
		var v struct{ Message map[string][]string }
		decode(t, data, &v)
		if len(v.Message[c.field]) == 0 {
			t.Errorf("missing %s: body %s, want message.%s", c.field, data, c.field)
		}
	}

	s.ExpectBody(422, `{"message":"You can not use same project/branch for source and target"}`, "POST", path, dev.token,
		form("source_branch", "feature", "target_branch", "feature", "title", "Same"))

	other := s.project("elsewhere", "private")
	data = s.Expect(422, "POST", path, s.RootToken, form("source_branch", "feature", "target_branch", "master",
		"title", "Fork", "target_project_id", fmt.Sprint(other))).Body
	if !strings.Contains(string(data), `"message"`) {
		t.Errorf("target_project_id of another project: body %s", data)
	}

	s.create(dev.token, r.id, "feature", "master", "Add feature")
	s.ExpectBody(409, `{"message":"Cannot Create: This merge request already exists: [\"Add feature\"]"}`, "POST", path, dev.token,
		form("source_branch", "feature", "target_branch", "master", "title", "Again"))
	if list, _ := s.list(dev.token, path+"?state=all"); len(list) != 1 {
		t.Fatalf("a rejected duplicate was stored: %v", iids(list))
	}
}

// TestUpdateErrors: nothing to update, bad state_event, reopen into a pair
// that has another open merge request.
func TestUpdateErrors(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	r := s.seed("update-errors", "private")
	dev := s.person("dev")
	s.member(r.id, dev, developer)
	s.create(dev.token, r.id, "feature", "master", "First")
	path := mrPath(r.id, 1, "")

	data := s.Expect(400, "PUT", path, dev.token, form("unknown", "x")).Body
	var e struct{ Error string }
	decode(t, data, &e)
	if !strings.HasSuffix(e.Error, "at least one parameter must be provided") {
		t.Fatalf("nothing to update: %s", data)
	}
	s.ExpectBody(400, `{"error":"state_event does not have a valid value"}`, "PUT", path, dev.token, form("state_event", "merge"))

	s.mrCall(200, "PUT", path, dev.token, form("state_event", "close"))
	s.create(dev.token, r.id, "feature", "master", "Second")
	data = s.Expect(409, "PUT", path, dev.token, form("state_event", "reopen")).Body
	if !strings.Contains(string(data), `"message"`) {
		t.Fatalf("reopen conflict body %s", data)
	}
	if got := s.get(dev.token, r.id, 1); got.State != "closed" {
		t.Fatalf("after a refused reopen: %q", got.State)
	}
}

// TestReadErrors: unknown iid, unreadable projects, filter validation.
func TestReadErrors(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	r := s.seed("read-errors", "private")
	dev, gst, outsider := s.person("dev"), s.person("gst"), s.person("outsider")
	s.member(r.id, dev, developer)
	s.member(r.id, gst, guest)
	s.create(dev.token, r.id, "feature", "master", "Readable")

	notFound := `{"message":"404 Merge Request Not Found"}`
	for _, suffix := range []string{"", "/commits", "/changes", "/closes_issues"} {
		s.ExpectBody(404, notFound, "GET", mrPath(r.id, 99, suffix), dev.token, nil)
	}
	s.ExpectBody(404, notFound, "PUT", mrPath(r.id, 99, ""), dev.token, form("title", "x"))
	s.ExpectBody(404, notFound, "PUT", mrPath(r.id, 99, "/merge"), dev.token, nil)

	noProject := `{"message":"404 Project Not Found"}`
	for _, tok := range []string{outsider.token, gst.token, ""} {
		s.ExpectBody(404, noProject, "GET", mrsPath(r.id), tok, nil)
		for _, suffix := range []string{"", "/commits", "/changes", "/closes_issues"} {
			s.ExpectBody(404, noProject, "GET", mrPath(r.id, 1, suffix), tok, nil)
		}
	}
	s.ExpectBody(404, noProject, "POST", mrsPath(r.id), outsider.token, form("source_branch", "feature", "target_branch", "master", "title", "x"))
	s.ExpectBody(404, noProject, "PUT", mrPath(r.id, 1, "/merge"), outsider.token, nil)
	s.ExpectBody(404, noProject, "PUT", mrPath(r.id, 1, "/cancel_merge_when_pipeline_succeeds"), outsider.token, nil)

	for _, q := range []string{"state=bogus", "order_by=title", "sort=up"} {
		data := s.Expect(400, "GET", mrsPath(r.id)+"?"+q, dev.token, nil).Body
		if !strings.Contains(string(data), `"error"`) {
			t.Errorf("?%s: body %s", q, data)
		}
	}
	s.ExpectBody(400, `{"error":"created_after is invalid"}`, "GET", mrsPath(r.id)+"?created_after=yesterday", dev.token, nil)
}

// TestMergeErrors: 405, 406 and 409 of the merge and the cancel, and the
// order the merge checks them in.
func TestMergeErrors(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	r := s.seed("merge-errors", "private")
	dev, rep := s.person("dev"), s.person("rep")
	s.member(r.id, dev, developer)
	s.member(r.id, rep, reporter)
	merge := func(iid int64) string { return mrPath(r.id, iid, "/merge") }
	cancel := func(iid int64) string { return mrPath(r.id, iid, "/cancel_merge_when_pipeline_succeeds") }

	// Conflicts.
	c := s.create(dev.token, r.id, "conflict", "master", "Conflicting")
	s.ExpectBody(405, cannotMerge, "PUT", merge(c.IID), dev.token, nil)
	if got := s.get(dev.token, r.id, c.IID); got.MergeStatus != "cannot_be_merged" || got.State != "opened" {
		t.Fatalf("after a conflicting merge: %+v", got)
	}
	// Conflicts are checked before the SHA.
	s.ExpectBody(405, cannotMerge, "PUT", merge(c.IID), dev.token, form("sha", r.base))

	// Work in progress, for both prefixes; WIP is checked before conflicts.
	s.branch(r, "wip1")
	w1 := s.create(dev.token, r.id, "wip1", "master", "WIP: not ready")
	s.ExpectBody(405, notAllowed405, "PUT", merge(w1.IID), dev.token, nil)
	s.branch(r, "wip2")
	w2 := s.create(dev.token, r.id, "wip2", "master", "[WIP] not ready")
	s.ExpectBody(405, notAllowed405, "PUT", merge(w2.IID), dev.token, nil)
	s.mrCall(200, "PUT", mrPath(r.id, c.IID, ""), dev.token, form("title", "WIP: Conflicting"))
	s.ExpectBody(405, notAllowed405, "PUT", merge(c.IID), dev.token, nil)

	// A SHA mismatch names the source head; a matching SHA merges.
	f := s.create(dev.token, r.id, "feature", "master", "Feature")
	s.ExpectBody(409, `{"message":"SHA does not match HEAD of source branch: `+r.feature+`"}`, "PUT", merge(f.IID), dev.token, form("sha", r.base))
	if got := s.get(dev.token, r.id, f.IID); got.State != "opened" {
		t.Fatalf("after a SHA mismatch: %q", got.State)
	}
	if m := s.mrCall(200, "PUT", merge(f.IID), dev.token, form("sha", r.feature)); m.State != "merged" {
		t.Fatalf("merge with the right sha: %+v", m)
	}

	// Merged and closed are 406; cancel on them is 405. Permission
	// comes first, state before WIP.
	s.ExpectBody(406, notAllowed406, "PUT", merge(f.IID), dev.token, nil)
	s.ExpectBody(405, notAllowed405, "PUT", cancel(f.IID), dev.token, nil)
	s.mrCall(200, "PUT", mrPath(r.id, w1.IID, ""), dev.token, form("state_event", "close"))
	s.ExpectBody(406, notAllowed406, "PUT", merge(w1.IID), dev.token, nil)
	s.ExpectBody(405, notAllowed405, "PUT", cancel(w1.IID), dev.token, nil)
	s.ExpectBody(401, `{"message":"401 Unauthorized"}`, "PUT", merge(w1.IID), rep.token, nil)

	// Cancel when not set.
	s.branch(r, "plain")
	p := s.create(dev.token, r.id, "plain", "master", "Plain")
	s.ExpectBody(406, notAccept406, "PUT", cancel(p.IID), dev.token, nil)

	// A source branch that is gone cannot be merged.
	gone := s.branch(r, "gone")
	g := s.create(dev.token, r.id, "gone", "master", "Gone")
	s.moveRef(r.id, "gone", domain.ZeroID, gone)
	s.ExpectBody(405, cannotMerge, "PUT", merge(g.IID), dev.token, nil)
}

// TestOnlyAllowMergeIfPipelineSucceeds: without a succeeded pipeline on the
// source head the merge is 405; after one it merges.
func TestOnlyAllowMergeIfPipelineSucceeds(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	r := s.seed("only-ci", "private")
	dev := s.person("dev")
	s.member(r.id, dev, developer)
	var p struct {
		Only bool `json:"only_allow_merge_if_pipeline_succeeds"`
	}
	s.JSON(t, "PUT", fmt.Sprintf("/projects/%d", r.id), s.RootToken, form("only_allow_merge_if_pipeline_succeeds", "true"), 200, &p)
	if !p.Only {
		t.Fatal("project flag not set")
	}
	s.create(dev.token, r.id, "feature", "master", "Needs CI")
	s.ExpectBody(405, notAllowed405, "PUT", mrPath(r.id, 1, "/merge"), dev.token, nil)
	if got := s.get(dev.token, r.id, 1); got.State != "opened" {
		t.Fatalf("after a refused merge: %q", got.State)
	}
	// A pipeline on another commit does not count.
	s.pipelineSucceeded(r.id, "feature", r.base)
	s.ExpectBody(405, notAllowed405, "PUT", mrPath(r.id, 1, "/merge"), dev.token, nil)

	// The bus is synchronous: the success is recorded when Publish returns.
	s.pipelineSucceeded(r.id, "feature", r.feature)
	if m := s.mrCall(200, "PUT", mrPath(r.id, 1, "/merge"), dev.token, nil); m.State != "merged" {
		t.Fatalf("merge once the pipeline succeeded: %+v", m)
	}
}

// TestConcurrentMerges: exactly one of several simultaneous merges wins.
func TestConcurrentMerges(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	r := s.seed("race", "private")
	dev := s.person("dev")
	s.member(r.id, dev, developer)
	s.create(dev.token, r.id, "feature", "master", "Race")

	const n = 6
	codes := make([]int, n)
	bodies := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, data, err := s.rawDo("PUT", mrPath(r.id, 1, "/merge"), dev.token, nil)
			codes[i], bodies[i] = code, fmt.Sprintf("%s %v", data, err)
		}()
	}
	wg.Wait()
	wins := 0
	for i, code := range codes {
		switch code {
		case 200:
			wins++
		case 405, 406:
		default:
			t.Errorf("merge %d: %d %s", i, code, bodies[i])
		}
	}
	if wins != 1 {
		t.Fatalf("%d merges won (codes %v)", wins, codes)
	}
	head, _ := s.head(r.id, "master")
	if c := s.gitCommit(r.id, head); len(c.ParentIDs) != 2 || c.ParentIDs[0] != r.master || c.ParentIDs[1] != r.feature {
		t.Fatalf("master after the race: %s parents %v", head, c.ParentIDs)
	}
	if got := s.get(dev.token, r.id, 1); got.State != "merged" || str(got.MergeCommitSHA) != head {
		t.Fatalf("after the race: %q %s", got.State, str(got.MergeCommitSHA))
	}
}
