-- Idempotency records belong to the caller that sent them (issue 11, item 1). Keyed by game
-- and command id alone, another seat could resend a command id it saw in an export with
-- guessed bodies and read the secret off the answers (200 for the right guess, 422 for the
-- others). A request is now matched only against the caller's own records: someone else's
-- request with the same id is that caller's own new command, decided on its own merits.

ALTER TABLE commands DROP CONSTRAINT commands_pkey;
ALTER TABLE commands ADD PRIMARY KEY (game_id, user_id, command_id);

CREATE OR REPLACE FUNCTION append_command(
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
    -- Only the caller's own records answer a repeat.
    SELECT * INTO prior FROM commands c
     WHERE c.game_id = p_game AND c.user_id = p_user AND c.command_id = p_command_id;
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
