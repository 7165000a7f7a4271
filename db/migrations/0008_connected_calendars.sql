CREATE TABLE "booking_invitations" (
	"claim_id" uuid PRIMARY KEY NOT NULL,
	"uid" text NOT NULL,
	"sequence" integer DEFAULT 0 NOT NULL,
	"method" text NOT NULL,
	"sent_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "calendar_booking_events" (
	"id" uuid PRIMARY KEY NOT NULL,
	"calendar_id" uuid NOT NULL,
	"claim_id" uuid NOT NULL,
	"uid" text NOT NULL,
	"resource" text NOT NULL,
	"etag" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "calendar_events" (
	"id" uuid PRIMARY KEY NOT NULL,
	"calendar_id" uuid NOT NULL,
	"owner_id" uuid NOT NULL,
	"resource" text NOT NULL,
	"uid" text NOT NULL,
	"start_at" timestamp with time zone NOT NULL,
	"end_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "calendars" ADD COLUMN "check_conflicts" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "calendars" ADD COLUMN "settings" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "calendars" ADD COLUMN "sync_state" jsonb;--> statement-breakpoint
ALTER TABLE "calendars" ADD COLUMN "last_synced_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "calendars" ADD COLUMN "last_sync_error" text;--> statement-breakpoint
ALTER TABLE "calendars" ADD COLUMN "sync_lease_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "booking_invitations" ADD CONSTRAINT "booking_invitations_claim_id_claims_id_fk" FOREIGN KEY ("claim_id") REFERENCES "public"."claims"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_booking_events" ADD CONSTRAINT "calendar_booking_events_calendar_id_calendars_id_fk" FOREIGN KEY ("calendar_id") REFERENCES "public"."calendars"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_booking_events" ADD CONSTRAINT "calendar_booking_events_claim_id_claims_id_fk" FOREIGN KEY ("claim_id") REFERENCES "public"."claims"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_events" ADD CONSTRAINT "calendar_events_calendar_id_calendars_id_fk" FOREIGN KEY ("calendar_id") REFERENCES "public"."calendars"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_events" ADD CONSTRAINT "calendar_events_owner_id_owners_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."owners"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "calendar_booking_events_claim_idx" ON "calendar_booking_events" USING btree ("calendar_id","claim_id");--> statement-breakpoint
CREATE UNIQUE INDEX "calendar_booking_events_uid_idx" ON "calendar_booking_events" USING btree ("calendar_id","uid");--> statement-breakpoint
CREATE INDEX "calendar_events_owner_range_idx" ON "calendar_events" USING btree ("owner_id","start_at","end_at");--> statement-breakpoint
CREATE INDEX "calendar_events_resource_idx" ON "calendar_events" USING btree ("calendar_id","resource");