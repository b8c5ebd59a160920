package contracttests

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// seedAuthors builds, with the git CLI, a history by several authors and
// pushes it into the bare repository at path (hours are commit dates):
//
//	a1 ─ b2 ───── a4 ─ m5 ─ B6 ─ s7     main
//	       \           /
//	        c3 ───────┘                 topic
//
// a1 "Ada Lovelace" and a4 "Ada King" <ada@example.com>; b2 Bob
// <bob@example.com>; c3 Carol; m5 a merge by Merger (never a contributor);
// B6 Bob <BOB@example.com> (another email: emails group exactly); s7 Dave,
// dated before its parent (clock skew), so git's date order shows.
func (g repoGit) seedAuthors(path string) {
	g.t.Helper()
	w := g.work()
	by := func(name, email string, h int, file, msg string) {
		w.write(map[string][]byte{file: []byte(msg + "\n")})
		w.g.run(w.dir, "add", "--all")
		w.g.as(name, email).at(h, 0).run(w.dir, "commit", "--quiet", "-m", msg)
	}
	by("Ada Lovelace", "ada@example.com", 1, "a.txt", "a1")
	by("Bob", "bob@example.com", 2, "b.txt", "b2")
	w.git("checkout", "--quiet", "-b", "topic")
	by("Carol", "carol@example.com", 3, "c.txt", "c3")
	w.git("checkout", "--quiet", "main")
	by("Ada King", "ada@example.com", 4, "a.txt", "a4")
	w.g.as("Merger", "merger@example.com").at(5, 0).run(w.dir, "merge", "--quiet", "--no-ff", "-m", "m5", "topic")
	by("Bob", "BOB@example.com", 6, "b.txt", "B6")
	by("Dave", "dave@example.com", 0, "d.txt", "s7")
	w.push(path)
}

// contributorsOf tallies `git log --no-merges` of rev the way the port
// documents, from the git CLI's own output.
func (g repoGit) contributorsOf(path, rev string, limit int) []domain.Contributor {
	g.t.Helper()
	args := []string{"log", "--no-merges", "--no-mailmap", "--format=%an%x00%ae"}
	if limit > 0 {
		args = append(args, fmt.Sprintf("--max-count=%d", limit))
	}
	out := g.bare(path, append(args, rev, "--")...)
	var list []domain.Contributor
	at := map[string]int{}
	for _, line := range strings.Split(out, "\n") {
		name, email, _ := strings.Cut(line, "\x00")
		i, ok := at[email]
		if !ok {
			i = len(list)
			at[email] = i
			list = append(list, domain.Contributor{Email: email, Name: name})
		}
		list[i].Commits++
	}
	return list
}

func repoReadContributors(t *testing.T, r Repo) {
	ctx := t.Context()
	g := newRepoGit(t)
	repoCreate(t, r, "projects/1.git", "main")
	path := repoPath(r, "projects/1.git")
	g.seedAuthors(path)

	str := func(l []domain.Contributor) string {
		var b strings.Builder
		for _, c := range l {
			fmt.Fprintf(&b, "[%s <%s> %d]", c.Name, c.Email, c.Commits)
		}
		return b.String()
	}
	// What GitLab shows for main: newest author first, the name of the
	// newest commit, no merge, BOB@ apart from bob@.
	got, err := r.Backend.Contributors(ctx, "projects/1.git", "main", 0)
	want := "[Dave <dave@example.com> 1][Bob <BOB@example.com> 1][Ada King <ada@example.com> 2][Carol <carol@example.com> 1][Bob <bob@example.com> 1]"
	if err != nil || str(got) != want {
		t.Errorf("Contributors(main) = %s, %v\nwant %s", str(got), err, want)
	}
	for _, tc := range []struct {
		rev   string
		limit int
	}{
		{"main", 0}, {"main", 3}, {"main", 1}, {"main", 100}, {"topic", 0}, {"topic", 2},
		{g.bare(path, "rev-parse", "main~1"), 0}, // the merge itself
	} {
		got, err := r.Backend.Contributors(ctx, "projects/1.git", tc.rev, tc.limit)
		want := g.contributorsOf(path, tc.rev, tc.limit)
		if err != nil || str(got) != str(want) {
			t.Errorf("Contributors(%s, %d) = %s, %v\nwant %s", tc.rev, tc.limit, str(got), err, str(want))
		}
	}

	_, err = r.Backend.Contributors(ctx, "projects/1.git", "nope", 0)
	repoWantErr(t, "Contributors of an unknown revision", err, core.ErrNotFound)
	_, err = r.Backend.Contributors(ctx, "projects/1.git", "--all", 0)
	repoWantErr(t, "Contributors(--all)", err, core.ErrInvalid)
	_, err = r.Backend.Contributors(ctx, "projects/9.git", "main", 0)
	repoWantErr(t, "Contributors of a missing repository", err, core.ErrNotFound)
	repoCreate(t, r, "projects/2.git", "main")
	_, err = r.Backend.Contributors(ctx, "projects/2.git", "main", 0)
	repoWantErr(t, "Contributors of an empty repository", err, core.ErrNotFound)
}
