package gitinput

import (
	"strings"

	"github.com/hearth-forge/hearth/adapters/git/gitnames"
	"github.com/hearth-forge/hearth/core/domain"
)

// Transport checks a smart-HTTP service ("git-upload-pack" or
// "git-receive-pack") and the client's Git-Protocol header value, which
// reaches git's environment: short, one word, no control bytes.
func (c Checker) Transport(service, protocol string) error {
	switch service {
	case "git-upload-pack", "git-receive-pack":
	default:
		return c.invalidf("unknown service %q", service)
	}
	if len(protocol) > 256 || domain.HasControl(protocol) || strings.ContainsAny(protocol, " \t") {
		return c.invalidf("invalid Git-Protocol %q", protocol)
	}
	return nil
}

// Session checks a service of a full-duplex session (git over SSH):
// "git-upload-pack" or "git-upload-archive", and the client's
// GIT_PROTOCOL as Transport does.
func (c Checker) Session(service, protocol string) error {
	switch service {
	case "git-upload-pack", "git-upload-archive":
	default:
		return c.invalidf("unknown session service %q", service)
	}
	return c.Transport("git-upload-pack", protocol)
}

// Archive checks an archive format ("tar", "tar.gz", "tar.bz2", "zip") and
// returns prefix as every path of the archive starts with it: clean, with
// a trailing "/" ("" for none).
func (c Checker) Archive(format, prefix string) (string, error) {
	switch format {
	case "tar", "tar.gz", "tar.bz2", "zip":
	default:
		return "", c.invalidf("archive format %q", format)
	}
	if prefix == "" {
		return "", nil
	}
	p, err := gitnames.CleanPath(prefix)
	if err != nil || p == "" || strings.HasPrefix(p, "-") {
		return "", c.invalidf("archive prefix %q", prefix)
	}
	return p + "/", nil
}

// Log checks a history query's paging and returns its clean path ("" for
// the whole tree); the revisions are checked when they are resolved.
func (c Checker) Log(q domain.LogQuery) (string, error) {
	if q.Skip < 0 || q.Limit < 0 {
		return "", c.invalidf("negative skip or limit")
	}
	return gitnames.CleanPath(q.Path)
}

// Diff checks the revisions of a diff: to, and from unless it is "" (to's
// first parent).
func (c Checker) Diff(from, to string) error {
	if err := gitnames.CheckRev(to); err != nil {
		return err
	}
	if from != "" {
		return gitnames.CheckRev(from)
	}
	return nil
}
