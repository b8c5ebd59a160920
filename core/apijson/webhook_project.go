package apijson

import (
	"time"

	"github.com/hearth-forge/hearth/core/domain"
)

// HookProjectInput is what a webhook payload says about its project. The
// names and URLs come with it so that building a payload reads no store.
type HookProjectInput struct {
	Project domain.Project
	// NamespaceName is the namespace's display name ("Mike"): GitLab's
	// project.namespace in hooks is the name, not the path.
	NamespaceName string
	// FullPath is path_with_namespace ("mike/diaspora").
	FullPath string
	// WebURL, SSHURL and HTTPURL are the project's page and clone URLs.
	WebURL  string
	SSHURL  string
	HTTPURL string
}

// HookProject is GitLab 9.x's Project#hook_attrs, with the backward
// compatible keys (homepage, url, ssh_url, http_url) it still sends.
type HookProject struct {
	Name              string  `json:"name"`
	Description       string  `json:"description"`
	WebURL            string  `json:"web_url"`
	AvatarURL         *string `json:"avatar_url"`
	GitSSHURL         string  `json:"git_ssh_url"`
	GitHTTPURL        string  `json:"git_http_url"`
	Namespace         string  `json:"namespace"`
	VisibilityLevel   int     `json:"visibility_level"`
	PathWithNamespace string  `json:"path_with_namespace"`
	DefaultBranch     string  `json:"default_branch"`
	Homepage          string  `json:"homepage"`
	URL               string  `json:"url"`
	SSHURL            string  `json:"ssh_url"`
	HTTPURL           string  `json:"http_url"`
}

// HookPushRepository is the deprecated repository block of push hooks.
type HookPushRepository struct {
	Name            string `json:"name"`
	URL             string `json:"url"`
	Description     string `json:"description"`
	Homepage        string `json:"homepage"`
	GitHTTPURL      string `json:"git_http_url"`
	GitSSHURL       string `json:"git_ssh_url"`
	VisibilityLevel int    `json:"visibility_level"`
}

// HookRepository is the deprecated repository block of issuable hooks.
type HookRepository struct {
	Name        string `json:"name"`
	URL         string `json:"url"`
	Description string `json:"description"`
	Homepage    string `json:"homepage"`
}

// HookUser is GitLab's User#hook_attrs.
type HookUser struct {
	Name      string  `json:"name"`
	Username  string  `json:"username"`
	AvatarURL *string `json:"avatar_url"`
}

// VisibilityLevel is GitLab's numeric visibility: 0 private, 10 internal,
// 20 public.
func VisibilityLevel(v domain.Visibility) int {
	return v.Rank() * 10
}

func hookProject(in HookProjectInput) HookProject {
	p := in.Project
	return HookProject{
		Name: p.Name, Description: p.Description, WebURL: in.WebURL,
		AvatarURL: nonEmpty(p.AvatarURL), GitSSHURL: in.SSHURL, GitHTTPURL: in.HTTPURL,
		Namespace: in.NamespaceName, VisibilityLevel: VisibilityLevel(p.Visibility),
		PathWithNamespace: in.FullPath, DefaultBranch: p.DefaultBranch,
		// url is url_to_repo, which GitLab 9.x builds as the SSH URL.
		Homepage: in.WebURL, URL: in.SSHURL, SSHURL: in.SSHURL, HTTPURL: in.HTTPURL,
	}
}

func hookUser(u *domain.User) HookUser {
	return HookUser{Name: u.Name, Username: u.Username, AvatarURL: nonEmpty(u.AvatarURL)}
}

// nonEmpty is nil for "": GitLab sends null for absent avatars.
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// HookTime renders as the webhook documentation writes record timestamps:
// UTC, whole seconds, "Z" ("2013-12-03T17:15:43Z").
type HookTime struct{ time.Time }

const hookTimeLayout = "2006-01-02T15:04:05Z"

func (t HookTime) MarshalJSON() ([]byte, error) {
	return []byte(`"` + t.UTC().Format(hookTimeLayout) + `"`), nil
}
