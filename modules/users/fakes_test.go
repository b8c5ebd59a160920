package users

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/config"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
)

// In-memory ports for service tests. They follow the port contracts that
// matter here: case-insensitive uniqueness with GitLab field maps, not-found
// kinds, and counters that let tests prove what was (not) written.

type memDB struct {
	mu      sync.Mutex
	users   map[int64]domain.User
	keys    map[int64]domain.SSHKey
	emails  map[int64]domain.Email
	tokens  map[int64]domain.Token
	nextID  int64
	touches int // TouchLastUsed calls
	writes  int // user updates
}

func newMemDB() *memDB {
	return &memDB{users: map[int64]domain.User{}, keys: map[int64]domain.SSHKey{},
		emails: map[int64]domain.Email{}, tokens: map[int64]domain.Token{}}
}

func (db *memDB) id() int64 { db.nextID++; return db.nextID }

func taken(field, label string) error {
	return &core.Error{Kind: core.ErrConflict, Msg: label + " has already been taken",
		Fields: map[string][]string{field: {"has already been taken"}}}
}

// emailTaken reports whether any primary or secondary address equals email,
// ignoring the primary of user skip.
func (db *memDB) emailTaken(email string, skip int64) bool {
	for _, u := range db.users {
		if u.ID != skip && strings.EqualFold(u.Email, email) {
			return true
		}
	}
	for _, e := range db.emails {
		if strings.EqualFold(e.Email, email) && e.UserID != skip {
			return true
		}
	}
	return false
}

func (db *memDB) check(u *domain.User) error {
	for _, o := range db.users {
		if o.ID != u.ID && strings.EqualFold(o.Username, u.Username) {
			return taken("username", "Username")
		}
	}
	if db.emailTaken(u.Email, u.ID) {
		return taken("email", "Email")
	}
	return nil
}

type memUsers struct{ db *memDB }

func (s memUsers) Create(_ context.Context, u *domain.User) error {
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	if err := s.db.check(u); err != nil {
		return err
	}
	u.ID = s.db.id()
	s.db.users[u.ID] = *u
	return nil
}

func (s memUsers) Get(_ context.Context, id int64) (*domain.User, error) {
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	u, ok := s.db.users[id]
	if !ok {
		return nil, core.NotFound("User")
	}
	return &u, nil
}

func (s memUsers) find(match func(u domain.User) bool) (*domain.User, error) {
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	for _, u := range s.db.users {
		if match(u) {
			return &u, nil
		}
	}
	return nil, core.NotFound("User")
}

func (s memUsers) GetByUsername(_ context.Context, n string) (*domain.User, error) {
	return s.find(func(u domain.User) bool { return strings.EqualFold(u.Username, n) })
}

func (s memUsers) GetByEmail(_ context.Context, e string) (*domain.User, error) {
	return s.find(func(u domain.User) bool { return strings.EqualFold(u.Email, e) })
}

func (s memUsers) GetMany(_ context.Context, ids []int64) ([]domain.User, error) {
	var out []domain.User
	for _, id := range ids {
		if u, err := s.Get(context.Background(), id); err == nil {
			out = append(out, *u)
		}
	}
	return out, nil
}

func (s memUsers) Update(_ context.Context, id int64, fn func(u *domain.User) error) (*domain.User, error) {
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	u, ok := s.db.users[id]
	if !ok {
		return nil, core.NotFound("User")
	}
	if err := fn(&u); err != nil {
		return nil, err
	}
	u.ID = id
	if err := s.db.check(&u); err != nil {
		return nil, err
	}
	s.db.users[id] = u
	s.db.writes++
	return &u, nil
}

func (s memUsers) Delete(_ context.Context, id int64) error {
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	if _, ok := s.db.users[id]; !ok {
		return core.NotFound("User")
	}
	delete(s.db.users, id)
	for k, v := range s.db.keys {
		if v.UserID == id {
			delete(s.db.keys, k)
		}
	}
	for k, v := range s.db.emails {
		if v.UserID == id {
			delete(s.db.emails, k)
		}
	}
	for k, v := range s.db.tokens {
		if v.UserID == id {
			delete(s.db.tokens, k)
		}
	}
	return nil
}

func page[T any](all []T, p domain.Page) []T {
	if p.PerPage <= 0 {
		return all
	}
	off := p.Offset()
	if off >= len(all) {
		return []T{}
	}
	return all[off:min(off+p.PerPage, len(all))]
}

func (s memUsers) List(_ context.Context, f domain.UserFilter) ([]domain.User, int, error) {
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	var all []domain.User
	for _, u := range s.db.users {
		if f.Active && u.State != domain.UserActive || f.Blocked && u.State == domain.UserActive ||
			f.Username != "" && !strings.EqualFold(f.Username, u.Username) {
			continue
		}
		all = append(all, u)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].ID < all[j].ID })
	return page(all, f.Page), len(all), nil
}

func (s memUsers) Count(context.Context) (int, error) {
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	return len(s.db.users), nil
}

func (s memUsers) TouchActivity(_ context.Context, id int64, d time.Time) error {
	_, err := s.Update(context.Background(), id, func(u *domain.User) error {
		if u.LastActivityOn == nil || u.LastActivityOn.Before(d) {
			u.LastActivityOn = &d
		}
		return nil
	})
	return err
}

func (s memUsers) ListActivity(_ context.Context, from time.Time, p domain.Page) ([]domain.User, int, error) {
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	var all []domain.User
	for _, u := range s.db.users {
		if u.LastActivityOn != nil && !u.LastActivityOn.Before(from) {
			all = append(all, u)
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].LastActivityOn.Before(*all[j].LastActivityOn) })
	return page(all, p), len(all), nil
}

type memKeys struct{ db *memDB }

func (s memKeys) Create(_ context.Context, k *domain.SSHKey) error {
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	if _, ok := s.db.users[k.UserID]; !ok {
		return core.NotFound("User")
	}
	for _, o := range s.db.keys {
		if o.Fingerprint == k.Fingerprint {
			return taken("fingerprint", "Fingerprint")
		}
	}
	k.ID = s.db.id()
	s.db.keys[k.ID] = *k
	return nil
}

func (s memKeys) Get(_ context.Context, id int64) (*domain.SSHKey, error) {
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	k, ok := s.db.keys[id]
	if !ok {
		return nil, core.NotFound("Key")
	}
	return &k, nil
}

func (s memKeys) ListByUser(_ context.Context, uid int64, p domain.Page) ([]domain.SSHKey, int, error) {
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	var all []domain.SSHKey
	for _, k := range s.db.keys {
		if k.UserID == uid {
			all = append(all, k)
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].ID < all[j].ID })
	return page(all, p), len(all), nil
}

func (s memKeys) Delete(_ context.Context, uid, id int64) error {
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	if k, ok := s.db.keys[id]; !ok || k.UserID != uid {
		return core.NotFound("Key")
	}
	delete(s.db.keys, id)
	return nil
}

func (s memKeys) ByFingerprint(_ context.Context, fp string) (*domain.SSHKey, error) {
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	for _, k := range s.db.keys {
		if k.Fingerprint == fp {
			return &k, nil
		}
	}
	return nil, core.NotFound("Key")
}

type memEmails struct{ db *memDB }

func (s memEmails) Create(_ context.Context, e *domain.Email) error {
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	if _, ok := s.db.users[e.UserID]; !ok {
		return core.NotFound("User")
	}
	if s.db.emailTaken(e.Email, 0) {
		return taken("email", "Email")
	}
	e.ID = s.db.id()
	s.db.emails[e.ID] = *e
	return nil
}

func (s memEmails) Get(_ context.Context, id int64) (*domain.Email, error) {
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	e, ok := s.db.emails[id]
	if !ok {
		return nil, core.NotFound("Email")
	}
	return &e, nil
}

func (s memEmails) ListByUser(_ context.Context, uid int64, p domain.Page) ([]domain.Email, int, error) {
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	var all []domain.Email
	for _, e := range s.db.emails {
		if e.UserID == uid {
			all = append(all, e)
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].ID < all[j].ID })
	return page(all, p), len(all), nil
}

func (s memEmails) Delete(_ context.Context, uid, id int64) error {
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	if e, ok := s.db.emails[id]; !ok || e.UserID != uid {
		return core.NotFound("Email")
	}
	delete(s.db.emails, id)
	return nil
}

type memTokens struct{ db *memDB }

func (s memTokens) Create(_ context.Context, t *domain.Token) error {
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	if _, ok := s.db.users[t.UserID]; !ok {
		return core.NotFound("User")
	}
	for _, o := range s.db.tokens {
		if o.Digest == t.Digest {
			return core.Conflict("Token has already been taken")
		}
	}
	t.ID = s.db.id()
	s.db.tokens[t.ID] = *t
	return nil
}

func (s memTokens) Get(_ context.Context, id int64) (*domain.Token, error) {
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	t, ok := s.db.tokens[id]
	if !ok {
		return nil, core.NotFound("Token")
	}
	return &t, nil
}

func (s memTokens) GetByDigest(_ context.Context, d string) (*domain.Token, error) {
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	for _, t := range s.db.tokens {
		if t.Digest == d {
			return &t, nil
		}
	}
	return nil, core.NotFound("Token")
}

func (s memTokens) List(_ context.Context, f ports.TokenFilter) ([]domain.Token, int, error) {
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	var all []domain.Token
	for _, t := range s.db.tokens {
		kindOK := len(f.Kinds) == 0
		for _, k := range f.Kinds {
			kindOK = kindOK || k == t.Kind
		}
		if !kindOK || f.UserID != 0 && t.UserID != f.UserID ||
			f.State == domain.TokensActive && !t.Active(f.Now) || f.State == domain.TokensInactive && t.Active(f.Now) {
			continue
		}
		all = append(all, t)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].ID < all[j].ID })
	return page(all, f.Page), len(all), nil
}

func (s memTokens) Revoke(_ context.Context, id int64) error {
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	t, ok := s.db.tokens[id]
	if !ok {
		return core.NotFound("Token")
	}
	t.Revoked = true
	s.db.tokens[id] = t
	return nil
}

func (s memTokens) TouchLastUsed(_ context.Context, id int64, at time.Time) error {
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	t, ok := s.db.tokens[id]
	if !ok {
		return core.NotFound("Token")
	}
	t.LastUsedAt = &at
	s.db.tokens[id] = t
	s.db.touches++
	return nil
}

func (s memTokens) PruneSessions(_ context.Context, uid int64, keep int) error {
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	var ids []int64
	for id, t := range s.db.tokens {
		if t.UserID == uid && t.Kind == domain.TokenSession {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] > ids[j] })
	for i, id := range ids {
		if i >= keep {
			delete(s.db.tokens, id)
		}
	}
	return nil
}

// memTx runs fn directly and records whether work happened inside it.
type memTx struct{}

type txKey struct{}

func (m memTx) WithinTx(ctx context.Context, fn func(ctx context.Context) error) error {
	return fn(context.WithValue(ctx, txKey{}, true))
}

func (m memTx) AfterCommit(ctx context.Context, fn func(ctx context.Context)) { fn(ctx) }

// memBus records published events and whether they were published in a tx.
type memBus struct {
	mu     sync.Mutex
	events []domain.BusEvent
	inTx   []bool
	fail   error
}

func (b *memBus) Publish(ctx context.Context, ev domain.BusEvent) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.fail != nil {
		return b.fail
	}
	in, _ := ctx.Value(txKey{}).(bool)
	b.events = append(b.events, ev)
	b.inTx = append(b.inTx, in)
	return nil
}

func (b *memBus) Subscribe(string, func(context.Context, domain.BusEvent) error)   {}
func (b *memBus) SubscribeTx(string, func(context.Context, domain.BusEvent) error) {}

type memClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *memClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *memClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// plainHasher "hashes" by prefixing; tests need no slow hash.
type plainHasher struct{}

func (plainHasher) Hash(p string) (string, error) { return "plain$" + p, nil }
func (plainHasher) Verify(h, p string) (bool, error) {
	if !strings.HasPrefix(h, "plain$") {
		return false, fmt.Errorf("malformed hash")
	}
	return h == "plain$"+p, nil
}

type seqTokens struct {
	mu sync.Mutex
	n  int
}

func (g *seqTokens) NewToken(prefix string) (string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n++
	return fmt.Sprintf("%ssecret-%04d-abcdefghijklmnopqrstuvwxyz", prefix, g.n), nil
}

type fixture struct {
	svc   *Service
	auth  *Authenticator
	db    *memDB
	bus   *memBus
	clock *memClock
	root  *domain.User
	// admin is root acting with a session-like personal token.
	admin *domain.Caller
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	db := newMemDB()
	bus := &memBus{}
	clock := &memClock{now: time.Date(2017, 6, 1, 12, 0, 0, 0, time.UTC)}
	svc := NewService(Params{
		Users: memUsers{db}, Keys: memKeys{db}, Emails: memEmails{db}, Tokens: memTokens{db},
		Tx: memTx{}, Bus: bus, Clock: clock, Hasher: plainHasher{}, TokenGen: &seqTokens{},
		Auth: config.Default().Auth, Log: zap.NewNop(),
	})
	f := &fixture{svc: svc, auth: NewAuthenticator(svc), db: db, bus: bus, clock: clock}
	created, _, err := svc.EnsureRoot(context.Background(), "root-password", "admin@example.com")
	if err != nil || !created {
		t.Fatalf("EnsureRoot: %v %v", created, err)
	}
	f.root, err = svc.UserByLogin(context.Background(), "root")
	if err != nil {
		t.Fatal(err)
	}
	_, secret, err := svc.CreatePersonalToken(context.Background(), nil, f.root.ID, "t", []string{"api", "sudo"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.admin, err = f.auth.Token(context.Background(), secret)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// user creates an ordinary user with password "secret-<name>" and returns it
// with a caller holding a personal api token.
func (f *fixture) user(t *testing.T, name string) (*domain.User, *domain.Caller, string) {
	t.Helper()
	ctx := context.Background()
	u, err := f.svc.CreateUser(ctx, f.admin, CreateUserInput{Username: name, Email: name + "@example.com", Name: name, Password: "secret-" + name})
	if err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
	_, secret, err := f.svc.CreatePersonalToken(ctx, f.admin, u.ID, "t", []string{"api"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := f.auth.Token(ctx, secret)
	if err != nil {
		t.Fatal(err)
	}
	return u, c, secret
}
