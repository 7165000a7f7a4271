-- Reschedule (docs/api.md "Reschedule"): a booking moves in place. `sequence` counts the
-- booking's revisions (a move, an edit of its details); the invitation sweep and the
-- provider write-back compare it with the revision they last sent (booking_invitations.sequence,
-- calendar_booking_events.sequence) and send an update with the same UID.
ALTER TABLE "claims" ADD COLUMN "sequence" integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "calendar_booking_events" ADD COLUMN "sequence" integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "notifications" DROP CONSTRAINT "notifications_kind_check";
--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_kind_check" CHECK ("notifications"."kind" in ('hold.expired', 'booking.preempted', 'booking.cancelled', 'booking.rescheduled', 'proposal.reviewed', 'webhook.disabled'));
--> statement-breakpoint
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_kind_check";
--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_kind_check" CHECK ("webhook_deliveries"."kind" in ('hold.expired', 'booking.preempted', 'booking.cancelled', 'booking.rescheduled', 'proposal.reviewed', 'webhook.disabled', 'booking.created', 'booking.confirmed', 'proposal.created', 'webhook.test'));
