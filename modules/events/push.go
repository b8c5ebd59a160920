package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/domain"
)

// pushData is the data of a "pushed" event: GitLab 9.x's push data
// (Gitlab::DataBuilder::Push) as the API's Event entity shows it.
type pushData struct {
	Before            string         `json:"before"`
	After             string         `json:"after"`
	Ref               string         `json:"ref"`
	UserID            int64          `json:"user_id"`
	UserName          string         `json:"user_name"`
	Repository        pushRepository `json:"repository"`
	Commits           []pushCommit   `json:"commits"`
	TotalCommitsCount int            `json:"total_commits_count"`
}

// pushRepository is the deprecated "repository" part of push data:
// Project#hook_attrs' backward-compatible url (the SSH clone URL, GitLab's
// url_to_repo) and homepage (the web URL).
type pushRepository struct {
	Name        string `json:"name"`
	URL         string `json:"url"`
	Description string `json:"description"`
	Homepage    string `json:"homepage"`
}

// pushCommit is Commit#hook_attrs without the changed files.
type pushCommit struct {
	ID        string     `json:"id"`
	Message   string     `json:"message"`
	Timestamp string     `json:"timestamp"`
	URL       string     `json:"url"`
	Author    pushAuthor `json:"author"`
}

type pushAuthor struct {
	Name  string `json:"name"`
	Email string `json:"email"`
}

// recordPush turns a PushEvent into a "pushed" feed event, moves the
// project's last activity and touches the pusher's activity day, all in the
// publisher's transaction. A project deleted since the push records
// nothing.
func (s *Service) recordPush(ctx context.Context, ev domain.PushEvent) error {
	proj, err := s.p.Projects.Get(ctx, ev.ProjectID)
	if errors.Is(err, core.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("record push: load project %d: %w", ev.ProjectID, err)
	}
	ns, err := s.p.Namespaces.Get(ctx, proj.NamespaceID)
	if err != nil {
		return fmt.Errorf("record push: load namespace of project %d: %w", proj.ID, err)
	}
	var pusher *domain.User
	if ev.Actor != 0 {
		pusher, err = s.p.Users.Get(ctx, ev.Actor)
		if err != nil && !errors.Is(err, core.ErrNotFound) {
			return fmt.Errorf("record push: load user %d: %w", ev.Actor, err)
		}
	}
	at := ev.At
	if at.IsZero() {
		at = s.p.Clock.Now()
	}
	at = at.UTC()
	data, err := json.Marshal(s.pushData(ev, proj, ns.FullPath+"/"+proj.Path, pusher))
	if err != nil {
		return fmt.Errorf("record push: encode data: %w", err)
	}
	id := proj.ID
	if err := s.Record(ctx, &domain.Event{ProjectID: &id, AuthorID: ev.Actor, Action: domain.ActionPushed, Data: data, CreatedAt: at}); err != nil {
		return err
	}
	if err := s.p.Projects.TouchActivity(ctx, proj.ID, at); err != nil {
		return fmt.Errorf("record push: project activity: %w", err)
	}
	if pusher != nil {
		if err := s.p.Users.TouchActivity(ctx, pusher.ID, at); err != nil && !errors.Is(err, core.ErrNotFound) {
			return fmt.Errorf("record push: user activity: %w", err)
		}
	}
	return nil
}

func (s *Service) pushData(ev domain.PushEvent, p *domain.Project, fullPath string, pusher *domain.User) pushData {
	urls := apijson.ProjectURLs(s.p.Config.BaseURL(), s.p.Config.SSHCloneBase(), fullPath)
	d := pushData{
		Before: ev.Before,
		After:  ev.After,
		Ref:    ev.Ref,
		Repository: pushRepository{
			Name:        p.Name,
			URL:         urls.SSH,
			Description: p.Description,
			Homepage:    urls.Web,
		},
		Commits:           make([]pushCommit, 0, len(ev.Commits)),
		TotalCommitsCount: ev.TotalCommits,
	}
	if pusher != nil {
		d.UserID, d.UserName = pusher.ID, pusher.Name
	} else {
		d.UserID = ev.Actor
	}
	// The event carries the newest first; GitLab lists the latest 20
	// oldest first.
	for _, c := range slices.Backward(ev.Commits) {
		d.Commits = append(d.Commits, pushCommit{
			ID:        c.ID,
			Message:   c.Message,
			Timestamp: c.Timestamp.Format(time.RFC3339),
			URL:       urls.Web + "/commit/" + c.ID,
			Author:    pushAuthor{Name: c.Author.Name, Email: c.Author.Email},
		})
	}
	if d.TotalCommitsCount < len(d.Commits) {
		d.TotalCommitsCount = len(d.Commits)
	}
	return d
}
