package literals

import "testing"

var benchQuery = `SELECT "user_row"."id", "user_row"."username", "user_row"."name", "user_row"."email", "user_row"."password_hash", "user_row"."state", "user_row"."admin", "user_row"."bio", "user_row"."location", "user_row"."skype", "user_row"."linkedin", "user_row"."twitter", "user_row"."website_url", "user_row"."organization", "user_row"."avatar_url", "user_row"."projects_limit", "user_row"."can_create_group", "user_row"."external", "user_row"."extern_uid", "user_row"."provider", "user_row"."color_scheme_id", "user_row"."two_factor_enabled", "user_row"."confirmed_at", "user_row"."created_at", "user_row"."updated_at", "user_row"."last_sign_in_at", "user_row"."current_sign_in_at", "user_row"."last_activity_on", "user_row"."failed_attempts", "user_row"."locked_until", "user_row"."password_expires_at" FROM "users" AS "user_row" WHERE (id = 1) LIMIT 1`

// BenchmarkExtract measures the rewrite of a typical keyed read (a user
// row): it runs on every statement, so it must stay far below the
// prepare it saves (about 10 µs on SQLite).
func BenchmarkExtract(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, _, ok := Extract(benchQuery, SQLite); !ok {
			b.Fatal("not extracted")
		}
	}
}
