package repository_test

import (
	"context"
	"fmt"
	"time"

	"github.com/hearth-forge/hearth/core/domain"
)

// Repositories seeded through the git backend, and the JSON the tests read.

// seedCommit writes one commit creating or updating path on branch through
// the git backend (starting from start when branch is new) and returns it.
func (s *repoServer) seedCommit(projectID int64, branch, start, path, content string) domain.Commit {
	s.T.Helper()
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
		s.T.Fatalf("commit %s on %s: %v", path, branch, err)
	}
	return c
}

// branchHead reads a branch head straight from the backend.
func (s *repoServer) branchHead(projectID int64, name string) (string, bool) {
	s.T.Helper()
	b, err := s.Repos.Branch(context.Background(), domain.RepoPath(projectID), name)
	if err != nil {
		return "", false
	}
	return b.Commit.ID, true
}

// seedBranch points a new branch at sha through the backend.
func (s *repoServer) seedBranch(projectID int64, name, sha string) {
	s.T.Helper()
	if err := s.Repos.UpdateRef(context.Background(), domain.RepoPath(projectID), domain.BranchPrefix+name, sha, domain.ZeroID); err != nil {
		s.T.Fatalf("branch %s: %v", name, err)
	}
}

// seedTag makes a tag through the backend (annotated when message is set).
func (s *repoServer) seedTag(projectID int64, name, target, message string) domain.Tag {
	s.T.Helper()
	tg, err := s.Repos.CreateTag(context.Background(), domain.RepoPath(projectID), name, target, message,
		domain.Signature{Name: "Tagger", Email: "tagger@example.com", When: time.Now().UTC().Truncate(time.Second)})
	if err != nil {
		s.T.Fatalf("tag %s: %v", name, err)
	}
	return tg
}

// seeded is a seeded project: master has c1 then c2; merged-old points
// at c1 (merged), same-head at c2 (not merged: same head), feature/x has
// c3 on top of c2 (not merged), release-1 at c1 (merged, protected by the
// wildcard rule release-*).
type seeded struct {
	id         int64
	c1, c2, c3 domain.Commit
}

// seed creates a project of the given visibility and its repository.
func (s *repoServer) seed(name, visibility string) seeded {
	s.T.Helper()
	r := seeded{id: s.projectID(name, visibility)}
	r.c1 = s.seedCommit(r.id, "master", "", "README.md", "hello\n")
	r.c2 = s.seedCommit(r.id, "master", "", "README.md", "hello again\n")
	s.seedBranch(r.id, "merged-old", r.c1.ID)
	s.seedBranch(r.id, "same-head", r.c2.ID)
	r.c3 = s.seedCommit(r.id, "feature/x", "master", "feature.txt", "x\n")
	s.seedBranch(r.id, "release-1", r.c1.ID)
	s.protect(r.id, "release-*", false)
	return r
}

// team is a private seeded project with a member at every level and a
// signed-in stranger.
type team struct {
	seeded
	guest, reporter, dev, master, stranger string
	devID                                  int64
}

func newTeam(s *repoServer, name string) team {
	s.T.Helper()
	tm := team{seeded: s.seed(name, "private")}
	levels := []struct {
		tok   *string
		level domain.AccessLevel
	}{{&tm.guest, domain.Guest}, {&tm.reporter, domain.Reporter}, {&tm.dev, domain.Developer}, {&tm.master, domain.Master}}
	for i, l := range levels {
		id, tok := s.User(fmt.Sprintf("%s-u%d", name, i))
		*l.tok = tok
		s.member(tm.id, id, l.level)
		if l.level == domain.Developer {
			tm.devID = id
		}
	}
	_, tm.stranger = s.User(name + "-stranger")
	return tm
}

// commitReply is the commit JSON the tests read (inside branches and tags,
// and from the commits API, where stats may come along).
type commitReply struct {
	ID             string    `json:"id"`
	ShortID        string    `json:"short_id"`
	Title          string    `json:"title"`
	Message        string    `json:"message"`
	ParentIDs      []string  `json:"parent_ids"`
	AuthorName     string    `json:"author_name"`
	AuthorEmail    string    `json:"author_email"`
	AuthoredDate   time.Time `json:"authored_date"`
	CommitterName  string    `json:"committer_name"`
	CommitterEmail string    `json:"committer_email"`
	CommittedDate  time.Time `json:"committed_date"`
	CreatedAt      time.Time `json:"created_at"`
	Stats          *struct {
		Additions, Deletions, Total int
	} `json:"stats"`
}

// branchReply is the Branch JSON the tests read.
type branchReply struct {
	Name               string      `json:"name"`
	Merged             bool        `json:"merged"`
	Protected          bool        `json:"protected"`
	DevelopersCanPush  bool        `json:"developers_can_push"`
	DevelopersCanMerge bool        `json:"developers_can_merge"`
	Commit             commitReply `json:"commit"`
}

// tagReply is the Tag JSON the tests read.
type tagReply struct {
	Name    string      `json:"name"`
	Message *string     `json:"message"`
	Commit  commitReply `json:"commit"`
	Release *struct {
		TagName     string `json:"tag_name"`
		Description string `json:"description"`
	} `json:"release"`
}

// action is one action of a multi-file commit body.
type action map[string]string

// commitBody is a multi-file commit request.
func commitBody(branch, msg string, actions ...action) map[string]any {
	return map[string]any{"branch": branch, "commit_message": msg, "actions": actions}
}

// commit posts a multi-file commit as token and wants a 201.
func (s *repoServer) commit(token string, projectID int64, body map[string]any) commitReply {
	s.T.Helper()
	var c commitReply
	s.Expect(201, "POST", fmt.Sprintf("/projects/%d/repository/commits", projectID), token, body).Decode(s.T, &c)
	return c
}
