package notes

import (
	"time"

	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// noteJSON is GitLab's Note entity.
type noteJSON struct {
	ID           int64              `json:"id"`
	Body         string             `json:"body"`
	Attachment   *string            `json:"attachment"`
	Author       *apijson.UserBasic `json:"author"`
	CreatedAt    httpx.Time         `json:"created_at"`
	UpdatedAt    httpx.Time         `json:"updated_at"`
	System       bool               `json:"system"`
	NoteableID   int64              `json:"noteable_id"`
	NoteableType string             `json:"noteable_type"`
	NoteableIID  *int64             `json:"noteable_iid"`
}

// snippetNoteJSON is what GitLab 9.x answers for one snippet note: the
// note presented with the Snippet entity, as the spec describes it.
type snippetNoteJSON struct {
	ID        int64              `json:"id"`
	Title     *string            `json:"title"`
	FileName  *string            `json:"file_name"`
	Author    *apijson.UserBasic `json:"author"`
	ExpiresAt *httpx.Time        `json:"expires_at"`
	UpdatedAt httpx.Time         `json:"updated_at"`
	CreatedAt httpx.Time         `json:"created_at"`
}

// awardJSON is GitLab's AwardEmoji entity, answered by a note that is only
// an emoji.
type awardJSON struct {
	ID            int64              `json:"id"`
	Name          string             `json:"name"`
	User          *apijson.UserBasic `json:"user"`
	CreatedAt     httpx.Time         `json:"created_at"`
	UpdatedAt     httpx.Time         `json:"updated_at"`
	AwardableID   int64              `json:"awardable_id"`
	AwardableType string             `json:"awardable_type"`
}

// users are the rendered users a response names, by ID.
type users map[int64]*apijson.UserBasic

func newNoteJSON(n domain.Note, nb *Noteable, u users) noteJSON {
	return noteJSON{
		ID:           n.ID,
		Body:         n.Body,
		Author:       u[n.AuthorID],
		CreatedAt:    httpx.TimeOf(n.CreatedAt),
		UpdatedAt:    httpx.TimeOf(n.UpdatedAt),
		System:       n.System,
		NoteableID:   n.NoteableID,
		NoteableType: n.NoteableType,
		NoteableIID:  nb.IID,
	}
}

func newSnippetNoteJSON(n domain.Note, u users) snippetNoteJSON {
	return snippetNoteJSON{ID: n.ID, Author: u[n.AuthorID], UpdatedAt: httpx.TimeOf(n.UpdatedAt), CreatedAt: httpx.TimeOf(n.CreatedAt)}
}

func newAwardJSON(a domain.Award, u users) awardJSON {
	return awardJSON{
		ID:            a.ID,
		Name:          a.Name,
		User:          u[a.UserID],
		CreatedAt:     httpx.TimeOf(a.CreatedAt),
		UpdatedAt:     httpx.TimeOf(a.UpdatedAt),
		AwardableID:   a.AwardableID,
		AwardableType: a.AwardableType,
	}
}

// ListInput is the list's order; GitLab's default is newest first.
type ListInput struct {
	OrderBy string `param:"order_by"`
	Sort    string `param:"sort"`
}

// CreateInput are POST .../notes's parameters.
type CreateInput struct {
	Body      string     `param:"body,required"`
	CreatedAt *time.Time `param:"created_at"`
}

// UpdateInput are PUT .../notes/:note_id's parameters.
type UpdateInput struct {
	Body string `param:"body,required"`
}

// AwardInput are POST .../award_emoji's parameters: the emoji's name
// without colons ("thumbsup"; aliases such as "+1" too).
type AwardInput struct {
	Name string `param:"name,required"`
}
