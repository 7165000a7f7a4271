-- Video links (docs/calendars.md "Video links"): a meeting type's location can be a video meeting,
-- made through the owner's connected Google calendar (google_meet), Microsoft calendar
-- (microsoft_teams), or a fixed link (link, with video_url).
ALTER TABLE "public_meeting_types" ADD COLUMN "video_provider" text;
--> statement-breakpoint
ALTER TABLE "public_meeting_types" ADD COLUMN "video_url" text;
--> statement-breakpoint
ALTER TABLE "public_meeting_types" ADD CONSTRAINT "public_meeting_types_video_provider_check" CHECK ("video_provider" in ('google_meet', 'microsoft_teams', 'link'));
--> statement-breakpoint
ALTER TABLE "public_meeting_types" ADD CONSTRAINT "public_meeting_types_video_url_check" CHECK (("video_provider" = 'link') = ("video_url" IS NOT NULL) OR "video_provider" IS NULL AND "video_url" IS NULL);
--> statement-breakpoint
-- One booking's video link: written in the booking's own transaction (pending, or ready for a
-- fixed link), made at the provider by the calendar write-back of calendar_id (a sync, under
-- the calendar's lease, never inside a claim transaction), retried at each sync until
-- ready or failed.
CREATE TABLE "booking_video_links" (
  "claim_id" uuid PRIMARY KEY NOT NULL,
  "owner_id" uuid NOT NULL,
  "provider" text NOT NULL,
  "calendar_id" uuid,
  "status" text NOT NULL,
  "join_url" text,
  "conference_id" text,
  "attempts" integer DEFAULT 0 NOT NULL,
  "last_error" text,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "updated_at" timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT "booking_video_links_provider_check" CHECK ("provider" in ('google_meet', 'microsoft_teams', 'link')),
  CONSTRAINT "booking_video_links_status_check" CHECK ("status" in ('pending', 'ready', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "booking_video_links" ADD CONSTRAINT "booking_video_links_claim_id_claims_id_fk" FOREIGN KEY ("claim_id") REFERENCES "public"."claims"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "booking_video_links" ADD CONSTRAINT "booking_video_links_owner_id_owners_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."owners"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "booking_video_links" ADD CONSTRAINT "booking_video_links_calendar_id_calendars_id_fk" FOREIGN KEY ("calendar_id") REFERENCES "public"."calendars"("id") ON DELETE set null ON UPDATE no action;
--> statement-breakpoint
-- A calendar's write-back looks up its pending links.
CREATE INDEX "booking_video_links_pending_idx" ON "booking_video_links" USING btree ("calendar_id") WHERE "status" = 'pending';
--> statement-breakpoint
-- An owner's links (a calendar connected later adopts them; deleting the owner cascades).
CREATE INDEX "booking_video_links_owner_idx" ON "booking_video_links" USING btree ("owner_id");
