package migrated

import (
	"regexp"
	"testing"

	"github.com/hearth-forge/hearth/adapters/storage/postgres"
)

// TestDSN: the database is migrated already, so a node starting on it
// applies nothing, and it is empty.
func TestDSN(t *testing.T) {
	db, err := postgres.Open(t.Context(), DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var applied, users int
	if err := db.NewRaw("SELECT (SELECT count(*) FROM hearth_migrations), (SELECT count(*) FROM users)").Scan(t.Context(), &applied, &users); err != nil {
		t.Fatalf("read the migrated schema: %v", err)
	}
	if applied == 0 || users != 0 {
		t.Errorf("%d migrations applied, %d users; want every migration and no user", applied, users)
	}
	st := postgres.NewStore(db)
	if err := st.Migrate(t.Context()); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	var after int
	if err := db.NewRaw("SELECT count(*) FROM hearth_migrations").Scan(t.Context(), &after); err != nil || after != applied {
		t.Errorf("Migrate applied %d more migrations (%v), want none", after-applied, err)
	}
}

func TestTemplateNamedByDigest(t *testing.T) {
	name, err := template()
	if err != nil {
		t.Fatalf("the migrations are not readable from the source tree: %v", err)
	}
	if !regexp.MustCompile(`^hearth_template_[0-9a-f]{16}$`).MatchString(name) {
		t.Errorf("template name %q", name)
	}
}
