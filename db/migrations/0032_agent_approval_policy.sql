-- An owner's approval policy for agent writes (docs/api.md "Approval policies"): rules on one
-- owner naming an agent, a meeting class, or both; a matching agent booking becomes a request in
-- the owner's inbox with a hold on the time.
CREATE TABLE "approval_policies" (
	"id" uuid PRIMARY KEY NOT NULL,
	"customer_id" uuid NOT NULL,
	"owner_id" uuid NOT NULL,
	"agent_id" uuid,
	"meeting_class_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "approval_policies_subject_check" CHECK ("approval_policies"."agent_id" is not null or "approval_policies"."meeting_class_id" is not null)
);
--> statement-breakpoint
ALTER TABLE "approval_policies" ADD CONSTRAINT "approval_policies_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approval_policies" ADD CONSTRAINT "approval_policies_owner_fk" FOREIGN KEY ("customer_id","owner_id") REFERENCES "public"."owners"("customer_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approval_policies" ADD CONSTRAINT "approval_policies_agent_fk" FOREIGN KEY ("customer_id","agent_id") REFERENCES "public"."agents"("customer_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approval_policies" ADD CONSTRAINT "approval_policies_meeting_class_fk" FOREIGN KEY ("customer_id","meeting_class_id") REFERENCES "public"."meeting_classes"("customer_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "approval_policies_owner_idx" ON "approval_policies" USING btree ("owner_id");--> statement-breakpoint
CREATE INDEX "approval_policies_agent_idx" ON "approval_policies" USING btree ("agent_id") WHERE "approval_policies"."agent_id" is not null;--> statement-breakpoint
CREATE INDEX "approval_policies_meeting_class_idx" ON "approval_policies" USING btree ("meeting_class_id") WHERE "approval_policies"."meeting_class_id" is not null;--> statement-breakpoint
-- One rule per (owner, agent, class): an absent agent or class counts as equal to another absent one.
CREATE UNIQUE INDEX "approval_policies_rule_key" ON "approval_policies" USING btree ("owner_id","agent_id","meeting_class_id") NULLS NOT DISTINCT;--> statement-breakpoint
-- The hold an agent's booking waits on for approval (deferred, as the claim is inserted at COMMIT's pipeline).
ALTER TABLE "booking_proposals" ADD COLUMN "hold_id" uuid;--> statement-breakpoint
ALTER TABLE "booking_proposals" ADD CONSTRAINT "booking_proposals_hold_fk" FOREIGN KEY ("hold_id") REFERENCES "public"."claims"("id") ON DELETE set null DEFERRABLE INITIALLY DEFERRED;--> statement-breakpoint
ALTER TABLE "booking_proposals" ADD CONSTRAINT "booking_proposals_hold_origin" CHECK ("booking_proposals"."hold_id" is null or "booking_proposals"."origin" = 'agent');--> statement-breakpoint
CREATE UNIQUE INDEX "booking_proposals_hold_key" ON "booking_proposals" USING btree ("hold_id") WHERE "booking_proposals"."hold_id" is not null;--> statement-breakpoint
-- The agent hears the owner's decision on its held booking: booking.approved, booking.declined.
ALTER TABLE "notifications" DROP CONSTRAINT "notifications_kind_check";--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_kind_check" CHECK ("notifications"."kind" in ('hold.expired', 'booking.preempted', 'booking.cancelled', 'booking.rescheduled', 'proposal.reviewed', 'booking.approved', 'booking.declined', 'webhook.disabled'));--> statement-breakpoint
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_kind_check";--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_kind_check" CHECK ("webhook_deliveries"."kind" in ('hold.expired', 'booking.preempted', 'booking.cancelled', 'booking.rescheduled', 'proposal.reviewed', 'booking.approved', 'booking.declined', 'webhook.disabled', 'booking.created', 'booking.confirmed', 'proposal.created', 'webhook.test'));
