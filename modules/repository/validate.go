package repository

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// validRefShortName is domain.ValidShortRefName for names that travel in
// JSON, so valid UTF-8 too.
func validRefShortName(name string) bool {
	return utf8.ValidString(name) && domain.ValidShortRefName(name)
}

// decodeContent turns a text or base64 content parameter into bytes.
func decodeContent(content, encoding, contentName, encodingName string) ([]byte, error) {
	switch encoding {
	case "", "text":
		return []byte(content), nil
	case "base64":
		// Ruby's decode64 ignores line breaks; so do we.
		s := strings.NewReplacer("\n", "", "\r", "").Replace(content)
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			if b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "=")); err != nil {
				return nil, core.InvalidParam(contentName)
			}
		}
		return b, nil
	}
	return nil, &core.Error{Kind: core.ErrInvalid, Param: true, Msg: encodingName + " does not have a valid value"}
}

// fileActions validates a multi-file commit's actions with GitLab's
// messages (Files::MultiService) and decodes their content.
func fileActions(in []CommitAction) ([]domain.FileAction, error) {
	out := make([]domain.FileAction, 0, len(in))
	for i, a := range in {
		if a.FilePath == "" {
			return nil, core.BadRequest("You must specify a file_path.")
		}
		fa := domain.FileAction{Action: a.Action, Path: a.FilePath}
		switch a.Action {
		case domain.FileCreate, domain.FileUpdate:
			if a.Content == nil {
				return nil, core.MissingParam(fmt.Sprintf("actions[%d][content]", i))
			}
		case domain.FileDelete:
		case domain.FileMove:
			if a.PreviousPath == nil || *a.PreviousPath == "" {
				return nil, core.BadRequest(fmt.Sprintf("You must supply the original file path when moving file `%s`.", a.FilePath))
			}
			fa.PreviousPath = *a.PreviousPath
		default:
			return nil, core.BadRequest(fmt.Sprintf("Unknown action type `%s`.", a.Action))
		}
		if a.Content != nil && a.Action != domain.FileDelete {
			b, err := decodeContent(*a.Content, a.Encoding, fmt.Sprintf("actions[%d][content]", i), fmt.Sprintf("actions[%d][encoding]", i))
			if err != nil {
				return nil, err
			}
			fa.Content = b
		}
		out = append(out, fa)
	}
	return out, nil
}

// fileAction validates the single-file write of action and decodes its
// content (deletions carry none).
func fileAction(action, path string, in FileWriteInput) (domain.FileAction, error) {
	fa := domain.FileAction{Action: action, Path: path}
	if action == domain.FileDelete {
		return fa, nil
	}
	if in.Content == nil {
		return fa, core.MissingParam("content")
	}
	b, err := decodeContent(*in.Content, in.Encoding, "content", "encoding")
	if err != nil {
		return fa, err
	}
	fa.Content = b
	return fa, nil
}

// commentLineType is the line_type of a commit comment: "new" by default,
// else "new" or "old".
func commentLineType(lt *string) (string, error) {
	if lt == nil {
		return "new", nil
	}
	if *lt != "new" && *lt != "old" {
		return "", &core.Error{Kind: core.ErrInvalid, Param: true, Msg: "line_type does not have a valid value"}
	}
	return *lt, nil
}

// archiveFormat maps GitLab's archive format names and extensions to the
// backend's format, which is also the served file's extension.
func archiveFormat(name string) (string, bool) {
	switch strings.ToLower(name) {
	case "tar.gz", "tgz", "gz":
		return "tar.gz", true
	case "tar.bz2", "tbz", "tbz2", "tb2", "bz2":
		return "tar.bz2", true
	case "tar":
		return "tar", true
	case "zip":
		return "zip", true
	}
	return "", false
}

// safeFileName keeps an archive name to characters every client accepts
// in a Content-Disposition filename and a tar prefix.
func safeFileName(s string) string {
	return strings.Map(func(c rune) rune {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '-', c == '_':
			return c
		}
		return '-'
	}, s)
}

// check is Grape's `values:` of the contributors list's order_by and sort,
// every problem in one 400 as Grape reports them.
func (in ContributorsInput) check() error {
	var bad []string
	if in.OrderBy != nil && !slices.Contains([]string{"email", "name", "commits"}, *in.OrderBy) {
		bad = append(bad, "order_by does not have a valid value")
	}
	if in.Sort != nil && !slices.Contains([]string{"asc", "desc"}, *in.Sort) {
		bad = append(bad, "sort does not have a valid value")
	}
	if len(bad) == 0 {
		return nil
	}
	return &core.Error{Kind: core.ErrInvalid, Param: true, Msg: strings.Join(bad, ", ")}
}

// levels are the push and merge levels of a new protected branch: 40
// (masters) unless given; 0, 30 and 40 are the levels GitLab knows, and
// Grape names every parameter outside them in one 400.
func (in CreateProtectedBranchInput) levels() (push, merge domain.AccessLevel, err error) {
	var bad []string
	level := func(param string, v *int) domain.AccessLevel {
		if v == nil {
			return domain.Master
		}
		l := domain.AccessLevel(*v)
		if !domain.ValidProtectionLevel(l) {
			bad = append(bad, param+" does not have a valid value")
		}
		return l
	}
	push = level("push_access_level", in.PushAccessLevel)
	merge = level("merge_access_level", in.MergeAccessLevel)
	if len(bad) > 0 {
		return 0, 0, &core.Error{Kind: core.ErrInvalid, Param: true, Msg: strings.Join(bad, ", ")}
	}
	return push, merge, nil
}
