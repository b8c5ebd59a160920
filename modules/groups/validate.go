package groups

import (
	"regexp"
	"strconv"
	"strings"
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
