package runner

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
)

var hexSHA = regexp.MustCompile(`^[0-9a-f]{40}$`)

// gitArgs checks what the server sent before any of it reaches git: the
// SHA is 40 hex digits, the URL is an http(s) URL with a host, refspecs
// are plain refspecs; everything from the server follows "--".
func gitArgs(job *Job) (fetch []string, sha string, err error) {
	gi := job.GitInfo
	sha = strings.ToLower(gi.Sha)
	if !hexSHA.MatchString(sha) {
		return nil, "", fmt.Errorf("invalid commit SHA %q", gi.Sha)
	}
	u, err := url.Parse(gi.RepoURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.HasPrefix(gi.RepoURL, "-") {
		return nil, "", errors.New("invalid repository URL")
	}
	fetch = []string{"-c", "credential.helper=", "-c", "core.askPass=", "fetch", "--no-tags", "--no-recurse-submodules"}
	if gi.Depth > 0 {
		fetch = append(fetch, "--depth", strconv.Itoa(gi.Depth))
	}
	fetch = append(fetch, "--", gi.RepoURL)
	refspecs := gi.Refspecs
	if len(refspecs) == 0 {
		refspecs = []string{"+" + sha}
	}
	for _, r := range refspecs {
		if r == "" || strings.HasPrefix(r, "-") || strings.ContainsAny(r, "\x00\n\r ") {
			return nil, "", fmt.Errorf("invalid refspec %q", r)
		}
		fetch = append(fetch, r)
	}
	return fetch, sha, nil
}

// gitEnv is all git gets from the runner: no prompt, no system config.
func gitEnv() []string {
	env := []string{"GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C"}
	for _, k := range []string{"PATH", "HOME"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// gitSources fetches the job's refspecs into projectDir and checks out
// its SHA. A broken work tree is wiped and fetched again once. The job's
// GIT_STRATEGY variable works as in gitlab-runner: "none" leaves the
// directory alone, "clone" starts from an empty one, "fetch" (the
// default) reuses it.
func (j *jobRun) gitSources(projectDir string, env []string) error {
	fetch, sha, err := gitArgs(j.job)
	if err != nil {
		return err
	}
	switch strategy := envValue(env, "GIT_STRATEGY"); strategy {
	case "none":
		j.printf("Skipping Git repository setup (GIT_STRATEGY=none)")
		return nil
	case "clone":
		if err := os.RemoveAll(projectDir); err != nil {
			return fmt.Errorf("clean the work tree: %w", err)
		}
		if err := os.MkdirAll(projectDir, 0o700); err != nil {
			return err
		}
	case "", "fetch":
	default:
		return fmt.Errorf("unknown GIT_STRATEGY %q", strategy)
	}
	p := proc{dir: projectDir, env: gitEnv(), out: j.trace, grace: j.r.KillGrace}
	git := func(args ...string) error {
		code, err := p.run(j.workCtx, "git", args...)
		if err != nil {
			return err
		}
		if code != 0 {
			return fmt.Errorf("exit code %d", code)
		}
		return nil
	}
	attempt := func() error {
		if err := git("init", "-q"); err != nil {
			return fmt.Errorf("git init: %w", err)
		}
		j.printf("Fetching changes with git depth set to %d...", j.job.GitInfo.Depth)
		if err := git(fetch...); err != nil {
			return fmt.Errorf("git fetch: %w", err)
		}
		j.printf("Checking out %s as %s...", sha[:8], j.job.GitInfo.Ref)
		if err := git("-c", "advice.detachedHead=false", "checkout", "-f", "-q", sha); err != nil {
			return fmt.Errorf("git checkout: %w", err)
		}
		if err := git("clean", "-ffdxq"); err != nil {
			return fmt.Errorf("git clean: %w", err)
		}
		return nil
	}
	err = attempt()
	if err == nil || j.workCtx.Err() != nil {
		return err
	}
	j.printf("\x1b[33;1mWARNING: %v; retrying in a fresh directory\x1b[0;m", err)
	if rmErr := os.RemoveAll(projectDir); rmErr != nil {
		return fmt.Errorf("%w (and removing the work tree: %v)", err, rmErr)
	}
	if mkErr := os.MkdirAll(projectDir, 0o700); mkErr != nil {
		return mkErr
	}
	return attempt()
}
