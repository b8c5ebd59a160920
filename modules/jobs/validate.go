package jobs

import (
	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// scopeStatuses checks a job list's scope: every value must be one of the
// eight statuses (GitLab's values validator: 400 "scope does not have a
// valid value"). None is every status.
func scopeStatuses(param string, scope []string) ([]domain.CIStatus, error) {
	out := make([]domain.CIStatus, 0, len(scope))
	for _, s := range scope {
		st := domain.CIStatus(s)
		if !st.Valid() {
			return nil, &core.Error{Kind: core.ErrInvalid, Param: true, Msg: param + " does not have a valid value"}
		}
		out = append(out, st)
	}
	return out, nil
}

// Commit status states a client may post.
var postedStates = map[string]bool{"pending": true, "running": true, "success": true, "failed": true, "canceled": true}

// validate checks a posted commit status: state is required and one of
// the five states.
func (in StatusInput) validate() error {
	if in.Invalid != nil {
		return in.Invalid
	}
	if in.State == "" {
		return core.MissingParam("state")
	}
	if !postedStates[in.State] {
		return &core.Error{Kind: core.ErrInvalid, Param: true, Msg: "state does not have a valid value"}
	}
	return nil
}

// statusName is the status's name: name, else context, else "default".
func (in StatusInput) statusName() string {
	switch {
	case in.Name != "":
		return in.Name
	case in.Context != "":
		return in.Context
	}
	return "default"
}
