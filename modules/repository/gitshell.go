package repository

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// Git over SSH. The SSH server (adapters/ssh/sshserver) signs the client
// in by key and hands the command to GitShell, which applies the rules git
// over HTTP applies: OpenGit's access check, then the same receive path
// (push rules, the checked receiver, push events, the first push's
// default branch). Only the transport differs: SSH carries one
// full-duplex session instead of stateless requests.

// uploadArchive is `git archive --remote`'s service.
const uploadArchive = "git-upload-archive"

// Messages of git over SSH, which gitlab-shell prints as "GitLab: ...".
const (
	msgDisallowedCommand = "Disallowed command"
	msgDeployKeyPush     = "This deploy key does not have write access to this project."
	msgNoSSHTransport    = "The git backend in use cannot serve git over SSH."
)

var _ ports.GitShell = GitShell{}

// GitShell is the repository module's ports.GitShell.
type GitShell struct{ s *Service }

// NewGitShell returns the git shell over the repository service.
func NewGitShell(s *Service) ports.GitShell { return GitShell{s: s} }

// Welcome is gitlab-shell's greeting, naming the user, or "Anonymous" for
// a deploy key.
func (GitShell) Welcome(c *domain.Caller) string {
	name := "Anonymous"
	if c != nil && c.User != nil {
		name = "@" + c.User.Username
	}
	return "Welcome to Hearth, " + name + "!\n"
}

// Run runs one git command of an SSH client and returns its exit status.
func (g GitShell) Run(ctx context.Context, caller *domain.Caller, command, protocol string, stdin io.Reader, stdout, stderr io.Writer) int {
	refuse := func(msg string) int {
		_, _ = fmt.Fprintf(stderr, "GitLab: %s\n", msg)
		return 1
	}
	service, path, err := parseGitCommand(command)
	if err != nil {
		return refuse(msgDisallowedCommand)
	}
	open := service
	if service == uploadArchive {
		open = uploadPack // archives are reads: download_code
	}
	repo, err := g.s.OpenGit(ctx, caller, path, open)
	if err != nil {
		return refuse(g.refusal(err, caller, service))
	}
	switch service {
	case receivePack:
		err = repo.receiveSession(ctx, protocol, stdin, stdout)
	default:
		st, ok := g.s.p.Transport.(ports.SessionTransport)
		if !ok {
			return refuse(msgNoSSHTransport)
		}
		err = st.ServeSession(ctx, repoOf(repo.t.Project), service, protocol, stdin, stdout)
	}
	var denied pushDenied
	switch {
	case err == nil:
		return 0
	case errors.As(err, &denied):
		return refuse(string(denied))
	case errors.Is(err, core.ErrNotAllowed), errors.Is(err, core.ErrInvalid), errors.Is(err, core.ErrTooLarge):
		return refuse(rejectText(err))
	case errors.Is(err, core.ErrUnavailable):
		return refuse("The server is busy; try again shortly.")
	case ctx.Err() != nil:
		return 1 // the client went away
	}
	g.s.log.Error("git ssh: "+service, zap.String("project", path), zap.Error(err))
	return refuse("Internal error")
}

// refusal is what an SSH client is told when OpenGit refused: the
// project's 404 for whatever the caller may not see, the reason
// otherwise.
func (g GitShell) refusal(err error, caller *domain.Caller, service string) string {
	switch {
	case errors.Is(err, core.ErrForbidden) && service == receivePack && caller != nil && caller.User == nil && caller.DeployKey != nil:
		return msgDeployKeyPush
	case errors.Is(err, core.ErrForbidden):
		return rejectText(err)
	case errors.Is(err, core.ErrNotFound), errors.Is(err, core.ErrUnauthenticated):
		return msgProjectNotFound
	}
	g.s.log.Error("git ssh: open "+service, zap.Error(err))
	return "Internal error"
}

// receiveSession serves a push over SSH: the ref advertisement, then the
// command list and pack the client sends after it, through the same
// checked receiver as git over HTTP. The stateless form is the same
// exchange: a push has no negotiation, so what follows the advertisement
// is exactly an HTTP push request's body. The receiver sees the pack
// before deciding (no early refusal as over HTTP), so that a refused
// push's pack is read to its end and the client gets git's report rather
// than a closed connection.
func (g *GitRepo) receiveSession(ctx context.Context, protocol string, in io.Reader, out io.Writer) error {
	if _, ok := g.s.p.Transport.(ports.CheckedReceiver); !ok {
		return &core.Error{Kind: core.ErrNotAllowed, Msg: msgNoSSHTransport}
	}
	if err := g.AdvertiseRefs(ctx, protocol, out); err != nil {
		return err
	}
	counted := &countingReader{r: in}
	push, err := readPushCommands(counted)
	if err != nil {
		if counted.n == 0 {
			return nil // the client hung up after the advertisement (nothing to push)
		}
		return err
	}
	if len(push.commands) == 0 {
		return nil // a flush alone: nothing to push
	}
	return g.receive(ctx, push, protocol, in, out, false)
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// parseGitCommand reads an SSH command strictly: one of git's three
// services (also in its "git upload-pack" spelling) and one path, single
// quoted as git sends it or bare, naming group/project with or without a
// leading "/" and a trailing ".git". Nothing else passes: no options, no
// second argument, no "..", no segment starting with "-".
func parseGitCommand(command string) (service, path string, err error) {
	verb, arg, ok := strings.Cut(command, " ")
	if ok && verb == "git" {
		var sub string
		sub, arg, ok = strings.Cut(arg, " ")
		verb = "git-" + sub
	}
	if !ok {
		return "", "", errors.New("no argument")
	}
	switch verb {
	case uploadPack, receivePack, uploadArchive:
	default:
		return "", "", fmt.Errorf("command %q", verb)
	}
	path, err = unquoteArg(arg)
	if err != nil {
		return "", "", err
	}
	path = strings.TrimPrefix(path, "/")
	path = strings.TrimSuffix(strings.TrimSuffix(path, "/"), ".git")
	segs := strings.Split(path, "/")
	if len(segs) < 2 || len(segs) > maxGitNamespaceDepth+1 {
		return "", "", errors.New("not a project path")
	}
	for _, s := range segs {
		if s == "" || s == "." || s == ".." || strings.HasPrefix(s, "-") || strings.HasPrefix(s, "~") ||
			strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '\\' }) {
			return "", "", fmt.Errorf("bad path segment %q", s)
		}
	}
	return verb, path, nil
}

// unquoteArg undoes git's sq_quote on the one argument of an SSH command
// (the argument in single quotes; a single quote in it closes the quotes,
// comes backslash-escaped and reopens them), or takes a bare word of path
// characters.
func unquoteArg(arg string) (string, error) {
	if !strings.HasPrefix(arg, "'") {
		if arg == "" || strings.ContainsAny(arg, " \t'\"\\$`;&|<>(){}*?!#") {
			return "", errors.New("unquoted argument with shell characters")
		}
		return arg, nil
	}
	var b strings.Builder
	for rest := arg; rest != ""; {
		if !strings.HasPrefix(rest, "'") {
			return "", errors.New("text outside quotes")
		}
		end := strings.IndexByte(rest[1:], '\'')
		if end < 0 {
			return "", errors.New("unterminated quote")
		}
		b.WriteString(rest[1 : 1+end])
		rest = rest[2+end:]
		if rest == "" {
			break
		}
		if !strings.HasPrefix(rest, `\''`) {
			return "", errors.New("more than one argument")
		}
		b.WriteByte('\'')
		rest = rest[2:]
	}
	return b.String(), nil
}
