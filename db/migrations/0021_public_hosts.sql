-- Public meeting types with several hosts (docs/public-scheduling.md "Several hosts"):
-- `collective` (every owner of host_owner_ids, in that order) or `pool` (one member of
-- pool_id, picked at submission). A collective proposal lists every host, so it is in each
-- host's inbox; a pool proposal carries the assignment the pool made at submission.
ALTER TABLE "public_meeting_types" ADD COLUMN "host_mode" text DEFAULT 'single' NOT NULL;
--> statement-breakpoint
ALTER TABLE "public_meeting_types" ADD COLUMN "host_owner_ids" uuid[];
--> statement-breakpoint
ALTER TABLE "public_meeting_types" ADD COLUMN "pool_id" uuid;
--> statement-breakpoint
ALTER TABLE "public_meeting_types" ADD CONSTRAINT "public_meeting_types_pool_id_pools_id_fk" FOREIGN KEY ("pool_id") REFERENCES "public"."pools"("id") ON DELETE set null ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "public_meeting_types" ADD CONSTRAINT "public_meeting_types_host_mode_check" CHECK ("public_meeting_types"."host_mode" in ('single', 'collective', 'pool'));
--> statement-breakpoint
ALTER TABLE "booking_proposals" ADD COLUMN "host_owner_ids" uuid[];
--> statement-breakpoint
ALTER TABLE "booking_proposals" ADD COLUMN "pool_assignment" jsonb;
--> statement-breakpoint
CREATE INDEX "booking_proposals_hosts_idx" ON "booking_proposals" USING gin ("host_owner_ids") WHERE "booking_proposals"."host_owner_ids" is not null;
