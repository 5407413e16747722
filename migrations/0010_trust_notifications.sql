-- Issue 26: notifications that one user cannot flood, destinations that belong to their maker,
-- one open dispute per move and filer, look-alike names refused by the database.

-- A push subscription belongs to the user who made it (item 9): the same endpoint registered by
-- another user is that user's own row, never a move of the first one's.
ALTER TABLE push_subscriptions DROP CONSTRAINT push_subscriptions_endpoint_key;
ALTER TABLE push_subscriptions ADD CONSTRAINT push_subscriptions_user_endpoint UNIQUE (user_id, endpoint);
DROP INDEX push_subscriptions_user;

-- The outbox names its destination (a webhook's or a push subscription's id: both are UUIDv7,
-- one namespace) instead of two foreign keys. Deleting a destination deletes its queue in the
-- same transaction, its queue first (`infra::outbox`), so no delivery outlives it.
ALTER TABLE outbox ADD COLUMN destination uuid;
UPDATE outbox SET destination = coalesce(webhook_id, push_id);
ALTER TABLE outbox ALTER COLUMN destination SET NOT NULL;
ALTER TABLE outbox DROP COLUMN webhook_id, DROP COLUMN push_id, DROP COLUMN due_at;
CREATE INDEX outbox_destination ON outbox (destination, id);

-- One queue per destination (item 3), made with the destination and deleted with it: who owns
-- it, how many deliveries wait for it and how many may (`capacity`, from
-- `HOMESTRETCH_QUEUE_PER_DESTINATION` when the destination was registered: a notification that
-- finds the queue full goes to the feed only), and when its oldest delivery may be tried — the
-- retry time, and the lease of the instance delivering it; NULL: nothing waits. The claim walks
-- `outbox_queues_due` and takes one delivery per destination, so it reads a few index pages
-- whatever the outbox holds, and a destination just served goes to the back of the line: one
-- user's backlog never holds another user's delivery.
CREATE TABLE outbox_queues (
    destination uuid PRIMARY KEY,
    user_id     uuid NOT NULL REFERENCES users (id),
    queued      integer NOT NULL DEFAULT 0 CHECK (queued >= 0),
    capacity    integer NOT NULL CHECK (capacity >= 0),
    due_at      timestamptz
);
CREATE INDEX outbox_queues_user ON outbox_queues (user_id);
CREATE INDEX outbox_queues_due ON outbox_queues (due_at) WHERE due_at IS NOT NULL;
INSERT INTO outbox_queues (destination, user_id, capacity)
SELECT id, user_id, 1000 FROM webhooks
UNION ALL
SELECT id, user_id, 1000 FROM push_subscriptions;
UPDATE outbox_queues q SET queued = c.n, due_at = now()
  FROM (SELECT destination, count(*) AS n FROM outbox GROUP BY destination) c
 WHERE c.destination = q.destination;
DELETE FROM outbox o WHERE NOT EXISTS (SELECT 1 FROM outbox_queues q WHERE q.destination = o.destination);

-- Revocations are polled by every instance every few seconds (item 6), besides `pg_notify`.
CREATE INDEX revoked_families_at ON revoked_families (revoked_at);

-- One open dispute per (game, move, filer) (item 10).
CREATE UNIQUE INDEX disputes_one_open ON disputes (game_id, seq, opened_by) WHERE status = 'open';
CREATE INDEX disputes_open_by ON disputes (opened_by) WHERE status = 'open';

-- The lobbies a user hosts that have not started, counted against their quota.
CREATE INDEX games_open_lobbies ON games (host_id) WHERE status = 'lobby';

-- Look-alike names (item 11): the UTS #39 confusable skeletons of a name's NFKC form, one of
-- the case-folded name and one of the name as written, each unique. They are computed by
-- `infra::accounts::name_keys`; rows made before this migration are filled in at start-up
-- (`infra::accounts::fill_name_keys`), where a later look-alike of an earlier name keeps its
-- name and login but gets keys of its own (the pair is logged for an admin).
ALTER TABLE users ADD COLUMN name_key text, ADD COLUMN name_shape text;
CREATE UNIQUE INDEX users_name_skeleton ON users (name_key);
CREATE UNIQUE INDEX users_name_shape ON users (name_shape);
