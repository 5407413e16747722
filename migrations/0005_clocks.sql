-- Issue 17: clocks, timeouts, abandonment, bots in seats, lobbies that do not rot.

-- A lobby the host cancelled (DELETE /v1/games/{id}) or nobody started in time
-- (HOMESTRETCH_LOBBY_TTL) says so in its status.
ALTER TABLE games DROP CONSTRAINT games_status_check;
ALTER TABLE games ADD CONSTRAINT games_status_check
    CHECK (status IN ('lobby', 'active', 'finished', 'cancelled', 'expired'));

-- The time control chosen at creation: {"per_decision_s": N, "abandon_after": K}; NULL = none.
-- Kept beside the game's own options (it is a server option, valid for every kind) and exported
-- with the game, so an audit can re-derive every deadline from the log.
ALTER TABLE games ADD COLUMN clock jsonb;

-- A seat played by a server bot ('random' | 'greedy'): given to a bot in the lobby, or passed
-- to one when its player resigned or timed out too often (the log says so).
ALTER TABLE game_seats ADD COLUMN bot_policy text CHECK (bot_policy IN ('random', 'greedy'));

-- The server's own actors. Their names hold a ':' that no registered name may contain.
-- clock: sends a timed-out seat's default move; bot:N: the bot users a game's bot seats are
-- given (one user per seat, since a user holds one seat per game).
INSERT INTO users (id, name, is_guest) VALUES
    ('00000000-0000-7000-8000-00000000c10c', 'clock:', true),
    ('00000000-0000-7000-8000-000000000b01', 'bot:1', true),
    ('00000000-0000-7000-8000-000000000b02', 'bot:2', true),
    ('00000000-0000-7000-8000-000000000b03', 'bot:3', true),
    ('00000000-0000-7000-8000-000000000b04', 'bot:4', true),
    ('00000000-0000-7000-8000-000000000b05', 'bot:5', true),
    ('00000000-0000-7000-8000-000000000b06', 'bot:6', true);

-- When an active game next needs the server: a clock deadline or a bot's turn. One row per
-- active game that has a clock or a bot seat, kept by a trigger in the same transaction as
-- every append (so it survives any crash); `due_at` is derived from the head event's
-- `recorded_at`. The worker claims due rows with FOR UPDATE SKIP LOCKED and a short lease
-- (`leased_until`); the append's version check makes the firing itself exactly-once.
CREATE TABLE deadlines (
    game_id      uuid PRIMARY KEY REFERENCES games (id),
    version      bigint NOT NULL,
    head_at      timestamptz NOT NULL,
    due_at       timestamptz NOT NULL,
    leased_until timestamptz
);
CREATE INDEX deadlines_due ON deadlines (due_at);

CREATE FUNCTION games_deadline() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    head_at timestamptz;
    has_bot boolean;
BEGIN
    IF NEW.status <> 'active' THEN
        DELETE FROM deadlines WHERE game_id = NEW.id;
        RETURN NEW;
    END IF;
    has_bot := EXISTS (SELECT 1 FROM game_seats s WHERE s.game_id = NEW.id AND s.bot_policy IS NOT NULL);
    IF NEW.clock IS NULL AND NOT has_bot THEN
        DELETE FROM deadlines WHERE game_id = NEW.id;
        RETURN NEW;
    END IF;
    SELECT e.recorded_at INTO head_at FROM events e WHERE e.game_id = NEW.id AND e.seq = NEW.version;
    head_at := coalesce(head_at, now());
    -- A bot may be due at once; the worker pushes due_at to the clock's deadline when no bot
    -- is to act.
    INSERT INTO deadlines (game_id, version, head_at, due_at)
    VALUES (NEW.id, NEW.version, head_at,
            CASE WHEN has_bot THEN head_at
                 ELSE head_at + make_interval(secs => (NEW.clock ->> 'per_decision_s')::double precision) END)
    ON CONFLICT (game_id) DO UPDATE
        SET version = EXCLUDED.version, head_at = EXCLUDED.head_at, due_at = EXCLUDED.due_at,
            leased_until = NULL;
    RETURN NEW;
END $$;

CREATE TRIGGER games_deadline AFTER INSERT OR UPDATE OF version, status ON games
    FOR EACH ROW EXECUTE FUNCTION games_deadline();

-- The log is the truth about who plays a seat: a `seat_abandoned` entry (a resignation, or K
-- timeouts in a row) hands the seat to the bot it names, in the append's own transaction, so
-- the seat and its deadline row can never disagree with the log.
CREATE FUNCTION events_seat_abandoned() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE game_seats SET bot_policy = NEW.payload ->> 'policy'
     WHERE game_id = NEW.game_id AND seat = (NEW.payload ->> 'seat')::smallint;
    RETURN NEW;
END $$;
CREATE TRIGGER events_seat_abandoned AFTER INSERT ON events
    FOR EACH ROW WHEN (NEW.type = 'seat_abandoned') EXECUTE FUNCTION events_seat_abandoned();
