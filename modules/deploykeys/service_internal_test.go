package deploykeys

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"slices"
	"strings"
	"testing"

	"go.uber.org/zap"
	"golang.org/x/crypto/ssh"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/ports"
	"github.com/hearth-forge/hearth/core/sshkey"
)

// fakeDeployKeys keeps links in memory; methods the tests do not use
// panic through the nil embedded interface.
type fakeDeployKeys struct {
	ports.DeployKeyStore
	keys  map[int64]*domain.DeployKey
	links map[int64][]int64 // key -> projects
	err   error             // returned by every lookup when set
}

func (f *fakeDeployKeys) ByFingerprint(_ context.Context, fp string) (*domain.DeployKey, error) {
	if f.err != nil {
		return nil, f.err
	}
	for _, k := range f.keys {
		if k.Fingerprint == fp {
			c := *k
			return &c, nil
		}
	}
	return nil, core.NotFound("Deploy Key")
}

func (f *fakeDeployKeys) Projects(_ context.Context, id int64) ([]int64, error) {
	return slices.Clone(f.links[id]), nil
}

func (f *fakeDeployKeys) ListByProject(_ context.Context, projectID int64, p domain.Page) ([]domain.DeployKey, int, error) {
	var out []domain.DeployKey
	for id := int64(1); id <= int64(len(f.keys)); id++ { // in ID order
		if slices.Contains(f.links[id], projectID) {
			out = append(out, *f.keys[id])
		}
	}
	total := len(out)
	return out[:min(len(out), p.PerPage)], total, nil
}

func (f *fakeDeployKeys) Disable(_ context.Context, projectID, id int64) error {
	i := slices.Index(f.links[id], projectID)
	if i < 0 {
		return core.NotFound("Deploy Key")
	}
	f.links[id] = slices.Delete(f.links[id], i, i+1)
	if len(f.links[id]) == 0 {
		delete(f.links, id) // the orphan goes with its last link
	}
	return nil
}

type fakeKeys struct {
	ports.KeyStore
	err error
}

func (f fakeKeys) ByFingerprint(context.Context, string) (*domain.SSHKey, error) {
	if f.err != nil {
		return nil, f.err
	}
	return nil, core.NotFound("Key")
}

func wireKey(t *testing.T) (string, []byte) {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(ssh.MarshalAuthorizedKey(k))), k.Marshal()
}

// TestAuthenticatorStoreFailures: a store that fails is an error of its
// own, not a refusal, so an outage is not reported as a wrong key.
func TestAuthenticatorStoreFailures(t *testing.T) {
	t.Parallel()
	line, wire := wireKey(t)
	boom := errors.New("database is down")
	dk := &fakeDeployKeys{keys: map[int64]*domain.DeployKey{1: {ID: 1, Key: line, Fingerprint: sshkey.Fingerprint(wire)}}, links: map[int64][]int64{1: {7}}}
	for name, a := range map[string]*Authenticator{
		"keys":        NewAuthenticator(AuthParams{Log: zap.NewNop(), Keys: fakeKeys{err: boom}, DeployKeys: dk}),
		"deploy keys": NewAuthenticator(AuthParams{Log: zap.NewNop(), Keys: fakeKeys{}, DeployKeys: &fakeDeployKeys{err: boom}}),
	} {
		c, err := a.PublicKey(t.Context(), wire)
		if !errors.Is(err, boom) || errors.Is(err, core.ErrUnauthenticated) {
			t.Errorf("%s failing: %+v, %v; want the store's error", name, c, err)
		}
	}
	a := NewAuthenticator(AuthParams{Log: zap.NewNop(), Keys: fakeKeys{}, DeployKeys: dk})
	c, err := a.PublicKey(t.Context(), wire)
	if err != nil || c.DeployKey == nil || !c.DeployKey.EnabledFor(7) || c.User != nil {
		t.Fatalf("deploy key: %+v, %v", c, err)
	}
}

// TestDisableAllPages: a destroyed project with more keys than one page
// loses them all, and the keys it was the last project of go.
func TestDisableAllPages(t *testing.T) {
	t.Parallel()
	f := &fakeDeployKeys{keys: map[int64]*domain.DeployKey{}, links: map[int64][]int64{}}
	for id := int64(1); id <= 250; id++ {
		f.keys[id] = &domain.DeployKey{ID: id}
		f.links[id] = []int64{7}
		if id%2 == 0 {
			f.links[id] = append(f.links[id], 8)
		}
	}
	s := NewService(Params{Log: zap.NewNop(), DeployKeys: f})
	if err := s.disableAll(t.Context(), 7); err != nil {
		t.Fatal(err)
	}
	if len(f.links) != 125 {
		t.Fatalf("%d keys keep a project, want the 125 also on project 8", len(f.links))
	}
	for id, ps := range f.links {
		if id%2 != 0 || !slices.Equal(ps, []int64{8}) {
			t.Errorf("key %d still on %v", id, ps)
		}
	}
}
