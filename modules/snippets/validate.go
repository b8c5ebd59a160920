package snippets

import (
	"errors"
	"strings"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// validate reports the request's problems in Grape's one message: what
// decoding found, code (or content) missing, a visibility outside its
// values. It takes content for code when code is absent.
func (in *CreateInput) validate() error {
	if in.Code == "" {
		in.Code = in.Content
	}
	err := in.Invalid
	if strings.TrimSpace(in.Code) == "" {
		err = joinParam(err, "code is missing")
	}
	var given *string
	if strings.TrimSpace(in.Visibility) != "" {
		given = &in.Visibility
	}
	return checkVisibility(err, given)
}

// validate reports what decoding found and a visibility outside its
// values, then that at least one parameter must be given. It takes
// content for code when code is absent.
func (in *UpdateInput) validate() error {
	if err := checkVisibility(in.Invalid, in.Visibility); err != nil {
		return err
	}
	if in.Code == nil {
		in.Code = in.Content
	}
	if in.Title == nil && in.FileName == nil && in.Code == nil && in.Description == nil && in.Visibility == nil {
		return &core.Error{Kind: core.ErrInvalid, Param: true,
			Msg: "title, file_name, code, description, visibility are missing, at least one parameter must be provided"}
	}
	return nil
}

// apply copies the given fields onto x, trimming title and file name.
func (in *UpdateInput) apply(x *domain.Snippet) {
	if in.Title != nil {
		x.Title = strings.TrimSpace(*in.Title)
	}
	if in.FileName != nil {
		x.FileName = strings.TrimSpace(*in.FileName)
	}
	if in.Code != nil {
		x.Content = *in.Code
	}
	if in.Description != nil {
		x.Description = *in.Description
	}
	if in.Visibility != nil {
		x.Visibility = domain.Visibility(*in.Visibility)
	}
}

// checkVisibility adds Grape's complaint about a visibility outside its
// values (v, when given) to the decoding error err, in one message.
func checkVisibility(err error, v *string) error {
	if v == nil || domain.Visibility(*v).Valid() {
		return err
	}
	return joinParam(err, "visibility does not have a valid value")
}

// joinParam adds msg to err's request-validation messages; an error that
// is not about parameters (an unreadable body) stands alone.
func joinParam(err error, msg string) error {
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

// validate reports what decoding found (missing title, file_name,
// content) and a visibility outside its values, in Grape's one message.
func (in *PersonalCreateInput) validate() error {
	return checkVisibility(in.Invalid, in.Visibility)
}

// validate reports what decoding found and a visibility outside its
// values, then that at least one parameter must be given.
func (in *PersonalUpdateInput) validate() error {
	if err := checkVisibility(in.Invalid, in.Visibility); err != nil {
		return err
	}
	if in.Title == nil && in.FileName == nil && in.Content == nil && in.Description == nil && in.Visibility == nil {
		return &core.Error{Kind: core.ErrInvalid, Param: true,
			Msg: "title, file_name, content, description, visibility are missing, at least one parameter must be provided"}
	}
	return nil
}

// apply copies the given fields onto x, as UpdateInput.apply does.
func (in *PersonalUpdateInput) apply(x *domain.Snippet) {
	(&UpdateInput{Title: in.Title, FileName: in.FileName, Code: in.Content, Description: in.Description,
		Visibility: in.Visibility}).apply(x)
}
