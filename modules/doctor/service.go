package doctor

import (
	"context"
	"fmt"
	"io"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core/ports"
)

// Params are the Service's dependencies.
type Params struct {
	fx.In
	Schema            ports.SchemaInspector
	Namespaces        ports.NamespaceStore
	Projects          ports.ProjectStore
	MergeRequests     ports.MergeRequestStore
	ProtectedBranches ports.ProtectedBranchStore
	Artifacts         ports.ArtifactStore
	BlobRefs          ports.BlobReferences
	Blobs             ports.BlobStore
	Storage           ports.RepoStorage
	Reader            ports.RepoReader
	Writer            ports.RepoWriter
	Checker           ports.RepoChecker
	Log               *zap.Logger
}

// Service runs the checks.
type Service struct{ p Params }

// NewService builds the Service.
func NewService(p Params) *Service { return &Service{p: p} }

// Options say how a run goes.
type Options struct {
	// Repair applies the fixes that lose nothing (see the package doc).
	Repair bool
	// FsckTimeout bounds the check of one repository (0: DefaultFsckTimeout).
	FsckTimeout time.Duration
}

// DefaultFsckTimeout bounds the check of one repository.
const DefaultFsckTimeout = 10 * time.Minute

// Severity says how bad a problem is: errors break something, warnings
// are worth a look but may be intended.
type Severity string

const (
	Error   Severity = "error"
	Warning Severity = "warning"
)

// Problem is one disagreement found, with the fix to apply.
type Problem struct {
	Severity Severity
	// What is wrong, naming the project, merge request, job or migration.
	What string
	// Fix is what an operator does about it.
	Fix string
	// Repaired, when set, says what Repair did: the problem is gone.
	Repaired string
	// RepairError says why a repair that was tried failed.
	RepairError string
}

// Report is a run's outcome.
type Report struct {
	Problems []Problem
	// What was looked at.
	Projects, MergeRequests, Artifacts, Traces int
}

// Remaining counts the problems not repaired, by severity.
func (r *Report) Remaining() (errs, warnings int) {
	for _, p := range r.Problems {
		switch {
		case p.Repaired != "":
		case p.Severity == Error:
			errs++
		default:
			warnings++
		}
	}
	return errs, warnings
}

// Repaired counts the problems Repair fixed.
func (r *Report) Repaired() int {
	n := 0
	for _, p := range r.Problems {
		if p.Repaired != "" {
			n++
		}
	}
	return n
}

// run is one Run's state.
type run struct {
	s    *Service
	opt  Options
	rep  *Report
	repo map[int64]*repoState // by project ID
}

// problem records a problem; repair, when not nil and the run repairs,
// is tried at once and says what it did.
func (r *run) problem(ctx context.Context, sev Severity, what, fix string, repair func(context.Context) (string, error)) {
	p := Problem{Severity: sev, What: what, Fix: fix}
	if repair != nil && r.opt.Repair {
		done, err := repair(ctx)
		if err != nil {
			p.RepairError = err.Error()
			r.s.p.Log.Warn("repair failed", zap.String("problem", what), zap.Error(err))
		} else {
			p.Repaired = done
		}
	}
	r.rep.Problems = append(r.rep.Problems, p)
}

// Run checks everything once; the error is for a check that could not
// run at all (the database is down), problems are in the Report.
func (s *Service) Run(ctx context.Context, opt Options) (*Report, error) {
	if opt.FsckTimeout <= 0 {
		opt.FsckTimeout = DefaultFsckTimeout
	}
	r := &run{s: s, opt: opt, rep: &Report{}, repo: map[int64]*repoState{}}
	for _, check := range []func(context.Context) error{r.schema, r.repositories, r.mergeRequests, r.blobs} {
		if err := check(ctx); err != nil {
			return r.rep, fmt.Errorf("doctor: %w", err)
		}
	}
	return r.rep, nil
}

// Write prints one line per problem and the summary line.
func (r *Report) Write(w io.Writer) error {
	for _, p := range r.Problems {
		if _, err := fmt.Fprintln(w, p.String()); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintln(w, r.Summary())
	return err
}

// String is the problem's line: severity, what is wrong and the fix, or
// what the repair did.
func (p Problem) String() string {
	switch {
	case p.Repaired != "":
		return fmt.Sprintf("repaired: %s -- %s", p.What, p.Repaired)
	case p.RepairError != "":
		return fmt.Sprintf("%s: %s -- fix: %s (the repair failed: %s)", p.Severity, p.What, p.Fix, p.RepairError)
	}
	return fmt.Sprintf("%s: %s -- fix: %s", p.Severity, p.What, p.Fix)
}

// Summary is the report's last line.
func (r *Report) Summary() string {
	checked := fmt.Sprintf("checked %d project(s), %d open merge request(s), %d artifact(s), %d archived trace(s)",
		r.Projects, r.MergeRequests, r.Artifacts, r.Traces)
	errs, warnings := r.Remaining()
	repaired := ""
	if n := r.Repaired(); n > 0 {
		repaired = fmt.Sprintf(", %d repaired", n)
	}
	if errs+warnings == 0 {
		return fmt.Sprintf("%s: no problems found%s", checked, repaired)
	}
	return fmt.Sprintf("%s: %d error(s), %d warning(s) remain%s", checked, errs, warnings, repaired)
}
