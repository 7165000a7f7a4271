-- Reminders (docs/reliability.md "Reminders"): a meeting class and a public meeting type name
-- the offsets before a meeting at which its attendees are reminded (at most 5, each 5 minutes to
-- 7 days); a type's null list means its class's. Each booking's reminders are rows of
-- booking_reminders, written, moved and dropped in the transaction of the booking's own change,
-- and sent by the reminder worker under a lease, once: unique (booking, offset), and the row
-- turns 'sent' in the transaction that writes its notification and webhook event.
ALTER TABLE "meeting_classes" ADD COLUMN "reminder_offsets_minutes" integer[] DEFAULT '{}' NOT NULL;
--> statement-breakpoint
ALTER TABLE "meeting_classes" ADD CONSTRAINT "meeting_classes_reminder_offsets_check" CHECK (cardinality("meeting_classes"."reminder_offsets_minutes") <= 5 and 5 <= all("meeting_classes"."reminder_offsets_minutes") and 10080 >= all("meeting_classes"."reminder_offsets_minutes"));
--> statement-breakpoint
ALTER TABLE "public_meeting_types" ADD COLUMN "reminder_offsets_minutes" integer[];
--> statement-breakpoint
ALTER TABLE "public_meeting_types" ADD CONSTRAINT "public_meeting_types_reminder_offsets_check" CHECK ("public_meeting_types"."reminder_offsets_minutes" is null or (cardinality("public_meeting_types"."reminder_offsets_minutes") <= 5 and 5 <= all("public_meeting_types"."reminder_offsets_minutes") and 10080 >= all("public_meeting_types"."reminder_offsets_minutes")));
--> statement-breakpoint
CREATE TABLE "booking_reminders" (
	"id" uuid PRIMARY KEY NOT NULL,
	"customer_id" uuid NOT NULL,
	"booking_id" uuid NOT NULL,
	"offset_minutes" integer NOT NULL,
	"due_at" timestamp with time zone NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"lease_until" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	"sent_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "booking_reminders_booking_offset_key" UNIQUE("booking_id","offset_minutes"),
	CONSTRAINT "booking_reminders_status_check" CHECK ("booking_reminders"."status" in ('pending', 'sent', 'skipped')),
	CONSTRAINT "booking_reminders_offset_check" CHECK ("booking_reminders"."offset_minutes" between 5 and 10080)
);
--> statement-breakpoint
ALTER TABLE "booking_reminders" ADD CONSTRAINT "booking_reminders_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
-- Deferred like the claims' own links (migration 0006): a booking's reminders are written before
-- its deferred insert reaches the database (db/hot/driver.ts defer).
ALTER TABLE "booking_reminders" ADD CONSTRAINT "booking_reminders_booking_id_claims_id_fk" FOREIGN KEY ("booking_id") REFERENCES "public"."claims"("id") ON DELETE cascade ON UPDATE no action DEFERRABLE INITIALLY DEFERRED;
--> statement-breakpoint
CREATE INDEX "booking_reminders_due_idx" ON "booking_reminders" USING btree ("due_at") WHERE "booking_reminders"."status" = 'pending';
--> statement-breakpoint
CREATE INDEX "booking_reminders_customer_due_idx" ON "booking_reminders" USING btree ("customer_id","due_at") WHERE "booking_reminders"."status" = 'pending';
--> statement-breakpoint
-- booking.reminder joins the kinds; the lists keep booking.approved and booking.declined, which
-- migration 0032 (agent approval policy, merged beside this one) adds, so either order of merge
-- leaves every kind allowed.
ALTER TABLE "notifications" DROP CONSTRAINT "notifications_kind_check";
--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_kind_check" CHECK ("notifications"."kind" in ('hold.expired', 'booking.preempted', 'booking.cancelled', 'booking.rescheduled', 'booking.reminder', 'proposal.reviewed', 'booking.approved', 'booking.declined', 'webhook.disabled'));
--> statement-breakpoint
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_kind_check";
--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_kind_check" CHECK ("webhook_deliveries"."kind" in ('hold.expired', 'booking.preempted', 'booking.cancelled', 'booking.rescheduled', 'booking.reminder', 'proposal.reviewed', 'booking.approved', 'booking.declined', 'webhook.disabled', 'booking.created', 'booking.confirmed', 'proposal.created', 'webhook.test'));
--> statement-breakpoint
-- Wake the reminder workers on commit (docs/reliability.md "Reminders"): a pending reminder
-- written or moved is announced on "booking_reminders" with its due time as the payload, so a
-- worker sets its one timer to the earliest due time it knows and sleeps until then.
CREATE FUNCTION "booking_reminders_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status = 'pending' THEN
    PERFORM pg_notify('booking_reminders', to_char(NEW.due_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'));
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "booking_reminders_scheduled" AFTER INSERT OR UPDATE OF "due_at" ON "booking_reminders" FOR EACH ROW EXECUTE FUNCTION "booking_reminders_changed"();
--> statement-breakpoint
-- A booking's reminders follow it, in the transaction that changes it, whoever writes the change
-- (an agent's cancel, a group's, the dashboard's, a requester's, a preemption, a reschedule): a
-- booking that is no longer confirmed loses its pending reminders; a booking that moves has its
-- reminders due again before its new start (a reminder already sent for the old time is sent
-- again for the new one), less those whose new due time has passed.
CREATE FUNCTION "claims_reminders_follow"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status <> 'confirmed' THEN
    DELETE FROM "booking_reminders" WHERE "booking_id" = NEW.id AND "status" = 'pending';
  ELSIF NEW.start_at IS DISTINCT FROM OLD.start_at THEN
    DELETE FROM "booking_reminders" WHERE "booking_id" = NEW.id AND NEW.start_at - make_interval(mins => "offset_minutes") <= now();
    UPDATE "booking_reminders" SET "due_at" = NEW.start_at - make_interval(mins => "offset_minutes"), "status" = 'pending', "sent_at" = NULL, "lease_until" = NULL, "attempts" = 0
      WHERE "booking_id" = NEW.id;
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "claims_reminders_follow" AFTER UPDATE OF "status", "start_at" ON "claims" FOR EACH ROW
  WHEN (NEW.kind = 'booking' AND (NEW.status IS DISTINCT FROM OLD.status OR NEW.start_at IS DISTINCT FROM OLD.start_at))
  EXECUTE FUNCTION "claims_reminders_follow"();
