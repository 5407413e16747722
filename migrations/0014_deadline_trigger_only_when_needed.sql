-- Issue 31: `games_deadline` (0005) ran on every append of every game — a plpgsql call, an
-- EXISTS over the game's seats and a DELETE that finds nothing — though only a game with a
-- clock or a bot seat ever has a deadline row: ≈ 27 µs of PostgreSQL CPU per command at 64
-- games (the trigger dropped and restored between runs, three of each, 03:35 UTC). It now
-- fires only for such games, told by a `WHEN` on the row itself.
--
-- `has_bot`: the game has, or once had, a bot seat. Set by the seats' own trigger whenever a
-- seat gets a bot (a lobby's bot, a seat abandoned to one: `events_seat_abandoned`, in the
-- append's transaction, before the append updates the head), never cleared: a stale `true`
-- only costs the trigger's old work, whose own EXISTS still decides.
ALTER TABLE games ADD COLUMN has_bot boolean NOT NULL DEFAULT false;
UPDATE games g SET has_bot = true
 WHERE EXISTS (SELECT 1 FROM game_seats s WHERE s.game_id = g.id AND s.bot_policy IS NOT NULL);

CREATE FUNCTION game_seats_bot() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE games SET has_bot = true WHERE id = NEW.game_id AND NOT has_bot;
    RETURN NEW;
END $$;
CREATE TRIGGER game_seats_bot AFTER INSERT OR UPDATE OF bot_policy ON game_seats
    FOR EACH ROW WHEN (NEW.bot_policy IS NOT NULL) EXECUTE FUNCTION game_seats_bot();

DROP TRIGGER games_deadline ON games;
CREATE TRIGGER games_deadline AFTER INSERT OR UPDATE OF version, status ON games
    FOR EACH ROW WHEN (NEW.clock IS NOT NULL OR NEW.has_bot) EXECUTE FUNCTION games_deadline();
