ALTER TABLE "booking_proposals" DROP CONSTRAINT "booking_proposals_status_check";--> statement-breakpoint
ALTER TABLE "public_meeting_types" ADD COLUMN "description" text;--> statement-breakpoint
ALTER TABLE "public_meeting_types" ADD COLUMN "location" text;--> statement-breakpoint
ALTER TABLE "public_meeting_types" ADD COLUMN "min_notice_hours" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "public_meeting_types" ADD COLUMN "book_instantly" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "booking_proposals" ADD COLUMN "requester_time_zone" text;--> statement-breakpoint
ALTER TABLE "public_meeting_types" ADD CONSTRAINT "public_meeting_types_min_notice_hours_check" CHECK ("public_meeting_types"."min_notice_hours" between 0 and 720);--> statement-breakpoint
ALTER TABLE "booking_proposals" ADD CONSTRAINT "booking_proposals_status_check" CHECK ("booking_proposals"."status" in ('pending_requester_verification', 'pending_review', 'booked', 'declined', 'withdrawn', 'expired', 'cancelled'));