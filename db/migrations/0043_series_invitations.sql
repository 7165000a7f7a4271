-- A recurring series' invitation (docs/calendars.md "Series invitations"): the series' rule kept
-- (claim_series) so its ICS is one VEVENT with that RRULE, and what the series' last invitation
-- mail said (series_invitations). Webhook events series.created and series.cancelled.
CREATE TABLE "claim_series" (
	"id" uuid PRIMARY KEY NOT NULL,
	"customer_id" uuid NOT NULL,
	"recurrence" text NOT NULL,
	"time_zone" text NOT NULL,
	"first_start" timestamp with time zone NOT NULL,
	"first_end" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "series_invitations" (
	"series_id" uuid PRIMARY KEY NOT NULL,
	"uid" text NOT NULL,
	"sequence" integer DEFAULT 0 NOT NULL,
	"method" text NOT NULL,
	"sent_at" timestamp with time zone NOT NULL,
	"sent" jsonb NOT NULL,
	CONSTRAINT "series_invitations_method_check" CHECK ("series_invitations"."method" in ('REQUEST', 'CANCEL'))
);
--> statement-breakpoint
ALTER TABLE "claim_series" ADD CONSTRAINT "claim_series_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "series_invitations" ADD CONSTRAINT "series_invitations_series_id_claim_series_id_fk" FOREIGN KEY ("series_id") REFERENCES "public"."claim_series"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "claim_series_customer_idx" ON "claim_series" USING btree ("customer_id","created_at");
--> statement-breakpoint
CREATE INDEX "claim_series_created_idx" ON "claim_series" USING btree ("created_at");
--> statement-breakpoint
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_kind_check";
--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_kind_check" CHECK ("webhook_deliveries"."kind" in ('hold.expired', 'booking.preempted', 'booking.cancelled', 'booking.rescheduled', 'booking.reminder', 'proposal.reviewed', 'booking.approved', 'booking.declined', 'webhook.disabled', 'waitlist.offered', 'booking.created', 'booking.confirmed', 'proposal.created', 'series.created', 'series.cancelled', 'webhook.test'));
