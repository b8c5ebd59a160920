package notes

import (
	"time"

	"github.com/hearth-forge/hearth/core"
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

// users renders the authors a response names, loaded in one query.
type users map[int64]*apijson.UserBasic

func (u users) of(id int64) *apijson.UserBasic { return u[id] }

func newNoteJSON(n domain.Note, nb *noteable, u users) noteJSON {
	return noteJSON{
		ID:           n.ID,
		Body:         n.Body,
		Author:       u.of(n.AuthorID),
		CreatedAt:    httpx.TimeOf(n.CreatedAt),
		UpdatedAt:    httpx.TimeOf(n.UpdatedAt),
		System:       n.System,
		NoteableID:   n.NoteableID,
		NoteableType: n.NoteableType,
		NoteableIID:  nb.iid,
	}
}

func newSnippetNoteJSON(n domain.Note, u users) snippetNoteJSON {
	return snippetNoteJSON{ID: n.ID, Author: u.of(n.AuthorID), UpdatedAt: httpx.TimeOf(n.UpdatedAt), CreatedAt: httpx.TimeOf(n.CreatedAt)}
}

func newAwardJSON(a domain.Award, u users) awardJSON {
	return awardJSON{
		ID:            a.ID,
		Name:          a.Name,
		User:          u.of(a.UserID),
		CreatedAt:     httpx.TimeOf(a.CreatedAt),
		UpdatedAt:     httpx.TimeOf(a.UpdatedAt),
		AwardableID:   a.AwardableID,
		AwardableType: a.AwardableType,
	}
}

// listParams are the list's order; GitLab's default is newest first.
type listParams struct {
	OrderBy string `param:"order_by"`
	Sort    string `param:"sort"`
}

func (in listParams) validate() error {
	switch in.OrderBy {
	case "", "created_at", "updated_at":
	default:
		return invalid("order_by")
	}
	switch in.Sort {
	case "", "asc", "desc":
	default:
		return invalid("sort")
	}
	return nil
}

// createParams are POST .../notes's parameters.
type createParams struct {
	Body      string     `param:"body,required"`
	CreatedAt *time.Time `param:"created_at"`
}

// updateParams are PUT .../notes/:note_id's parameters.
type updateParams struct {
	Body string `param:"body,required"`
}

func invalid(name string) error {
	return &core.Error{Kind: core.ErrInvalid, Param: true, Msg: name + " does not have a valid value"}
}
