-- A requester's waitlist entry (docs/public-scheduling.md "Waitlist", docs/api.md "Waitlist"): an
-- entry belongs either to an agent or to a requester's email on a public link's meeting type. A
-- requester's entry is addressed by a token (only its hash is looked up by; the token is kept
-- sealed with the at-rest keys so the offer's mail can carry the link), and names the request
-- filed when the requester confirms the offered hold.
ALTER TABLE "waitlist_entries" ALTER COLUMN "agent_id" DROP NOT NULL;
--> statement-breakpoint
ALTER TABLE "waitlist_entries" ADD COLUMN "link_id" uuid;
--> statement-breakpoint
ALTER TABLE "waitlist_entries" ADD COLUMN "meeting_type_id" uuid;
--> statement-breakpoint
ALTER TABLE "waitlist_entries" ADD COLUMN "requester_email" text;
--> statement-breakpoint
ALTER TABLE "waitlist_entries" ADD COLUMN "requester_name" text;
--> statement-breakpoint
ALTER TABLE "waitlist_entries" ADD COLUMN "requester_locale" text;
--> statement-breakpoint
ALTER TABLE "waitlist_entries" ADD COLUMN "requester_time_zone" text;
--> statement-breakpoint
ALTER TABLE "waitlist_entries" ADD COLUMN "token_hash" text;
--> statement-breakpoint
ALTER TABLE "waitlist_entries" ADD COLUMN "token_sealed" text;
--> statement-breakpoint
ALTER TABLE "waitlist_entries" ADD COLUMN "base_url" text;
--> statement-breakpoint
ALTER TABLE "waitlist_entries" ADD COLUMN "offer_mailed_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "waitlist_entries" ADD COLUMN "proposal_id" uuid;
--> statement-breakpoint
ALTER TABLE "waitlist_entries" ADD CONSTRAINT "waitlist_entries_link_id_public_links_id_fk" FOREIGN KEY ("link_id") REFERENCES "public"."public_links"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "waitlist_entries" ADD CONSTRAINT "waitlist_entries_meeting_type_id_public_meeting_types_id_fk" FOREIGN KEY ("meeting_type_id") REFERENCES "public"."public_meeting_types"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "waitlist_entries" ADD CONSTRAINT "waitlist_entries_proposal_id_booking_proposals_id_fk" FOREIGN KEY ("proposal_id") REFERENCES "public"."booking_proposals"("id") ON DELETE set null ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "waitlist_entries" ADD CONSTRAINT "waitlist_entries_who" CHECK (("agent_id" is not null and "requester_email" is null and "link_id" is null and "meeting_type_id" is null and "token_hash" is null and "token_sealed" is null) or ("agent_id" is null and "requester_email" is not null and "link_id" is not null and "meeting_type_id" is not null and "token_hash" is not null and "token_sealed" is not null and "base_url" is not null));
--> statement-breakpoint
CREATE UNIQUE INDEX "waitlist_entries_token_key" ON "waitlist_entries" USING btree ("token_hash") WHERE "waitlist_entries"."token_hash" is not null;
--> statement-breakpoint
CREATE INDEX "waitlist_entries_requester_idx" ON "waitlist_entries" USING btree ("link_id","requester_email","created_at") WHERE "waitlist_entries"."requester_email" is not null;
--> statement-breakpoint
CREATE INDEX "waitlist_entries_offer_mail_idx" ON "waitlist_entries" USING btree ("offered_at") WHERE "waitlist_entries"."requester_email" is not null and "waitlist_entries"."status" = 'offered' and "waitlist_entries"."offer_mailed_at" is null;
--> statement-breakpoint
ALTER TABLE "booking_proposals" DROP CONSTRAINT "booking_proposals_hold_origin";
--> statement-breakpoint
ALTER TABLE "booking_proposals" ADD CONSTRAINT "booking_proposals_hold_origin" CHECK ("booking_proposals"."hold_id" is null or "booking_proposals"."origin" in ('agent', 'public'));
