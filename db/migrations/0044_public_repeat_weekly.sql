-- A public meeting type may offer "repeat weekly for N weeks" (docs/public-scheduling.md
-- "Repeating weekly"): repeat_weekly_max_weeks is the most weeks a requester may ask for (2 to
-- 52; null: not offered). A proposal of such a type carries the weeks asked for (repeat_weeks,
-- 2 to 52; null: one meeting); approving it books the series FREQ=WEEKLY;COUNT=repeat_weeks in
-- the owner's zone through the one claim path, all or nothing.
ALTER TABLE "public_meeting_types" ADD COLUMN "repeat_weekly_max_weeks" integer;
--> statement-breakpoint
ALTER TABLE "public_meeting_types" ADD CONSTRAINT "public_meeting_types_repeat_weekly_max_weeks_check" CHECK ("public_meeting_types"."repeat_weekly_max_weeks" is null or "public_meeting_types"."repeat_weekly_max_weeks" between 2 and 52);
--> statement-breakpoint
ALTER TABLE "booking_proposals" ADD COLUMN "repeat_weeks" integer;
--> statement-breakpoint
ALTER TABLE "booking_proposals" ADD CONSTRAINT "booking_proposals_repeat_weeks_check" CHECK ("booking_proposals"."repeat_weeks" is null or "booking_proposals"."repeat_weeks" between 2 and 52);
