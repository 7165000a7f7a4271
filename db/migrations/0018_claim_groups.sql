-- A group hold or booking (docs/groups.md, "Group holds and bookings"): one claim per owner,
-- all sharing group_id, committed in one transaction. The per-owner exclusion constraint is
-- unchanged and still has the last word.
ALTER TABLE "claims" ADD COLUMN "group_id" uuid;
--> statement-breakpoint
CREATE INDEX "claims_group_idx" ON "claims" USING btree ("group_id") WHERE "claims"."group_id" is not null;
