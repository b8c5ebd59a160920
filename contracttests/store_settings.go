package contracttests

import (
	"errors"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// settingsStoreCases are the subtests of the application settings store.
// They skip when the adapter hands RunStoreSuite no Settings.
func settingsStoreCases() []storeCase {
	cases := []storeCase{
		{"SettingsDefaultsOnFirstRead", storeSettingsDefaults},
		{"SettingsUpdateRoundTrip", storeSettingsUpdate},
		{"SettingsUpdateErrorKeepsRow", storeSettingsUpdateError},
		{"SettingsConcurrentUpdates", storeSettingsConcurrent},
	}
	for i, c := range cases {
		fn := c.fn
		cases[i].fn = func(t *testing.T, s Stores) {
			if s.Settings == nil {
				t.Skip("the adapter provides no SettingsStore")
			}
			fn(t, s)
		}
	}
	return cases
}

var settingsTimes = cmpopts.IgnoreFields(domain.Settings{}, "CreatedAt", "UpdatedAt")

func storeSettingsDefaults(t *testing.T, s Stores) {
	ctx := t.Context()
	defaults := domain.DefaultSettings()
	got, err := s.Settings.Get(ctx, defaults)
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	if diff := cmp.Diff(defaults, *got, settingsTimes); diff != "" {
		t.Fatalf("first read (-want +got):\n%s", diff)
	}
	if got.CreatedAt.IsZero() || !got.UpdatedAt.Equal(got.CreatedAt) {
		t.Fatalf("times: %v %v", got.CreatedAt, got.UpdatedAt)
	}
	// Stored once: other defaults later do not replace the row.
	other := defaults
	other.DefaultProjectsLimit = 7
	again, err := s.Settings.Get(ctx, other)
	if err != nil {
		t.Fatalf("get again: %v", err)
	}
	if again.DefaultProjectsLimit != defaults.DefaultProjectsLimit || !again.CreatedAt.Equal(got.CreatedAt) {
		t.Fatalf("second read: %+v", again)
	}
}

func storeSettingsUpdate(t *testing.T, s Stores) {
	ctx := t.Context()
	defaults := domain.DefaultSettings()
	text := "Welcome"
	// Update before any read stores the defaults first.
	got, err := s.Settings.Update(ctx, defaults, func(st *domain.Settings) error {
		st.DefaultProjectsLimit = 50
		st.SigninEnabled = false
		st.SignInText = &text
		st.RestrictedVisibilityLevels = []domain.Visibility{domain.Public, domain.Internal}
		st.DefaultProjectVisibility = domain.Internal
		st.DomainWhitelist = []string{"example.com", "*.example.org"}
		st.PollingIntervalMultiplier = 1.5
		st.RSAKeyRestriction = 2048
		return nil
	})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	read, err := s.Settings.Get(ctx, defaults)
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	if diff := cmp.Diff(got, read); diff != "" {
		t.Fatalf("read after update (-update +read):\n%s", diff)
	}
	want := defaults
	want.DefaultProjectsLimit, want.SigninEnabled, want.SignInText = 50, false, &text
	want.RestrictedVisibilityLevels = []domain.Visibility{domain.Public, domain.Internal}
	want.DefaultProjectVisibility = domain.Internal
	want.DomainWhitelist = []string{"example.com", "*.example.org"}
	want.PollingIntervalMultiplier, want.RSAKeyRestriction = 1.5, 2048
	if diff := cmp.Diff(want, *read, settingsTimes); diff != "" {
		t.Fatalf("stored (-want +got):\n%s", diff)
	}
	if read.UpdatedAt.Before(read.CreatedAt) {
		t.Fatalf("updated_at %v before created_at %v", read.UpdatedAt, read.CreatedAt)
	}
}

func storeSettingsUpdateError(t *testing.T, s Stores) {
	ctx := t.Context()
	defaults := domain.DefaultSettings()
	refused := core.FieldInvalid("default_projects_limit", "must be greater than or equal to 0")
	_, err := s.Settings.Update(ctx, defaults, func(st *domain.Settings) error {
		st.DefaultProjectsLimit = -1
		return refused
	})
	if !errors.Is(err, refused) {
		t.Fatalf("update error: %v, want the function's", err)
	}
	got, err := s.Settings.Get(ctx, defaults)
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	if got.DefaultProjectsLimit != defaults.DefaultProjectsLimit {
		t.Fatalf("refused edit was saved: %d", got.DefaultProjectsLimit)
	}
}

// storeSettingsConcurrent runs read-modify-writes at once: none is lost.
func storeSettingsConcurrent(t *testing.T, s Stores) {
	ctx := t.Context()
	defaults := domain.DefaultSettings()
	defaults.DefaultProjectsLimit = 0
	const n = 8
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.Settings.Update(ctx, defaults, func(st *domain.Settings) error {
				st.DefaultProjectsLimit++
				return nil
			})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("update: %v", err)
		}
	}
	got, err := s.Settings.Get(ctx, defaults)
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	if got.DefaultProjectsLimit != n {
		t.Fatalf("limit %d after %d increments", got.DefaultProjectsLimit, n)
	}
}
