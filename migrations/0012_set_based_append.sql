-- Issue 31, set-based group commit: a batch of appends (`infra::group_commit`) is written with
-- one statement per table for the whole batch, not one plpgsql call (and a dozen statements)
-- per item as `append_batch` (0011) does. The items come as parallel arrays (bound by
-- `infra::append::Batch`, no JSON to build or parse): one entry per item (`p_*`), per event
-- (`e_*`, `e_item` naming its item, an item's events in order) and per notification (`n_*`,
-- likewise, each item's in recipient order). A lone append still goes to `append_command2`
-- (0011): the dozen statements here are planned on each call, which a batch shares among its
-- items but a lone append would pay alone (2.6-2.8x its execution time, measured).
--
-- Each item keeps its own answer, as `append_command` gives it: `not_found`, `duplicate` /
-- `mismatch` (the caller's own record of that command id), `conflict` (the game's head is not
-- the item's expected version), else `ok`. Items of one game are taken in passes, the first of
-- each game in pass 1, the second in pass 2 …, so two appends of one game behave as if sent
-- one after the other (the second sees the first's head and record). Within a pass every game
-- appears once, which is what lets each table take one statement.
--
-- The order of the writes is `append_command`'s: events before the head (the `games_deadline`
-- trigger reads the head event's time), then the command records, snapshots, the inbox (as
-- `inbox_set`) and the notifications (as `enqueue_notifications`), which are skipped when no
-- item appending carries any. Game rows are locked in id order and feed heads in user-id order
-- across the pass, so two batches cannot deadlock on them.
CREATE FUNCTION append_many(
    p_game uuid[], p_expected bigint[], p_command_id uuid[], p_user uuid[], p_seat smallint[],
    p_body_hash text[], p_command jsonb[], p_schema integer[], p_status text[],
    p_outcome jsonb[], p_snapshot jsonb[], p_at timestamptz[], p_waiting jsonb[],
    p_head text[], p_events integer[],
    e_item integer[], e_type text[], e_payload jsonb[], e_hash text[],
    n_item integer[], n_user uuid[], n_id uuid[], n_game uuid[], n_kind text[], n_payload jsonb[]
) RETURNS TABLE (item integer, result text, version bigint, first_seq bigint, last_seq bigint)
LANGUAGE plpgsql AS $$
DECLARE
    place integer[];      -- each item's pass: its rank among the items of its game
    passes integer;
    pass integer;
    ok integer[];         -- the items of this pass that append
    ok_head text[];       -- their games' head hashes before the pass
    decided record;
BEGIN
    SELECT array_agg(s.rank ORDER BY s.i), max(s.rank) INTO place, passes
      FROM (SELECT u.i, row_number() OVER (PARTITION BY u.g ORDER BY u.i) AS rank
              FROM unnest(p_game) WITH ORDINALITY AS u(g, i)) s;
    FOR pass IN 1 .. coalesce(passes, 0) LOOP
        PERFORM 1 FROM games g
         WHERE g.id IN (SELECT p_game[k] FROM generate_subscripts(p_game, 1) AS k WHERE place[k] = pass)
         ORDER BY g.id FOR UPDATE;
        -- Every item's answer; the ones that do not append are given now.
        ok := '{}';
        ok_head := '{}';
        FOR decided IN
            SELECT t.k::integer AS k,
                   CASE WHEN g.id IS NULL THEN 'not_found'
                        WHEN c.body_hash IS NOT NULL
                            THEN CASE WHEN c.body_hash = p_body_hash[t.k] THEN 'duplicate' ELSE 'mismatch' END
                        WHEN g.version <> p_expected[t.k] THEN 'conflict'
                        ELSE 'ok' END AS answer,
                   coalesce(g.version, 0) AS head, coalesce(c.first_seq, 0) AS first,
                   coalesce(c.last_seq, 0) AS last, g.head_hash
              FROM generate_subscripts(p_game, 1) AS t(k)
              LEFT JOIN games g ON g.id = p_game[t.k]
              LEFT JOIN commands c ON c.game_id = p_game[t.k] AND c.user_id = p_user[t.k]
                                  AND c.command_id = p_command_id[t.k]
             WHERE place[t.k] = pass
        LOOP
            IF decided.answer = 'ok' THEN
                ok := ok || decided.k;
                ok_head := ok_head || decided.head_hash;
            ELSE
                item := decided.k;
                result := decided.answer;
                version := decided.head;
                first_seq := decided.first;
                last_seq := decided.last;
                RETURN NEXT;
            END IF;
        END LOOP;
        CONTINUE WHEN coalesce(array_length(ok, 1), 0) = 0;

        INSERT INTO events (game_id, seq, type, payload, schema_version, command_id, actor,
                            recorded_at, prev_hash, hash)
        SELECT p_game[e.k], p_expected[e.k] + row_number() OVER w, e.type, e.payload,
               p_schema[e.k], p_command_id[e.k], p_seat[e.k], p_at[e.k],
               coalesce(lag(e.hash) OVER w, o.head), e.hash
          FROM unnest(e_item, e_type, e_payload, e_hash) WITH ORDINALITY AS e(k, type, payload, hash, x)
          JOIN unnest(ok, ok_head) AS o(k, head) ON o.k = e.k
        WINDOW w AS (PARTITION BY e.k ORDER BY e.x);

        UPDATE games SET version = p_expected[o.k] + p_events[o.k],
                         head_hash = coalesce(p_head[o.k], games.head_hash),
                         status = p_status[o.k],
                         outcome = coalesce(p_outcome[o.k], games.outcome),
                         started_at = CASE WHEN games.started_at IS NULL AND p_status[o.k] <> 'lobby'
                                           THEN now() ELSE games.started_at END,
                         finished_at = CASE WHEN p_status[o.k] = 'finished' AND games.finished_at IS NULL
                                            THEN now() ELSE games.finished_at END,
                         updated_at = now()
          FROM unnest(ok) AS o(k)
         WHERE games.id = p_game[o.k];

        INSERT INTO commands (game_id, command_id, user_id, seat, body_hash, command, first_seq,
                              last_seq, recorded_at)
        SELECT p_game[k], p_command_id[k], p_user[k], p_seat[k], p_body_hash[k], p_command[k],
               p_expected[k] + 1, p_expected[k] + p_events[k], p_at[k]
          FROM unnest(ok) AS k;

        INSERT INTO snapshots (game_id, version, state)
        SELECT p_game[k], p_expected[k] + p_events[k], p_snapshot[k]
          FROM unnest(ok) AS k WHERE p_snapshot[k] IS NOT NULL;

        -- The inbox, as `inbox_set` rewrites it for each game.
        DELETE FROM inbox i USING unnest(ok) AS o(k)
         WHERE i.game_id = p_game[o.k] AND NOT EXISTS (
               SELECT 1 FROM jsonb_to_recordset(p_waiting[o.k]) AS w(seat smallint) WHERE w.seat = i.seat);
        INSERT INTO inbox (game_id, seat, user_id, kinds, since, deadline, since_seq)
        SELECT p_game[o.k], w.seat, s.user_id, w.kinds, coalesce(w.since, p_at[o.k]), w.deadline, w.since_seq
          FROM unnest(ok) AS o(k)
         CROSS JOIN LATERAL jsonb_to_recordset(p_waiting[o.k])
               AS w(seat smallint, kinds text[], deadline timestamptz, since timestamptz, since_seq bigint)
          JOIN game_seats s ON s.game_id = p_game[o.k] AND s.seat = w.seat
        ON CONFLICT (game_id, seat) DO UPDATE SET
            kinds = EXCLUDED.kinds,
            deadline = EXCLUDED.deadline,
            since = CASE WHEN EXCLUDED.since_seq IS NULL THEN inbox.since ELSE EXCLUDED.since END,
            since_seq = EXCLUDED.since_seq;
        UPDATE deadlines d SET due_at = m.due
          FROM (SELECT i.game_id, min(i.deadline) AS due FROM inbox i
                 WHERE i.game_id IN (SELECT p_game[k] FROM unnest(ok) AS k)
                 GROUP BY i.game_id) m
         WHERE d.game_id = m.game_id AND m.due < d.due_at;

        -- Notifications, as `enqueue_notifications` writes them: each the next entry of its
        -- recipient's feed (numbered in item order, then the item's own order) and one outbox
        -- row per destination of theirs whose queue has room.
        IF n_item && ok THEN
            WITH note AS (
                     SELECT n.x, n.usr, n.id, n.game, n.kind, n.payload,
                            row_number() OVER (PARTITION BY n.usr ORDER BY n.x) AS r,
                            count(*) OVER (PARTITION BY n.usr) AS c
                       FROM unnest(n_item, n_user, n_id, n_game, n_kind, n_payload)
                            WITH ORDINALITY AS n(k, usr, id, game, kind, payload, x)
                      WHERE n.k = ANY (ok)),
                 head AS (
                     INSERT INTO notification_heads AS h (user_id, seq)
                     SELECT usr, count(*) FROM note GROUP BY usr ORDER BY usr
                     ON CONFLICT (user_id) DO UPDATE SET seq = h.seq + EXCLUDED.seq
                     RETURNING h.user_id, h.seq),
                 written AS (
                     INSERT INTO notifications (id, user_id, seq, game_id, type, payload)
                     SELECT note.id, note.usr, head.seq - note.c + note.r, note.game, note.kind,
                            coalesce(note.payload -> u.language, note.payload -> '', note.payload -> 'en')
                       FROM note JOIN head ON head.user_id = note.usr
                       LEFT JOIN users u ON u.id = note.usr
                     RETURNING id, user_id),
                 room AS (
                     SELECT q.destination, q.user_id, q.capacity - q.queued AS room
                       FROM outbox_queues q
                      WHERE q.user_id IN (SELECT usr FROM note) AND q.queued < q.capacity
                      ORDER BY q.destination FOR UPDATE),
                 queued AS (
                     UPDATE outbox_queues q
                        SET queued = q.queued + least(room.room, (SELECT count(*) FROM note WHERE note.usr = room.user_id)),
                            due_at = coalesce(q.due_at, now())
                       FROM room WHERE q.destination = room.destination)
            -- In feed order: a destination is delivered in outbox id order.
            INSERT INTO outbox (notification_id, destination)
            SELECT written.id, room.destination
              FROM written JOIN note ON note.id = written.id
              JOIN room ON room.user_id = written.user_id AND note.r <= room.room
             ORDER BY note.x, room.destination;
            PERFORM pg_notify('homestretch_notifications', u::text)
               FROM (SELECT DISTINCT n_user[x] AS u FROM generate_subscripts(n_item, 1) AS x
                      WHERE n_item[x] = ANY (ok)) d;
        END IF;

        -- One wake-up per game, as the listener (`api::adapters::pg_listen`) reads it.
        PERFORM pg_notify('homestretch_events', p_game[k]::text || ':' || (p_expected[k] + p_events[k])::text)
           FROM unnest(ok) AS k;
        RETURN QUERY SELECT k, 'ok'::text, p_expected[k] + p_events[k], p_expected[k] + 1,
                            p_expected[k] + p_events[k]
                       FROM unnest(ok) AS k;
    END LOOP;
END $$;

-- The batch (two or more appends): `append_many` giving up on a game row another transaction
-- holds (a lobby transition, another instance's batch) after 200 ms, below `deadlock_timeout`,
-- so the items are then sent alone (`infra::group_commit`) instead of the batch waiting on one.
CREATE FUNCTION append_batch2(
    p_game uuid[], p_expected bigint[], p_command_id uuid[], p_user uuid[], p_seat smallint[],
    p_body_hash text[], p_command jsonb[], p_schema integer[], p_status text[],
    p_outcome jsonb[], p_snapshot jsonb[], p_at timestamptz[], p_waiting jsonb[],
    p_head text[], p_events integer[],
    e_item integer[], e_type text[], e_payload jsonb[], e_hash text[],
    n_item integer[], n_user uuid[], n_id uuid[], n_game uuid[], n_kind text[], n_payload jsonb[]
) RETURNS TABLE (item integer, result text, version bigint, first_seq bigint, last_seq bigint)
LANGUAGE sql SET lock_timeout = '200ms' AS $$
    SELECT * FROM append_many(p_game, p_expected, p_command_id, p_user, p_seat, p_body_hash,
        p_command, p_schema, p_status, p_outcome, p_snapshot, p_at, p_waiting, p_head, p_events,
        e_item, e_type, e_payload, e_hash, n_item, n_user, n_id, n_game, n_kind, n_payload)
$$;
