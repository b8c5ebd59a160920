package gitcli

import "errors"

var errNotCommit = errors.New("not a commit")
