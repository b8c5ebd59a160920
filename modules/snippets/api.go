package snippets

import (
	"strconv"

	"github.com/hearth-forge/hearth/core/apijson"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// snippetJSON is GitLab's project snippet entity; the content is only
// served by raw.
type snippetJSON struct {
	ID          int64              `json:"id"`
	Title       string             `json:"title"`
	FileName    string             `json:"file_name"`
	Description string             `json:"description"`
	Author      *apijson.UserBasic `json:"author"`
	UpdatedAt   httpx.Time         `json:"updated_at"`
	CreatedAt   httpx.Time         `json:"created_at"`
	ProjectID   int64              `json:"project_id"`
	WebURL      string             `json:"web_url"`
	ExpiresAt   *httpx.Time        `json:"expires_at"`
	Visibility  string             `json:"visibility"`
}

func newSnippetJSON(sn domain.Snippet, author *apijson.UserBasic, projectURL string) snippetJSON {
	return snippetJSON{ID: sn.ID, Title: sn.Title, FileName: sn.FileName, Description: sn.Description,
		Author: author, UpdatedAt: httpx.TimeOf(sn.UpdatedAt), CreatedAt: httpx.TimeOf(sn.CreatedAt),
		ProjectID: sn.ProjectID, WebURL: projectURL + "/snippets/" + strconv.FormatInt(sn.ID, 10),
		ExpiresAt: httpx.TimePtr(sn.ExpiresAt), Visibility: string(sn.Visibility)}
}

// userAgentDetailJSON is GitLab's UserAgentDetail entity (GitLab names
// the spam check after its vendor).
type userAgentDetailJSON struct {
	UserAgent        string `json:"user_agent"`
	IPAddress        string `json:"ip_address"`
	AkismetSubmitted bool   `json:"akismet_submitted"`
}

func newUserAgentDetailJSON(sn *domain.Snippet) userAgentDetailJSON {
	return userAgentDetailJSON{UserAgent: sn.UserAgent, IPAddress: sn.IPAddress, AkismetSubmitted: sn.AkismetSubmitted}
}

// The inputs below carry what decoding the request found wrong
// (Invalid): the use case reports it after the project's 404, in the
// order this API has always answered.

// ListInput is GET /projects/:id/snippets's page.
type ListInput struct {
	Page    domain.Page
	Invalid error
}

// CreateInput are POST /projects/:id/snippets's parameters.
type CreateInput struct {
	Title       string  `param:"title,required"`
	FileName    string  `param:"file_name,required"`
	Code        string  `param:"code"`
	Content     string  `param:"content"` // go-gitlab's and later GitLab's name for code
	Visibility  string  `param:"visibility,required"`
	Description *string `param:"description"`
	Invalid     error
}

// UpdateInput are PUT /projects/:id/snippets/:snippet_id's parameters;
// at least one must be given.
type UpdateInput struct {
	Title       *string `param:"title"`
	FileName    *string `param:"file_name"`
	Code        *string `param:"code"`
	Content     *string `param:"content"` // alias of code
	Description *string `param:"description"`
	Visibility  *string `param:"visibility"`
	Invalid     error
}

// personalSnippetJSON is GitLab 9.x's PersonalSnippet entity: the
// project snippet's fields (project_id null) and raw_url.
type personalSnippetJSON struct {
	ID          int64              `json:"id"`
	Title       string             `json:"title"`
	FileName    string             `json:"file_name"`
	Description string             `json:"description"`
	Author      *apijson.UserBasic `json:"author"`
	UpdatedAt   httpx.Time         `json:"updated_at"`
	CreatedAt   httpx.Time         `json:"created_at"`
	ProjectID   *int64             `json:"project_id"`
	WebURL      string             `json:"web_url"`
	RawURL      string             `json:"raw_url"`
}

func newPersonalSnippetJSON(sn domain.Snippet, author *apijson.UserBasic, base string) personalSnippetJSON {
	web := base + "/snippets/" + strconv.FormatInt(sn.ID, 10)
	return personalSnippetJSON{ID: sn.ID, Title: sn.Title, FileName: sn.FileName, Description: sn.Description,
		Author: author, UpdatedAt: httpx.TimeOf(sn.UpdatedAt), CreatedAt: httpx.TimeOf(sn.CreatedAt),
		WebURL: web, RawURL: web + "/raw"}
}

// PersonalCreateInput are POST /snippets's parameters.
type PersonalCreateInput struct {
	Title       string  `param:"title,required"`
	FileName    string  `param:"file_name,required"`
	Content     string  `param:"content,required"`
	Description *string `param:"description"`
	Visibility  *string `param:"visibility"`
	Invalid     error
}

// PersonalUpdateInput are PUT /snippets/:id's parameters; at least one
// must be given.
type PersonalUpdateInput struct {
	Title       *string `param:"title"`
	FileName    *string `param:"file_name"`
	Content     *string `param:"content"`
	Description *string `param:"description"`
	Visibility  *string `param:"visibility"`
	Invalid     error
}
