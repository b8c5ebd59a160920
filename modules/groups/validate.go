package groups

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/hearth-forge/hearth/core/domain"
)

// Limits and rules of GitLab 9.x's Namespace and Group models.
const (
	maxNameLength = 255
	maxPathLength = 255
	// maxDepth is how many levels groups nest (GitLab: "has too deep level of nesting").
	maxDepth = 20
)

// GitLab's namespace path rule (Gitlab::PathRegex.namespace_format_regex):
// letters, digits, '_', '-' and '.'; not starting with '-', not ending with
// '.', '.git' or '.atom'.
var pathRE = regexp.MustCompile(`^(?:[a-zA-Z0-9_.][a-zA-Z0-9_.-]*[a-zA-Z0-9_-]|[a-zA-Z0-9_])$`)

const pathFormatMsg = "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'."

// GitLab's namespace name rule (Gitlab::Regex.namespace_name_regex,
// /\A[\p{Alnum}\p{Pd}_\. ]*\z/).
var nameRE = regexp.MustCompile(`^[\p{L}\p{M}\p{Nd}\p{Pd}_. ]*$`)

const nameFormatMsg = "can contain only letters, digits, '_', '.', dash and space."

// reservedTopLevel are GitLab 9.x's top-level routes, which no top-level
// namespace (user or group) may take.
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

// fieldErrors collects model-validation messages per field.
type fieldErrors map[string][]string

func (f fieldErrors) add(field string, msgs ...string) {
	if len(msgs) > 0 {
		f[field] = append(f[field], msgs...)
	}
}

// pathErrors lists what is wrong with a group path.
func pathErrors(path string, topLevel bool) []string {
	if strings.TrimSpace(path) == "" {
		return []string{"can't be blank"}
	}
	var msgs []string
	if len(path) > maxPathLength {
		msgs = append(msgs, "is too long (maximum is "+strconv.Itoa(maxPathLength)+" characters)")
	}
	lower := strings.ToLower(path)
	if !pathRE.MatchString(path) || strings.HasSuffix(lower, ".git") || strings.HasSuffix(lower, ".atom") {
		msgs = append(msgs, pathFormatMsg)
	}
	if (topLevel && reservedTopLevel[lower]) || (!topLevel && reservedInGroup[lower]) {
		msgs = append(msgs, path+" is a reserved name")
	}
	return msgs
}

// nameErrors lists what is wrong with a group name.
func nameErrors(name string) []string {
	if strings.TrimSpace(name) == "" {
		return []string{"can't be blank"}
	}
	var msgs []string
	if len([]rune(name)) > maxNameLength {
		msgs = append(msgs, "is too long (maximum is "+strconv.Itoa(maxNameLength)+" characters)")
	}
	if !nameRE.MatchString(name) {
		msgs = append(msgs, nameFormatMsg)
	}
	return msgs
}

// visibilityErrors applies GitLab's Group visibility validations to a change.
func (s *Service) visibilityErrors(ctx context.Context, g *domain.Namespace, v domain.Visibility) ([]string, error) {
	var msgs []string
	if g.ParentID != nil {
		parent, err := s.p.Namespaces.Get(ctx, *g.ParentID)
		if err != nil {
			return nil, fmt.Errorf("parent group: %w", err)
		}
		if msg := parentVisibilityError(v, parent); msg != "" {
			msgs = append(msgs, msg)
		}
	}
	for _, higher := range []domain.Visibility{domain.Internal, domain.Public} {
		if higher.Rank() <= v.Rank() {
			continue
		}
		_, n, err := s.p.Projects.List(ctx, domain.ProjectFilter{
			Readable: domain.ReadScope{All: true}, NamespaceIDs: []int64{g.ID}, Visibility: higher,
			Page: domain.Page{Page: 1, PerPage: 1},
		})
		if err != nil {
			return nil, fmt.Errorf("group projects: %w", err)
		}
		if n > 0 {
			msgs = append(msgs, string(v)+" is not allowed since this group contains projects with higher visibility.")
			break
		}
	}
	pid := g.ID
	children, _, err := s.p.Namespaces.ListGroups(ctx, domain.GroupFilter{All: true, ParentID: &pid})
	if err != nil {
		return nil, fmt.Errorf("subgroups: %w", err)
	}
	for _, c := range children {
		if c.Visibility.Rank() > v.Rank() {
			msgs = append(msgs, string(v)+" is not allowed since there are sub-groups with higher visibility.")
			break
		}
	}
	return msgs, nil
}

// parentVisibilityError is GitLab's visibility_level_allowed_by_parent.
func parentVisibilityError(v domain.Visibility, parent *domain.Namespace) string {
	if v.Rank() <= parent.Visibility.Rank() {
		return ""
	}
	return string(v) + " is not allowed since the parent group has a " + string(parent.Visibility) + " visibility."
}

// nameTaken reports whether a sibling group (same parent) other than
// except already has this name: GitLab validates name uniqueness per parent.
func (s *Service) nameTaken(ctx context.Context, parentID *int64, name string, except int64) (bool, error) {
	f := domain.GroupFilter{All: true, Search: name}
	if parentID != nil {
		f.ParentID = parentID
	} else {
		f.TopLevel = true
	}
	list, _, err := s.p.Namespaces.ListGroups(ctx, f)
	if err != nil {
		return false, fmt.Errorf("sibling groups: %w", err)
	}
	for _, n := range list {
		if n.ID != except && n.Name == name && sameParent(n.ParentID, parentID) {
			return true, nil
		}
	}
	return false, nil
}

func sameParent(a, b *int64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}
