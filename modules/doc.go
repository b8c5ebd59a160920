// Package modules holds Hearth's features, one package each (users,
// projects, groups, members, repository, mergerequests, issues, notes,
// snippets, todos, events, meta, hooks for project and system webhooks
// and their delivery, deploykeys for deploy keys and SSH key sign-in,
// broadcasts for the administrators' broadcast messages, and CI: ci
// for pipelines, variables, triggers and the CI lint, jobs for the jobs and commit statuses API,
// runners for the runner protocol and the runners API; settings for the
// application settings API and the settings other modules read through
// ports.Settings; doctor and backup,
// without routes, for `hearth doctor` and `hearth backup`). Each is an fx
// module that the app
// composes; your own module is built the same way and joins the same
// router (see the README's "Embedding Hearth").
//
// # The rules
//
// A module imports core (domain, ports, access, httpx, apijson, config,
// issuable), chi, zap, fx and the standard library; never bun, never an
// adapter, never another module. Modules talk through core ports and the
// event bus. app/arch_test.go enforces this, and also that only a module's
// HTTP layer (routes.go and handlers*.go) imports net/http.
//
// # Anatomy
//
// Every module has the same files, so the next engineer knows where to look:
//
//	module.go     var Module = fx.Module(...): provides the service and the
//	              routes, subscribes to bus events, names the logger.
//	routes.go     func routes(...) httpx.Routes: one declarative table of
//	              method, pattern (under /api/v4, {id} for the project) and
//	              handler.
//	handlers.go   HTTP only: decode the request into typed input, call one
//	              service method, render. Handlers hold the service and the
//	              presenters they render with; they never reach through the
//	              service to its stores.
//	service.go    Params (fx.In, the narrowest ports the use cases need:
//	              ports.RepoReader rather than ports.RepoBackend), Service,
//	              NewService, and what the use cases share.
//	<case>.go     use cases (create.go, merge.go, list.go ...). A use case
//	              takes ctx, the caller and typed input, and returns domain
//	              values or core errors (core.NotFound, core.Forbidden,
//	              core.Validation ...), which httpx renders in GitLab's shape.
//	validate.go   input rules, beside the service that applies them.
//	api.go        GitLab's JSON entities and request parameter structs, and
//	              the mapping from domain types (shared entities live in
//	              core/apijson).
//
// State machines belong to the domain type (domain.Issue.Close,
// domain.MergeRequest.Reopen), not to the service.
//
// # Who may do what
//
// core/access is the one permission layer. A use case resolves the project
// its input names and asks for named abilities, in the style of GitLab's
// policies:
//
//	t, err := s.p.Policy.Resolve(ctx, caller, ref, access.ReadIssue)
//	// missing, unreadable, or issues disabled: 404 Project Not Found
//	...
//	if err := t.Require(access.UpdateIssue, access.OnIssue(is)); err != nil {
//		return nil, err // 401 anonymous, 403 otherwise
//	}
//
// Writes start with Policy.ResolveSignedIn, so an anonymous caller gets
// 401 before anything about the project is revealed. GitLab authorizes
// before it validates, so a caller who may not use an endpoint learns
// nothing from its validation: a handler whose request does not decode
// puts the error in the input's Invalid field (an id that cannot exist
// travels as 0), and the use case returns it right after its access
// checks. A thing the caller
// may not read (a confidential issue, a private snippet) is a 404 of that
// thing, never a 403. Lists ask the policy for a scope (Policy.ProjectScope,
// Target.IssueViewer) that the store applies in the query itself, so totals
// and pages never count what the caller may not see.
//
// # Events
//
// A use case that changes state publishes a domain event on ports.EventBus
// inside its transaction (ports.TxManager.WithinTx). Subscribers run in the
// transaction (SubscribeTx: their writes commit with the publisher's) or
// after commit (Subscribe). The bus is synchronous: when Publish returns,
// in-transaction subscribers have run, and after-commit subscribers have
// run once the outermost transaction returned.
//
// The CI modules show the pattern. Whoever changes a job's status (a
// runner's update in runners, a cancel or retry in jobs, a commit status)
// does it through the job's state machine (domain.Job.Enqueue, Drop,
// Cancel ...) and publishes domain.JobEvent in the same transaction; ci
// subscribes in the transaction and brings the pipeline up to date (the
// next stage, the composite status, PipelineEvent, PipelineSucceeded,
// which mergerequests follows after commit). No module computes another's
// state, and a pipeline is never seen half processed.
//
// # A worked example
//
// A module that lets users pin notes to a project ("GET/POST
// /projects/:id/pins"), backed by a store port of its own (PinStore, with
// an adapter beside Hearth's in adapters/ or in your repository):
//
//	// module.go
//	var Module = fx.Module("pins",
//		fx.Provide(NewService, httpx.AsRoutes(routes)),
//		fx.Decorate(func(l *zap.Logger) *zap.Logger { return l.Named("pins") }),
//	)
//
//	// routes.go
//	func routes(s *Service) httpx.Routes {
//		h := handlers{s: s}
//		return httpx.Routes{Module: "pins", Routes: []httpx.Route{
//			{Method: http.MethodGet, Pattern: "/projects/{id}/pins", Handle: h.list},
//			{Method: http.MethodPost, Pattern: "/projects/{id}/pins", Handle: h.create},
//		}}
//	}
//
//	// handlers.go
//	type handlers struct{ s *Service }
//
//	func (h handlers) create(w http.ResponseWriter, r *http.Request) error {
//		ref, err := httpx.RefParam(r, "id")
//		if err != nil {
//			return err
//		}
//		var in CreateInput // api.go: Text string `param:"text"`
//		if err := httpx.Decode(r, &in); err != nil {
//			return err // 400 {"error":"text is missing"}
//		}
//		pin, err := h.s.Create(r.Context(), httpx.CallerOf(r), ref, in)
//		if err != nil {
//			return err
//		}
//		return httpx.Created(w, pinOf(pin)) // api.go maps the domain value
//	}
//
//	// service.go
//	type Params struct {
//		fx.In
//		Pins   PinStore
//		Policy *access.Policy
//		Clock  ports.Clock
//	}
//
//	type Service struct{ p Params }
//
//	func NewService(p Params) *Service { return &Service{p: p} }
//
//	// create.go
//	func (s *Service) Create(ctx context.Context, caller *domain.Caller, ref domain.IDOrPath, in CreateInput) (*Pin, error) {
//		t, err := s.p.Policy.ResolveSignedIn(ctx, caller, ref)
//		if err != nil {
//			return nil, err
//		}
//		if err := t.Require(access.AdminProject); err != nil {
//			return nil, err
//		}
//		if err := in.validate(); err != nil { // validate.go
//			return nil, err
//		}
//		pin := &Pin{ProjectID: t.Project.ID, Text: in.Text, CreatedAt: s.p.Clock.Now()}
//		if err := s.p.Pins.Create(ctx, pin); err != nil {
//			return nil, fmt.Errorf("create pin: %w", err)
//		}
//		return pin, nil
//	}
//
// Test it two ways. Service tests call the use cases with fakes of the
// ports. API tests start the real app with the module added and drive it
// over HTTP with the shared client:
//
//	srv := apptest.New(t, apptest.With(pins.Module))
//	c := srv.Client(t)
//	c.Expect(401, "POST", "/projects/1/pins", "", apptest.Form("text", "x"))
//
// Cases that share nothing call t.Parallel. The bus is synchronous and the
// test server's clock is injected (Server.Advance), so a test never sleeps
// to prove that something did not happen.
package modules
