-- The first schema: users, entries with their list indexes and a generated search
-- vector with its GIN index, revoked token ids, and settings (the JWT secret).
CREATE EXTENSION IF NOT EXISTS unaccent SCHEMA public;

-- Text as the full-text index sees it: accents and case folded, and every run of
-- characters other than letters and digits turned into one space, so that words split
-- exactly as the search query's words do (and as SQLite's unicode61 tokenizer splits).
-- unaccent() is only STABLE (it reads its dictionary by name); naming the dictionary
-- makes it safe to declare IMMUTABLE, which a generated column requires.
CREATE FUNCTION journal_unaccent(text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
    AS $$ SELECT public.unaccent('public.unaccent'::regdictionary, $1) $$;
CREATE FUNCTION journal_fold(text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
    AS $$ SELECT regexp_replace(lower(journal_unaccent($1)), '[^[:alnum:]]+', ' ', 'g') $$;

CREATE TABLE users (
    id                  uuid PRIMARY KEY,
    email               text NOT NULL CONSTRAINT users_email_key UNIQUE,
    full_name           text NOT NULL,
    nickname            text NOT NULL,
    password_hash       text NOT NULL,
    profile_pic         text NOT NULL DEFAULT '',
    role                text NOT NULL DEFAULT 'user' CHECK (role IN ('user', 'admin')),
    is_private          boolean NOT NULL DEFAULT false,
    password_changed_at timestamptz NOT NULL,
    created_at          timestamptz NOT NULL,
    updated_at          timestamptz NOT NULL
);

CREATE TABLE entries (
    id          uuid PRIMARY KEY,
    author_id   uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    author_name text NOT NULL,
    title       text NOT NULL,
    content     text NOT NULL,
    is_public   boolean NOT NULL,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL,
    search      tsvector GENERATED ALWAYS AS (
                    setweight(to_tsvector('simple', journal_fold(title)), 'A') ||
                    setweight(to_tsvector('simple', journal_fold(content)), 'B')
                ) STORED
);
-- An author's own list, newest first.
CREATE INDEX entries_author_created ON entries (author_id, created_at DESC, id DESC);
-- Another user's view of an author: public entries only.
CREATE INDEX entries_author_public_created ON entries (author_id, created_at DESC, id DESC) WHERE is_public;
-- The public feed.
CREATE INDEX entries_public_created ON entries (created_at DESC, id DESC) WHERE is_public;
-- Full-text search.
CREATE INDEX entries_search ON entries USING gin (search);

CREATE TABLE revoked_tokens (
    jti        text PRIMARY KEY,
    expires_at timestamptz NOT NULL
);
CREATE INDEX revoked_tokens_expires ON revoked_tokens (expires_at);

CREATE TABLE settings (
    key   text PRIMARY KEY,
    value text NOT NULL
);
