package issues_test

import (
	"fmt"
	"strings"
	"testing"
)

var labelKeys = "closed_issues_count,color,description,id,name,open_issues_count,open_merge_requests_count,priority,subscribed"

type labelJSON struct {
	ID                     int64   `json:"id"`
	Name                   string  `json:"name"`
	Color                  string  `json:"color"`
	Description            *string `json:"description"`
	OpenIssuesCount        int     `json:"open_issues_count"`
	ClosedIssuesCount      int     `json:"closed_issues_count"`
	OpenMergeRequestsCount int     `json:"open_merge_requests_count"`
	Priority               *int    `json:"priority"`
	Subscribed             bool    `json:"subscribed"`
}

func labelsPath(projectID int64) string { return fmt.Sprintf("/projects/%d/labels", projectID) }

// TestLabels: create, list with counts, update (a rename reaches the
// issues), delete, validation and rights.
func TestLabels(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	pid := s.project("labels", "private")
	dev, rep, gst, outsider := s.person("dev"), s.person("rep"), s.person("gst"), s.person("outsider")
	s.member(pid, dev, developer)
	s.member(pid, rep, reporter)
	s.member(pid, gst, guest)
	path := labelsPath(pid)

	data := s.Expect(201, "POST", path, rep.token, form("name", "bug", "color", "#FF0000", "description", "Broken")).Body
	if got := strings.Join(keys(t, data), ","); got != labelKeys {
		t.Errorf("keys %s, want %s", got, labelKeys)
	}
	var bug labelJSON
	decode(t, data, &bug)
	if bug.Name != "bug" || bug.Color != "#FF0000" || str(bug.Description) != "Broken" || bug.Priority != nil ||
		bug.Subscribed || bug.OpenIssuesCount != 0 {
		t.Fatalf("created: %s", data)
	}
	var short labelJSON
	s.JSON(t, "POST", path, rep.token, form("name", "ui", "color", "#fff"), 201, &short)
	if short.Color != "#fff" || short.Description != nil {
		t.Errorf("3-digit color, no description: %+v", short)
	}

	s.ExpectBody(409, `{"message":"Label already exists"}`, "POST", path, rep.token, form("name", "bug", "color", "#000000"))
	s.ExpectBody(400, `{"message":{"color":["must be a valid color code"]}}`, "POST", path, rep.token, form("name", "x", "color", "red"))
	s.ExpectBody(400, `{"message":{"color":["must be a valid color code"]}}`, "POST", path, rep.token, form("name", "x", "color", "#12345"))
	s.ExpectBody(400, `{"error":"color is missing"}`, "POST", path, rep.token, form("name", "x"))
	s.ExpectBody(400, `{"error":"name is missing"}`, "POST", path, rep.token, form("color", "#000000"))
	s.ExpectBody(400, `{"message":{"title":["is invalid"]}}`, "POST", path, rep.token, form("name", "a,b", "color", "#000000"))
	s.ExpectBody(401, unauthorized, "POST", path, "", form("name", "x", "color", "#000000"))
	s.ExpectBody(403, forbidden, "POST", path, gst.token, form("name", "x", "color", "#000000"))
	s.ExpectBody(404, projectNotFound, "POST", path, outsider.token, form("name", "x", "color", "#000000"))
	s.ExpectBody(404, projectNotFound, "GET", path, outsider.token, nil)

	// Counts: open (reopened included) and closed issues, open merge requests.
	s.create(dev.token, pid, "One", "labels", "bug")
	s.create(dev.token, pid, "Two", "labels", "bug,ui")
	s.create(dev.token, pid, "Three", "labels", "bug")
	s.update(dev.token, pid, 3, "state_event", "close")
	s.update(dev.token, pid, 2, "state_event", "close")
	s.update(dev.token, pid, 2, "state_event", "reopen")
	s.branches(pid)
	s.JSON(t, "POST", fmt.Sprintf("/projects/%d/merge_requests", pid), dev.token, form("source_branch", "feature",
		"target_branch", "master", "title", "Fix", "labels", "bug"), 201, nil)
	var labels []labelJSON
	s.JSON(t, "GET", path, gst.token, nil, 200, &labels)
	if len(labels) != 2 || labels[0].Name != "bug" || labels[1].Name != "ui" {
		t.Fatalf("labels: %+v", labels)
	}
	if l := labels[0]; l.OpenIssuesCount != 2 || l.ClosedIssuesCount != 1 || l.OpenMergeRequestsCount != 1 {
		t.Errorf("bug counts: %+v", l)
	}
	if l := labels[1]; l.OpenIssuesCount != 1 || l.ClosedIssuesCount != 0 || l.OpenMergeRequestsCount != 0 {
		t.Errorf("ui counts: %+v", l)
	}
	if resp, _ := s.Do(t, "GET", path+"?per_page=1&page=2", gst.token, nil); resp.Header.Get("X-Total") != "2" {
		t.Errorf("label pagination: X-Total %s", resp.Header.Get("X-Total"))
	}

	// A rename reaches every issue carrying the label.
	var renamed labelJSON
	s.JSON(t, "PUT", path, rep.token, form("name", "bug", "new_name", "defect", "color", "#00FF00", "description", "Defects"), 200, &renamed)
	if renamed.ID != bug.ID || renamed.Name != "defect" || renamed.Color != "#00FF00" || str(renamed.Description) != "Defects" ||
		renamed.OpenIssuesCount != 2 {
		t.Fatalf("rename: %+v", renamed)
	}
	if got := s.get(dev.token, pid, 2); join(got.Labels) != "defect,ui" {
		t.Errorf("issue labels after rename: %v", got.Labels)
	}
	if got := join(s.listIIDs(dev.token, issuesPath(pid)+"?labels=defect&state=all")); got != "3,2,1" {
		t.Errorf("filter by the new name: %s", got)
	}
	s.ExpectBody(409, `{"message":"Label already exists"}`, "PUT", path, rep.token, form("name", "defect", "new_name", "ui"))
	s.ExpectBody(404, `{"message":"404 Label Not Found"}`, "PUT", path, rep.token, form("name", "bug", "color", "#000000"))
	s.ExpectBody(400, `{"message":{"color":["must be a valid color code"]}}`, "PUT", path, rep.token, form("name", "defect", "color", "green"))
	s.ExpectBody(400, `{"error":"new_name, color, description are missing, at least one parameter must be provided"}`,
		"PUT", path, rep.token, form("name", "defect"))
	s.ExpectBody(403, forbidden, "PUT", path, gst.token, form("name", "defect", "color", "#000000"))

	// Delete: the label leaves the issues too.
	s.ExpectBody(400, `{"error":"name is missing"}`, "DELETE", path, rep.token, nil)
	s.ExpectBody(403, forbidden, "DELETE", path+"?name=ui", gst.token, nil)
	s.Expect(204, "DELETE", path+"?name=ui", rep.token, nil)
	s.ExpectBody(404, `{"message":"404 Label Not Found"}`, "DELETE", path+"?name=ui", rep.token, nil)
	if got := s.get(dev.token, pid, 2); join(got.Labels) != "defect" {
		t.Errorf("issue labels after delete: %v", got.Labels)
	}
	s.JSON(t, "GET", path, gst.token, nil, 200, &labels)
	if len(labels) != 1 || labels[0].Name != "defect" {
		t.Errorf("labels after delete: %+v", labels)
	}
}
