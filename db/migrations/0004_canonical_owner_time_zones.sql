-- Owner time zones were stored as typed (`utc`, `europe/berlin`); rewrite them
-- in their IANA spelling (`UTC`, `Europe/Berlin`), which new writes store.
-- tzdb names are unique regardless of case; a name PostgreSQL does not know
-- stays as it is (it is answered in its IANA spelling on read).
UPDATE "owners" AS o
SET "time_zone" = z."name"
FROM pg_timezone_names AS z
WHERE lower(z."name") = lower(o."time_zone") AND z."name" <> o."time_zone";
