package bunstore

import (
	"bytes"
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"testing"
	"text/template"

	"github.com/uptrace/bun/dialect"
)

// TestMigrationsRender checks every migration file: its name gives the next
// ID of the one sequence, it runs in a transaction, and it renders for both
// dialects without leftover template syntax.
func TestMigrationsRender(t *testing.T) {
	names, err := fs.Glob(migrationFiles, "migrations/*")
	if err != nil || len(names) == 0 {
		t.Fatalf("no migrations embedded: %v", err)
	}
	valid := regexp.MustCompile(`^migrations/(\d{4})_[a-z0-9_]+\.tx\.up\.sql$`)
	for i, name := range names {
		m := valid.FindStringSubmatch(name)
		if m == nil {
			t.Errorf("%s: want migrations/NNNN_name.tx.up.sql", name)
			continue
		}
		if want := fmt.Sprintf("%04d", i+1); m[1] != want {
			t.Errorf("%s: ID %s, want %s (IDs are one gapless sequence)", name, m[1], want)
		}
		src, err := fs.ReadFile(migrationFiles, name)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range []dialect.Name{dialect.SQLite, dialect.PG} {
			data, err := ddlFor(d)
			if err != nil {
				t.Fatal(err)
			}
			tmpl, err := template.New(name).Option("missingkey=error").Parse(string(src))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			var out bytes.Buffer
			if err := tmpl.Execute(&out, data); err != nil {
				t.Fatalf("%s for %s: %v", name, d, err)
			}
			if strings.Contains(out.String(), "{{") || strings.Contains(out.String(), "<no value>") {
				t.Errorf("%s for %s: template left unrendered", name, d)
			}
		}
	}
	if _, err := migrations(); err != nil {
		t.Fatalf("migrations: %v", err)
	}
}

func TestDDLForUnknownDialect(t *testing.T) {
	if _, err := ddlFor(dialect.MySQL); err == nil {
		t.Fatal("ddlFor(mysql) succeeded")
	}
}
