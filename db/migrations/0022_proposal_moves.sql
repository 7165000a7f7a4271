-- A requester's request to move a booked meeting (docs/public-scheduling.md "Asking to move"):
-- a proposal that names the booking it would move. Approving it reschedules that booking in
-- place instead of booking a new one. At most one such request waits per booking (the partial
-- unique index has the last word on a double submit).
ALTER TABLE "booking_proposals" ADD COLUMN "moves_booking_id" uuid;
--> statement-breakpoint
ALTER TABLE "booking_proposals" ADD CONSTRAINT "booking_proposals_moves_booking_fk" FOREIGN KEY ("moves_booking_id") REFERENCES "public"."claims"("id") ON DELETE cascade;
--> statement-breakpoint
CREATE INDEX "booking_proposals_moves_booking_idx" ON "booking_proposals" USING btree ("moves_booking_id","created_at") WHERE "booking_proposals"."moves_booking_id" is not null;
--> statement-breakpoint
CREATE UNIQUE INDEX "booking_proposals_one_pending_move_key" ON "booking_proposals" USING btree ("moves_booking_id") WHERE "booking_proposals"."moves_booking_id" is not null and "booking_proposals"."status" in ('pending_requester_verification', 'pending_review');
