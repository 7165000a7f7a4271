-- While a link's owner is out of office, the link may send requesters to a colleague's link of the same
-- customer (docs/public-scheduling.md "Away: sending requesters to a colleague"). Deleting the target
-- clears it; a soft-deleted target is ignored where the redirect is read.
ALTER TABLE "public_links" ADD COLUMN "away_redirect_link_id" uuid;
--> statement-breakpoint
ALTER TABLE "public_links" ADD CONSTRAINT "public_links_away_redirect_fk" FOREIGN KEY ("away_redirect_link_id") REFERENCES "public_links"("id") ON DELETE SET NULL;
--> statement-breakpoint
-- A self-referencing key needs its index, or deleting links scans the table for each row.
CREATE INDEX "public_links_away_redirect_idx" ON "public_links" ("away_redirect_link_id") WHERE "away_redirect_link_id" IS NOT NULL;
