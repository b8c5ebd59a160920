package issuable

import (
	"github.com/hearth-forge/hearth/core/access"
	"github.com/hearth-forge/hearth/core/domain"
)

// Item is what the shared rules need of an issue or a merge request.
type Item struct {
	Subject     domain.Subject
	ProjectID   int64
	AuthorID    int64
	AssigneeID  *int64
	Title       string
	Description string
	// read is the ability a user needs to see the item (asked about on,
	// when the ability looks at the object itself).
	read access.Ability
	on   []access.Object
}

// IssueItem is an issue as an Item: confidential issues show only to
// those who may see them.
func IssueItem(is *domain.Issue) Item {
	return Item{Subject: domain.Subject{Type: domain.TargetIssue, ID: is.ID}, ProjectID: is.ProjectID,
		AuthorID: is.AuthorID, AssigneeID: is.AssigneeID, Title: is.Title, Description: is.Description,
		read: access.ReadIssue, on: []access.Object{access.OnIssue(is)}}
}

// MergeRequestItem is a merge request as an Item: whoever reads the
// project's merge requests sees it.
func MergeRequestItem(m *domain.MergeRequest) Item {
	return Item{Subject: domain.Subject{Type: domain.TargetMergeRequest, ID: m.ID}, ProjectID: m.ProjectID,
		AuthorID: m.AuthorID, AssigneeID: m.AssigneeID, Title: m.Title, Description: m.Description,
		read: access.ReadMergeRequest}
}

// ReadableBy tells whether the target's caller may see the item.
func (it Item) ReadableBy(t access.Target) bool { return t.Can(it.read, it.on...) }

// text is where mentions are looked for.
func (it Item) text() string { return it.Title + "\n" + it.Description }
