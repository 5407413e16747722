-- The account's language for problem texts and notifications (issue 18): 'en' or 'fr'; NULL = no
-- preference (English unless a request's Accept-Language asks otherwise).
ALTER TABLE users ADD COLUMN language text CHECK (language IN ('en', 'fr'));
