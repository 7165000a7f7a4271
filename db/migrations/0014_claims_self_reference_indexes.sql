-- Every foreign key that points at a claim gets an index led by its column. The three
-- self-references of claims (hold_id, promoted_booking_id, preempted_by_claim_id) had none, nor
-- booking_proposals.booking_id, and calendar_booking_events' index leads with calendar_id: every
-- deleted claim made PostgreSQL scan those tables once per reference (docs/benchmarks.md,
-- "Deleting a customer"). Partial where most rows leave the column null.
CREATE INDEX "claims_hold_id_idx" ON "claims" USING btree ("hold_id") WHERE "claims"."hold_id" is not null;--> statement-breakpoint
CREATE INDEX "claims_promoted_booking_idx" ON "claims" USING btree ("promoted_booking_id") WHERE "claims"."promoted_booking_id" is not null;--> statement-breakpoint
CREATE INDEX "claims_preempted_by_idx" ON "claims" USING btree ("preempted_by_claim_id") WHERE "claims"."preempted_by_claim_id" is not null;--> statement-breakpoint
CREATE INDEX "booking_proposals_booking_idx" ON "booking_proposals" USING btree ("booking_id") WHERE "booking_proposals"."booking_id" is not null;--> statement-breakpoint
CREATE INDEX "calendar_booking_events_claim_id_idx" ON "calendar_booking_events" USING btree ("claim_id");