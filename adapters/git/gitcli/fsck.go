package gitcli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hearth-forge/hearth/core/ports"
)

var _ ports.RepoChecker = (*Backend)(nil)

// maxFsckLines caps how many of fsck's lines a report keeps.
const maxFsckLines = 20

// Fsck runs git fsck on the repository. Dangling objects (left by force
// pushes and deleted branches) are normal and not reported; fsck's
// warnings, which do not fail it, are not either. ctx bounds the run: git
// is killed when it ends.
func (b *Backend) Fsck(ctx context.Context, repo string) ([]string, error) {
	dir, err := b.disk.Open(repo)
	if err != nil {
		return nil, err
	}
	out, err := b.runIn(ctx, dir, "fsck", "--no-progress", "--no-dangling", "--no-reflogs")
	if err == nil {
		return nil, nil
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("gitcli: fsck %s: %w", repo, ctx.Err())
	}
	var ge *gitError
	if exitCode(err) <= 0 || !errors.As(err, &ge) {
		return nil, fmt.Errorf("gitcli: fsck %s: %w", repo, err)
	}
	return fsckLines(string(out) + "\n" + ge.stderr), nil
}

// fsckLines keeps the non-empty lines of fsck's output, spaces
// collapsed and a "broken link from" joined with its "to" line, at most
// maxFsckLines (the last one then says how many more there were).
func fsckLines(out string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		l = strings.Join(strings.Fields(l), " ")
		switch {
		case l == "":
		case strings.HasPrefix(l, "to ") && len(lines) > 0:
			lines[len(lines)-1] += " " + l
		default:
			lines = append(lines, l)
		}
	}
	if len(lines) > maxFsckLines {
		more := len(lines) - maxFsckLines
		lines = append(lines[:maxFsckLines], fmt.Sprintf("... and %d more", more))
	}
	if len(lines) == 0 {
		lines = []string{"git fsck failed without saying why"}
	}
	return lines
}
