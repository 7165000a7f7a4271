-- The waitlist (docs/api.md "Waitlist", docs/arbitration.md "Waitlist"): an agent waits for time
-- of one owner; the transaction that frees time offers the first entry that fits a hold.
CREATE TABLE "waitlist_entries" (
	"id" uuid PRIMARY KEY NOT NULL,
	"customer_id" uuid NOT NULL,
	"agent_id" uuid NOT NULL,
	"owner_id" uuid NOT NULL,
	"meeting_class_id" uuid NOT NULL,
	"calendar_type" text,
	"duration_minutes" integer NOT NULL,
	"window_start" timestamp with time zone NOT NULL,
	"window_end" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone,
	"status" text DEFAULT 'waiting' NOT NULL,
	"hold_id" uuid,
	"offered_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "waitlist_entries_status_check" CHECK ("status" IN ('waiting', 'offered', 'lapsed', 'cancelled')),
	CONSTRAINT "waitlist_entries_duration" CHECK ("duration_minutes" > 0 and "duration_minutes" <= 1440),
	CONSTRAINT "waitlist_entries_window" CHECK ("window_end" > "window_start" and "window_end" - "window_start" >= make_interval(mins => "duration_minutes")),
	CONSTRAINT "waitlist_entries_offer" CHECK (("status" <> 'waiting' or ("hold_id" is null and "offered_at" is null)) and ("status" <> 'offered' or ("hold_id" is not null and "offered_at" is not null)))
);
--> statement-breakpoint
ALTER TABLE "waitlist_entries" ADD CONSTRAINT "waitlist_entries_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "waitlist_entries" ADD CONSTRAINT "waitlist_entries_hold_id_claims_id_fk" FOREIGN KEY ("hold_id") REFERENCES "public"."claims"("id") ON DELETE set null ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "waitlist_entries" ADD CONSTRAINT "waitlist_entries_agent_fk" FOREIGN KEY ("customer_id","agent_id") REFERENCES "public"."agents"("customer_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "waitlist_entries" ADD CONSTRAINT "waitlist_entries_owner_fk" FOREIGN KEY ("customer_id","owner_id") REFERENCES "public"."owners"("customer_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "waitlist_entries" ADD CONSTRAINT "waitlist_entries_meeting_class_fk" FOREIGN KEY ("customer_id","meeting_class_id") REFERENCES "public"."meeting_classes"("customer_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "waitlist_entries_owner_waiting_idx" ON "waitlist_entries" USING btree ("owner_id","created_at") WHERE "waitlist_entries"."status" = 'waiting';
--> statement-breakpoint
CREATE INDEX "waitlist_entries_agent_idx" ON "waitlist_entries" USING btree ("customer_id","agent_id","created_at");
--> statement-breakpoint
CREATE INDEX "waitlist_entries_hold_idx" ON "waitlist_entries" USING btree ("hold_id") WHERE "waitlist_entries"."hold_id" is not null;
--> statement-breakpoint
ALTER TABLE "notifications" DROP CONSTRAINT "notifications_kind_check";
--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_kind_check" CHECK ("notifications"."kind" in ('hold.expired', 'booking.preempted', 'booking.cancelled', 'booking.rescheduled', 'booking.reminder', 'proposal.reviewed', 'booking.approved', 'booking.declined', 'webhook.disabled', 'waitlist.offered'));
--> statement-breakpoint
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_kind_check";
--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_kind_check" CHECK ("webhook_deliveries"."kind" in ('hold.expired', 'booking.preempted', 'booking.cancelled', 'booking.rescheduled', 'booking.reminder', 'proposal.reviewed', 'booking.approved', 'booking.declined', 'webhook.disabled', 'waitlist.offered', 'booking.created', 'booking.confirmed', 'proposal.created', 'webhook.test'));
