-- Issue 26: lobby transitions serialized in PostgreSQL; deadlines that belong to decisions.

-- Every lobby transition (join, leave, cancel, start, bot, expiry) takes the game's row lock and
-- checks the status under it, so a cancelled or expired lobby is never started by this code.
-- This trigger makes it a property of the database, whatever instance (of whatever version)
-- appends: a closed lobby never gets a log and never reopens.
CREATE FUNCTION games_closed_lobby() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'game % is %: a closed lobby never starts', OLD.id, OLD.status
        USING ERRCODE = 'object_not_in_prerequisite_state';
END $$;
CREATE TRIGGER games_closed_lobby BEFORE UPDATE OF version, status ON games FOR EACH ROW
    WHEN (OLD.status IN ('cancelled', 'expired')
          AND (NEW.version <> OLD.version OR NEW.status <> OLD.status))
    EXECUTE FUNCTION games_closed_lobby();

-- A deadline belongs to the decision it times (clock version 2): each seat the game waits for
-- counts from the entry its own decision began at, `since_seq` (its `since` is that entry's
-- time), which optional commands (trades …) never move. The application computes it with every
-- append and hands it to `inbox_set` with the seat (`since`, `since_seq`); a row without it (a
-- game of clock version 1, or no clock) keeps `since` while the seat goes on waiting, as before.
-- An instance that loads a game reads its seats' decisions back from here
-- (`Store::decisions`), in the same statement as the game's version.
ALTER TABLE inbox ADD COLUMN since_seq bigint;

CREATE OR REPLACE FUNCTION inbox_set(p_game uuid, p_waiting jsonb, p_at timestamptz) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    n integer;
BEGIN
    DELETE FROM inbox i WHERE i.game_id = p_game AND NOT EXISTS (
        SELECT 1 FROM jsonb_to_recordset(p_waiting) AS w(seat smallint) WHERE w.seat = i.seat);
    INSERT INTO inbox (game_id, seat, user_id, kinds, since, deadline, since_seq)
    SELECT p_game, w.seat, s.user_id, w.kinds, coalesce(w.since, p_at), w.deadline, w.since_seq
      FROM jsonb_to_recordset(p_waiting)
           AS w(seat smallint, kinds text[], deadline timestamptz, since timestamptz, since_seq bigint)
      JOIN game_seats s ON s.game_id = p_game AND s.seat = w.seat
    ON CONFLICT (game_id, seat) DO UPDATE SET
        kinds = EXCLUDED.kinds,
        deadline = EXCLUDED.deadline,
        since = CASE WHEN EXCLUDED.since_seq IS NULL THEN inbox.since ELSE EXCLUDED.since END,
        since_seq = EXCLUDED.since_seq;
    GET DIAGNOSTICS n = ROW_COUNT;
    -- The game's next deadline is its nearest seat's: the append's trigger (`games_deadline`)
    -- counted it from the head, which an optional command moves; a seat's own decision may be
    -- due sooner.
    UPDATE deadlines d SET due_at = m.due
      FROM (SELECT min(i.deadline) AS due FROM inbox i WHERE i.game_id = p_game) m
     WHERE d.game_id = p_game AND m.due < d.due_at;
    RETURN n;
END $$;
