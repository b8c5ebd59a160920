package app_test

import (
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/hearth-forge/hearth/app/apptest"
)

// TestNoSecretAtRest creates every kind of secret through the API, then
// searches the whole database and the whole log for each of them.
func TestNoSecretAtRest(t *testing.T) {
	t.Parallel()
	for _, driver := range []string{"sqlite", "postgres"} {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			srv := apptest.New(t, apptest.Driver(driver))
			secrets := exerciseSecrets(t, srv)
			var dump string
			if driver == "sqlite" {
				dump = dumpSQLiteFiles(t, srv.Config.Storage.DSN)
			} else {
				dump = dumpPostgres(t, srv.Config.Storage.DSN)
			}
			if len(dump) < 1000 {
				t.Fatalf("database dump is suspiciously small (%d bytes)", len(dump))
			}
			logs := srv.Logs()
			if !strings.Contains(logs, `"msg":"request"`) {
				t.Fatal("no access log captured")
			}
			for name, secret := range secrets {
				if strings.Contains(dump, secret) {
					t.Errorf("%s found in the database", name)
				}
				if strings.Contains(logs, secret) {
					t.Errorf("%s found in the log", name)
				}
			}
		})
	}
}

func exerciseSecrets(t *testing.T, srv *apptest.Server) map[string]string {
	t.Helper()
	secrets := map[string]string{
		"root password":  apptest.RootPassword,
		"root token":     srv.RootToken,
		"user password":  "Zebra-Password-9931",
		"wrong password": "Wrong-Password-5512",
		"new password":   "Changed-Password-7733",
	}
	var u struct{ ID int64 }
	srv.JSON(t, "POST", "/users", srv.RootToken, url.Values{
		"username": {"zed"}, "email": {"zed@example.com"}, "name": {"Zed"}, "password": {secrets["user password"]},
	}, 201, &u)
	var sess struct {
		PrivateToken string `json:"private_token"`
	}
	srv.JSON(t, "POST", "/session", "", url.Values{"login": {"zed"}, "password": {secrets["user password"]}}, 201, &sess)
	secrets["session token"] = sess.PrivateToken
	// Secrets in the query string must not reach the access log either.
	srv.JSON(t, "POST", "/session?login=zed&password="+secrets["wrong password"], "", nil, 401, nil)
	srv.JSON(t, "GET", "/user?private_token="+sess.PrivateToken, "", nil, 200, nil)
	srv.JSON(t, "GET", "/user?access_token="+sess.PrivateToken, "", nil, 200, nil)
	var imp, pat struct{ Token string }
	srv.JSON(t, "POST", fmt.Sprintf("/users/%d/impersonation_tokens", u.ID), srv.RootToken,
		map[string]any{"name": "imp", "scopes": []string{"api"}}, 201, &imp)
	srv.JSON(t, "POST", fmt.Sprintf("/users/%d/personal_access_tokens", u.ID), srv.RootToken,
		map[string]any{"name": "pat", "scopes": []string{"api"}}, 201, &pat)
	secrets["impersonation token"], secrets["personal token"] = imp.Token, pat.Token
	srv.JSON(t, "GET", "/user", imp.Token, nil, 200, nil)
	srv.JSON(t, "GET", "/user?sudo=zed", srv.RootToken, nil, 200, nil)
	srv.JSON(t, "PUT", fmt.Sprintf("/users/%d", u.ID), srv.RootToken, url.Values{"password": {secrets["new password"]}}, 200, nil)
	srv.JSON(t, "GET", "/user", "not-a-real-token-abcdef", nil, 401, nil)
	for name, s := range secrets {
		if s == "" {
			t.Fatalf("%s was not returned", name)
		}
	}
	return secrets
}

// dumpSQLiteFiles reads the database file and its WAL byte for byte.
func dumpSQLiteFiles(t *testing.T, path string) string {
	t.Helper()
	var b strings.Builder
	for _, p := range []string{path, path + "-wal"} {
		data, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		b.Write(data)
	}
	return b.String()
}

// dumpPostgres renders every row of every table in the test schema as JSON.
func dumpPostgres(t *testing.T, dsn string) string {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
	}
	rows.Close()
	if len(tables) == 0 {
		t.Fatal("no tables in the test schema")
	}
	var b strings.Builder
	for _, table := range tables {
		rows, err := db.Query(fmt.Sprintf(`SELECT row_to_json(t)::text FROM %q t`, table))
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			b.WriteString(s)
			b.WriteByte('\n')
		}
		rows.Close()
	}
	return b.String()
}
