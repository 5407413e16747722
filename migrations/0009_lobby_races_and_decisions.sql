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
