-- Sessions (refresh-token families) that were ended: by logout, or because a spent refresh token
-- came back after the reuse leeway (a stolen token). Access tokens name their family (`fam`) and
-- are refused once it is here; every refresh token of the family is refused too.
CREATE TABLE revoked_families (
    family_id  uuid PRIMARY KEY,
    user_id    uuid NOT NULL REFERENCES users (id),
    reason     text NOT NULL CHECK (reason IN ('logout', 'reuse')),
    revoked_at timestamptz NOT NULL DEFAULT now()
);
