package notes

import "github.com/hearth-forge/hearth/core"

// validate checks the list's order values.
func (in ListInput) validate() error {
	switch in.OrderBy {
	case "", "created_at", "updated_at":
	default:
		return invalid("order_by")
	}
	switch in.Sort {
	case "", "asc", "desc":
	default:
		return invalid("sort")
	}
	return nil
}

// invalid is Grape's complaint about a value outside a parameter's values.
func invalid(name string) error {
	return &core.Error{Kind: core.ErrInvalid, Param: true, Msg: name + " does not have a valid value"}
}

// validateAwardName refuses a name outside the emoji GitLab knows, in its
// AwardEmoji model's words (a blank name is "name is missing" before).
func validateAwardName(name string) error {
	if !knownEmoji[name] {
		return errAwardRefused(`{:name=>["is not included in the list"]}`)
	}
	return nil
}
