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
	// maxDepth is how many levels groups nest (GitLab: "has too deep level of nesting").
	maxDepth = 20
)

// GitLab's namespace name rule (Gitlab::Regex.namespace_name_regex,
// /\A[\p{Alnum}\p{Pd}_\. ]*\z/).
var nameRE = regexp.MustCompile(`^[\p{L}\p{M}\p{Nd}\p{Pd}_. ]*$`)

const nameFormatMsg = "can contain only letters, digits, '_', '.', dash and space."

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
