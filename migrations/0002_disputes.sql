-- Disputes are event-sourced: dispute_events is the log (append-only), disputes its projection.

CREATE TABLE dispute_events (
    dispute_id  uuid NOT NULL,
    seq         integer NOT NULL,
    type        text NOT NULL,                -- opened | resolved
    payload     jsonb NOT NULL,
    actor       uuid NOT NULL REFERENCES users (id),
    recorded_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (dispute_id, seq)
);
CREATE TRIGGER dispute_events_no_update BEFORE UPDATE OR DELETE ON dispute_events
    FOR EACH ROW EXECUTE FUNCTION events_append_only();

CREATE TABLE disputes (
    id          uuid PRIMARY KEY,
    game_id     uuid NOT NULL REFERENCES games (id),
    seq         bigint NOT NULL,
    opened_by   uuid NOT NULL REFERENCES users (id),
    reason      text NOT NULL,
    status      text NOT NULL CHECK (status IN ('open', 'upheld', 'rejected')),
    audit       jsonb NOT NULL,
    note        text,
    resolved_by uuid REFERENCES users (id),
    created_at  timestamptz NOT NULL DEFAULT now(),
    resolved_at timestamptz
);
CREATE INDEX disputes_game ON disputes (game_id, created_at);
