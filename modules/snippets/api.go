package snippets

import (
	"errors"
	"strconv"
	"strings"

	"github.com/hearth-forge/hearth/core"
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

// userAgentDetailJSON is GitLab's UserAgentDetail entity (GitLab names
// the spam check after its vendor).
type userAgentDetailJSON struct {
	UserAgent        string `json:"user_agent"`
	IPAddress        string `json:"ip_address"`
	AkismetSubmitted bool   `json:"akismet_submitted"`
}

// snippetURL links to a snippet under its project's web URL.
func snippetURL(projectWebURL string, id int64) string {
	return projectWebURL + "/snippets/" + strconv.FormatInt(id, 10)
}

// createParams are POST /projects/:id/snippets's parameters.
type createParams struct {
	Title       string  `param:"title,required"`
	FileName    string  `param:"file_name,required"`
	Code        string  `param:"code"`
	Content     string  `param:"content"` // go-gitlab's and later GitLab's name for code
	Visibility  string  `param:"visibility,required"`
	Description *string `param:"description"`
}

// updateParams are PUT /projects/:id/snippets/:snippet_id's parameters;
// at least one must be given.
type updateParams struct {
	Title       *string `param:"title"`
	FileName    *string `param:"file_name"`
	Code        *string `param:"code"`
	Content     *string `param:"content"` // alias of code
	Description *string `param:"description"`
	Visibility  *string `param:"visibility"`
}

// code takes content for code when code is absent; one is required. A
// missing one joins err's request-validation messages.
func (in *createParams) code(err error) error {
	if in.Code == "" {
		in.Code = in.Content
	}
	if strings.TrimSpace(in.Code) != "" {
		return err
	}
	msg := "code is missing"
	var e *core.Error
	if errors.As(err, &e) && e.Param {
		msg = e.Msg + ", " + msg
	} else if err != nil {
		return err
	}
	return &core.Error{Kind: core.ErrInvalid, Param: true, Msg: msg}
}

func (in *updateParams) validate() error {
	if in.Code == nil {
		in.Code = in.Content
	}
	if in.Title == nil && in.FileName == nil && in.Code == nil && in.Description == nil && in.Visibility == nil {
		return &core.Error{Kind: core.ErrInvalid, Param: true,
			Msg: "title, file_name, code, description, visibility are missing, at least one parameter must be provided"}
	}
	return nil
}

// checkVisibility adds Grape's complaint about a visibility outside its
// values (v, when given) to the decoding error err, in one message.
func checkVisibility(err error, v *string) error {
	if v == nil || domain.Visibility(*v).Valid() {
		return err
	}
	msg := "visibility does not have a valid value"
	var e *core.Error
	if errors.As(err, &e) && e.Param {
		msg = e.Msg + ", " + msg
	} else if err != nil {
		return err
	}
	return &core.Error{Kind: core.ErrInvalid, Param: true, Msg: msg}
}

// maxLength is GitLab's limit on snippet titles and file names.
const maxLength = 255

// validate is the snippet model's validation: title, file name and
// content present, title and file name at most 255 characters.
func validate(s *domain.Snippet) error {
	fields := map[string][]string{}
	check := func(field, value string, limited bool) {
		switch {
		case strings.TrimSpace(value) == "":
			fields[field] = []string{"can't be blank"}
		case limited && len([]rune(value)) > maxLength:
			fields[field] = []string{"is too long (maximum is 255 characters)"}
		}
	}
	check("title", s.Title, true)
	check("file_name", s.FileName, true)
	check("content", s.Content, false)
	if len(fields) > 0 {
		return core.Validation(fields)
	}
	return nil
}
