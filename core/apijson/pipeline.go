package apijson

import (
	"context"
	"fmt"
	"strconv"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
	"github.com/hearth-forge/hearth/core/ports"
)

// PipelineBasic is GitLab's Entities::PipelineBasic: pipeline lists, a
// job's pipeline, a commit's last_pipeline.
type PipelineBasic struct {
	ID     int64  `json:"id"`
	SHA    string `json:"sha"`
	Ref    string `json:"ref"`
	Status string `json:"status"`
}

// PipelineBasicOf renders p.
func PipelineBasicOf(p *domain.Pipeline) PipelineBasic {
	return PipelineBasic{ID: p.ID, SHA: p.SHA, Ref: p.Ref, Status: string(p.Status)}
}

// Pipeline is GitLab's Entities::Pipeline (single reads and writes).
type Pipeline struct {
	ID          int64       `json:"id"`
	SHA         string      `json:"sha"`
	Ref         string      `json:"ref"`
	Status      string      `json:"status"`
	BeforeSHA   string      `json:"before_sha"`
	Tag         bool        `json:"tag"`
	YAMLErrors  *string     `json:"yaml_errors"`
	User        *UserBasic  `json:"user"`
	CreatedAt   httpx.Time  `json:"created_at"`
	UpdatedAt   httpx.Time  `json:"updated_at"`
	StartedAt   *httpx.Time `json:"started_at"`
	FinishedAt  *httpx.Time `json:"finished_at"`
	CommittedAt *httpx.Time `json:"committed_at"`
	Duration    *int        `json:"duration"`
	// Coverage is a string with two decimals, as GitLab formats it.
	Coverage *string `json:"coverage"`
}

// PipelineOf renders p with its user (nil when none).
func PipelineOf(p *domain.Pipeline, user *UserBasic) Pipeline {
	out := Pipeline{
		ID: p.ID, SHA: p.SHA, Ref: p.Ref, Status: string(p.Status), BeforeSHA: p.BeforeSHA, Tag: p.Tag,
		YAMLErrors: NullString(p.YAMLErrors), User: user,
		CreatedAt: httpx.TimeOf(p.CreatedAt), UpdatedAt: httpx.TimeOf(p.UpdatedAt),
		StartedAt: httpx.TimePtr(p.StartedAt), FinishedAt: httpx.TimePtr(p.FinishedAt),
		CommittedAt: httpx.TimePtr(p.CommittedAt), Duration: p.Duration,
	}
	if p.Coverage != nil {
		c := strconv.FormatFloat(*p.Coverage, 'f', 2, 64)
		out.Coverage = &c
	}
	return out
}

// PipelinePresenter renders full pipelines with their users, in one query
// for a list; Base is the external URL without a trailing slash.
type PipelinePresenter struct {
	Users ports.UserStore
	Base  string
}

// Pipelines renders list.
func (pp PipelinePresenter) Pipelines(ctx context.Context, list []domain.Pipeline) ([]Pipeline, error) {
	var ids []int64
	for _, p := range list {
		if p.UserID != nil {
			ids = append(ids, *p.UserID)
		}
	}
	users := map[int64]*UserBasic{}
	if len(ids) > 0 {
		found, err := pp.Users.GetMany(ctx, ids)
		if err != nil {
			return nil, fmt.Errorf("users of pipelines: %w", err)
		}
		for i := range found {
			u := UserBasicOf(pp.Base, &found[i])
			users[found[i].ID] = &u
		}
	}
	out := make([]Pipeline, 0, len(list))
	for i := range list {
		var u *UserBasic
		if list[i].UserID != nil {
			u = users[*list[i].UserID]
		}
		out = append(out, PipelineOf(&list[i], u))
	}
	return out, nil
}

// Pipeline renders one pipeline.
func (pp PipelinePresenter) Pipeline(ctx context.Context, p *domain.Pipeline) (Pipeline, error) {
	out, err := pp.Pipelines(ctx, []domain.Pipeline{*p})
	if err != nil {
		return Pipeline{}, err
	}
	return out[0], nil
}
