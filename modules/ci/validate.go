package ci

import (
	"regexp"
	"unicode/utf8"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// variableKey is GitLab's HasVariable key format.
var variableKey = regexp.MustCompile(`^[a-zA-Z0-9_]+$`)

// maskable is GitLab's Ci::Maskable::REGEX: one line of at least eight
// characters of the Base64 alphabet plus @ : . ~ (no spaces).
var maskable = regexp.MustCompile(`^[a-zA-Z0-9_+=/@:.~-]{8,}$`)

// validateVariable applies GitLab's model validations.
func validateVariable(v *domain.Variable) error {
	f := core.FieldErrors{}
	switch {
	case v.Key == "":
		f.Add("key", "can't be blank")
	case utf8.RuneCountInString(v.Key) > 255:
		f.Add("key", "is too long (maximum is 255 characters)")
	}
	if v.Key != "" && !variableKey.MatchString(v.Key) {
		f.Add("key", "can contain only letters, digits and '_'.")
	}
	if v.Masked && !maskable.MatchString(v.Value) {
		f.Add("value", "is invalid")
	}
	return f.Err()
}

// keyTaken is GitLab's uniqueness message for a key.
func keyTaken(key string) error {
	return core.Validation(map[string][]string{"key": {"(" + key + ") has already been taken"}})
}

// pipeline list parameter values (Grape's values:).
var (
	pipelineScopes   = []string{"running", "pending", "finished", "branches", "tags"}
	pipelineStatuses = []string{"created", "pending", "running", "success", "failed", "canceled", "skipped", "manual"}
	pipelineOrders   = []string{"id", "status", "ref", "user_id"}
	sortOrders       = []string{"asc", "desc"}
)

// filter checks the list parameters and turns them into the store's
// filter.
func (in ListInput) filter() (domain.PipelineFilter, error) {
	p := in.Problems
	p.OneOf("scope", in.Scope, pipelineScopes...)
	p.OneOf("status", in.Status, pipelineStatuses...)
	p.OneOf("order_by", in.OrderBy, pipelineOrders...)
	p.OneOf("sort", in.Sort, sortOrders...)
	if err := p.Err(); err != nil {
		return domain.PipelineFilter{}, err
	}
	f := domain.PipelineFilter{Ref: deref(in.Ref), SHA: deref(in.SHA), YAMLErrors: in.YAMLErrors,
		Username: deref(in.Username), Name: deref(in.Name), Scope: deref(in.Scope), Status: domain.CIStatus(deref(in.Status)),
		OrderBy: deref(in.OrderBy), Page: in.Page}
	if f.OrderBy == "" {
		f.OrderBy = "id"
	}
	f.Ascending = in.Sort != nil && *in.Sort == "asc"
	return f, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
