-- Issue 31, the command path's fast path: a command's whole write is one statement, so
-- `Store::append` sends one autocommit call instead of BEGIN, the append, a language lookup, one
-- insert per notification, pg_notify and COMMIT (3 round trips when nobody is notified, 5 + one
-- per recipient otherwise). See infra/src/store.rs and infra/src/outbox.rs.

-- Writes notifications (the one copy of this SQL: `infra::outbox::enqueue` calls it for the
-- lobby, disputes and joins, `append_command2` for commands). The arrays are parallel, one entry
-- per notification, already in recipient order (user id, stable: the feed heads are locked in
-- one order so two writers notifying the same users cannot deadlock). `p_payloads[i]` is the
-- notification told in each language of the catalogue, keyed by tag (`en`, `fr`), plus the
-- payload as given under '' when it differs from its English telling: the recipient's
-- `users.language` picks one, '' (or English) without one, so no lookup round trip is needed.
-- Each notification becomes the next entry of its recipient's feed and one outbox row per
-- destination of theirs whose queue has room (issue 26: a queue that was empty becomes due now,
-- one that waits keeps its time; only enqueues lock both a feed head and queues, heads first).
-- Then one pg_notify per recipient wakes the streams and the delivery workers.
CREATE FUNCTION enqueue_notifications(
    p_users uuid[], p_ids uuid[], p_games uuid[], p_kinds text[], p_payloads jsonb[]
) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    i integer;
BEGIN
    FOR i IN 1 .. coalesce(array_length(p_users, 1), 0) LOOP
        WITH head AS (
                 INSERT INTO notification_heads (user_id, seq) VALUES (p_users[i], 1)
                 ON CONFLICT (user_id) DO UPDATE SET seq = notification_heads.seq + 1
                 RETURNING seq),
             n AS (
                 INSERT INTO notifications (id, user_id, seq, game_id, type, payload)
                 SELECT p_ids[i], p_users[i], head.seq, p_games[i], p_kinds[i],
                        coalesce(p_payloads[i] -> (SELECT u.language FROM users u WHERE u.id = p_users[i]),
                                 p_payloads[i] -> '', p_payloads[i] -> 'en')
                   FROM head RETURNING id),
             q AS (
                 UPDATE outbox_queues SET queued = queued + 1, due_at = coalesce(due_at, now())
                  WHERE user_id = p_users[i] AND queued < capacity
                 RETURNING destination)
        INSERT INTO outbox (notification_id, destination) SELECT n.id, q.destination FROM n, q;
    END LOOP;
    PERFORM pg_notify('homestretch_notifications', u::text)
       FROM (SELECT DISTINCT u FROM unnest(p_users) AS u) d;
END $$;

-- One command's whole write: `append_command` (lock, idempotency, version check, events, head,
-- command record, snapshot, pg_notify), then, when it appended, the inbox rewrite
-- (`inbox_set`) and the command's notifications, all in the caller's statement.
CREATE FUNCTION append_command2(
    p_game uuid, p_expected bigint, p_command_id uuid, p_user uuid, p_seat smallint,
    p_body_hash text, p_command jsonb,
    p_types text[], p_payloads jsonb[], p_schema integer, p_hashes text[],
    p_status text, p_outcome jsonb, p_snapshot jsonb, p_at timestamptz,
    p_waiting jsonb,
    p_note_users uuid[], p_note_ids uuid[], p_note_games uuid[], p_note_kinds text[],
    p_note_payloads jsonb[]
) RETURNS TABLE (result text, version bigint, first_seq bigint, last_seq bigint)
LANGUAGE plpgsql AS $$
DECLARE
    r record;
BEGIN
    SELECT * INTO r FROM append_command(p_game, p_expected, p_command_id, p_user, p_seat,
        p_body_hash, p_command, p_types, p_payloads, p_schema, p_hashes, p_status, p_outcome,
        p_snapshot, p_at) a;
    IF r.result = 'ok' THEN
        PERFORM inbox_set(p_game, p_waiting, p_at);
        PERFORM enqueue_notifications(p_note_users, p_note_ids, p_note_games, p_note_kinds,
                                      p_note_payloads);
    END IF;
    RETURN QUERY SELECT r.result, r.version, r.first_seq, r.last_seq;
END $$;

-- Group commit across games (`infra::group_commit`): the appends of several games that arrived
-- together, as one statement and one transaction (one WAL flush). `p_items` is an array of
-- `append_command2`'s arguments by name (`infra::group_commit::item_json`); each is appended in
-- order, so two appends of one game behave as if sent one after the other, and each keeps its
-- own answer (ok, duplicate, mismatch, conflict, not_found): those never touch the other items.
-- An error (a constraint an item breaks) rolls the whole statement back; the caller then sends
-- each item alone. Items lock feed heads in item order, not in one user-id order across the
-- batch, so a batch can deadlock with a join, a dispute or an invitation notifying the same
-- users: `lock_timeout` (below `deadlock_timeout`, 1 s) makes the batch give up first, and its
-- items are then sent alone, in the deadlock-free order, while the other transaction goes on.
CREATE FUNCTION jsonb_texts(p jsonb) RETURNS text[]
LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce(array_agg(e ORDER BY i), '{}') FROM jsonb_array_elements_text(p) WITH ORDINALITY AS t(e, i)
$$;

CREATE FUNCTION jsonb_items(p jsonb) RETURNS jsonb[]
LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce(array_agg(e ORDER BY i), '{}') FROM jsonb_array_elements(p) WITH ORDINALITY AS t(e, i)
$$;

CREATE FUNCTION append_batch(p_items jsonb)
RETURNS TABLE (item integer, result text, version bigint, first_seq bigint, last_seq bigint)
LANGUAGE plpgsql SET lock_timeout = '200ms' AS $$
DECLARE
    it jsonb;
    k integer;
    r record;
BEGIN
    FOR it, k IN SELECT e, i FROM jsonb_array_elements(p_items) WITH ORDINALITY AS t(e, i) ORDER BY i LOOP
        SELECT * INTO r FROM append_command2(
            (it ->> 'game')::uuid, (it ->> 'expected')::bigint, (it ->> 'command_id')::uuid,
            (it ->> 'user')::uuid, (it ->> 'seat')::smallint, it ->> 'body_hash', it -> 'command',
            jsonb_texts(it -> 'types'), jsonb_items(it -> 'payloads'), (it ->> 'schema')::integer,
            jsonb_texts(it -> 'hashes'), it ->> 'status', it -> 'outcome', it -> 'snapshot',
            (it ->> 'at')::timestamptz, it -> 'waiting',
            jsonb_texts(it -> 'note_users')::uuid[], jsonb_texts(it -> 'note_ids')::uuid[],
            jsonb_texts(it -> 'note_games')::uuid[], jsonb_texts(it -> 'note_kinds'),
            jsonb_items(it -> 'note_payloads')) a;
        item := k;
        result := r.result;
        version := r.version;
        first_seq := r.first_seq;
        last_seq := r.last_seq;
        RETURN NEXT;
    END LOOP;
END $$;
