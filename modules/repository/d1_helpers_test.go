package repository_test

import (
	"context"
	"testing"
	"time"

	"github.com/hearth-forge/hearth/app/apptest"
	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/core/domain"
)

// d1Backend picks the git backend ("gitcli" or "gogit").
// d1Server is a running Hearth for the branch and tag API tests.
type d1Server struct{ *repoServer }

func newD1(t *testing.T, opts ...apptest.Option) *d1Server {
	return &d1Server{newRepoServer(t, opts...)}
}

func d1Backend(name string) apptest.Option {
	return apptest.Configure(func(c *config.Config) { c.Git.Backend = name })
}

// d1Variant is a storage and git backend pairing, as the app's API suite
// runs them: SQLite with gitcli, Postgres with gogit.
type d1Variant struct {
	name string
	opts []apptest.Option
}

func d1Variants() []d1Variant {
	return []d1Variant{
		{"sqlite-gitcli", []apptest.Option{d1Backend("gitcli")}},
		{"postgres-gogit", []apptest.Option{apptest.Postgres(), d1Backend("gogit")}},
	}
}

// commit writes one commit creating or updating path on branch through
// the git backend (starting from start when branch is new) and returns it.
func (s *d1Server) commit(projectID int64, branch, start, path, content string) domain.Commit {
	s.t.Helper()
	repo := domain.RepoPath(projectID)
	action := domain.FileCreate
	if _, err := s.Repos.File(context.Background(), repo, branch, path); err == nil {
		action = domain.FileUpdate
	}
	sig := domain.Signature{Name: "Seeder", Email: "seeder@example.com", When: time.Now().UTC().Truncate(time.Second)}
	c, err := s.Repos.CommitFiles(context.Background(), repo, domain.CommitFiles{
		Branch: branch, StartBranch: start, Message: "Change " + path + "\n\nbody of the message",
		Author: sig, Committer: sig,
		Actions: []domain.FileAction{{Action: action, Path: path, Content: []byte(content)}},
	})
	if err != nil {
		s.t.Fatalf("commit %s on %s: %v", path, branch, err)
	}
	return c
}

// branchHead reads a branch head straight from the backend.
func (s *d1Server) branchHead(projectID int64, name string) (string, bool) {
	s.t.Helper()
	b, err := s.Repos.Branch(context.Background(), domain.RepoPath(projectID), name)
	if err != nil {
		return "", false
	}
	return b.Commit.ID, true
}

// branch points a new branch at sha through the backend.
func (s *d1Server) branch(projectID int64, name, sha string) {
	s.t.Helper()
	if err := s.Repos.UpdateRef(context.Background(), domain.RepoPath(projectID), domain.BranchPrefix+name, sha, domain.ZeroID); err != nil {
		s.t.Fatalf("branch %s: %v", name, err)
	}
}

// d1Repo is a seeded project: master has c1 then c2; merged-old points
// at c1 (merged), same-head at c2 (not merged: same head), feature/x has
// c3 on top of c2 (not merged), release-1 at c1 (merged, protected by the
// wildcard rule release-*).
type d1Repo struct {
	id         int64
	c1, c2, c3 domain.Commit
}

// seed creates a project of the given visibility and its repository.
func (s *d1Server) seed(name, visibility string) d1Repo {
	s.t.Helper()
	r := d1Repo{id: s.projectID(name, visibility)}
	r.c1 = s.commit(r.id, "master", "", "README.md", "hello\n")
	r.c2 = s.commit(r.id, "master", "", "README.md", "hello again\n")
	s.branch(r.id, "merged-old", r.c1.ID)
	s.branch(r.id, "same-head", r.c2.ID)
	r.c3 = s.commit(r.id, "feature/x", "master", "feature.txt", "x\n")
	s.branch(r.id, "release-1", r.c1.ID)
	s.protect(r.id, "release-*", false)
	return r
}

// d1Branch is the Branch JSON the tests read.
type d1Branch struct {
	Name               string   `json:"name"`
	Merged             bool     `json:"merged"`
	Protected          bool     `json:"protected"`
	DevelopersCanPush  bool     `json:"developers_can_push"`
	DevelopersCanMerge bool     `json:"developers_can_merge"`
	Commit             d1Commit `json:"commit"`
}

// d1Commit is the commit JSON inside branches and tags.
type d1Commit struct {
	ID             string   `json:"id"`
	ShortID        string   `json:"short_id"`
	Title          string   `json:"title"`
	Message        string   `json:"message"`
	ParentIDs      []string `json:"parent_ids"`
	AuthorName     string   `json:"author_name"`
	AuthorEmail    string   `json:"author_email"`
	AuthoredDate   string   `json:"authored_date"`
	CommitterName  string   `json:"committer_name"`
	CommitterEmail string   `json:"committer_email"`
	CommittedDate  string   `json:"committed_date"`
	CreatedAt      string   `json:"created_at"`
}

// d1Tag is the Tag JSON the tests read.
type d1Tag struct {
	Name    string   `json:"name"`
	Message *string  `json:"message"`
	Commit  d1Commit `json:"commit"`
	Release *struct {
		TagName     string `json:"tag_name"`
		Description string `json:"description"`
	} `json:"release"`
}
