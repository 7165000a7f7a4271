-- Video links, the two gaps closed (docs/calendars.md "Video links"). An agent's booking an
-- owner's approval policy holds keeps the agent's `video` with the request ({provider, url}),
-- and the booking the owner's approval makes gets it.
ALTER TABLE "booking_proposals" ADD COLUMN "video" jsonb;
--> statement-breakpoint
-- A group booking's Meet or Teams link is made once, by the organizer's calendar: every other
-- member's row names the organizer's (made_by_claim_id), is never made itself, and shows what the
-- organizer's row becomes. Deferred: members are recorded in owner-id order, the organizer's row may come later.
ALTER TABLE "booking_video_links" ADD COLUMN "made_by_claim_id" uuid;
--> statement-breakpoint
ALTER TABLE "booking_video_links" ADD CONSTRAINT "booking_video_links_made_by_fk" FOREIGN KEY ("made_by_claim_id") REFERENCES "public"."booking_video_links"("claim_id") ON DELETE cascade DEFERRABLE INITIALLY DEFERRED;
--> statement-breakpoint
ALTER TABLE "booking_video_links" ADD CONSTRAINT "booking_video_links_made_by_check" CHECK ("made_by_claim_id" IS NULL OR "calendar_id" IS NULL AND "provider" <> 'link');
--> statement-breakpoint
CREATE INDEX "booking_video_links_made_by_idx" ON "booking_video_links" USING btree ("made_by_claim_id") WHERE "made_by_claim_id" IS NOT NULL;
