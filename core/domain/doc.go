// Package domain holds Hearth's entities and value types, one file per
// aggregate (user.go, project.go, namespace.go, member.go, repo.go,
// issue.go, mergerequest.go, note.go, snippet.go, todo.go, event.go ...),
// with the bus events about each aggregate beside it.
//
// Domain types carry no JSON and no database tags: JSON shapes belong to
// core/apijson and the modules, rows to the storage adapters. Rules that
// belong to a value and nothing else live here too: ref-name validity
// (ValidShortRefName), branch protection matching (Protection), the
// repository path of a project (RepoPath), merge request and issue state
// transitions.
package domain
