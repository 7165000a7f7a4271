-- A recurring series (docs/arbitration.md "Recurring series"): every occurrence of a series is a
-- booking (a claim) carrying the series' id, as every member of a group carries its group_id. No
-- series table: in this slice a series has no state of its own beyond its occurrences (the rule
-- and min_occurrences are in the answer and the audit rows), so a column keeps the claim's insert
-- one statement and every read a lookup on claims. The partial index finds a series' occurrences
-- (cancel with scope following or series).
ALTER TABLE "claims" ADD COLUMN "series_id" uuid;
--> statement-breakpoint
CREATE INDEX "claims_series_idx" ON "claims" USING btree ("series_id","start_at") WHERE "claims"."series_id" is not null;
