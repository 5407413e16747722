-- Homestretch schema. Every game table is keyed by game_id first (see docs/scaling.md).

CREATE TABLE users (
    id            uuid PRIMARY KEY,
    name          text NOT NULL,
    password_hash text,                       -- argon2id PHC string; NULL for guests
    is_guest      boolean NOT NULL DEFAULT false,
    is_admin      boolean NOT NULL DEFAULT false,
    created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_name_key ON users (lower(name));

-- Rotating refresh tokens, stored hashed. A spent token presented again revokes its family.
CREATE TABLE refresh_tokens (
    token_hash text PRIMARY KEY,              -- hex SHA-256 of the opaque token
    user_id    uuid NOT NULL REFERENCES users (id),
    family_id  uuid NOT NULL,
    expires_at timestamptz NOT NULL,
    spent_at   timestamptz,
    revoked_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX refresh_tokens_family ON refresh_tokens (family_id);

CREATE TABLE games (
    id              uuid PRIMARY KEY,
    kind            text NOT NULL,
    status          text NOT NULL CHECK (status IN ('lobby', 'active', 'finished')),
    seat_count      smallint NOT NULL CHECK (seat_count BETWEEN 1 AND 6),
    options         jsonb NOT NULL,
    host_id         uuid NOT NULL REFERENCES users (id),
    fair            boolean NOT NULL,         -- false when created with a fixed rng_seed
    server_seed     bytea NOT NULL,           -- secret until the game ends
    seed_commitment text NOT NULL,            -- hex SHA-256(server_seed), public
    rules_version   text NOT NULL,
    -- inline projection of the log head, written in the same transaction as every append
    version         bigint NOT NULL DEFAULT 0,
    head_hash       text NOT NULL,
    outcome         jsonb,
    created_at      timestamptz NOT NULL DEFAULT now(),
    started_at      timestamptz,
    finished_at     timestamptz,
    updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX games_list ON games (created_at DESC, id DESC);

CREATE TABLE game_seats (
    game_id     uuid NOT NULL REFERENCES games (id),
    seat        smallint NOT NULL CHECK (seat BETWEEN 1 AND 6),
    user_id     uuid NOT NULL REFERENCES users (id),
    client_seed text NOT NULL DEFAULT '',
    joined_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, seat),
    UNIQUE (game_id, user_id)
);
CREATE INDEX game_seats_user ON game_seats (user_id);

-- The append-only event log; hash = SHA-256(prev_hash || canonical event bytes).
CREATE TABLE events (
    game_id        uuid NOT NULL REFERENCES games (id),
    seq            bigint NOT NULL CHECK (seq >= 1),
    type           text NOT NULL,
    payload        jsonb NOT NULL,
    schema_version integer NOT NULL,
    command_id     uuid NOT NULL,
    actor          smallint,                  -- seat that sent the command; NULL for the host's start
    recorded_at    timestamptz NOT NULL DEFAULT now(),
    prev_hash      text NOT NULL,
    hash           text NOT NULL,
    PRIMARY KEY (game_id, seq)
);

CREATE FUNCTION events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'events are append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER events_no_update BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION events_append_only();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION events_append_only();

-- Every accepted command, for idempotency (same id, same body → the first answer).
CREATE TABLE commands (
    game_id     uuid NOT NULL REFERENCES games (id),
    command_id  uuid NOT NULL,
    user_id     uuid NOT NULL REFERENCES users (id),
    seat        smallint,
    body_hash   text NOT NULL,
    command     jsonb NOT NULL,
    first_seq   bigint NOT NULL,
    last_seq    bigint NOT NULL,
    recorded_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, command_id)
);

-- State snapshots every N events, so long games replay fast.
CREATE TABLE snapshots (
    game_id uuid NOT NULL REFERENCES games (id),
    version bigint NOT NULL,
    state   jsonb NOT NULL,
    PRIMARY KEY (game_id, version)
);

-- One command = one round trip: lock the head, check idempotency and version, append the
-- events, advance the head projection, remember the command, notify listeners.
-- result: 'ok' | 'duplicate' (same id, same body) | 'mismatch' (same id, other body) | 'conflict'
CREATE FUNCTION append_command(
    p_game uuid, p_expected bigint, p_command_id uuid, p_user uuid, p_seat smallint,
    p_body_hash text, p_command jsonb,
    p_types text[], p_payloads jsonb[], p_schema integer, p_hashes text[],
    p_status text, p_outcome jsonb, p_snapshot jsonb, p_at timestamptz
) RETURNS TABLE (result text, version bigint, first_seq bigint, last_seq bigint)
LANGUAGE plpgsql AS $$
DECLARE
    head bigint;
    head_h text;
    prior commands%ROWTYPE;
    n integer := coalesce(array_length(p_types, 1), 0);
BEGIN
    SELECT g.version, g.head_hash INTO head, head_h FROM games g WHERE g.id = p_game FOR UPDATE;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'not_found'::text, 0::bigint, 0::bigint, 0::bigint; RETURN;
    END IF;
    SELECT * INTO prior FROM commands c WHERE c.game_id = p_game AND c.command_id = p_command_id;
    IF FOUND THEN
        RETURN QUERY SELECT CASE WHEN prior.body_hash = p_body_hash THEN 'duplicate' ELSE 'mismatch' END,
            head, prior.first_seq, prior.last_seq;
        RETURN;
    END IF;
    IF head <> p_expected THEN
        RETURN QUERY SELECT 'conflict'::text, head, 0::bigint, 0::bigint; RETURN;
    END IF;
    INSERT INTO events (game_id, seq, type, payload, schema_version, command_id, actor, recorded_at, prev_hash, hash)
    SELECT p_game, p_expected + i, p_types[i], p_payloads[i], p_schema, p_command_id, p_seat, p_at,
           CASE WHEN i = 1 THEN head_h ELSE p_hashes[i - 1] END, p_hashes[i]
    FROM generate_subscripts(p_types, 1) AS i;
    UPDATE games SET version = p_expected + n,
                     head_hash = CASE WHEN n > 0 THEN p_hashes[n] ELSE head_h END,
                     status = p_status,
                     outcome = coalesce(p_outcome, games.outcome),
                     started_at = CASE WHEN games.started_at IS NULL AND p_status <> 'lobby' THEN now() ELSE games.started_at END,
                     finished_at = CASE WHEN p_status = 'finished' AND games.finished_at IS NULL THEN now() ELSE games.finished_at END,
                     updated_at = now()
     WHERE id = p_game;
    INSERT INTO commands (game_id, command_id, user_id, seat, body_hash, command, first_seq, last_seq, recorded_at)
    VALUES (p_game, p_command_id, p_user, p_seat, p_body_hash, p_command, p_expected + 1, p_expected + n, p_at);
    IF p_snapshot IS NOT NULL THEN
        INSERT INTO snapshots (game_id, version, state) VALUES (p_game, p_expected + n, p_snapshot);
    END IF;
    PERFORM pg_notify('homestretch_events', p_game::text || ':' || (p_expected + n)::text);
    RETURN QUERY SELECT 'ok'::text, p_expected + n, p_expected + 1, p_expected + n;
END $$;
