-- Notifications, delivered from the log (issue 18). A notification is written in the same
-- transaction as the events (or the seat) that cause it, so none is sent for a command that did
-- not commit and none is lost across a crash. See infra/src/outbox.rs.

-- Where a user wants their notifications pushed: signed webhooks and Web Push subscriptions.
CREATE TABLE webhooks (
    id         uuid PRIMARY KEY,
    user_id    uuid NOT NULL REFERENCES users (id),
    url        text NOT NULL,
    secret     text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (user_id, url)
);

CREATE TABLE push_subscriptions (
    id         uuid PRIMARY KEY,
    user_id    uuid NOT NULL REFERENCES users (id),
    endpoint   text NOT NULL UNIQUE,
    p256dh     text NOT NULL,              -- base64url, as PushSubscription.toJSON() gives it
    auth       text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX push_subscriptions_user ON push_subscriptions (user_id);

-- Each user's notifications, numbered per user without gaps (`seq`, the app stream's event id):
-- the number is taken under the row lock of `notification_heads`, held until commit, so a
-- reader never sees seq n+1 before seq n.
CREATE TABLE notification_heads (
    user_id uuid PRIMARY KEY REFERENCES users (id),
    seq     bigint NOT NULL
);

CREATE TABLE notifications (
    id         uuid PRIMARY KEY,            -- the `id` receivers deduplicate on
    user_id    uuid NOT NULL REFERENCES users (id),
    seq        bigint NOT NULL,
    game_id    uuid,
    type       text NOT NULL,
    payload    jsonb NOT NULL,              -- the JSON delivered, exactly
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (user_id, seq)
);

-- One row per (notification, destination) still to deliver; deleted once delivered. `due_at`
-- is both the retry time and the lease of the instance delivering it (claimed rows are pushed
-- into the future, so a crashed instance's rows come due again).
CREATE TABLE outbox (
    id              bigserial PRIMARY KEY,
    notification_id uuid NOT NULL REFERENCES notifications (id),
    webhook_id      uuid REFERENCES webhooks (id) ON DELETE CASCADE,
    push_id         uuid REFERENCES push_subscriptions (id) ON DELETE CASCADE,
    attempts        integer NOT NULL DEFAULT 0,
    due_at          timestamptz NOT NULL DEFAULT now(),
    last_error      text,
    CHECK ((webhook_id IS NULL) <> (push_id IS NULL))
);
CREATE INDEX outbox_due ON outbox (due_at);
CREATE INDEX outbox_webhook ON outbox (webhook_id, id);
CREATE INDEX outbox_push ON outbox (push_id, id);
