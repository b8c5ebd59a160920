package bunstore

import (
	"database/sql"
	"errors"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/hearth-forge/hearth/core"
)

// takenField names the field a unique index guards and how a sentence
// starts with it; field is "" for conflicts without a field map. Postgres
// reports the index name; SQLite reports it for expression indexes
// ("index 'users_username_key'") and the columns otherwise
// ("ssh_keys.fingerprint"), so both spellings are matched.
func takenField(detail string) (field, label string, ok bool) {
	has := func(names ...string) bool {
		for _, n := range names {
			if strings.Contains(detail, n) {
				return true
			}
		}
		return false
	}
	switch {
	case has("users_username_key"):
		return "username", "Username", true
	case has("emails_email_key"):
		return "email", "Email", true
	case has("ssh_keys_fingerprint_key", "ssh_keys.fingerprint", "key_fingerprints_fingerprint_key", "key_fingerprints.fingerprint",
		"deploy_keys_fingerprint_key", "deploy_keys.fingerprint"):
		return "fingerprint", "Fingerprint", true
	case has("users_identity_key", "users.provider, users.extern_uid"):
		return "extern_uid", "Extern uid", true
	case has("tokens_digest_key", "tokens.digest"):
		return "", "Token", true
	case has("namespaces_full_path_key", "namespaces_path_key"):
		return "path", "Path", true
	case has("namespaces_owner_id_key", "namespaces.owner_id"):
		return "", "Personal namespace", true
	case has("projects_name_key"):
		return "name", "Name", true
	case has("projects_path_key"):
		return "path", "Path", true
	case has("protected_branches_project_id_name_key", "protected_branches.project_id, protected_branches.name"):
		return "name", "Name", true
	case has("releases_project_id_tag_name_key", "releases.project_id, releases.tag_name"):
		return "tag_name", "Tag name", true
	}
	return "", "", false
}

// readErr maps a read error: no rows is core.NotFound(what).
func readErr(err error, what string) error {
	if errors.Is(err, sql.ErrNoRows) {
		return core.NotFound(what)
	}
	return err
}

// writeErr maps a write error: unique violations become conflicts with
// GitLab's field map, a foreign-key violation means the parent row (named
// parent, e.g. "User") does not exist.
func writeErr(err error, parent string) error {
	if err == nil {
		return nil
	}
	if detail, ok := uniqueViolation(err); ok {
		return conflict(detail)
	}
	if foreignKeyViolation(err) {
		return core.NotFound(parent)
	}
	return err
}

// parentErr is writeErr for the rows whose foreign key names parent.
func parentErr(parent string) func(error) error {
	return func(err error) error { return writeErr(err, parent) }
}

// takenErr maps a unique violation whose detail names key ("" for any:
// the table has one unique key) to the conflict taken returns, and other
// errors as parentErr(parent) does.
func takenErr(key string, taken func() error, parent string) func(error) error {
	return func(err error) error {
		if detail, ok := uniqueViolation(err); ok && strings.Contains(detail, key) {
			return taken()
		}
		return writeErr(err, parent)
	}
}

func conflict(detail string) error {
	field, label, ok := takenField(detail)
	if !ok {
		return &core.Error{Kind: core.ErrConflict, Msg: "Record already exists (" + detail + ")"}
	}
	e := &core.Error{Kind: core.ErrConflict, Msg: label + " has already been taken"}
	if field != "" {
		e.Fields = map[string][]string{field: {"has already been taken"}}
	}
	return e
}

// uniqueViolation reports whether err is a unique violation and names the
// index (Postgres) or the failing columns or index (SQLite).
func uniqueViolation(err error) (string, bool) {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.ConstraintName, pe.Code == "23505"
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return se.Error(), true
		}
	}
	return "", false
}

func foreignKeyViolation(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "23503"
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() == sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY
	}
	return false
}

// deadlock reports whether Postgres aborted err's transaction to break a
// deadlock.
func deadlock(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "40P01"
}

// unstorable reports whether a lookup key cannot match any row: text with
// a NUL byte, which no write stores (the API refuses it) and neither
// database takes in a query (SQLite stops reading the statement there,
// Postgres refuses the encoding). Lookups by such a key find nothing.
func unstorable(key string) bool { return strings.ContainsRune(key, 0) }
