package doctor

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// The fakes implement what a run of two projects asks; the embedded
// interfaces are nil, so any other call panics.

type fakeSchema struct{ st ports.SchemaStatus }

func (f fakeSchema) SchemaStatus(context.Context) (ports.SchemaStatus, error) { return f.st, nil }

type fakeNamespaces struct{ ports.NamespaceStore }

func (fakeNamespaces) Get(_ context.Context, id int64) (*domain.Namespace, error) {
	return &domain.Namespace{ID: id, FullPath: "g"}, nil
}

type fakeProjects struct {
	ports.ProjectStore
	list []domain.Project
}

func (f fakeProjects) List(_ context.Context, pf domain.ProjectFilter) ([]domain.Project, int, error) {
	if !pf.Readable.All || pf.Page.Page != 1 {
		return nil, 0, nil
	}
	return f.list, len(f.list), nil
}

type fakeMRs struct{ ports.MergeRequestStore }

func (fakeMRs) List(context.Context, domain.MergeRequestFilter) ([]domain.MergeRequest, int, error) {
	return nil, 0, nil
}

type fakeRefs struct{}

func (fakeRefs) ArtifactsAfter(context.Context, int64, int) ([]domain.Artifact, error) {
	return nil, nil
}
func (fakeRefs) ArchivedTracesAfter(context.Context, int64, int) ([]domain.Job, error) {
	return nil, nil
}

// fakeGit: "projects/1.git" is missing and cannot be created; the check
// of "projects/2.git" never ends by itself.
type fakeGit struct {
	ports.RepoBackend
}

func (fakeGit) Exists(_ context.Context, repo string) (bool, error) {
	return repo != "projects/1.git", nil
}
func (fakeGit) Create(context.Context, string, string) error {
	return errors.New("disk full")
}
func (fakeGit) IsEmpty(context.Context, string) (bool, error) { return true, nil }
func (fakeGit) Fsck(ctx context.Context, _ string) ([]string, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestRunReportsTimeoutAndFailedRepair: a repository check cut short by
// the timeout is a warning; a repair that fails leaves its error counted,
// with the reason; a pending migration is an error naming `hearth migrate`.
func TestRunReportsTimeoutAndFailedRepair(t *testing.T) {
	t.Parallel()
	g := fakeGit{}
	s := NewService(Params{
		Schema:     fakeSchema{ports.SchemaStatus{Known: 3, Pending: []string{"0003"}}},
		Namespaces: fakeNamespaces{}, Projects: fakeProjects{list: []domain.Project{{ID: 1, Path: "a"}, {ID: 2, Path: "b"}}},
		MergeRequests: fakeMRs{}, BlobRefs: fakeRefs{},
		Storage: g, Reader: g, Writer: g, Checker: g, Log: zap.NewNop(),
	})
	rep, err := s.Run(t.Context(), Options{Repair: true, FsckTimeout: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 3 {
		t.Fatalf("problems: %+v, want 3", rep.Problems)
	}
	schema, missing, slow := rep.Problems[0], rep.Problems[1], rep.Problems[2]
	if schema.Severity != Error || !strings.Contains(schema.What, "0003") || !strings.Contains(schema.Fix, "hearth migrate") {
		t.Errorf("schema: %+v", schema)
	}
	if missing.Severity != Error || missing.Repaired != "" || missing.RepairError != "disk full" ||
		!strings.Contains(missing.String(), "the repair failed: disk full") {
		t.Errorf("failed repair: %+v", missing)
	}
	if slow.Severity != Warning || !strings.Contains(slow.What, `"g/b" (id 2)`) || !strings.Contains(slow.What, "did not finish within 20ms") {
		t.Errorf("slow check: %+v", slow)
	}
	if errs, warnings := rep.Remaining(); errs != 2 || warnings != 1 || rep.Repaired() != 0 {
		t.Errorf("remaining %d errors, %d warnings, %d repaired; want 2, 1, 0", errs, warnings, rep.Repaired())
	}
	if !strings.HasSuffix(rep.Summary(), "2 error(s), 1 warning(s) remain") {
		t.Errorf("summary: %s", rep.Summary())
	}
}
