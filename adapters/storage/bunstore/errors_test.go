package bunstore

import (
	"database/sql"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/hearth-forge/hearth/core"
)

// SQLite errors are covered against a real database by the store suite;
// Postgres errors are built here so the mapping is checked without a server.
func TestWriteErrPostgres(t *testing.T) {
	taken := func(field string) map[string][]string { return map[string][]string{field: {"has already been taken"}} }
	cases := []struct {
		err    error
		kind   error
		fields map[string][]string
		msg    string
	}{
		{&pgconn.PgError{Code: "23505", ConstraintName: "users_username_key"}, core.ErrConflict, taken("username"), "Username has already been taken"},
		{&pgconn.PgError{Code: "23505", ConstraintName: "emails_email_key"}, core.ErrConflict, taken("email"), "Email has already been taken"},
		{&pgconn.PgError{Code: "23505", ConstraintName: "ssh_keys_fingerprint_key"}, core.ErrConflict, taken("fingerprint"), "Fingerprint has already been taken"},
		{&pgconn.PgError{Code: "23505", ConstraintName: "key_fingerprints_fingerprint_key"}, core.ErrConflict, taken("fingerprint"), "Fingerprint has already been taken"},
		{&pgconn.PgError{Code: "23505", ConstraintName: "deploy_keys_fingerprint_key"}, core.ErrConflict, taken("fingerprint"), "Fingerprint has already been taken"},
		{&pgconn.PgError{Code: "23505", ConstraintName: "users_identity_key"}, core.ErrConflict, taken("extern_uid"), "Extern uid has already been taken"},
		{&pgconn.PgError{Code: "23505", ConstraintName: "tokens_digest_key"}, core.ErrConflict, nil, "Token has already been taken"},
		{&pgconn.PgError{Code: "23505", ConstraintName: "namespaces_full_path_key"}, core.ErrConflict, taken("path"), "Path has already been taken"},
		{&pgconn.PgError{Code: "23505", ConstraintName: "namespaces_path_key"}, core.ErrConflict, taken("path"), "Path has already been taken"},
		{&pgconn.PgError{Code: "23505", ConstraintName: "namespaces_owner_id_key"}, core.ErrConflict, nil, "Personal namespace has already been taken"},
		{&pgconn.PgError{Code: "23505", ConstraintName: "projects_name_key"}, core.ErrConflict, taken("name"), "Name has already been taken"},
		{&pgconn.PgError{Code: "23505", ConstraintName: "projects_path_key"}, core.ErrConflict, taken("path"), "Path has already been taken"},
		{&pgconn.PgError{Code: "23505", ConstraintName: "protected_branches_project_id_name_key"}, core.ErrConflict, taken("name"), "Name has already been taken"},
		{&pgconn.PgError{Code: "23505", ConstraintName: "releases_project_id_tag_name_key"}, core.ErrConflict, taken("tag_name"), "Tag name has already been taken"},
		{&pgconn.PgError{Code: "23505", ConstraintName: "something_else"}, core.ErrConflict, nil, "Record already exists (something_else)"},
		{fmt.Errorf("exec: %w", &pgconn.PgError{Code: "23503", ConstraintName: "ssh_keys_user_id_fkey"}), core.ErrNotFound, nil, "404 User Not Found"},
	}
	for _, c := range cases {
		err := writeErr(c.err, "User")
		if !errors.Is(err, c.kind) {
			t.Errorf("writeErr(%v) = %v, want kind %v", c.err, err, c.kind)
			continue
		}
		var e *core.Error
		errors.As(err, &e)
		if e.Msg != c.msg {
			t.Errorf("writeErr(%v).Msg = %q, want %q", c.err, e.Msg, c.msg)
		}
		if diff := cmp.Diff(c.fields, e.Fields); diff != "" {
			t.Errorf("writeErr(%v) fields (-want +got):\n%s", c.err, diff)
		}
	}
	other := &pgconn.PgError{Code: "42P01"}
	if err := writeErr(other, "User"); err != other {
		t.Errorf("writeErr(undefined table) = %v, want it unchanged", err)
	}
	if writeErr(nil, "User") != nil {
		t.Error("writeErr(nil) != nil")
	}
}

func TestReadErr(t *testing.T) {
	err := readErr(fmt.Errorf("scan: %w", sql.ErrNoRows), "Key")
	if !errors.Is(err, core.ErrNotFound) || err.Error() != "not found: 404 Key Not Found" {
		t.Errorf("readErr(no rows) = %v", err)
	}
	boom := errors.New("boom")
	if readErr(boom, "Key") != boom {
		t.Error("readErr changed an unrelated error")
	}
}
