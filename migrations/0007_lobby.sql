-- Issue 18 (lobby): invite codes, rematch links, and the inbox (the seats a game waits for).

-- A lobby's short invite code (unambiguous alphabet, see `infra::lobby::new_join_code`). It
-- joins only while the game is in its lobby; the row stays afterwards so an expired code is told
-- apart from a mistyped one.
CREATE TABLE join_codes (
    code    text PRIMARY KEY,
    game_id uuid NOT NULL UNIQUE REFERENCES games (id)
);

-- A finished game's rematch: the one lobby opened for it (two players pressing rematch get the
-- same lobby: the first insert wins under the finished game's row lock).
CREATE TABLE rematches (
    game_id    uuid PRIMARY KEY REFERENCES games (id),
    rematch_id uuid NOT NULL UNIQUE REFERENCES games (id),
    created_at timestamptz NOT NULL DEFAULT now()
);

-- The inbox: one row per seat a game waits for (a prompt with `must: true`), rewritten by
-- `inbox_set` in the same statement as every append (`Store::append`), so `GET /v1/me/inbox`
-- is one index read and never replays a game. Seats never change once a game has started, so
-- the user is copied here.
CREATE TABLE inbox (
    game_id  uuid NOT NULL REFERENCES games (id),
    seat     smallint NOT NULL,
    user_id  uuid NOT NULL REFERENCES users (id),
    kinds    text[] NOT NULL,             -- the command types the game waits for from the seat
    since    timestamptz NOT NULL,        -- when the game began waiting for this seat
    deadline timestamptz,                 -- the seat's clock deadline; NULL without a clock
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX inbox_user ON inbox (user_id, deadline, since);

-- Replaces a game's inbox rows by `p_waiting` = [{seat, kinds, deadline?}] (the seats the game
-- now waits for). A seat still waiting keeps its `since` (its turn goes on).
CREATE FUNCTION inbox_set(p_game uuid, p_waiting jsonb, p_at timestamptz) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    n integer;
BEGIN
    DELETE FROM inbox i WHERE i.game_id = p_game AND NOT EXISTS (
        SELECT 1 FROM jsonb_to_recordset(p_waiting) AS w(seat smallint) WHERE w.seat = i.seat);
    INSERT INTO inbox (game_id, seat, user_id, kinds, since, deadline)
    SELECT p_game, w.seat, s.user_id, w.kinds, p_at, w.deadline
      FROM jsonb_to_recordset(p_waiting) AS w(seat smallint, kinds text[], deadline timestamptz)
      JOIN game_seats s ON s.game_id = p_game AND s.seat = w.seat
    ON CONFLICT (game_id, seat) DO UPDATE SET kinds = EXCLUDED.kinds, deadline = EXCLUDED.deadline;
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN n;
END $$;
