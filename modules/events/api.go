package events

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// FeedInput are the feed's filters and page.
type FeedInput struct {
	Action     string     `param:"action"`
	TargetType string     `param:"target_type"`
	Before     *time.Time `param:"before"`
	After      *time.Time `param:"after"`
	Sort       string     `param:"sort"`
	Page       domain.Page
}

// eventJSON is GitLab's Event entity.
type eventJSON struct {
	Title          *string            `json:"title"`
	ProjectID      *int64             `json:"project_id"`
	ActionName     string             `json:"action_name"`
	TargetID       *int64             `json:"target_id"`
	TargetIID      *int64             `json:"target_iid"`
	TargetType     *string            `json:"target_type"`
	AuthorID       int64              `json:"author_id"`
	TargetTitle    *string            `json:"target_title"`
	CreatedAt      httpx.Time         `json:"created_at"`
	Author         *apijson.UserBasic `json:"author"`
	AuthorUsername string             `json:"author_username"`
	Data           json.RawMessage    `json:"data"`
	// Note is the comment of a "commented on" event (absent otherwise,
	// and when the note is gone).
	Note *eventNoteJSON `json:"note,omitempty"`
}

// eventNoteJSON is the Note entity as GitLab embeds it in events.
type eventNoteJSON struct {
	ID           int64              `json:"id"`
	Body         string             `json:"body"`
	Attachment   *string            `json:"attachment"`
	Author       *apijson.UserBasic `json:"author"`
	CreatedAt    httpx.Time         `json:"created_at"`
	System       bool               `json:"system"`
	NoteableID   int64              `json:"noteable_id"`
	NoteableType string             `json:"noteable_type"`
}

// toJSON renders e; feed supplies its author and its target's IID
// (target_iid is null for targets without one, as GitLab renders them).
func toJSON(base string, e domain.Event, feed *Feed) eventJSON {
	author := feed.Authors[e.AuthorID]
	out := eventJSON{
		Title:       apijson.NullString(e.Title),
		ProjectID:   e.ProjectID,
		ActionName:  actionName(e),
		TargetID:    e.TargetID,
		TargetType:  apijson.NullString(e.TargetType),
		AuthorID:    e.AuthorID,
		TargetTitle: apijson.NullString(e.TargetTitle),
		CreatedAt:   httpx.TimeOf(e.CreatedAt),
		Data:        json.RawMessage("null"),
	}
	if e.TargetID != nil {
		if iid, ok := feed.TargetIIDs[domain.Subject{Type: e.TargetType, ID: *e.TargetID}]; ok {
			out.TargetIID = &iid
		}
	}
	if len(e.Data) > 0 && json.Valid(e.Data) {
		out.Data = e.Data
	}
	if author != nil {
		a := apijson.UserBasicOf(base, author)
		out.Author = &a
		out.AuthorUsername = author.Username
	}
	if e.NoteID != nil {
		if n := feed.Notes[*e.NoteID]; n != nil {
			out.Note = &eventNoteJSON{ID: n.ID, Body: n.Body, CreatedAt: httpx.TimeOf(n.CreatedAt), System: n.System,
				NoteableID: n.NoteableID, NoteableType: n.NoteableType}
			if u := feed.Authors[n.AuthorID]; u != nil {
				a := apijson.UserBasicOf(base, u)
				out.Note.Author = &a
			}
		}
	}
	return out
}

// actionName is GitLab's wording of an event's action.
func actionName(e domain.Event) string {
	switch e.Action {
	case domain.ActionCreated:
		if e.TargetType == "" || e.TargetType == domain.TargetProject {
			return "created"
		}
		return "opened"
	case domain.ActionMerged:
		return "accepted"
	case domain.ActionCommented:
		return "commented on"
	case domain.ActionExpired:
		return "removed due to membership expiration from"
	case domain.ActionPushed:
		var d struct{ Before, After string }
		_ = json.Unmarshal(e.Data, &d)
		switch {
		case blankSHA(d.Before):
			return "pushed new"
		case blankSHA(d.After):
			return "deleted"
		}
		return "pushed to"
	}
	return e.Action
}

func blankSHA(s string) bool { return s != "" && strings.Trim(s, "0") == "" }
