-- Users, their addresses, SSH keys and API tokens.
CREATE TABLE IF NOT EXISTS users (
    id {{.ID}},
    username TEXT NOT NULL,
    name TEXT NOT NULL DEFAULT '',
    email TEXT NOT NULL DEFAULT '',
    password_hash TEXT NOT NULL DEFAULT '',
    state TEXT NOT NULL DEFAULT 'active',
    admin BOOLEAN NOT NULL DEFAULT FALSE,
    bio TEXT NOT NULL DEFAULT '',
    location TEXT NOT NULL DEFAULT '',
    skype TEXT NOT NULL DEFAULT '',
    linkedin TEXT NOT NULL DEFAULT '',
    twitter TEXT NOT NULL DEFAULT '',
    website_url TEXT NOT NULL DEFAULT '',
    organization TEXT NOT NULL DEFAULT '',
    avatar_url TEXT NOT NULL DEFAULT '',
    projects_limit INTEGER NOT NULL DEFAULT 0,
    can_create_group BOOLEAN NOT NULL DEFAULT FALSE,
    external BOOLEAN NOT NULL DEFAULT FALSE,
    extern_uid TEXT,
    provider TEXT,
    color_scheme_id INTEGER NOT NULL DEFAULT 1,
    two_factor_enabled BOOLEAN NOT NULL DEFAULT FALSE,
    confirmed_at {{.Time}},
    created_at {{.Time}} NOT NULL,
    updated_at {{.Time}} NOT NULL,
    last_sign_in_at {{.Time}},
    current_sign_in_at {{.Time}},
    last_activity_on {{.Time}},
    failed_attempts INTEGER NOT NULL DEFAULT 0,
    locked_until {{.Time}},
    password_expires_at {{.Time}}
);
--bun:split
CREATE UNIQUE INDEX IF NOT EXISTS users_username_key ON users (lower(username));
--bun:split
-- Not unique: uniqueness of addresses lives in emails.
CREATE INDEX IF NOT EXISTS users_email_idx ON users (lower(email));
--bun:split
-- NULLs are distinct, so users without an external identity never collide.
CREATE UNIQUE INDEX IF NOT EXISTS users_identity_key ON users (provider, extern_uid);
--bun:split
CREATE INDEX IF NOT EXISTS users_state_idx ON users (state);
--bun:split
CREATE INDEX IF NOT EXISTS users_created_at_idx ON users (created_at);
--bun:split
CREATE INDEX IF NOT EXISTS users_last_activity_on_idx ON users (last_activity_on, id);
--bun:split
-- Every address of every user; is_primary marks the copy of users.email.
CREATE TABLE IF NOT EXISTS emails (
    id {{.ID}},
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    email TEXT NOT NULL,
    is_primary BOOLEAN NOT NULL DEFAULT FALSE,
    created_at {{.Time}} NOT NULL
);
--bun:split
CREATE UNIQUE INDEX IF NOT EXISTS emails_email_key ON emails (lower(email));
--bun:split
CREATE INDEX IF NOT EXISTS emails_user_id_idx ON emails (user_id);
--bun:split
CREATE TABLE IF NOT EXISTS ssh_keys (
    id {{.ID}},
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    title TEXT NOT NULL DEFAULT '',
    "key" TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    created_at {{.Time}} NOT NULL
);
--bun:split
CREATE UNIQUE INDEX IF NOT EXISTS ssh_keys_fingerprint_key ON ssh_keys (fingerprint);
--bun:split
CREATE INDEX IF NOT EXISTS ssh_keys_user_id_idx ON ssh_keys (user_id);
--bun:split
CREATE TABLE IF NOT EXISTS tokens (
    id {{.ID}},
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name TEXT NOT NULL DEFAULT '',
    digest TEXT NOT NULL,
    kind TEXT NOT NULL,
    scopes TEXT NOT NULL DEFAULT '',
    revoked BOOLEAN NOT NULL DEFAULT FALSE,
    expires_at {{.Time}},
    created_at {{.Time}} NOT NULL,
    last_used_at {{.Time}}
);
--bun:split
CREATE UNIQUE INDEX IF NOT EXISTS tokens_digest_key ON tokens (digest);
--bun:split
CREATE INDEX IF NOT EXISTS tokens_user_id_idx ON tokens (user_id, kind);
