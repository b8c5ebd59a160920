package domain

import "time"

// Domain events travel on the EventBus. Each has a stable name.

// BusEvent is anything published on the bus.
type BusEvent interface{ EventName() string }

// UserCreated is published when an account is created.
type UserCreated struct {
	User  User
	Actor int64 // who created it; equals User.ID for self sign-up
}

func (UserCreated) EventName() string { return "user.created" }

// UserStateChanged is published when an account is blocked or unblocked.
type UserStateChanged struct {
	User  User
	Actor int64
}

func (UserStateChanged) EventName() string { return "user.state_changed" }

// UserUpdated is published inside the transaction that changed a user, so
// that personal namespaces follow a new username.
type UserUpdated struct {
	Before User
	After  User
	Actor  int64
}

func (UserUpdated) EventName() string { return "user.updated" }

// UserDeleted is published inside the transaction that deletes a user, so
// that modules remove what only that user owned (personal namespace, projects).
type UserDeleted struct {
	User  User
	Actor int64
}

func (UserDeleted) EventName() string { return "user.deleted" }

// ProjectCreated, ProjectUpdated and ProjectDestroyed feed the events module.
type ProjectCreated struct {
	Project Project
	Actor   int64
}

func (ProjectCreated) EventName() string { return "project.created" }

type ProjectUpdated struct {
	Project Project
	Actor   int64
}

func (ProjectUpdated) EventName() string { return "project.updated" }

type ProjectDestroyed struct {
	Project Project
	Actor   int64
}

func (ProjectDestroyed) EventName() string { return "project.destroyed" }

// MemberJoined and MemberLeft record membership changes of projects (and
// groups, with ProjectID nil).
type MemberJoined struct {
	Member    Member
	ProjectID *int64
	Actor     int64
}

func (MemberJoined) EventName() string { return "member.joined" }

type MemberLeft struct {
	Member    Member
	ProjectID *int64
	Actor     int64
}

func (MemberLeft) EventName() string { return "member.left" }

// PushEvent is published after refs of a project moved, by git over HTTP
// or through the API (branch and tag creation and deletion, commits,
// cherry-picks, merges). One event per ref. Before is ZeroID for a new ref,
// After is ZeroID for a deleted one. Commits are the newest first, at most
// 20 of them (GitLab's push data limit); TotalCommits counts them all.
type PushEvent struct {
	ProjectID    int64
	Actor        int64
	Ref          string // full name: refs/heads/x or refs/tags/x
	Before       string
	After        string
	Commits      []PushCommit
	TotalCommits int
	At           time.Time
}

func (PushEvent) EventName() string { return "repository.push" }
