package deploykeys

import (
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// DeployKey is GitLab's deploy key entity.
type DeployKey struct {
	ID        int64      `json:"id"`
	Title     string     `json:"title"`
	Key       string     `json:"key"`
	CreatedAt httpx.Time `json:"created_at"`
	CanPush   bool       `json:"can_push"`
}

func keyOf(k *domain.DeployKey) DeployKey {
	return DeployKey{ID: k.ID, Title: k.Title, Key: k.Key, CreatedAt: httpx.TimeOf(k.CreatedAt), CanPush: k.CanPush}
}

func keysOf(list []domain.DeployKey) []DeployKey {
	out := make([]DeployKey, len(list))
	for i := range list {
		out[i] = keyOf(&list[i])
	}
	return out
}

// CreateInput is POST /projects/:id/deploy_keys.
type CreateInput struct {
	Title   string `param:"title,required"`
	Key     string `param:"key,required"`
	CanPush bool   `param:"can_push"`
	// Invalid is the request's own problem (a missing title or key, a bad
	// boolean), reported after the access checks.
	Invalid error `param:"-"`
}

// UpdateInput is PUT /projects/:id/deploy_keys/:key_id: what it leaves
// nil stays.
type UpdateInput struct {
	Title   *string `param:"title"`
	CanPush *bool   `param:"can_push"`
	Invalid error   `param:"-"`
}

// KeyID is the {key_id} path parameter, an integer for Grape; Invalid is
// its 400, reported after the access checks.
type KeyID struct {
	ID      int64
	Invalid error
}
