package domain

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// NamespaceKind tells user namespaces from groups.
type NamespaceKind string

const (
	NamespaceUser  NamespaceKind = "user"
	NamespaceGroup NamespaceKind = "group"
)

// GroupCreated is published inside the transaction that creates a group,
// with the creator's owner membership (GitLab's group_create and
// user_add_to_group system hooks). The feed records nothing for it.
type GroupCreated struct {
	Group Namespace
	Owner Member
	Actor int64
}

func (GroupCreated) EventName() string { return "group.created" }

// GroupDestroyed is published inside the transaction that deletes a group,
// before its row goes.
type GroupDestroyed struct {
	Group Namespace
	Actor int64
}

func (GroupDestroyed) EventName() string { return "group.destroyed" }

// Namespace holds projects: a user's personal namespace or a group.
// Groups nest through ParentID; FullPath is the slash-joined path from the top.
type Namespace struct {
	ID       int64
	Kind     NamespaceKind
	Name     string
	Path     string
	FullPath string
	ParentID *int64
	// OwnerID is the user of a personal namespace.
	OwnerID              *int64
	Description          string
	Visibility           Visibility
	LFSEnabled           bool
	RequestAccessEnabled bool
	AvatarURL            string
	CreatedAt            time.Time
	UpdatedAt            time.Time
}

// GroupFilter selects groups; Readable works as for projects, with
// GroupIDs the groups the reader may see whatever their visibility.
type GroupFilter struct {
	All        bool // administrators: no visibility limit
	Internal   bool
	GroupIDs   []int64
	OnlyIDs    []int64 // owned or membership lists
	OnlyIDsSet bool
	SkipIDs    []int64
	ParentID   *int64 // nil: any level
	TopLevel   bool
	Search     string // name or path
	OrderBy    string // name (default) or path
	Ascending  bool
	Page       Page
}

// maxNamespacePath is the longest path a namespace (or username) may have.
const maxNamespacePath = 255

// GitLab's namespace path rule (Gitlab::PathRegex.namespace_format_regex):
// letters, digits, '_', '-' and '.'; not starting with '-', not ending with
// '.', '.git' or '.atom'.
var namespacePathRE = regexp.MustCompile(`^(?:[a-zA-Z0-9_.][a-zA-Z0-9_.-]*[a-zA-Z0-9_-]|[a-zA-Z0-9_])$`)

const namespacePathFormat = "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'."

// reservedTopLevel are GitLab 9.x's top-level routes, which no top-level
// namespace (a user's or a group's) may take.
var reservedTopLevel = map[string]bool{
	"-": true, ".well-known": true, "404.html": true, "422.html": true, "500.html": true,
	"502.html": true, "503.html": true, "abuse_reports": true, "admin": true, "api": true,
	"apple-touch-icon-precomposed.png": true, "apple-touch-icon.png": true, "assets": true,
	"autocomplete": true, "ci": true, "dashboard": true, "deploy.html": true, "explore": true,
	"favicon.ico": true, "files": true, "groups": true, "health_check": true, "help": true,
	"import": true, "invites": true, "jwt": true, "koding": true, "notification_settings": true,
	"oauth": true, "profile": true, "projects": true, "public": true, "robots.txt": true,
	"s": true, "search": true, "sent_notifications": true, "slash-command-logo.png": true,
	"snippets": true, "u": true, "unicorn_test": true, "unsubscribes": true, "uploads": true,
	"users": true,
}

// reservedInGroup are GitLab 9.x's group routes (Gitlab::PathRegex
// GROUP_ROUTES), which a subgroup's path may not take.
var reservedInGroup = map[string]bool{
	"-": true, "activity": true, "analytics": true, "audit_events": true, "avatar": true,
	"edit": true, "group_members": true, "hooks": true, "issues": true, "labels": true,
	"ldap": true, "ldap_group_links": true, "merge_requests": true, "milestones": true,
	"notification_setting": true, "pipeline_quota": true, "projects": true, "subgroups": true,
}

// NamespacePathErrors lists what is wrong with the path of a namespace as
// GitLab 9.x validates it, nil when it is fine. A username is the path of
// its personal namespace, so users are held to the same rule. Top-level
// paths may not take GitLab's top-level routes, subgroup paths its group
// routes.
func NamespacePathErrors(path string, topLevel bool) []string {
	if strings.TrimSpace(path) == "" {
		return []string{"can't be blank"}
	}
	var msgs []string
	if len(path) > maxNamespacePath {
		msgs = append(msgs, "is too long (maximum is "+strconv.Itoa(maxNamespacePath)+" characters)")
	}
	lower := strings.ToLower(path)
	if !namespacePathRE.MatchString(path) || strings.HasSuffix(lower, ".git") || strings.HasSuffix(lower, ".atom") {
		msgs = append(msgs, namespacePathFormat)
	}
	if (topLevel && reservedTopLevel[lower]) || (!topLevel && reservedInGroup[lower]) {
		msgs = append(msgs, path+" is a reserved name")
	}
	return msgs
}
