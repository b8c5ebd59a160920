package pgtest

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"
)

// FromTemplate gives t a database of its own in the state build leaves a
// template in, and returns its DSN.
//
// The template is built once per server, the first time a test asks for
// it (test processes running in parallel wait for each other on an
// advisory lock), so its name must say what build makes, down to the
// version: a template is never rebuilt.
//
// Tests do not get a new copy each but one of a pool of copies named
// template_0, template_1, ..., which t holds (an advisory lock) until it
// ends. A copy is made with CREATE DATABASE ... TEMPLATE the first time,
// and afterwards emptied for the next test: its tables emptied, its
// sequences reset, what the template holds (hearth_migrations) checked.
// Making a database runs no DDL (in a migration every index costs an
// fsync), and emptying one drops none (DROP DATABASE forces a checkpoint
// of the whole server). A copy whose schema a test changed, or whose
// template rows it touched, is copied again.
func FromTemplate(t testing.TB, template string, build Build) string {
	t.Helper()
	base := baseDSN()
	admin := adminDB(t, base)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, err := templates.ensure(ctx, admin, base, template, build)
	if err != nil {
		admin.Close()
		t.Fatalf("pgtest: template %s: %v", template, err)
	}
	holder, err := admin.Conn(ctx)
	if err != nil {
		admin.Close()
		t.Fatalf("pgtest: %v", err)
	}
	name, err := claim(ctx, holder, template)
	t.Cleanup(func() {
		// Closing admin closes the holder's connection, and that
		// releases the claim.
		holder.Close()
		admin.Close()
	})
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	dsn, err := withParam(base, "dbname", name)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	why, err := prepare(ctx, holder, dsn, name, template, p)
	if err != nil {
		t.Fatalf("pgtest: %s: %v", name, err)
	}
	if why != "" {
		t.Logf("pgtest: %s %s; copied %s again", name, why, template)
	}
	return fast(t, dsn)
}

// maxCopies bounds the pool of a template; Postgres allows 100
// connections by default, and every test holds at least two.
const maxCopies = 100

// claim takes the first copy of template no one holds, on holder.
func claim(ctx context.Context, holder *sql.Conn, template string) (string, error) {
	for n := range maxCopies {
		name := fmt.Sprintf("%s_%d", template, n)
		var ok bool
		if err := holder.QueryRowContext(ctx, "SELECT pg_try_advisory_lock(hashtext('hearth.pgtest'), hashtext($1))", name).Scan(&ok); err != nil {
			return "", fmt.Errorf("claim %s: %w", name, err)
		}
		if ok {
			return name, nil
		}
	}
	return "", fmt.Errorf("all %d copies of %s are taken", maxCopies, template)
}

// prepare makes copy name of template ready for a test: copies the
// template if there is no such database yet, or else empties it, or copies
// the template again when it cannot be emptied, and says why.
func prepare(ctx context.Context, holder *sql.Conn, dsn, name, template string, p profile) (string, error) {
	var n int
	if err := holder.QueryRowContext(ctx, "SELECT count(*) FROM pg_database WHERE datname = $1", name).Scan(&n); err != nil {
		return "", err
	}
	if n == 0 {
		return "", copyTemplate(ctx, holder, name, template)
	}
	// A killed test process may have left connections behind.
	if _, err := holder.ExecContext(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", name); err != nil {
		return "", err
	}
	why, err := empty(ctx, dsn, p)
	if err != nil {
		why = "could not be emptied (" + err.Error() + ")"
	}
	if why == "" {
		return "", nil
	}
	if _, err := holder.ExecContext(ctx, "DROP DATABASE "+ident(name)+" WITH (FORCE)"); err != nil {
		return "", err
	}
	return why, copyTemplate(ctx, holder, name, template)
}

func copyTemplate(ctx context.Context, holder *sql.Conn, name, template string) error {
	if _, err := holder.ExecContext(ctx, "CREATE DATABASE "+ident(name)+" TEMPLATE "+ident(template)); err != nil {
		return fmt.Errorf("copy %s: %w", template, err)
	}
	return nil
}

// changedByDDL counts the catalog rows written after the database was
// made: DDL writes them, DML and vacuum do not (ANALYZE writes
// pg_statistic, which is not counted).
const changedByDDL = `
SELECT count(*) FROM (
	SELECT xmin FROM pg_namespace UNION ALL SELECT xmin FROM pg_class UNION ALL SELECT xmin FROM pg_attribute
	UNION ALL SELECT xmin FROM pg_attrdef UNION ALL SELECT xmin FROM pg_constraint UNION ALL SELECT xmin FROM pg_index
	UNION ALL SELECT xmin FROM pg_proc UNION ALL SELECT xmin FROM pg_trigger UNION ALL SELECT xmin FROM pg_type
	UNION ALL SELECT xmin FROM pg_rewrite UNION ALL SELECT xmin FROM pg_sequence UNION ALL SELECT xmin FROM pg_depend
	UNION ALL SELECT xmin FROM pg_description UNION ALL SELECT xmin FROM pg_policy UNION ALL SELECT xmin FROM pg_extension
) c
WHERE age(c.xmin) < (SELECT age(xmin) FROM pg_database WHERE datname = current_database())`

// empty brings the copy at dsn back to the template's state p, or says
// why it cannot.
func empty(ctx context.Context, dsn string, p profile) (string, error) {
	db, err := connect(dsn)
	if err != nil {
		return "", err
	}
	defer db.Close()
	var n int
	if err := db.QueryRowContext(ctx, changedByDDL).Scan(&n); err != nil {
		return "", err
	}
	if n > 0 {
		return "had its schema changed", nil
	}
	for table, want := range p.Kept {
		got, err := digestRows(ctx, db, table)
		if err != nil {
			return "", err
		}
		if got != want {
			return "had the rows of " + table + " changed", nil
		}
	}
	var q strings.Builder
	for _, table := range p.Empty {
		q.WriteString("DELETE FROM " + table + ";\n")
	}
	for seq, s := range p.Sequences {
		fmt.Fprintf(&q, "SELECT setval(%s, %d, %t);\n", literal(seq), s.Last, s.Called)
	}
	// Without arguments pgx sends the statements as one simple query: one
	// round trip, one implicit transaction.
	if _, err := db.ExecContext(ctx, q.String()); err != nil {
		return "", err
	}
	return "", nil
}
