package users

import (
	"context"
	"errors"
	"net/http"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// owned serves what a user holds a list of, SSH keys and secondary emails
// alike: under /user for the caller, under /users/:id for administrators.
// T is the domain type, J its JSON entity.
type owned[T, J any] struct {
	param, what string // the item's path parameter and its 404 name
	list        func(ctx context.Context, userID int64, pg domain.Page) ([]T, int, error)
	get         func(ctx context.Context, userID, id int64) (*T, error)
	remove      func(ctx context.Context, userID, id int64) (*T, error)
	render      func(*T) J
}

// own reads /user/<items>/:id: the signed-in caller and the item's ID.
func (o owned[T, J]) own(r *http.Request) (userID, id int64, err error) {
	c, err := httpx.RequireUser(r)
	if err != nil {
		return 0, 0, err
	}
	id, err = httpx.IDParam(r, o.param, o.what)
	return c.UserID(), id, err
}

// index is GET /user/<items> and /users/:id/<items>.
func (o owned[T, J]) index(own bool) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		_, uid, err := targetUser(r, own)
		if err != nil {
			return err
		}
		pg, err := httpx.PageOf(r)
		if err != nil {
			return err
		}
		list, total, err := o.list(r.Context(), uid, pg)
		if err != nil {
			return err
		}
		return httpx.Paginated(w, r, mapAll(list, o.render), total, pg)
	}
}

// show is GET /user/<items>/:id: the caller's own item; another's is 404.
func (o owned[T, J]) show(w http.ResponseWriter, r *http.Request) error {
	uid, id, err := o.own(r)
	if err != nil {
		return err
	}
	item, err := o.get(r.Context(), uid, id)
	if err != nil {
		return err
	}
	return httpx.OK(w, o.render(item))
}

// deleteOwn is DELETE /user/<items>/:id, idempotent: 200 with the item,
// or 200 without a body when there was none.
func (o owned[T, J]) deleteOwn(w http.ResponseWriter, r *http.Request) error {
	uid, id, err := o.own(r)
	if err != nil {
		return err
	}
	item, err := o.remove(r.Context(), uid, id)
	if errors.Is(err, core.ErrNotFound) {
		return emptyOK(w)
	}
	if err != nil {
		return err
	}
	return httpx.OK(w, o.render(item))
}

// deleteOf is DELETE /users/:id/<items>/:id (administrators): 404 when the
// user or the item is missing.
func (o owned[T, J]) deleteOf(w http.ResponseWriter, r *http.Request) error {
	_, uid, err := targetUser(r, false)
	if err != nil {
		return err
	}
	id, err := httpx.IDParam(r, o.param, o.what)
	if err != nil {
		return err
	}
	item, err := o.remove(r.Context(), uid, id)
	if err != nil {
		return err
	}
	return httpx.OK(w, o.render(item))
}

// addKey is POST /user/keys and /users/:id/keys.
func (h handlers) addKey(own bool) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		_, uid, err := targetUser(r, own)
		if err != nil {
			return err
		}
		var in keyParams
		if err := httpx.Decode(r, &in); err != nil {
			return err
		}
		k, err := h.s.AddKey(r.Context(), uid, in.Title, in.Key)
		if err != nil {
			return err
		}
		return httpx.Created(w, keyOf(k))
	}
}

// addEmail is POST /user/emails and /users/:id/emails.
func (h handlers) addEmail(own bool) httpx.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		_, uid, err := targetUser(r, own)
		if err != nil {
			return err
		}
		var in emailParams
		if err := httpx.Decode(r, &in); err != nil {
			return err
		}
		e, err := h.s.AddEmail(r.Context(), uid, in.Email)
		if err != nil {
			return err
		}
		return httpx.Created(w, emailOf(e))
	}
}

// keyWithUser is GET /keys/:id (administrators only).
func (h handlers) keyWithUser(w http.ResponseWriter, r *http.Request) error {
	if _, err := httpx.RequireAdmin(r); err != nil {
		return err
	}
	id, err := httpx.IDParam(r, "id", "Key")
	if err != nil {
		return err
	}
	k, u, err := h.s.KeyWithUser(r.Context(), id)
	if err != nil {
		return err
	}
	return httpx.OK(w, SSHKeyWithUser{SSHKey: keyOf(k), User: fullOf(u, httpx.BaseURL(r))})
}
