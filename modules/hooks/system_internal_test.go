package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// Unit tests of the system events' routing with fakes: which payloads are
// queued for which hooks, and that nothing is read without a system hook.
// The app tests (app/system_hooks_test.go) cover the real stores.

type sysFakeBus struct {
	ports.EventBus
	tx map[string][]func(context.Context, domain.BusEvent) error
}

func (b *sysFakeBus) SubscribeTx(name string, fn func(context.Context, domain.BusEvent) error) {
	b.tx[name] = append(b.tx[name], fn)
}

func (b *sysFakeBus) publish(t *testing.T, ev domain.BusEvent) {
	t.Helper()
	for _, fn := range b.tx[ev.EventName()] {
		if err := fn(context.Background(), ev); err != nil {
			t.Fatalf("publish %s: %v", ev.EventName(), err)
		}
	}
}

type sysFakeTx struct {
	ports.TxManager
	after int
}

func (f *sysFakeTx) AfterCommit(ctx context.Context, fn func(context.Context)) { f.after++; fn(ctx) }

type sysFakeRouter struct {
	ids   []int64
	calls int
}

func (r *sysFakeRouter) HooksFor(_ context.Context, projectID int64, kind domain.HookEventKind) ([]int64, error) {
	r.calls++
	if projectID != 0 || kind != domain.HookSystem {
		return nil, errors.New("not a system event")
	}
	return r.ids, nil
}

type sysFakeDeliveries struct {
	ports.HookDeliveryStore
	queued []domain.HookDelivery
	gone   map[int64]bool
}

// EnqueueFor skips the hooks that are gone, as the store does.
func (d *sysFakeDeliveries) EnqueueFor(_ context.Context, hooks []int64, x domain.HookDelivery) (int, error) {
	n := 0
	for _, id := range hooks {
		if d.gone[id] {
			continue
		}
		x.HookID = id
		d.queued = append(d.queued, x)
		n++
	}
	return n, nil
}

// sysReads counts the store sysReads, to show that no hook means no read.
type sysReads struct{ n int }

// sysGet is the fakes' Get: one read counted, the value by id or not found.
func sysGet[T any](r *sysReads, m map[int64]T, id int64) (*T, error) {
	r.n++
	if v, ok := m[id]; ok {
		return &v, nil
	}
	return nil, core.ErrNotFound
}

type sysFakeUsers struct {
	ports.UserStore
	r     *sysReads
	users map[int64]domain.User
}

func (f sysFakeUsers) Get(_ context.Context, id int64) (*domain.User, error) {
	return sysGet(f.r, f.users, id)
}

type sysFakeNamespaces struct {
	ports.NamespaceStore
	r  *sysReads
	ns map[int64]domain.Namespace
}

func (f sysFakeNamespaces) Get(_ context.Context, id int64) (*domain.Namespace, error) {
	return sysGet(f.r, f.ns, id)
}

type sysFakeProjects struct {
	ports.ProjectStore
	r        *sysReads
	projects map[int64]domain.Project
}

func (f sysFakeProjects) Get(_ context.Context, id int64) (*domain.Project, error) {
	return sysGet(f.r, f.projects, id)
}

type sysFixture struct {
	s        *Service
	bus      *sysFakeBus
	tx       *sysFakeTx
	router   *sysFakeRouter
	out      *sysFakeDeliveries
	sysReads *sysReads
}

var (
	sysT0      = time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
	sysAlice   = domain.User{ID: 2, Username: "sysAlice", Name: "Alice", Email: "sysAlice@example.com", CreatedAt: sysT0, UpdatedAt: sysT0}
	sysBob     = domain.User{ID: 3, Username: "sysBob", Name: "Bob", Email: "sysBob@example.com", CreatedAt: sysT0, UpdatedAt: sysT0}
	sysOwner   = int64(2)
	sysNS      = domain.Namespace{ID: 10, Kind: domain.NamespaceUser, Name: "sysAlice", Path: "sysAlice", FullPath: "sysAlice", OwnerID: &sysOwner}
	sysGroup   = domain.Namespace{ID: 11, Kind: domain.NamespaceGroup, Name: "Team", Path: "team", FullPath: "team", CreatedAt: sysT0, UpdatedAt: sysT0}
	sysProject = domain.Project{ID: 7, NamespaceID: 10, Name: "Web", Path: "web", Visibility: domain.Internal, CreatedAt: sysT0, UpdatedAt: sysT0}
)

func newSysFixture(hooks ...int64) *sysFixture {
	f := &sysFixture{bus: &sysFakeBus{tx: map[string][]func(context.Context, domain.BusEvent) error{}},
		tx: &sysFakeTx{}, router: &sysFakeRouter{ids: hooks}, out: &sysFakeDeliveries{gone: map[int64]bool{}}, sysReads: &sysReads{}}
	cfg := config.Default()
	f.s = NewService(Params{
		Config: cfg, Log: zap.NewNop(), Tx: f.tx, Bus: f.bus, Router: f.router, Deliveries: f.out,
		Users:      sysFakeUsers{r: f.sysReads, users: map[int64]domain.User{2: sysAlice, 3: sysBob}},
		Namespaces: sysFakeNamespaces{r: f.sysReads, ns: map[int64]domain.Namespace{10: sysNS, 11: sysGroup}},
		Projects:   sysFakeProjects{r: f.sysReads, projects: map[int64]domain.Project{7: sysProject}},
	})
	f.s.subscribeSystem()
	return f
}

// payloads decodes what was queued, per hook.
func (f *sysFixture) payloads(t *testing.T) map[int64][]map[string]any {
	t.Helper()
	out := map[int64][]map[string]any{}
	for _, d := range f.out.queued {
		if d.Event != domain.HookEventSystem || d.MaxAttempts != config.Default().Webhooks.MaxAttempts {
			t.Errorf("delivery event %q max attempts %d", d.Event, d.MaxAttempts)
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(d.Payload), &v); err != nil {
			t.Fatalf("payload: %v", err)
		}
		out[d.HookID] = append(out[d.HookID], v)
	}
	return out
}

func TestSystemEventsWithoutHooksReadNothing(t *testing.T) {
	t.Parallel()
	f := newSysFixture()
	f.bus.publish(t, domain.ProjectCreated{Project: sysProject})
	f.bus.publish(t, domain.MemberJoined{Member: domain.Member{UserID: 3, AccessLevel: domain.Developer}, ProjectID: &sysProject.ID})
	f.bus.publish(t, domain.KeyAdded{Key: domain.SSHKey{ID: 1, UserID: 2}})
	if f.router.calls != 3 || f.sysReads.n != 0 || len(f.out.queued) != 0 || f.tx.after != 0 {
		t.Errorf("router calls %d, sysReads %d, queued %d, nudges %d; want 3, 0, 0, 0",
			f.router.calls, f.sysReads.n, len(f.out.queued), f.tx.after)
	}
}

func TestSystemEventsQueueOncePerHook(t *testing.T) {
	t.Parallel()
	f := newSysFixture(4, 5, 6)
	f.out.gone[6] = true // deleted since routing: skipped, not an error
	f.bus.publish(t, domain.ProjectCreated{Project: sysProject})
	got := f.payloads(t)
	if len(got[4]) != 1 || len(got[5]) != 1 || len(got[6]) != 0 {
		t.Fatalf("queued per hook = %v", got)
	}
	p := got[4][0]
	if p["event_name"] != "project_create" || p["path_with_namespace"] != "sysAlice/web" || p["owner_name"] != "Alice" ||
		p["owner_email"] != "sysAlice@example.com" || p["project_visibility"] != "internal" || p["project_id"] != float64(7) {
		t.Errorf("payload = %v", p)
	}
	if f.tx.after != 1 {
		t.Errorf("nudges after commit = %d, want 1", f.tx.after)
	}
	select {
	case <-f.s.wake:
	default:
		t.Error("no worker was woken")
	}
}

func TestSystemEventNames(t *testing.T) {
	t.Parallel()
	renamed := sysProject
	renamed.Path = "site"
	moved := sysProject
	moved.NamespaceID = 11
	key := domain.SSHKey{ID: 9, UserID: 3, Key: "ssh-ed25519 AAAA", CreatedAt: sysT0}
	projMember := domain.Member{Source: domain.MemberOfProject, SourceID: 7, UserID: 3, AccessLevel: domain.Developer, CreatedAt: sysT0}
	grpMember := domain.Member{Source: domain.MemberOfGroup, SourceID: 11, UserID: 3, AccessLevel: domain.Guest, CreatedAt: sysT0}
	cases := []struct {
		ev   domain.BusEvent
		want []string
		// check looks at the first payload.
		check func(p map[string]any) bool
	}{
		{domain.ProjectDestroyed{Project: sysProject}, []string{"project_destroy"}, nil},
		{domain.ProjectUpdated{Project: renamed, Before: sysProject}, []string{"project_rename"},
			func(p map[string]any) bool {
				return p["old_path_with_namespace"] == "sysAlice/web" && p["path_with_namespace"] == "sysAlice/site"
			}},
		{domain.ProjectUpdated{Project: sysProject, Before: sysProject}, nil, nil},
		{domain.ProjectTransferred{Project: moved, Before: sysProject}, []string{"project_transfer"},
			func(p map[string]any) bool {
				return p["old_path_with_namespace"] == "sysAlice/web" && p["path_with_namespace"] == "team/web" &&
					p["owner_name"] == "Team" && p["owner_email"] == ""
			}},
		{domain.MemberJoined{Member: projMember, ProjectID: &sysProject.ID}, []string{"user_add_to_team"},
			func(p map[string]any) bool { return p["access_level"] == "Developer" && p["user_username"] == "sysBob" }},
		{domain.MemberLeft{Member: projMember, ProjectID: &sysProject.ID}, []string{"user_remove_from_team"}, nil},
		{domain.MemberJoined{Member: grpMember}, []string{"user_add_to_group"},
			func(p map[string]any) bool { return p["group_access"] == "Guest" && p["group_path"] == "team" }},
		{domain.MemberLeft{Member: grpMember}, []string{"user_remove_from_group"}, nil},
		{domain.UserCreated{User: sysBob}, []string{"user_create"}, nil},
		{domain.UserDeleted{User: sysBob}, []string{"user_destroy"}, nil},
		{domain.KeyAdded{Key: key}, []string{"key_create"},
			func(p map[string]any) bool {
				return p["username"] == "sysBob" && p["key"] == key.Key && p["id"] == float64(9)
			}},
		{domain.KeyRemoved{Key: key}, []string{"key_destroy"}, nil},
		{domain.GroupCreated{Group: sysGroup, Owner: domain.Member{Source: domain.MemberOfGroup, SourceID: 11, UserID: 2,
			AccessLevel: domain.Owner, CreatedAt: sysT0}}, []string{"group_create", "user_add_to_group"},
			func(p map[string]any) bool { return p["owner_name"] == nil && p["group_id"] == float64(11) }},
		{domain.GroupDestroyed{Group: sysGroup}, []string{"group_destroy"}, nil},
	}
	for _, c := range cases {
		f := newSysFixture(4)
		f.bus.publish(t, c.ev)
		got := f.payloads(t)[4]
		var names []string
		for _, p := range got {
			names = append(names, p["event_name"].(string))
		}
		if len(names) != len(c.want) {
			t.Errorf("%s %+v: events %v, want %v", c.ev.EventName(), c.ev, names, c.want)
			continue
		}
		for i := range names {
			if names[i] != c.want[i] {
				t.Errorf("%s: events %v, want %v", c.ev.EventName(), names, c.want)
			}
		}
		if c.check != nil && !c.check(got[0]) {
			t.Errorf("%s: payload %v", c.want[0], got[0])
		}
	}
}

func TestSystemHooksAPIIsForAdmins(t *testing.T) {
	t.Parallel()
	f := newSysFixture()
	user := &domain.Caller{User: &sysBob}
	for name, caller := range map[string]*domain.Caller{"anonymous": {}, "nil": nil, "user": user} {
		want := core.ErrForbidden
		if name != "user" {
			want = core.ErrUnauthenticated
		}
		if _, err := f.s.ListSystem(context.Background(), caller, domain.Page{}, nil); !errors.Is(err, want) {
			t.Errorf("%s list: %v", name, err)
		}
		if _, err := f.s.CreateSystem(context.Background(), caller, SystemInput{}); !errors.Is(err, want) {
			t.Errorf("%s create: %v", name, err)
		}
		if _, err := f.s.TestSystem(context.Background(), caller, HookID{ID: 1}); !errors.Is(err, want) {
			t.Errorf("%s test: %v", name, err)
		}
		if _, err := f.s.DeleteSystem(context.Background(), caller, HookID{ID: 1}); !errors.Is(err, want) {
			t.Errorf("%s delete: %v", name, err)
		}
	}
}
