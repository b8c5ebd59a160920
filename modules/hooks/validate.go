package hooks

import (
	"context"
	"errors"

	"github.com/hearth-forge/hearth/core"
)

// msgInvalidURL is what GitLab's hooks API answers for any url the hook
// model refuses, blocked ones included (lib/api/project_hooks.rb:
// error!("Invalid url given", 422) if hook.errors[:url].present?). The
// guard's reason ("is blocked: ...") stays the error's cause, for logs.
const msgInvalidURL = "Invalid url given"

// checkURL runs the guard on a hook URL. A refusal (the port's
// unprocessable url error) is GitLab's 422 {"message":"Invalid url
// given"}; anything else (a cancelled request) is returned as is.
func (s *Service) checkURL(ctx context.Context, raw *string) error {
	url := ""
	if raw != nil {
		url = *raw
	}
	err := s.p.Guard.CheckURL(ctx, url)
	if err == nil {
		return nil
	}
	if errors.Is(err, core.ErrUnprocessable) && core.Fields(err)["url"] != nil {
		return core.Wrap(core.ErrUnprocessable, msgInvalidURL, err)
	}
	return err
}
